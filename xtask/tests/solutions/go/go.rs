// A student-style solution of the go assignment in Rust, for the language tests.
use std::collections::HashSet;
use std::io::Read;

fn table(out: &mut String, title: &str, values: &[Vec<usize>], board: &[Vec<u8>], letters: &str, cap: bool) {
    out.push_str(&format!("\n{title}\n"));
    let head: String = letters.chars().map(|ch| format!(" {ch}{ch} ")).collect();
    out.push_str(format!("   {head}").trim_end());
    out.push('\n');
    for (row, line) in board.iter().enumerate() {
        let mut text = format!("{:>2} ", row + 1);
        for (col, &cell) in line.iter().enumerate() {
            if cell == b'.' {
                text.push_str(" .. ");
            } else {
                let value = if cap { values[row][col].min(99) } else { values[row][col] % 100 };
                text.push_str(&format!(" {value:>2} "));
            }
        }
        out.push_str(text.trim_end());
        out.push('\n');
    }
}

fn main() {
    let mut text = String::new();
    std::io::stdin().read_to_string(&mut text).unwrap();
    let lines: Vec<&str> = text.split('\n').collect();
    let size: usize = match lines[0] {
        "9" | "13" | "19" => lines[0].parse().unwrap(),
        _ => {
            println!("That is not a legal board size.");
            return;
        }
    };
    let mut board: Vec<Vec<u8>> = Vec::new();
    for row in 0..size {
        let line = lines.get(row + 1).copied().unwrap_or("");
        if line.len() != size || line.bytes().any(|b| !b".BW".contains(&b)) {
            println!("There was an illegal character on line {} of the board.", row + 1);
            return;
        }
        board.push(line.as_bytes().to_vec());
    }
    let mut groups = vec![vec![0usize; size]; size];
    let mut liberties = vec![vec![0usize; size]; size];
    let mut count = 0;
    for row in 0..size {
        for col in 0..size {
            let colour = board[row][col];
            if colour == b'.' || groups[row][col] != 0 {
                continue;
            }
            count += 1;
            let mut stack = vec![(row, col)];
            let mut members = Vec::new();
            let mut free = HashSet::new();
            groups[row][col] = count;
            while let Some((r0, c0)) = stack.pop() {
                members.push((r0, c0));
                for (dr, dc) in [(-1i32, 0i32), (1, 0), (0, -1), (0, 1)] {
                    let (r, c) = (r0 as i32 + dr, c0 as i32 + dc);
                    if r < 0 || c < 0 || r >= size as i32 || c >= size as i32 {
                        continue;
                    }
                    let (r, c) = (r as usize, c as usize);
                    if board[r][c] == b'.' {
                        free.insert((r, c));
                    } else if board[r][c] == colour && groups[r][c] == 0 {
                        groups[r][c] = count;
                        stack.push((r, c));
                    }
                }
            }
            for (r, c) in members {
                liberties[r][c] = free.len();
            }
        }
    }
    let letters = &"ABCDEFGHIJKLMNOPQRS"[..size];
    let mut out = format!("The Stones\n   {letters}\n");
    for (row, line) in board.iter().enumerate() {
        out.push_str(&format!("{:>2} {}\n", row + 1, String::from_utf8_lossy(line)));
    }
    table(&mut out, "The Liberties", &liberties, &board, letters, true);
    table(&mut out, "The Groups", &groups, &board, letters, false);
    print!("{out}");
}
