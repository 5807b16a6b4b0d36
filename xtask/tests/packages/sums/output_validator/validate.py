# Accepts two positive integers that add up to the input's number.
import sys

n = int(open(sys.argv[1]).read())
words = sys.stdin.read().split()
feedback = sys.argv[3]


def reject(why):
    with open(feedback + "/judgemessage.txt", "w") as out:
        out.write(why + "\n")
    sys.exit(43)


if len(words) != 2 or not all(w.isdigit() for w in words):
    reject("not two numbers: %r" % words[:3])
a, b = map(int, words)
if a < 1 or b < 1:
    reject("%d and %d are not both positive" % (a, b))
if a + b != n:
    reject("%d + %d is not %d" % (a, b, n))
sys.exit(42)
