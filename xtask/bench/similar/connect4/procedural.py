ROWS = 5
COLS = 8


def make_board():
    return [['.'] * COLS for _ in range(ROWS)]


def show(board):
    print()
    print('01234567')
    for row in board:
        print(''.join(row))
    print('01234567')


def drop(board, col, piece):
    for row in range(ROWS - 1, -1, -1):
        if board[row][col] == '.':
            board[row][col] = piece
            return True
    return False


def four_from(board, row, col, dr, dc):
    piece = board[row][col]
    if piece == '.':
        return False
    for step in range(1, 4):
        r = row + dr * step
        c = col + dc * step
        if r < 0 or r >= ROWS or c < 0 or c >= COLS or board[r][c] != piece:
            return False
    return True


def winner(board):
    for row in range(ROWS):
        for col in range(COLS):
            for dr, dc in ((0, 1), (1, 0), (1, 1), (-1, 1)):
                if four_from(board, row, col, dr, dc):
                    return True
    return False


def full(board):
    return all(board[0][col] != '.' for col in range(COLS))


def ask(board):
    answer = input('Enter a column: ')
    while len(answer) != 1 or answer not in '01234567' or board[0][int(answer)] != '.':
        print('Invalid move. Enter a column number (0-7).')
        answer = input('Enter a column: ')
    return int(answer)


def main():
    board = make_board()
    player = 'X'
    while True:
        show(board)
        print(player + "'s turn")
        try:
            col = ask(board)
        except EOFError:
            return
        drop(board, col, player)
        if winner(board) or full(board):
            show(board)
            print('Game finished.')
            return
        player = 'O' if player == 'X' else 'X'


main()
