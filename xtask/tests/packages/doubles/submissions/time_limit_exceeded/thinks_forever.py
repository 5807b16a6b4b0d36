# Takes the first number and never answers: the validator waits, and the time runs out.
k = int(input())
while True:
    k += 1
