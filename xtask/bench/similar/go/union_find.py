import sys

def find(parent, x):
    while parent[x] != x:
        parent[x] = parent[parent[x]]
        x = parent[x]
    return x

def union(parent, a, b):
    ra = find(parent, a)
    rb = find(parent, b)
    if ra != rb:
        if ra < rb:
            parent[rb] = ra
        else:
            parent[ra] = rb

def labels(n):
    return "ABCDEFGHIJKLMNOPQRSTUVWXYZ"[:n]

def print_numbers(n, grid, numbers):
    out = []
    for i in range(n):
        s = str(i + 1).rjust(2) + " "
        for j in range(n):
            if grid[i][j] == '.':
                s = s + " .. "
            else:
                s = s + " " + str(numbers[i * n + j]).rjust(2) + " "
        out.append(s.rstrip())
    return out

data = sys.stdin.read().split('\n')
first = data[0]
if first != '9' and first != '13' and first != '19':
    print("That is not a legal board size.")
    sys.exit(0)
n = int(first)
grid = []
k = 1
while k <= n:
    row = data[k] if k < len(data) else ''
    ok = len(row) == n
    for ch in row:
        if ch != '.' and ch != 'B' and ch != 'W':
            ok = False
    if not ok:
        print("There was an illegal character on line " + str(k) + " of the board.")
        sys.exit(0)
    grid.append(row)
    k = k + 1

parent = list(range(n * n))
for i in range(n):
    for j in range(n):
        if grid[i][j] == '.':
            continue
        if i + 1 < n and grid[i + 1][j] == grid[i][j]:
            union(parent, i * n + j, (i + 1) * n + j)
        if j + 1 < n and grid[i][j + 1] == grid[i][j]:
            union(parent, i * n + j, i * n + j + 1)

libs = {}
for i in range(n):
    for j in range(n):
        if grid[i][j] != '.':
            continue
        for (a, b) in [(i - 1, j), (i + 1, j), (i, j - 1), (i, j + 1)]:
            if a >= 0 and a < n and b >= 0 and b < n and grid[a][b] != '.':
                root = find(parent, a * n + b)
                libs.setdefault(root, set()).add(i * n + j)

number_of_root = {}
next_number = 1
group_numbers = [0] * (n * n)
liberty_numbers = [0] * (n * n)
for p in range(n * n):
    if grid[p // n][p % n] == '.':
        continue
    root = find(parent, p)
    if root not in number_of_root:
        number_of_root[root] = next_number
        next_number = next_number + 1
    group_numbers[p] = number_of_root[root] % 100
    liberty_numbers[p] = min(len(libs.get(root, ())), 99)

print("The Stones")
print("   " + labels(n))
for i in range(n):
    print(str(i + 1).rjust(2) + " " + grid[i])
wide = "   "
for ch in labels(n):
    wide = wide + " " + ch + ch + " "
print()
print("The Liberties")
print(wide.rstrip())
for line in print_numbers(n, grid, liberty_numbers):
    print(line)
print()
print("The Groups")
print(wide.rstrip())
for line in print_numbers(n, grid, group_numbers):
    print(line)
