# Input validator of the exported `columns` package: accepts the inputs that follow the format
# docs/specs/columns.md describes (rows >= 4, columns >= 3, EMPTY or CONTENTS with its lines,
# then commands) and rejects any other. Exit 42: accepted; 43: rejected.
import re
import sys

COLORS = "STVWXYZ"


def main():
    data = sys.stdin.buffer.read()
    if b"\r" in data or not data.endswith(b"\n"):
        return "a carriage return, or no newline at the end"
    try:
        lines = data.decode("ascii")[:-1].split("\n")
    except UnicodeDecodeError:
        return "not ASCII"
    if len(lines) < 3 or not all(re.fullmatch(r"[1-9][0-9]*", x) for x in lines[:2]):
        return "the first two lines are not the rows and the columns"
    rows, cols = int(lines[0]), int(lines[1])
    if rows < 4 or cols < 3:
        return "a field of %d x %d" % (rows, cols)
    at = 3
    if lines[2] == "CONTENTS":
        field = lines[3:3 + rows]
        if len(field) != rows or any(not re.fullmatch("[%s ]{%d}" % (COLORS, cols), f) for f in field):
            return "not %d lines of %d colors or spaces" % (rows, cols)
        at += rows
    elif lines[2] != "EMPTY":
        return "line 3 is neither EMPTY nor CONTENTS"
    command = re.compile(r"|R|<|>|Q|F ([1-9][0-9]*) [%s] [%s] [%s]" % (COLORS, COLORS, COLORS))
    for number, line in enumerate(lines[at:], at + 1):
        found = command.fullmatch(line)
        if not found:
            return "line %d is no command" % number
        if found.group(1) and int(found.group(1)) > cols:
            return "line %d names a column off the field" % number
        if line == "Q" and number != len(lines):
            return "lines after Q"
    return None


why = main()
if why:
    print(why, file=sys.stderr)
sys.exit(43 if why else 42)
