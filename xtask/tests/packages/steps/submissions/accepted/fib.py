# The number of ways up n steps, one or two at a time.
n = int(input())
a, b = 1, 1
for _ in range(n):
    a, b = b, a + b
print(a)
