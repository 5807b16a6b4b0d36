"""Collapse: remove the selected group and let the board settle."""
from collections import deque
import sys


class Collapse:
    EMPTY = '.'

    def __init__(self, height, width, cells):
        self.height = height
        self.width = width
        self.cells = cells

    def region(self, start_row, start_col):
        colour = self.cells[start_row][start_col]
        if colour == self.EMPTY:
            return []
        queue = deque([(start_row, start_col)])
        found = {(start_row, start_col)}
        while queue:
            row, col = queue.popleft()
            for d_row, d_col in ((0, 1), (1, 0), (0, -1), (-1, 0)):
                n_row, n_col = row + d_row, col + d_col
                if 0 <= n_row < self.height and 0 <= n_col < self.width \
                        and (n_row, n_col) not in found \
                        and self.cells[n_row][n_col] == colour:
                    found.add((n_row, n_col))
                    queue.append((n_row, n_col))
        return list(found)

    def apply_gravity(self):
        for col in range(self.width):
            write = self.height - 1
            for row in range(self.height - 1, -1, -1):
                if self.cells[row][col] != self.EMPTY:
                    self.cells[write][col] = self.cells[row][col]
                    if write != row:
                        self.cells[row][col] = self.EMPTY
                    write -= 1

    def column_empty(self, col):
        return all(self.cells[row][col] == self.EMPTY for row in range(self.height))

    def move_column(self, source, target):
        for row in range(self.height):
            self.cells[row][target] = self.cells[row][source]
            self.cells[row][source] = self.EMPTY

    def shift_halves(self):
        middle = self.width // 2
        # Left half: pack toward the middle, working from the centre outward.
        target = middle - 1
        for col in range(middle - 1, -1, -1):
            if not self.column_empty(col):
                if col != target:
                    self.move_column(col, target)
                target -= 1
        target = middle
        for col in range(middle, self.width):
            if not self.column_empty(col):
                if col != target:
                    self.move_column(col, target)
                target += 1

    def play(self, row, col):
        chosen = self.region(row, col)
        if len(chosen) < 4:
            return
        for r, c in chosen:
            self.cells[r][c] = self.EMPTY
        self.apply_gravity()
        self.shift_halves()

    def __str__(self):
        return '\n'.join(''.join(line) for line in self.cells)


if __name__ == '__main__':
    text = sys.stdin.read().splitlines()
    h, w = (int(x) for x in text[0].split())
    r, c = (int(x) for x in text[1].split())
    game = Collapse(h, w, [list(text[2 + i]) for i in range(h)])
    game.play(r, c)
    print(game)
