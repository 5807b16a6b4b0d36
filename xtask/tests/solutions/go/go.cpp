// A student-style solution of the go assignment in C++, for the language tests.
#include <algorithm>
#include <iostream>
#include <iterator>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

using namespace std;

static string trimmed(string line) {
    while (!line.empty() && line.back() == ' ') line.pop_back();
    return line;
}

static void table(ostream &out, const string &title, const vector<vector<int>> &values,
                  const vector<string> &board, const string &letters, bool cap) {
    int size = board.size();
    out << "\n" << title << "\n";
    string head = "   ";
    for (char ch : letters) head += string(" ") + ch + ch + " ";
    out << trimmed(head) << "\n";
    for (int row = 0; row < size; row++) {
        char number[8];
        snprintf(number, sizeof number, "%2d ", row + 1);
        string line = number;
        for (int col = 0; col < size; col++) {
            if (board[row][col] == '.') {
                line += " .. ";
            } else {
                int value = cap ? min(values[row][col], 99) : values[row][col] % 100;
                char cell[8];
                snprintf(cell, sizeof cell, " %2d ", value);
                line += cell;
            }
        }
        out << trimmed(line) << "\n";
    }
}

int main() {
    string text((istreambuf_iterator<char>(cin)), istreambuf_iterator<char>());
    vector<string> lines;
    size_t start = 0;
    while (true) {
        size_t end = text.find('\n', start);
        lines.push_back(text.substr(start, end == string::npos ? string::npos : end - start));
        if (end == string::npos) break;
        start = end + 1;
    }
    if (lines[0] != "9" && lines[0] != "13" && lines[0] != "19") {
        cout << "That is not a legal board size.\n";
        return 0;
    }
    int size = stoi(lines[0]);
    vector<string> board;
    for (int row = 0; row < size; row++) {
        string line = row + 1 < (int)lines.size() ? lines[row + 1] : "";
        bool legal = (int)line.size() == size;
        for (char ch : line) legal = legal && (ch == '.' || ch == 'B' || ch == 'W');
        if (!legal) {
            cout << "There was an illegal character on line " << row + 1 << " of the board.\n";
            return 0;
        }
        board.push_back(line);
    }
    vector<vector<int>> groups(size, vector<int>(size)), liberties(size, vector<int>(size));
    int count = 0;
    const int steps[4][2] = {{-1, 0}, {1, 0}, {0, -1}, {0, 1}};
    for (int row = 0; row < size; row++) {
        for (int col = 0; col < size; col++) {
            char colour = board[row][col];
            if (colour == '.' || groups[row][col]) continue;
            count++;
            vector<pair<int, int>> stack{{row, col}}, members;
            set<pair<int, int>> free;
            groups[row][col] = count;
            while (!stack.empty()) {
                auto [r0, c0] = stack.back();
                stack.pop_back();
                members.push_back({r0, c0});
                for (auto &step : steps) {
                    int r = r0 + step[0], c = c0 + step[1];
                    if (r < 0 || r >= size || c < 0 || c >= size) continue;
                    if (board[r][c] == '.') {
                        free.insert({r, c});
                    } else if (board[r][c] == colour && !groups[r][c]) {
                        groups[r][c] = count;
                        stack.push_back({r, c});
                    }
                }
            }
            for (auto [r, c] : members) liberties[r][c] = free.size();
        }
    }
    string letters = string("ABCDEFGHIJKLMNOPQRS").substr(0, size);
    ostringstream out;
    out << "The Stones\n   " << letters << "\n";
    for (int row = 0; row < size; row++) {
        char number[8];
        snprintf(number, sizeof number, "%2d ", row + 1);
        out << number << board[row] << "\n";
    }
    table(out, "The Liberties", liberties, board, letters, true);
    table(out, "The Groups", groups, board, letters, false);
    cout << out.str();
    return 0;
}
