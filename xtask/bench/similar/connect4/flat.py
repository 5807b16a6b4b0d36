import sys

# the board is one list of 40 cells, row by row from the top
cells = ['.'] * 40
marks = 'XO'
turn = 0
text = ''
lines = sys.stdin.read().split('\n')
if lines and lines[-1] == '':
    lines.pop()
at = 0


def board_text():
    s = '\n01234567\n'
    for r in range(5):
        s += ''.join(cells[r * 8:r * 8 + 8]) + '\n'
    return s + '01234567\n'


while True:
    text += board_text() + marks[turn] + "'s turn\n"
    col = -1
    while col < 0:
        text += 'Enter a column: '
        if at >= len(lines):
            sys.stdout.write(text)
            sys.exit(0)
        entry = lines[at]
        at += 1
        if entry in ['0', '1', '2', '3', '4', '5', '6', '7'] and cells[int(entry)] == '.':
            col = int(entry)
        else:
            text += 'Invalid move. Enter a column number (0-7).\n'
    row = 4
    while cells[row * 8 + col] != '.':
        row -= 1
    cells[row * 8 + col] = marks[turn]
    won = False
    for dr, dc in [(0, 1), (1, 0), (1, 1), (1, -1)]:
        n = 1
        for sign in [1, -1]:
            r = row + dr * sign
            c = col + dc * sign
            while 0 <= r < 5 and 0 <= c < 8 and cells[r * 8 + c] == marks[turn]:
                n += 1
                r += dr * sign
                c += dc * sign
        if n >= 4:
            won = True
    if won or '.' not in cells:
        text += board_text() + 'Game finished.\n'
        break
    turn = 1 - turn
sys.stdout.write(text)
