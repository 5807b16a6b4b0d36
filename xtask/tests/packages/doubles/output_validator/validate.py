# Says 1, 2, ..., n (n from the input), one per line, and wants each doubled; then says 0.
import sys

n = int(open(sys.argv[1]).read())
feedback = sys.argv[3]


def wrong(why):
    with open(feedback + "/judgemessage.txt", "w") as out:
        out.write(why + "\n")
    sys.exit(43)


for k in range(1, n + 1):
    print(k, flush=True)
    line = sys.stdin.readline()
    if not line:
        wrong("no answer to %d" % k)
    try:
        answer = int(line)
    except ValueError:
        wrong("not a number: %r" % line.strip())
    if answer != 2 * k:
        wrong("%d doubled is not %d" % (k, answer))
print(0, flush=True)
sys.exit(42)
