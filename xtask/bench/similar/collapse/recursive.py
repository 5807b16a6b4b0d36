import sys


def read_input():
    lines = sys.stdin.read().split("\n")
    rows, cols = map(int, lines[0].split())
    sel_r, sel_c = map(int, lines[1].split())
    board = [list(lines[2 + i]) for i in range(rows)]
    return rows, cols, sel_r, sel_c, board


def group(board, r, c, colour, seen):
    if r < 0 or c < 0 or r >= len(board) or c >= len(board[0]):
        return
    if (r, c) in seen or board[r][c] != colour:
        return
    seen.add((r, c))
    group(board, r + 1, c, colour, seen)
    group(board, r - 1, c, colour, seen)
    group(board, r, c + 1, colour, seen)
    group(board, r, c - 1, colour, seen)


def drop(board, rows, cols):
    for c in range(cols):
        column = [board[r][c] for r in range(rows) if board[r][c] != "."]
        column = ["."] * (rows - len(column)) + column
        for r in range(rows):
            board[r][c] = column[r]


def close_columns(board, rows, cols):
    half = cols // 2
    columns = [[board[r][c] for r in range(rows)] for c in range(cols)]
    empty = ["."] * rows
    left = [col for col in columns[:half] if col != empty]
    right = [col for col in columns[half:] if col != empty]
    left = [empty] * (half - len(left)) + left
    right = right + [empty] * (cols - half - len(right))
    merged = left + right
    for c in range(cols):
        for r in range(rows):
            board[r][c] = merged[c][r]


def main():
    sys.setrecursionlimit(100000)
    rows, cols, sel_r, sel_c, board = read_input()
    colour = board[sel_r][sel_c]
    if colour != ".":
        seen = set()
        group(board, sel_r, sel_c, colour, seen)
        if len(seen) >= 4:
            for r, c in seen:
                board[r][c] = "."
            drop(board, rows, cols)
            close_columns(board, rows, cols)
    for row in board:
        print("".join(row))


main()
