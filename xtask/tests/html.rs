//! The HTML reports: `check --html` (cards, boards side by side) and `grade --html` (the class
//! at a glance). They parse, fetch nothing, escape what targets print, and their numbers are
//! those of `grades.json`; headless Chromium draws them (skipped where it is missing).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command as Process;

use assert_cmd::Command;
use scraper::{Html, Selector};

use crate::support::{fixture, reference, share, Corpus};

fn xtask() -> Command {
    Command::cargo_bin("xtask").unwrap()
}

fn select<'a>(html: &'a Html, selector: &str) -> Vec<scraper::ElementRef<'a>> {
    html.select(&Selector::parse(selector).unwrap()).collect()
}

/// The report is one file that fetches nothing: no script, no link, no URL.
fn self_contained(text: &str) {
    let html = Html::parse_document(text);
    assert!(html.errors.len() < 5, "{:?}", html.errors);
    assert!(select(&html, "script, link, iframe, img, object").is_empty());
    for url in ["http://", "https://", "//cdn", "url("] {
        assert!(!text.contains(url), "`{url}` in the report");
    }
}

/// A columns player with a bug, checked with an HTML report: the report and the terminal's.
fn columns_report(dir: &Path) -> (PathBuf, String) {
    mutant_report(dir, "columns", "columns-landed-as-falling")
}

/// The wrong variant `variant` of the reference checked on `spec`'s handout cases, in `dir`,
/// with an HTML report: the report and the terminal's.
fn mutant_report(dir: &Path, spec: &str, variant: &str) -> (PathBuf, String) {
    share(dir);
    std::fs::copy(env!("CARGO_BIN_EXE_mutant"), dir.join("mutant")).unwrap();
    let report = dir.join("report.html");
    let output = xtask()
        .current_dir(dir)
        .args(["check", "--spec", spec, "--filter", "handout", "--html"])
        .arg(&report)
        .args(["--", "./mutant", variant, spec])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    (report, String::from_utf8(output.stdout).unwrap())
}

/// The number of causes the terminal report lists.
fn causes_listed(terminal: &str) -> usize {
    terminal
        .lines()
        .skip_while(|line| *line != "causes:")
        .skip(1)
        .take_while(|line| !line.is_empty())
        .filter(|line| !line.starts_with("    "))
        .count()
}

#[test]
fn a_check_report_has_a_card_per_cause_with_the_boards_side_by_side() {
    let dir = tempfile::tempdir().unwrap();
    let (report, terminal) = columns_report(dir.path());
    let text = std::fs::read_to_string(&report).unwrap();
    self_contained(&text);
    let html = Html::parse_document(&text);
    // As many cards as the terminal lists causes.
    let causes = causes_listed(&terminal);
    assert!(causes > 0, "{terminal}");
    assert_eq!(select(&html, "section.card").len(), causes);
    // Boards: an expected and an actual grid, with the differing cells marked.
    assert!(select(&html, "section.card table.grid").len() >= 2);
    assert!(!select(&html, "table.grid td.d").is_empty());
    assert!(!select(&html, "table.grid tr.at").is_empty());
    // Columns: the displays before the divergence can be stepped through.
    assert!(!select(&html, "details.steps figure.board").is_empty());
}

#[test]
fn whatever_a_target_prints_appears_escaped() {
    let corpus = Corpus::new(b"input\n", false);
    let dir = tempfile::tempdir().unwrap();
    share(dir.path());
    let script = dir.path().join("evil.sh");
    std::fs::write(
        &script,
        "#!/bin/sh\nprintf '<script>alert(1)</script> & \\007\\033[31m red \\377\\376\\n<b>bold</b>\\n'\n\
         printf '<img src=x onerror=alert(2)> \\033]0;title\\007\\n' >&2\nexit 1\n",
    )
    .unwrap();
    std::fs::set_permissions(&script, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let report = dir.path().join("report.html");
    xtask()
        .current_dir(dir.path())
        .args(["check", "--spec", "demo", "--cases"])
        .arg(corpus.root())
        .arg("--reference")
        .arg(reference())
        .arg("--html")
        .arg(&report)
        .args(["--", "./evil.sh"])
        .assert()
        .code(1);
    let bytes = std::fs::read(&report).unwrap();
    let text = String::from_utf8(bytes).expect("the report is UTF-8");
    self_contained(&text);
    assert!(
        text.contains("&lt;script&gt;alert(1)&lt;/script&gt; &amp;"),
        "{text}"
    );
    assert!(text.contains("&lt;img src=x"));
    assert!(!text.contains("<b>bold"));
    assert!(
        !text
            .chars()
            .any(|c| (c as u32) < 0x20 && c != '\n' && c != '\t'),
        "a control character reached the page"
    );
    // The invalid bytes, as U+FFFD; the ESC and BEL, as their pictures.
    assert!(text.contains('\u{FFFD}') && text.contains('\u{241B}') && text.contains('\u{2407}'));
    let html = Html::parse_document(&text);
    assert!(select(&html, "b, img").is_empty());
}

/// A class of echo submissions graded with `--html`: the report and `grades.json`.
fn graded_class() -> (tempfile::TempDir, String, serde_json::Value) {
    let dir = tempfile::tempdir().unwrap();
    let modes = [
        "echo", "shout", "abort", "echo", "shout", "non-utf8", "echo", "missing",
    ];
    crate::support::echo_class(dir.path(), &modes);
    let out = dir.path().join("out");
    xtask()
        .args(["grade", "--spec", "echo", "--html", "--cases"])
        .arg(dir.path().join("cases"))
        .arg("--submissions")
        .arg(dir.path().join("class"))
        .arg("--run")
        .arg(format!("{} by-folder", fixture().to_string_lossy()))
        .arg("--reference")
        .arg(reference())
        .arg("--out")
        .arg(&out)
        .assert()
        .success();
    let html = std::fs::read_to_string(out.join("report.html")).unwrap();
    let grades = serde_json::from_slice(&std::fs::read(out.join("grades.json")).unwrap()).unwrap();
    (dir, html, grades)
}

#[test]
fn the_class_report_holds_the_numbers_of_grades_json() {
    let (_dir, text, grades) = graded_class();
    self_contained(&text);
    let html = Html::parse_document(&text);
    let submissions = grades["submissions"].as_array().unwrap();
    let number = |e: &scraper::ElementRef, name: &str| -> f64 {
        e.value().attr(name).unwrap().parse().unwrap()
    };
    // One section per submission, with its score.
    let sections = select(&html, "details.submission");
    assert_eq!(sections.len(), submissions.len());
    for (section, submission) in sections.iter().zip(submissions) {
        assert_eq!(section.value().attr("data-id"), submission["id"].as_str());
        let score = submission["score"].as_f64().unwrap();
        assert!((number(section, "data-score") - score).abs() < 1e-6);
    }
    // The histogram counts every submission once, in the bin of its share of the points.
    let max = grades["max_score"].as_f64().unwrap();
    let mut bins = [0.0; 10];
    for submission in submissions {
        let share = submission["score"].as_f64().unwrap() / max;
        bins[((share * 10.0).floor() as usize).min(9)] += 1.0;
    }
    let bars = select(&html, "rect[data-bin]");
    assert_eq!(bars.len(), 10);
    for bar in &bars {
        let bin = number(bar, "data-bin") as usize;
        assert_eq!(number(bar, "data-count"), bins[bin], "bin {bin}");
    }
    // Each group's pass rate: the mean share of its points.
    let groups = grades["groups"].as_object().unwrap();
    for bar in select(&html, "rect[data-pass-rate]") {
        let group = bar.value().attr("data-group").unwrap();
        let points = groups[group].as_f64().unwrap();
        let rate: f64 = submissions
            .iter()
            .map(|s| s["groups"][group].as_f64().unwrap_or(0.0) / points)
            .sum::<f64>()
            / submissions.len() as f64;
        assert!(
            (number(&bar, "data-pass-rate") - rate).abs() < 1e-6,
            "{group}"
        );
    }
    // Clusters: submissions by the set of causes they fail, largest first.
    let mut by_causes: BTreeMap<Vec<String>, usize> = BTreeMap::new();
    for submission in submissions {
        let mut causes: Vec<String> = match submission["error"].as_str() {
            Some(error) => vec![format!("could not run: {error}")],
            None => submission["cases"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|c| c["verdict"] != "pass")
                .filter_map(|c| c["cause"].as_str().map(String::from))
                .collect(),
        };
        causes.sort();
        causes.dedup();
        *by_causes.entry(causes).or_default() += 1;
    }
    let mut expected_sizes: Vec<usize> = by_causes.values().copied().collect();
    expected_sizes.sort_by(|a, b| b.cmp(a));
    let sizes: Vec<usize> = select(&html, "section.cluster")
        .iter()
        .map(|c| number(c, "data-cluster-size") as usize)
        .collect();
    assert_eq!(sizes, expected_sizes);
    // A cluster of failures shows one representative case block.
    assert!(!select(&html, "section.cluster pre").is_empty());
}

/// Headless Chromium, if this machine has it.
fn chromium() -> Option<PathBuf> {
    ["chromium", "chromium-browser", "google-chrome"]
        .iter()
        .find_map(|name| {
            std::env::split_paths(&std::env::var_os("PATH")?)
                .map(|dir| dir.join(name))
                .find(|path| path.is_file())
        })
}

/// Renders `page` to a PNG with headless Chromium; the PNG's pixels and the rendered DOM.
fn render(browser: &Path, page: &Path, png: &Path) -> (Vec<u8>, String) {
    let profile = tempfile::tempdir().unwrap();
    let common = |command: &mut Process| {
        command
            .args([
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--hide-scrollbars",
            ])
            .arg(format!("--user-data-dir={}", profile.path().display()));
    };
    let mut shot = Process::new(browser);
    common(&mut shot);
    let status = shot
        .arg(format!("--screenshot={}", png.display()))
        .arg("--window-size=1280,1600")
        .arg(format!("file://{}", page.display()))
        .output()
        .unwrap();
    assert!(png.is_file(), "{}", String::from_utf8_lossy(&status.stderr));
    let mut dump = Process::new(browser);
    common(&mut dump);
    let dom = dump
        .arg("--dump-dom")
        .arg(format!("file://{}", page.display()))
        .output()
        .unwrap();
    let decoder = png::Decoder::new(std::io::BufReader::new(std::fs::File::open(png).unwrap()));
    let mut reader = decoder.read_info().unwrap();
    let mut pixels = vec![0; reader.output_buffer_size().unwrap()];
    let info = reader.next_frame(&mut pixels).unwrap();
    pixels.truncate(info.buffer_size());
    (pixels, String::from_utf8_lossy(&dom.stdout).into_owned())
}

/// Not blank: many pixels are not the background, and there are many colours.
fn not_blank(pixels: &[u8]) {
    let background = &pixels[..3];
    let chunks = pixels.chunks(4).filter(|p| p.len() >= 3);
    let inked = chunks.clone().filter(|p| &p[..3] != background).count();
    let colours: std::collections::BTreeSet<&[u8]> = chunks.map(|p| &p[..3]).collect();
    assert!(
        inked > 1000 && colours.len() > 8,
        "{inked} inked pixels, {} colours",
        colours.len()
    );
}

#[test]
fn chromium_draws_both_reports() {
    let Some(browser) = chromium() else {
        println!("skipped: no Chromium here (Debian's `chromium` package draws the reports)");
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let (report, terminal) = columns_report(dir.path());
    let causes = causes_listed(&terminal);
    let (pixels, dom) = render(&browser, &report, &dir.path().join("card.png"));
    not_blank(&pixels);
    assert_eq!(dom.matches("class=\"card\"").count(), causes);

    let (class_dir, _, grades) = graded_class();
    let class_report = class_dir.path().join("out/report.html");
    let (pixels, dom) = render(&browser, &class_report, &dir.path().join("class.png"));
    not_blank(&pixels);
    let n = grades["submissions"].as_array().unwrap().len();
    assert_eq!(dom.matches("class=\"submission\"").count(), n);
}

/// A Connect Four transcript is one display (no blank line between its boards): the card draws
/// the lines around the first difference, not the whole game with the red cell at the bottom.
#[test]
fn a_long_transcript_is_drawn_around_its_first_difference() {
    let dir = tempfile::tempdir().unwrap();
    let (report, _) = mutant_report(dir.path(), "connect4", "connect4-no-vertical");
    let text = std::fs::read_to_string(&report).unwrap();
    let html = Html::parse_document(&text);
    let grids = select(&html, "section.card div.boards table.grid");
    assert!(!grids.is_empty(), "no board drawn");
    for grid in grids {
        let rows = grid.select(&Selector::parse("tr").unwrap()).count();
        assert!(rows <= 18, "{rows} rows drawn");
        // The difference is among them.
        assert!(grid
            .select(&Selector::parse("td.d").unwrap())
            .next()
            .is_some());
    }
}
