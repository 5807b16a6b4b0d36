"""The go assignment with one bug: a liberty two stones of a group share is numbered twice."""
import sys


def main():
    rows = sys.stdin.read().split("\n")
    if rows[0] not in ("9", "13", "19"):
        print("That is not a legal grid size.")
        return
    size = int(rows[0])
    grid = rows[1:size + 1]
    for number, line in enumerate(grid, start=1):
        if len(line) != size or any(ch not in ".BW" for ch in line):
            print(f"There was an illegal character on line {number} of the grid.")
            return
    owner = [[0] * size for _ in range(size)]
    libs = [[0] * size for _ in range(size)]
    number = 0
    for row in range(size):
        for col in range(size):
            if grid[row][col] == "." or owner[row][col]:
                continue
            number += 1
            todo, stones, empty = [(row, col)], [], []
            owner[row][col] = number
            while todo:
                r, c = todo.pop()
                stones.append((r, c))
                for rr, cc in ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1)):
                    if 0 <= rr < size and 0 <= cc < size:
                        if grid[rr][cc] == ".":
                            empty.append((rr, cc))
                        elif grid[rr][cc] == grid[row][col] and not owner[rr][cc]:
                            owner[rr][cc] = number
                            todo.append((rr, cc))
            for r, c in stones:
                libs[r][c] = len(empty)
    letters = "ABCDEFGHIJKLMNOPQRS"[:size]
    print("The Stones")
    print("   " + letters)
    for number, line in enumerate(grid, start=1):
        print(f"{number:>2} {line}")
    for title, table, show in (("The Liberties", libs, lambda v: min(v, 99)), ("The Groups", owner, lambda v: v % 100)):
        print()
        print(title)
        print(("   " + "".join(f" {ch}{ch} " for ch in letters)).rstrip())
        for row in range(size):
            cells = "".join(" .. " if grid[row][col] == "." else f" {show(table[row][col]):>2} " for col in range(size))
            print(f"{row + 1:>2} {cells}".rstrip())


main()
