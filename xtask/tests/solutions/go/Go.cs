// A student-style solution of the go assignment in C#, for the language tests.
using System;
using System.Collections.Generic;
using System.Text;

public class Go {
    static void Table(StringBuilder output, string title, int[,] values, string[] board, string letters, bool cap) {
        int size = board.Length;
        output.Append("\n" + title + "\n");
        var head = new StringBuilder("   ");
        foreach (char ch in letters) head.Append(" " + ch + ch + " ");
        output.Append(head.ToString().TrimEnd(' ') + "\n");
        for (int row = 0; row < size; row++) {
            var line = new StringBuilder((row + 1).ToString().PadLeft(2) + " ");
            for (int col = 0; col < size; col++) {
                if (board[row][col] == '.') {
                    line.Append(" .. ");
                } else {
                    int value = cap ? Math.Min(values[row, col], 99) : values[row, col] % 100;
                    line.Append(" " + value.ToString().PadLeft(2) + " ");
                }
            }
            output.Append(line.ToString().TrimEnd(' ') + "\n");
        }
    }

    public static void Main() {
        string[] lines = Console.In.ReadToEnd().Split('\n');
        var output = new StringBuilder();
        if (lines[0] != "9" && lines[0] != "13" && lines[0] != "19") {
            Console.Write("That is not a legal board size.\n");
            return;
        }
        int size = int.Parse(lines[0]);
        var board = new string[size];
        for (int row = 0; row < size; row++) {
            string line = row + 1 < lines.Length ? lines[row + 1] : "";
            bool legal = line.Length == size;
            foreach (char ch in line) legal = legal && (ch == '.' || ch == 'B' || ch == 'W');
            if (!legal) {
                Console.Write("There was an illegal character on line " + (row + 1) + " of the board.\n");
                return;
            }
            board[row] = line;
        }
        var groups = new int[size, size];
        var liberties = new int[size, size];
        int count = 0;
        int[,] steps = {{-1, 0}, {1, 0}, {0, -1}, {0, 1}};
        for (int row = 0; row < size; row++) {
            for (int col = 0; col < size; col++) {
                char colour = board[row][col];
                if (colour == '.' || groups[row, col] != 0) continue;
                count++;
                var stack = new Stack<int>();
                var members = new List<int>();
                var free = new HashSet<int>();
                stack.Push(row * size + col);
                groups[row, col] = count;
                while (stack.Count > 0) {
                    int at = stack.Pop();
                    members.Add(at);
                    for (int k = 0; k < 4; k++) {
                        int r = at / size + steps[k, 0], c = at % size + steps[k, 1];
                        if (r < 0 || r >= size || c < 0 || c >= size) continue;
                        if (board[r][c] == '.') {
                            free.Add(r * size + c);
                        } else if (board[r][c] == colour && groups[r, c] == 0) {
                            groups[r, c] = count;
                            stack.Push(r * size + c);
                        }
                    }
                }
                foreach (int at in members) liberties[at / size, at % size] = free.Count;
            }
        }
        string letters = "ABCDEFGHIJKLMNOPQRS".Substring(0, size);
        output.Append("The Stones\n   " + letters + "\n");
        for (int row = 0; row < size; row++) output.Append((row + 1).ToString().PadLeft(2) + " " + board[row] + "\n");
        Table(output, "The Liberties", liberties, board, letters, true);
        Table(output, "The Groups", groups, board, letters, false);
        Console.Write(output.ToString());
    }
}
