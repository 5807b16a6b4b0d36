"""One random input per seed: the same input for the same seed."""
import random
import sys

rng = random.Random(int(sys.argv[1]))
for _ in range(rng.randint(0, 5)):
    print(" ".join("w" * rng.randint(1, 4) for _ in range(rng.randint(0, 6))))
