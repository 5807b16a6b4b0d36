import sys


class Grid:
    """Five rows of eight columns; row 0 is the top."""

    def __init__(self, rows=5, columns=8):
        self.rows = rows
        self.columns = columns
        self.cells = [["." for _ in range(columns)] for _ in range(rows)]

    def render(self):
        header = "".join(str(i) for i in range(self.columns))
        return "\n".join([header] + ["".join(r) for r in self.cells] + [header])

    def has_room(self, column):
        return self.cells[0][column] == "."

    def place(self, column, marker):
        row = max(r for r in range(self.rows) if self.cells[r][column] == ".")
        self.cells[row][column] = marker
        return row

    def line_length(self, row, column, d_row, d_col):
        marker = self.cells[row][column]
        length = 0
        r, c = row + d_row, column + d_col
        while 0 <= r < self.rows and 0 <= c < self.columns and self.cells[r][c] == marker:
            length += 1
            r += d_row
            c += d_col
        return length

    def wins(self, row, column):
        for d_row, d_col in [(0, 1), (1, 0), (1, 1), (1, -1)]:
            total = 1 + self.line_length(row, column, d_row, d_col) \
                + self.line_length(row, column, -d_row, -d_col)
            if total >= 4:
                return True
        return False

    def is_full(self):
        return not any(self.has_room(c) for c in range(self.columns))


class Game:
    def __init__(self):
        self.grid = Grid()
        self.turn = "X"

    def read_move(self):
        while True:
            sys.stdout.write("Enter a column: ")
            sys.stdout.flush()
            line = sys.stdin.readline()
            if line == "":
                raise EOFError
            text = line.rstrip("\n")
            if len(text) == 1 and "0" <= text <= "7" and self.grid.has_room(int(text)):
                return int(text)
            print("Invalid move. Enter a column number (0-7).")

    def run(self):
        while True:
            print()
            print(self.grid.render())
            print(f"{self.turn}'s turn")
            try:
                column = self.read_move()
            except EOFError:
                return
            row = self.grid.place(column, self.turn)
            if self.grid.wins(row, column) or self.grid.is_full():
                print()
                print(self.grid.render())
                print("Game finished.")
                return
            self.turn = "O" if self.turn == "X" else "X"


if __name__ == "__main__":
    Game().run()
