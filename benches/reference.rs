//! Throughput of the reference on the largest inputs its issue names. Run with `cargo bench`.
//!
//! Each figure is compared with a baseline measured in the same process: for columns, copying
//! the same number of output bytes into memory; for the others, reading the same input through
//! the driver with a program that ignores it would add nothing useful, so their baseline is one
//! pass over the input bytes.

use std::hint::black_box;
use std::time::{Duration, Instant};

use gridjudge::driver;
use gridjudge::spec;

/// A writer that keeps nothing but the number of bytes written.
struct CountingSink(usize);

impl std::io::Write for CountingSink {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.0 += bytes.len();
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

fn time<T>(mut work: impl FnMut() -> T) -> (Duration, T) {
    let start = Instant::now();
    let result = work();
    (start.elapsed(), result)
}

/// A 100x100 field and 5,000 commands: fallers created across the field, moved, rotated and
/// dropped by ticks.
fn columns_input() -> String {
    let mut input = String::from("100\n100\nEMPTY\n");
    let colors = ["S", "T", "V", "W", "X", "Y", "Z"];
    let mut n_commands = 0;
    let mut faller = 0usize;
    while n_commands < 5000 {
        let col = faller * 37 % 100 + 1;
        let jewels = [0, 1, 2].map(|k| colors[(faller * 3 + k * 5) % 7]);
        input += &format!("F {col} {} {} {}\n", jewels[0], jewels[1], jewels[2]);
        input += "R\n<\n>\n>\n";
        input += &"\n".repeat(110);
        n_commands += 115;
        faller += 1;
    }
    input + "Q\n"
}

fn collapse_input() -> String {
    // The top 500 rows are one group of 1,000,000 blocks; below, a 2/3 checkerboard.
    let mut input = String::from("2000 2000\n0 0\n");
    for row in 0..2000 {
        if row < 500 {
            input += &"1".repeat(2000);
        } else {
            let (a, b) = if row % 2 == 0 { ('2', '3') } else { ('3', '2') };
            input.extend((0..1000).flat_map(|_| [a, b]));
        }
        input.push('\n');
    }
    input
}

fn go_input() -> String {
    // A checkerboard: 361 one-stone groups, the most groups a 19x19 board holds.
    let mut input = String::from("19\n");
    for row in 0..19 {
        input.extend((0..19).map(|col| if (row + col) % 2 == 0 { 'B' } else { 'W' }));
        input.push('\n');
    }
    input
}

fn main() {
    let find = |name| spec::find(name).unwrap();

    let input = columns_input();
    let mut sink = CountingSink(0);
    let (elapsed, _) = time(|| driver::run(find("columns"), input.as_bytes(), &mut sink, None));
    // Baseline: producing the same bytes by copying one display-sized chunk at a time.
    let chunk = vec![b'x'; 101 * 303];
    let mut buffer = Vec::with_capacity(chunk.len());
    let (copy, _) = time(|| {
        for _ in 0..sink.0 / chunk.len() {
            buffer.clear();
            buffer.extend_from_slice(black_box(&chunk));
            black_box(&buffer);
        }
    });
    let megabytes = sink.0 as f64 / 1e6;
    println!(
        "columns 100x100, 5000 commands: {megabytes:.0} MB in {elapsed:.2?} = {:.0} MB/s \
         ({:.1}x the time of copying the same bytes display by display)",
        megabytes / elapsed.as_secs_f64(),
        elapsed.as_secs_f64() / copy.as_secs_f64()
    );

    let input = collapse_input();
    let (elapsed, output) = time(|| driver::run_bytes(find("collapse"), input.as_bytes()).0);
    let (scan, _) = time(|| black_box(input.bytes().filter(|&b| b == b'1').count()));
    assert_eq!(output.len(), input.len() - "2000 2000\n0 0\n".len());
    println!(
        "collapse 2000x2000, group of 1,000,000: {elapsed:.2?} ({:.0}x one pass over the input)",
        elapsed.as_secs_f64() / scan.as_secs_f64()
    );

    let input = go_input();
    let (elapsed, _) = time(|| {
        for _ in 0..10_000 {
            black_box(
                driver::run_bytes(find("go"), black_box(input.as_bytes()))
                    .1
                    .unwrap(),
            );
        }
    });
    println!(
        "go 19x19 checkerboard x 10,000: {elapsed:.2?} ({:.1} us a board)",
        elapsed.as_secs_f64() * 1e6 / 10_000.0
    );

    let tie = "0\n2\n1\n3\n4\n6\n5\n7\n2\n0\n3\n1\n6\n4\n7\n5\n".repeat(3);
    let tie = &tie[..tie.len() - 16];
    let (elapsed, _) = time(|| {
        for _ in 0..100_000 {
            black_box(
                driver::run_bytes(find("connect4"), black_box(tie.as_bytes()))
                    .1
                    .unwrap(),
            );
        }
    });
    println!(
        "connect4 complete 40-move games x 100,000: {elapsed:.2?} ({:.0} games/s)",
        100_000.0 / elapsed.as_secs_f64()
    );
}
