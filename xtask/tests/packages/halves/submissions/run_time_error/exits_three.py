n = int(input())
print(n / 2)
raise SystemExit(3)
