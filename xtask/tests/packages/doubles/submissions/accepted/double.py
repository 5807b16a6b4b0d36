while True:
    k = int(input())
    if k == 0:
        break
    print(2 * k, flush=True)
