import sys

data = sys.stdin.read().split('\n')
size = data[0].split(' ')
R = int(size[0])
C = int(size[1])
pos = data[1].split(' ')
pr = int(pos[0])
pc = int(pos[1])
grid = []
for i in range(R):
    grid.append(data[i + 2])

# count the group with an explicit stack
mark = []
for i in range(R):
    mark.append([False] * C)
color = grid[pr][pc]
count = 0
if color != '.':
    todo = [[pr, pc]]
    mark[pr][pc] = True
    while len(todo) > 0:
        cur = todo.pop()
        count += 1
        i = cur[0]
        j = cur[1]
        nbrs = [[i - 1, j], [i + 1, j], [i, j - 1], [i, j + 1]]
        for nb in nbrs:
            a = nb[0]
            b = nb[1]
            if a >= 0 and a < R and b >= 0 and b < C:
                if not mark[a][b] and grid[a][b] == color:
                    mark[a][b] = True
                    todo.append([a, b])

if count >= 4:
    # build the columns as strings, bottom first, without the removed blocks
    cols = []
    for j in range(C):
        s = ''
        for i in range(R - 1, -1, -1):
            if grid[i][j] != '.' and not mark[i][j]:
                s += grid[i][j]
        cols.append(s)
    half = C // 2
    left = []
    for j in range(half):
        if cols[j] != '':
            left.append(cols[j])
    right = []
    for j in range(half, C):
        if cols[j] != '':
            right.append(cols[j])
    while len(left) < half:
        left.insert(0, '')
    while len(right) < C - half:
        right.append('')
    cols = left + right
    grid = []
    for i in range(R):
        height = R - 1 - i
        line = ''
        for j in range(C):
            if height < len(cols[j]):
                line += cols[j][height]
            else:
                line += '.'
        grid.append(line)

for line in grid:
    print(line)
