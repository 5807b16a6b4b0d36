import sys

# state of the game, kept in module-level variables
field = []
status = []          # '' frozen or empty, 'm' matched
faller = None        # dict with col, row (bottom jewel), colors, landed
nrows = 0
ncols = 0


def cell_free(r, c):
    if c < 0 or c >= ncols or r >= nrows:
        return False
    if r < 0:
        return True
    return field[r][c] == ' '


def gravity():
    for c in range(ncols):
        col = ''
        for r in range(nrows):
            if field[r][c] != ' ':
                col += field[r][c]
        col = ' ' * (nrows - len(col)) + col
        for r in range(nrows):
            field[r][c] = col[r]


def mark():
    any_match = False
    for r in range(nrows):
        for c in range(ncols):
            status[r][c] = ''
    directions = [(0, 1), (1, 0), (1, 1), (1, -1)]
    for r in range(nrows):
        for c in range(ncols):
            if field[r][c] == ' ':
                continue
            for d in directions:
                length = 1
                while True:
                    rr = r + d[0] * length
                    cc = c + d[1] * length
                    if rr < 0 or rr >= nrows or cc < 0 or cc >= ncols:
                        break
                    if field[rr][cc] != field[r][c]:
                        break
                    length += 1
                if length >= 3:
                    any_match = True
                    for i in range(length):
                        status[r + d[0] * i][c + d[1] * i] = 'm'
    return any_match


def has_matches():
    for r in range(nrows):
        if 'm' in status[r]:
            return True
    return False


def check_landed():
    faller['landed'] = not cell_free(faller['row'] + 1, faller['col'])


def draw():
    for r in range(nrows):
        s = '|'
        for c in range(ncols):
            piece = None
            if faller is not None and c == faller['col'] and faller['row'] - 2 <= r <= faller['row']:
                piece = faller['colors'][r - faller['row'] + 2]
            if piece is not None:
                if faller['landed']:
                    s += '|' + piece + '|'
                else:
                    s += '[' + piece + ']'
            elif status[r][c] == 'm':
                s += '*' + field[r][c] + '*'
            else:
                s += ' ' + field[r][c] + ' '
        print(s + '|')
    print(' ' + '---' * ncols + ' ')


def tick():
    global faller
    if has_matches():
        for r in range(nrows):
            for c in range(ncols):
                if status[r][c] == 'm':
                    field[r][c] = ' '
        gravity()
        mark()
        return False
    if faller is None:
        return False
    if faller['landed']:
        for i in range(3):
            r = faller['row'] - 2 + i
            if r >= 0:
                field[r][faller['col']] = faller['colors'][i]
        top = faller['row'] - 2
        faller = None
        matched = mark()
        return top < 0 and not matched
    faller['row'] += 1
    check_landed()
    return False


def main():
    global nrows, ncols, faller
    lines = sys.stdin.read().split('\n')
    nrows = int(lines[0])
    ncols = int(lines[1])
    for r in range(nrows):
        field.append([' '] * ncols)
        status.append([''] * ncols)
    pos = 3
    if lines[2] == 'CONTENTS':
        for r in range(nrows):
            for c in range(ncols):
                field[r][c] = lines[3 + r][c]
        pos = 3 + nrows
        gravity()
        mark()
    draw()
    while pos < len(lines):
        cmd = lines[pos]
        pos += 1
        if pos == len(lines) and cmd == '':
            break
        if cmd == 'Q':
            break
        over = False
        if cmd == '':
            over = tick()
        elif cmd == 'R' and faller is not None:
            a, b, c = faller['colors']
            faller['colors'] = [c, a, b]
        elif cmd in ('<', '>') and faller is not None:
            step = -1 if cmd == '<' else 1
            ok = True
            for i in range(3):
                r = faller['row'] - 2 + i
                if r >= 0 and not cell_free(r, faller['col'] + step):
                    ok = False
            if faller['col'] + step < 0 or faller['col'] + step >= ncols:
                ok = False
            if ok:
                faller['col'] += step
                check_landed()
        elif cmd.startswith('F') and faller is None and not has_matches():
            words = cmd.split(' ')
            faller = {'col': int(words[1]) - 1, 'row': 0, 'colors': words[2:5], 'landed': False}
            check_landed()
        draw()
        if over:
            print('GAME OVER')
            break


main()
