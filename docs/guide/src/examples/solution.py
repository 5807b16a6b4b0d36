"""An instructor's own assignment: count the words of the input."""
import sys

print(len(sys.stdin.read().split()))
