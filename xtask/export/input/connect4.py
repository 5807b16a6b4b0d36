# Input validator of the exported `connect4` package: accepts the inputs
# docs/specs/connect4.md grades, which end exactly where the game does, and rejects what it
# leaves unspecified (input ending before the game is over, lines after it, carriage returns,
# spellings like ` 3`, `+3` or `03` that a lenient reading takes for a column). Exit 42:
# accepted; 43: rejected.
import sys


def wins(grid, row, col):
    mark = grid[row][col]
    for dr, dc in ((0, 1), (1, 0), (1, 1), (1, -1)):
        count = 1
        for sign in (1, -1):
            r, c = row + dr * sign, col + dc * sign
            while 0 <= r < 5 and 0 <= c < 8 and grid[r][c] == mark:
                count += 1
                r, c = r + dr * sign, c + dc * sign
        if count >= 4:
            return True
    return False


def main():
    data = sys.stdin.buffer.read()
    if b"\r" in data or not data.endswith(b"\n"):
        return "a carriage return, or no newline at the end"
    try:
        lines = data.decode("ascii")[:-1].split("\n")
    except UnicodeDecodeError:
        return "not ASCII"
    grid = [["."] * 8 for _ in range(5)]
    turn, over = "X", False
    for number, line in enumerate(lines, 1):
        if over:
            return "line %d comes after the game is over" % number
        if len(line) == 1 and line in "01234567":
            col = int(line)
            if grid[0][col] != ".":
                continue
            row = max(r for r in range(5) if grid[r][col] == ".")
            grid[row][col] = turn
            over = wins(grid, row, col) or all(c != "." for c in grid[0])
            turn = "O" if turn == "X" else "X"
            continue
        if line != line.strip():
            return "line %d has spaces around it" % number
        try:
            lenient = int(line)
        except ValueError:
            continue
        if 0 <= lenient <= 7:
            return "line %d, %r, is a column only to a lenient reading" % (number, line)
    return None if over else "the input ends before the game is over"


why = main()
if why:
    print(why, file=sys.stderr)
sys.exit(43 if why else 42)
