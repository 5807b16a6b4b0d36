// A student-style solution of the go assignment in Java, for the language tests.
import java.io.*;
import java.util.*;

public class Go {
    public static void main(String[] args) throws IOException {
        String text = new String(System.in.readAllBytes(), "UTF-8");
        String[] lines = text.split("\n", -1);
        StringBuilder out = new StringBuilder();
        int size;
        if (lines[0].equals("9") || lines[0].equals("13") || lines[0].equals("19")) {
            size = Integer.parseInt(lines[0]);
        } else {
            System.out.println("That is not a legal board size.");
            return;
        }
        String[] board = new String[size];
        for (int row = 0; row < size; row++) {
            String line = row + 1 < lines.length ? lines[row + 1] : "";
            board[row] = line;
            boolean legal = line.length() == size;
            for (char ch : line.toCharArray()) {
                legal &= ch == '.' || ch == 'B' || ch == 'W';
            }
            if (!legal) {
                System.out.println("There was an illegal character on line " + (row + 1) + " of the board.");
                return;
            }
        }
        int[][] groups = new int[size][size];
        int[][] liberties = new int[size][size];
        int count = 0;
        int[][] steps = {{-1, 0}, {1, 0}, {0, -1}, {0, 1}};
        for (int row = 0; row < size; row++) {
            for (int col = 0; col < size; col++) {
                char colour = board[row].charAt(col);
                if (colour == '.' || groups[row][col] != 0) continue;
                count++;
                ArrayDeque<int[]> stack = new ArrayDeque<>();
                List<int[]> members = new ArrayList<>();
                Set<Integer> free = new HashSet<>();
                stack.push(new int[] {row, col});
                groups[row][col] = count;
                while (!stack.isEmpty()) {
                    int[] at = stack.pop();
                    members.add(at);
                    for (int[] step : steps) {
                        int r = at[0] + step[0], c = at[1] + step[1];
                        if (r < 0 || r >= size || c < 0 || c >= size) continue;
                        char there = board[r].charAt(c);
                        if (there == '.') {
                            free.add(r * size + c);
                        } else if (there == colour && groups[r][c] == 0) {
                            groups[r][c] = count;
                            stack.push(new int[] {r, c});
                        }
                    }
                }
                for (int[] at : members) liberties[at[0]][at[1]] = free.size();
            }
        }
        String letters = "ABCDEFGHIJKLMNOPQRS".substring(0, size);
        out.append("The Stones\n");
        out.append("   ").append(letters).append('\n');
        for (int row = 0; row < size; row++) {
            out.append(String.format("%2d %s%n", row + 1, board[row]));
        }
        table(out, "The Liberties", liberties, board, letters, true);
        table(out, "The Groups", groups, board, letters, false);
        System.out.print(out);
    }

    static void table(StringBuilder out, String title, int[][] values, String[] board, String letters, boolean cap) {
        int size = board.length;
        out.append('\n').append(title).append('\n');
        StringBuilder head = new StringBuilder("   ");
        for (char ch : letters.toCharArray()) head.append(' ').append(ch).append(ch).append(' ');
        out.append(head.toString().stripTrailing()).append('\n');
        for (int row = 0; row < size; row++) {
            StringBuilder line = new StringBuilder(String.format("%2d ", row + 1));
            for (int col = 0; col < size; col++) {
                if (board[row].charAt(col) == '.') {
                    line.append(" .. ");
                } else {
                    int value = cap ? Math.min(values[row][col], 99) : values[row][col] % 100;
                    line.append(String.format(" %2d ", value));
                }
            }
            out.append(line.toString().stripTrailing()).append('\n');
        }
    }
}
