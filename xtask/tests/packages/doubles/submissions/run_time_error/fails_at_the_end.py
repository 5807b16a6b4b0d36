while True:
    k = int(input())
    if k == 0:
        raise SystemExit(3)
    print(2 * k, flush=True)
