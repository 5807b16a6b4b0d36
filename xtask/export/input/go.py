# Input validator of the exported `go` package: accepts the inputs docs/specs/go.md grades and
# rejects what it leaves unspecified (sizes with spaces or leading zeros, board lines of the
# wrong length, missing lines, carriage returns). Exit 42: accepted; 43: rejected.
import re
import sys


def main():
    data = sys.stdin.buffer.read()
    if b"\r" in data or not data.endswith(b"\n"):
        return "a carriage return, or no newline at the end"
    try:
        text = data.decode("ascii")
    except UnicodeDecodeError:
        return "not ASCII"
    lines = text[:-1].split("\n")
    size = lines[0]
    if size not in ("9", "13", "19"):
        # A size error: the message, whatever follows.
        if re.fullmatch(r"-?[1-9][0-9]*|0|[A-Za-z]+|", size):
            return None
        return "a size line with spaces or leading zeros: %r" % size
    n = int(size)
    if len(lines) != n + 1:
        return "%d board lines, not %d" % (len(lines) - 1, n)
    for number, line in enumerate(lines[1:], 1):
        if len(line) != n or any(not (c.isprintable() or c == "\t") for c in line):
            return "board line %d is not %d characters" % (number, n)
    return None


why = main()
if why:
    print(why, file=sys.stderr)
sys.exit(43 if why else 42)
