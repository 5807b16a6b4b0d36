# Input validator of the exported `collapse` package: accepts the inputs
# docs/specs/collapse.md grades (`R C` with C even, `r c` on the board, R lines of C digits or
# `.`, a legal position whose empty columns stay within their own half) and rejects the rest.
# Exit 42: accepted; 43: rejected.
import re
import sys


def main():
    data = sys.stdin.buffer.read()
    if b"\r" in data or not data.endswith(b"\n"):
        return "a carriage return, or no newline at the end"
    lines = data.decode("ascii", "replace")[:-1].split("\n")
    number = r"(0|[1-9][0-9]*)"
    head = re.fullmatch(number + " " + number, lines[0])
    place = re.fullmatch(number + " " + number, lines[1]) if len(lines) > 1 else None
    if not head or not place:
        return "the first two lines are not two numbers each"
    rows, cols = int(head.group(1)), int(head.group(2))
    row, col = int(place.group(1)), int(place.group(2))
    if rows < 1 or cols < 1 or cols % 2 or not (row < rows and col < cols):
        return "a board of %d x %d, or a place off it" % (rows, cols)
    board = lines[2:]
    if len(board) != rows or any(not re.fullmatch(r"[0-9.]{%d}" % cols, line) for line in board):
        return "not %d lines of %d digits or dots" % (rows, cols)
    for c in range(cols):
        column = "".join(line[c] for line in board)
        if "." in column.lstrip(".") and column.lstrip(".") != "":
            return "a block above an empty cell in column %d" % c
    empty = [all(line[c] == "." for line in board) for c in range(cols)]
    half = cols // 2
    left, right = empty[:half], empty[half:]
    # Empty columns only at the sides, each side's within its own half.
    if "".join("e" if e else "f" for e in left).lstrip("e").count("e"):
        return "an empty column between filled ones in the left half"
    if "".join("e" if e else "f" for e in right).rstrip("e").count("e"):
        return "an empty column between filled ones in the right half"
    return None


why = main()
if why:
    print(why, file=sys.stderr)
sys.exit(43 if why else 42)
