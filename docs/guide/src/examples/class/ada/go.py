"""The go assignment, as a student might write it: the guide's correct example."""
import sys


def main():
    lines = sys.stdin.read().split("\n")
    if lines[0] not in ("9", "13", "19"):
        print("That is not a legal board size.")
        return
    size = int(lines[0])
    board = lines[1:size + 1]
    for number, line in enumerate(board, start=1):
        if len(line) != size or any(ch not in ".BW" for ch in line):
            print(f"There was an illegal character on line {number} of the board.")
            return
    groups = [[0] * size for _ in range(size)]
    liberties = [[0] * size for _ in range(size)]
    count = 0
    for row in range(size):
        for col in range(size):
            if board[row][col] == "." or groups[row][col]:
                continue
            count += 1
            stack, members, free = [(row, col)], [], set()
            groups[row][col] = count
            while stack:
                r, c = stack.pop()
                members.append((r, c))
                for rr, cc in ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1)):
                    if 0 <= rr < size and 0 <= cc < size:
                        if board[rr][cc] == ".":
                            free.add((rr, cc))
                        elif board[rr][cc] == board[row][col] and not groups[rr][cc]:
                            groups[rr][cc] = count
                            stack.append((rr, cc))
            for r, c in members:
                liberties[r][c] = len(free)
    letters = "ABCDEFGHIJKLMNOPQRS"[:size]
    print("The Stones")
    print("   " + letters)
    for number, line in enumerate(board, start=1):
        print(f"{number:>2} {line}")
    for title, table, show in (("The Liberties", liberties, lambda v: min(v, 99)), ("The Groups", groups, lambda v: v % 100)):
        print()
        print(title)
        print(("   " + "".join(f" {ch}{ch} " for ch in letters)).rstrip())
        for row in range(size):
            cells = "".join(" .. " if board[row][col] == "." else f" {show(table[row][col]):>2} " for col in range(size))
            print(f"{row + 1:>2} {cells}".rstrip())


main()
