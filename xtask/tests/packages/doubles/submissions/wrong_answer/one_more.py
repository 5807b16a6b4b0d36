import sys

while True:
    k = int(sys.stdin.readline() or 0)
    if k == 0:
        break
    print(2 * k + 1, flush=True)
