// A student-style solution of the go assignment in JavaScript, for the language tests.
const lines = require("fs").readFileSync(0, "utf8").split("\n");
const out = [];
function main() {
    if (!["9", "13", "19"].includes(lines[0])) {
        out.push("That is not a legal board size.");
        return;
    }
    const size = Number(lines[0]);
    const board = [];
    for (let row = 0; row < size; row++) {
        const line = lines[row + 1] ?? "";
        if (line.length !== size || [...line].some((ch) => !".BW".includes(ch))) {
            out.push(`There was an illegal character on line ${row + 1} of the board.`);
            return;
        }
        board.push(line);
    }
    const grid = () => Array.from({ length: size }, () => new Array(size).fill(0));
    const groups = grid();
    const liberties = grid();
    let count = 0;
    for (let row = 0; row < size; row++) {
        for (let col = 0; col < size; col++) {
            const colour = board[row][col];
            if (colour === "." || groups[row][col]) continue;
            count++;
            const stack = [[row, col]];
            const members = [];
            const free = new Set();
            groups[row][col] = count;
            while (stack.length) {
                const [r0, c0] = stack.pop();
                members.push([r0, c0]);
                for (const [dr, dc] of [[-1, 0], [1, 0], [0, -1], [0, 1]]) {
                    const r = r0 + dr;
                    const c = c0 + dc;
                    if (r < 0 || r >= size || c < 0 || c >= size) continue;
                    if (board[r][c] === ".") free.add(r * size + c);
                    else if (board[r][c] === colour && !groups[r][c]) {
                        groups[r][c] = count;
                        stack.push([r, c]);
                    }
                }
            }
            for (const [r, c] of members) liberties[r][c] = free.size;
        }
    }
    const letters = "ABCDEFGHIJKLMNOPQRS".slice(0, size);
    const pad = (n) => String(n).padStart(2);
    out.push("The Stones", "   " + letters);
    board.forEach((line, row) => out.push(`${pad(row + 1)} ${line}`));
    for (const [title, table, show] of [
        ["The Liberties", liberties, (v) => Math.min(v, 99)],
        ["The Groups", groups, (v) => v % 100],
    ]) {
        out.push("", title, ("   " + [...letters].map((ch) => ` ${ch}${ch} `).join("")).trimEnd());
        for (let row = 0; row < size; row++) {
            let cells = "";
            for (let col = 0; col < size; col++) {
                cells += board[row][col] === "." ? " .. " : ` ${pad(show(table[row][col]))} `;
            }
            out.push(`${pad(row + 1)} ${cells}`.trimEnd());
        }
    }
}
main();
process.stdout.write(out.map((line) => line + "\n").join(""));
