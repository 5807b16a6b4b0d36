# Go liberties: an object-oriented attempt.
import sys

LEGAL_SIZES = {"9": 9, "13": 13, "19": 19}


class Board:
    def __init__(self, size, rows):
        self.size = size
        self.rows = rows
        self.group_of = {}
        self.liberty_count = {}

    def neighbours(self, r, c):
        result = []
        if r > 0:
            result.append((r - 1, c))
        if r < self.size - 1:
            result.append((r + 1, c))
        if c > 0:
            result.append((r, c - 1))
        if c < self.size - 1:
            result.append((r, c + 1))
        return result

    def flood(self, r, c, number, colour, stones, libs):
        self.group_of[(r, c)] = number
        stones.append((r, c))
        for nr, nc in self.neighbours(r, c):
            here = self.rows[nr][nc]
            if here == ".":
                libs.add((nr, nc))
            elif here == colour and (nr, nc) not in self.group_of:
                self.flood(nr, nc, number, colour, stones, libs)

    def analyse(self):
        sys.setrecursionlimit(10000)
        number = 0
        for r in range(self.size):
            for c in range(self.size):
                if self.rows[r][c] != "." and (r, c) not in self.group_of:
                    number += 1
                    stones, libs = [], set()
                    self.flood(r, c, number, self.rows[r][c], stones, libs)
                    for stone in stones:
                        self.liberty_count[stone] = len(libs)

    def header(self, wide):
        letters = [chr(ord("A") + i) for i in range(self.size)]
        if not wide:
            return "   " + "".join(letters)
        return "   " + "".join(" " + ch * 2 + " " for ch in letters).rstrip()

    def table(self, value):
        lines = []
        for r in range(self.size):
            cells = ""
            for c in range(self.size):
                if self.rows[r][c] == ".":
                    cells += " .. "
                else:
                    cells += " %2d " % value((r, c))
            lines.append(("%2d %s" % (r + 1, cells)).rstrip())
        return lines


def read_board():
    text = sys.stdin.read().splitlines()
    if not text or text[0] not in LEGAL_SIZES:
        print("That is not a legal board size.")
        return None
    size = LEGAL_SIZES[text[0]]
    rows = []
    for i in range(size):
        line = text[i + 1] if i + 1 < len(text) else ""
        if len(line) != size or line.strip(".BW") != "":
            print("There was an illegal character on line %d of the board." % (i + 1))
            return None
        rows.append(line)
    return Board(size, rows)


def main():
    board = read_board()
    if board is None:
        return
    board.analyse()
    print("The Stones")
    print(board.header(False))
    for i, row in enumerate(board.rows):
        print("%2d %s" % (i + 1, row))
    print()
    print("The Liberties")
    print(board.header(True))
    for line in board.table(lambda p: min(board.liberty_count[p], 99)):
        print(line)
    print()
    print("The Groups")
    print(board.header(True))
    for line in board.table(lambda p: board.group_of[p] % 100):
        print(line)


if __name__ == "__main__":
    main()
