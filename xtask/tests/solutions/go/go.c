/* A student-style solution of the go assignment in C, for the language tests. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char text[1 << 16];
static char *board[19];
static int groups[19][19], liberties[19][19], seen[19][19];
static int stack[361][2], members[361][2];

static void table(const char *title, int values[19][19], int size, int cap) {
    printf("\n%s\n   ", title);
    for (int col = 0; col < size; col++) {
        printf(" %c%c", 'A' + col, 'A' + col);
        if (col + 1 < size) printf(" ");
    }
    printf("\n");
    for (int row = 0; row < size; row++) {
        char line[128];
        int n = sprintf(line, "%2d ", row + 1);
        for (int col = 0; col < size; col++) {
            if (board[row][col] == '.') {
                n += sprintf(line + n, " .. ");
            } else {
                int value = cap ? (values[row][col] > 99 ? 99 : values[row][col]) : values[row][col] % 100;
                n += sprintf(line + n, " %2d ", value);
            }
        }
        while (n > 0 && line[n - 1] == ' ') line[--n] = '\0';
        printf("%s\n", line);
    }
}

int main(void) {
    size_t length = fread(text, 1, sizeof text - 1, stdin);
    text[length] = '\0';
    char *lines[64] = {0};
    int n_lines = 0;
    char *at = text;
    while (n_lines < 64) {
        lines[n_lines++] = at;
        char *end = strchr(at, '\n');
        if (!end) break;
        *end = '\0';
        at = end + 1;
    }
    int size = 0;
    if (!strcmp(lines[0], "9") || !strcmp(lines[0], "13") || !strcmp(lines[0], "19")) {
        size = atoi(lines[0]);
    } else {
        printf("That is not a legal board size.\n");
        return 0;
    }
    for (int row = 0; row < size; row++) {
        char *line = row + 1 < n_lines ? lines[row + 1] : "";
        board[row] = line;
        int legal = (int)strlen(line) == size;
        for (char *c = line; *c; c++) legal &= *c == '.' || *c == 'B' || *c == 'W';
        if (!legal) {
            printf("There was an illegal character on line %d of the board.\n", row + 1);
            return 0;
        }
    }
    int count = 0, steps[4][2] = {{-1, 0}, {1, 0}, {0, -1}, {0, 1}};
    for (int row = 0; row < size; row++) {
        for (int col = 0; col < size; col++) {
            char colour = board[row][col];
            if (colour == '.' || groups[row][col]) continue;
            count++;
            int top = 0, n_members = 0, free = 0;
            memset(seen, 0, sizeof seen);
            stack[top][0] = row, stack[top][1] = col, top++;
            groups[row][col] = count;
            while (top) {
                top--;
                int r0 = stack[top][0], c0 = stack[top][1];
                members[n_members][0] = r0, members[n_members][1] = c0, n_members++;
                for (int k = 0; k < 4; k++) {
                    int r = r0 + steps[k][0], c = c0 + steps[k][1];
                    if (r < 0 || r >= size || c < 0 || c >= size) continue;
                    if (board[r][c] == '.') {
                        if (!seen[r][c]) seen[r][c] = 1, free++;
                    } else if (board[r][c] == colour && !groups[r][c]) {
                        groups[r][c] = count;
                        stack[top][0] = r, stack[top][1] = c, top++;
                    }
                }
            }
            for (int k = 0; k < n_members; k++) liberties[members[k][0]][members[k][1]] = free;
        }
    }
    printf("The Stones\n   ");
    for (int col = 0; col < size; col++) printf("%c", 'A' + col);
    printf("\n");
    for (int row = 0; row < size; row++) printf("%2d %s\n", row + 1, board[row]);
    table("The Liberties", liberties, size, 1);
    table("The Groups", groups, size, 0);
    return 0;
}
