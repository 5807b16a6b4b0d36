"""A program that never ends: the harness stops it at its time limit."""
while True:
    pass
