import sys
R = int(input()); C = int(input())
G = [[' '] * C for _ in range(R)]
if input() == 'CONTENTS':
    G = [list(input()) for _ in range(R)]
M = set()
F = None  # [column, bottom row, [top, middle, bottom], landed]


def fall():
    for c in range(C):
        js = [G[r][c] for r in range(R) if G[r][c] != ' ']
        for r in range(R):
            k = r - (R - len(js))
            G[r][c] = js[k] if k >= 0 else ' '


def match():
    found = set()
    for r in range(R):
        for c in range(C):
            for dr, dc in ((0, 1), (1, 0), (1, 1), (-1, 1)):
                cells = [(r + dr * i, c + dc * i) for i in range(3)]
                if all(0 <= a < R and 0 <= b < C for a, b in cells):
                    if G[r][c] != ' ' and all(G[a][b] == G[r][c] for a, b in cells):
                        found |= set(cells)
    return found


def free(r, c):
    return 0 <= c < C and r < R and (r < 0 or G[r][c] == ' ')


def show():
    out = []
    for r in range(R):
        row = ''
        for c in range(C):
            if F and F[0] == c and F[1] - 2 <= r <= F[1]:
                j = F[2][r - F[1] + 2]
                row += ('|%s|' if F[3] else '[%s]') % j
            elif (r, c) in M:
                row += '*' + G[r][c] + '*'
            else:
                row += ' ' + G[r][c] + ' '
        out.append('|' + row + '|')
    out.append(' ' + '-' * 3 * C + ' ')
    print('\n'.join(out))


fall()
M = match()
show()
for line in sys.stdin:
    cmd = line.rstrip('\n')
    if cmd == 'Q':
        break
    lost = False
    if cmd == '':
        if M:
            for r, c in M:
                G[r][c] = ' '
            fall()
            M = match()
        elif F and F[3]:
            for i in range(3):
                if F[1] - 2 + i >= 0:
                    G[F[1] - 2 + i][F[0]] = F[2][i]
            M = match()
            lost = F[1] < 2 and not M
            F = None
        elif F:
            F[1] += 1
            F[3] = not free(F[1] + 1, F[0])
    elif cmd == 'R' and F:
        F[2] = F[2][2:] + F[2][:2]
    elif cmd in '<>' and F:
        d = 1 if cmd == '>' else -1
        if all(free(F[1] - i, F[0] + d) for i in range(3)):
            F[0] += d
            F[3] = not free(F[1] + 1, F[0])
    elif cmd[:1] == 'F' and not F and not M:
        p = cmd.split()
        F = [int(p[1]) - 1, 0, p[2:5], False]
        F[3] = not free(1, F[0])
    show()
    if lost:
        print('GAME OVER')
        break
