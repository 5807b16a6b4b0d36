"""Columns, part 1: the game mechanics behind a text interface."""

EMPTY = ' '


class Faller:
    def __init__(self, column, jewels):
        self.column = column
        self.jewels = jewels  # top, middle, bottom
        self.bottom = 0       # row of the bottom jewel; rows above the field are negative
        self.landed = False

    def rotate(self):
        self.jewels = [self.jewels[2], self.jewels[0], self.jewels[1]]

    def cells(self):
        return [(self.bottom - 2 + i, self.column, self.jewels[i]) for i in range(3)]


class Field:
    def __init__(self, rows, columns):
        self.rows = rows
        self.columns = columns
        self.grid = [[EMPTY] * columns for _ in range(rows)]
        self.matched = set()
        self.faller = None
        self.over = False

    def occupied(self, row, column):
        if column < 0 or column >= self.columns or row >= self.rows:
            return True
        return row >= 0 and self.grid[row][column] != EMPTY

    def settle(self):
        for column in range(self.columns):
            stack = [self.grid[r][column] for r in range(self.rows) if self.grid[r][column] != EMPTY]
            stack = [EMPTY] * (self.rows - len(stack)) + stack
            for r in range(self.rows):
                self.grid[r][column] = stack[r]

    def find_matches(self):
        found = set()
        for r in range(self.rows):
            for c in range(self.columns):
                colour = self.grid[r][c]
                if colour == EMPTY:
                    continue
                for dr, dc in ((0, 1), (1, 0), (1, 1), (-1, 1)):
                    run = [(r, c)]
                    rr, cc = r + dr, c + dc
                    while 0 <= rr < self.rows and 0 <= cc < self.columns and self.grid[rr][cc] == colour:
                        run.append((rr, cc))
                        rr, cc = rr + dr, cc + dc
                    if len(run) >= 3:
                        found.update(run)
        self.matched = found

    def update_landing(self):
        f = self.faller
        f.landed = self.occupied(f.bottom + 1, f.column)

    def create(self, column, jewels):
        if self.faller is not None or self.matched:
            return
        self.faller = Faller(column, jewels)
        self.update_landing()

    def move(self, step):
        f = self.faller
        if f is None:
            return
        for row, _, _ in f.cells():
            if row >= 0 and self.occupied(row, f.column + step):
                return
        if f.column + step < 0 or f.column + step >= self.columns:
            return
        f.column += step
        self.update_landing()

    def rotate(self):
        if self.faller is not None:
            self.faller.rotate()

    def tick(self):
        if self.matched:
            for r, c in self.matched:
                self.grid[r][c] = EMPTY
            self.settle()
            self.find_matches()
        elif self.faller is not None and self.faller.landed:
            f = self.faller
            self.faller = None
            for row, column, jewel in f.cells():
                if row >= 0:
                    self.grid[row][column] = jewel
            self.find_matches()
            if f.bottom - 2 < 0 and not self.matched:
                self.over = True
        elif self.faller is not None:
            self.faller.bottom += 1
            self.update_landing()

    def render(self):
        shown = {}
        if self.faller is not None:
            mark = '|{}|' if self.faller.landed else '[{}]'
            for row, column, jewel in self.faller.cells():
                if row >= 0:
                    shown[(row, column)] = mark.format(jewel)
        lines = []
        for r in range(self.rows):
            line = '|'
            for c in range(self.columns):
                if (r, c) in shown:
                    line += shown[(r, c)]
                elif (r, c) in self.matched:
                    line += '*' + self.grid[r][c] + '*'
                else:
                    line += ' ' + self.grid[r][c] + ' '
            lines.append(line + '|')
        lines.append(' ' + '-' * (3 * self.columns) + ' ')
        return '\n'.join(lines)


def main():
    rows = int(input())
    columns = int(input())
    field = Field(rows, columns)
    if input() == 'CONTENTS':
        for r in range(rows):
            field.grid[r] = list(input().ljust(columns)[:columns])
        field.settle()
        field.find_matches()
    while True:
        print(field.render())
        if field.over:
            print('GAME OVER')
            return
        try:
            command = input()
        except EOFError:
            return
        if command == 'Q':
            return
        if command == '':
            field.tick()
        elif command == 'R':
            field.rotate()
        elif command == '<':
            field.move(-1)
        elif command == '>':
            field.move(1)
        elif command.startswith('F '):
            parts = command.split()
            field.create(int(parts[1]) - 1, parts[2:5])


if __name__ == '__main__':
    main()
