//! Saying which input line an output difference answers.
//!
//! The reference binary writes, with `--trace FILE`, the number of output bytes that exist
//! after each input line. The first trace entry past the difference's offset in the expected
//! output names the input line whose answer holds the difference. The trace's `@ GAP LENGTH
//! SLUG` lines (each span's start relative to the previous span's; `= SLUG WORDS` gives each
//! rule's words once) say which rule of the spec decided each span of the expected output: the
//! innermost span holding the difference names the rule whose output went wrong first.

use crate::files::from_hex;

/// Where a difference shows, in terms of the input.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Location {
    /// A phrase like ``in the output after input line 12: `R` ``.
    pub phrase: String,
    /// The input line the output answers (without its line ending); `None` where it answers
    /// the whole input or none of it.
    pub command: Option<String>,
    /// The rule of the spec that decided the expected output where it differs, when the
    /// reference says.
    pub rule: Option<RuleAt>,
    /// Other misreadings that explain the program's output there as well as `rule` does.
    pub tied: Vec<RuleAt>,
    /// The rule of the innermost span holding the difference, misreadings aside: what names
    /// the failure's family once every misreading that explains it is refuted.
    pub span: Option<RuleAt>,
    /// The spec's command that input line is, as the trace names it (`> KEY`, its words given
    /// once as `! KEY WORDS`); `None` for a spec that answers its whole input at once.
    pub named: Option<Command>,
}

/// A command of the spec, as the reference's trace names an input line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Command {
    /// Its short form (`R`, `tick`, `move`).
    pub key: String,
    /// In words, with the handout's section that defines it.
    pub words: String,
}

/// A rule of the spec, as the reference's trace names it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RuleAt {
    /// Its stable short name (`match-horizontal`).
    pub slug: String,
    /// The rule in the spec document's words.
    pub words: String,
    /// The handout's section the rule belongs to (`: SLUG SECTION`), as the words that end
    /// "the handout's rules on ..."; empty for a misreading, or where the trace names none.
    pub section: String,
    /// The program's output there is what a misreading of the rule prints.
    pub misread: bool,
    /// A misreading the program follows to the end: all it prints from where it parts from
    /// the reference is what the program prints (not only the line where they part).
    pub whole: bool,
}

/// The rules whose output went wrong at byte `offset` of the expected output, where `actual`
/// is the program's output: the misreadings holding `offset` that explain most of what the
/// program shows there (at least its first wrong byte; several when they explain as much),
/// else the rule of the innermost span holding `offset` (a span `START..END`, or an empty span
/// at `offset`: output that should have been there and is missing; the later of two equal
/// spans wins). Empty when the trace names none.
#[cfg(test)]
fn rules_at(trace: &str, offset: usize, actual: &[u8]) -> Vec<RuleAt> {
    let (misread, span) = misreadings_and_span(trace, offset, actual);
    if misread.is_empty() {
        span.into_iter().collect()
    } else {
        misread
    }
}

/// The misreadings that explain the program's output at `offset` (see [`rules_at`]) and,
/// apart, the rule of the innermost span holding it.
fn misreadings_and_span(
    trace: &str,
    offset: usize,
    actual: &[u8],
) -> (Vec<RuleAt>, Option<RuleAt>) {
    // Each rule's words, given once (`= SLUG WORDS`) before its first span, and its section
    // (`: SLUG SECTION`) after them.
    let (words_of, section_of) = (given(trace, "= "), given(trace, ": "));
    let mut best: Option<(usize, &str, &str)> = None;
    let mut misread: (usize, Vec<RuleAt>) = (0, Vec::new());
    let mut last_start = 0usize;
    for line in trace.lines() {
        let (misreading, rest) = match line.split_at_checked(2) {
            Some(("@ ", rest)) => (false, rest),
            Some(("? ", rest)) => (true, rest),
            _ => continue,
        };
        let mut words = rest.splitn(if misreading { 6 } else { 4 }, ' ');
        let (Some(first), Some(second), Some(slug)) = (words.next(), words.next(), words.next())
        else {
            continue;
        };
        let (start, end) = if misreading {
            let (Ok(start), Ok(end)) = (first.parse::<usize>(), second.parse::<usize>()) else {
                continue;
            };
            (start, end)
        } else {
            // A span: its start relative to the previous span's, and its length.
            let (Ok(gap), Ok(length)) = (first.parse::<i64>(), second.parse::<usize>()) else {
                continue;
            };
            let Some(start) = last_start.checked_add_signed(gap as isize) else {
                continue;
            };
            last_start = start;
            (start, start + length)
        };
        // A misreading may explain past the bytes it shows (its hash covers the rest).
        let holds = (start <= offset && offset < end)
            || (start == end && start == offset)
            || (misreading && start <= offset);
        if !holds {
            continue;
        }
        if misreading {
            // How much of what the program shows from `start` on the misreading explains: it
            // must explain the line where the outputs part; the one explaining most wins.
            let shows = words.next().and_then(from_hex).unwrap_or_default();
            let printed = actual.get(start..).unwrap_or_default();
            let whole = words
                .next()
                .and_then(|hash| u64::from_str_radix(hash, 16).ok());
            // A program printing all the misreading prints explains all of it.
            let explained = if whole == Some(crate::corpus::fnv1a(printed)) {
                usize::MAX
            } else {
                printed
                    .iter()
                    .zip(&shows)
                    .take_while(|(a, s)| a == s)
                    .count()
            };
            // It must explain the program's whole line where the outputs part, not a
            // coincidence of a few bytes.
            let line_end = printed
                .iter()
                .skip(offset - start)
                .position(|&byte| byte == b'\n')
                .map_or(printed.len(), |at| offset - start + at + 1);
            if explained >= line_end.max(offset - start + 1) && explained >= misread.0 {
                if explained > misread.0 {
                    misread = (explained, Vec::new());
                }
                misread.1.push(RuleAt {
                    slug: slug.into(),
                    words: words.next().unwrap_or_default().into(),
                    section: String::new(),
                    misread: true,
                    whole: explained == usize::MAX,
                });
            }
        } else if best.is_none_or(|(length, _, _)| end - start <= length) {
            let words = words_of.get(slug).copied().unwrap_or_default();
            best = Some((end - start, slug, words));
        }
    }
    let span = best.map(|(_, slug, words)| RuleAt {
        slug: slug.into(),
        words: words.into(),
        section: section_of.get(slug).copied().unwrap_or_default().into(),
        misread: false,
        whole: false,
    });
    (misread.1, span)
}

/// What a trace gives once per name on lines beginning `prefix` (`= SLUG WORDS`, `: SLUG
/// SECTION`, `! KEY WORDS`), by name.
fn given<'t>(trace: &'t str, prefix: &str) -> std::collections::HashMap<&'t str, &'t str> {
    trace
        .lines()
        .filter_map(|line| line.strip_prefix(prefix)?.split_once(' '))
        .collect()
}

/// A trace without the misreading lines (`? START END NAME ...`) of the variants `names`.
pub fn without(trace: &str, names: &[String]) -> String {
    let held = |line: &str| {
        line.strip_prefix("? ")
            .and_then(|rest| rest.split(' ').nth(2))
            .is_some_and(|name| names.iter().any(|n| n == name))
    };
    trace
        .lines()
        .filter(|line| !held(line))
        .map(|line| format!("{line}\n"))
        .collect()
}

/// Where the byte `offset` of the expected output shows, from a trace's text (one the
/// reference wrote in this process, say).
pub fn from_trace_text(
    trace: &str,
    input: &[u8],
    offset: usize,
    actual: &[u8],
) -> Option<Location> {
    phrase_of(trace, input, offset, actual)
}

/// The command of each input line a trace names (`> KEY` before the line's `LINE OFFSET`
/// entry), with each command's words (`! KEY WORDS`).
fn commands(trace: &str) -> std::collections::HashMap<usize, Command> {
    let words_of = given(trace, "! ");
    let mut named = std::collections::HashMap::new();
    let mut pending = None;
    for line in trace.lines() {
        if let Some(key) = line.strip_prefix("> ") {
            pending = Some(key);
        } else if let Some((input_line, _)) = entry(line) {
            if let Some(key) = pending.take() {
                let words = words_of.get(key).copied().unwrap_or_default();
                named.insert(
                    input_line,
                    Command {
                        key: key.into(),
                        words: words.into(),
                    },
                );
            }
        }
    }
    named
}

/// A trace's `LINE OFFSET` entry: the output bytes that exist after input line `LINE`.
fn entry(line: &str) -> Option<(usize, usize)> {
    let (input_line, output_end) = line.split_once(' ')?;
    Some((
        input_line.parse::<usize>().ok()?,
        output_end.parse::<usize>().ok()?,
    ))
}

fn phrase_of(trace: &str, input: &[u8], offset: usize, actual: &[u8]) -> Option<Location> {
    let entries: Vec<(usize, usize)> = trace.lines().filter_map(entry).collect();
    let (misread, span) = misreadings_and_span(trace, offset, actual);
    let mut rules = misread.into_iter();
    let rule = rules.next().or_else(|| span.clone());
    let tied: Vec<RuleAt> = rules.collect();
    let at = |phrase: &str| {
        Some(Location {
            phrase: phrase.into(),
            command: None,
            rule: rule.clone(),
            tied: tied.clone(),
            span: span.clone(),
            named: None,
        })
    };
    let Some(&(input_line, _)) = entries.iter().find(|&&(_, output_end)| output_end > offset)
    else {
        return at("after the end of the expected output");
    };
    if input_line == 0 {
        return at("in the output written before any input is read");
    }
    // A program that answers only once it has read everything (go, collapse): the output
    // answers the whole input, not its last line.
    let before_last = entries.iter().rev().nth(1).map_or(0, |&(_, end)| end);
    if entries.last().is_some_and(|&(line, _)| line == input_line) && before_last == 0 {
        return at("in the output after the whole input");
    }
    let text = input.split(|&b| b == b'\n').nth(input_line - 1)?;
    let text = String::from_utf8_lossy(text.strip_suffix(b"\r").unwrap_or(text));
    let shown = if text.is_empty() {
        "(an empty line)".to_string()
    } else {
        format!("`{text}`")
    };
    Some(Location {
        phrase: format!("in the output after input line {input_line}: {shown}"),
        command: Some(text.into_owned()),
        rule,
        tied,
        span,
        named: commands(trace).remove(&input_line),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offsets_map_to_the_line_whose_output_holds_them() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("trace");
        std::fs::write(&path, "0 0\n1 0\n2 0\n3 10\n4 20\n5 30\n").unwrap();
        let input = b"4\n3\nEMPTY\nR\n\n";
        let trace = std::fs::read_to_string(&path).unwrap();
        let at = |offset| from_trace_text(&trace, input, offset, b"").unwrap().phrase;
        assert_eq!(at(0), "in the output after input line 3: `EMPTY`");
        assert_eq!(at(15), "in the output after input line 4: `R`");
        assert_eq!(at(29), "in the output after input line 5: (an empty line)");
        assert_eq!(at(30), "after the end of the expected output");
        let command = |offset| from_trace_text(&trace, input, offset, b"").unwrap().command;
        assert_eq!(command(15), Some("R".into()));
        assert_eq!(command(29), Some(String::new()));
    }

    #[test]
    fn an_input_line_s_command_is_the_one_the_trace_names_before_its_entry() {
        let trace =
            "0 0\n! R `R`, the rotation\n> R\n1 10\n! tick a tick\n> tick\n2 20\n> R\n3 30\n";
        let named = |offset| {
            from_trace_text(trace, b"R\n\nR\n", offset, b"")
                .unwrap()
                .named
        };
        let command = |key: &str, words: &str| {
            Some(Command {
                key: key.into(),
                words: words.into(),
            })
        };
        assert_eq!(named(5), command("R", "`R`, the rotation"));
        assert_eq!(named(15), command("tick", "a tick"));
        assert_eq!(named(25), command("R", "`R`, the rotation"));
        // A trace without commands names none.
        let plain = from_trace_text("0 0\n1 10\n", b"R\n", 5, b"").unwrap();
        assert_eq!(plain.named, None);
    }

    #[test]
    fn output_written_only_at_the_end_answers_the_whole_input() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("trace");
        std::fs::write(&path, "0 0\n1 0\n2 0\n3 0\n4 90\n").unwrap();
        let trace = std::fs::read_to_string(&path).unwrap();
        let found = from_trace_text(&trace, b"9\n..B\n...\n.W.\n", 40, b"").unwrap();
        assert_eq!(found.phrase, "in the output after the whole input");
        assert_eq!(found.command, None);
    }

    #[test]
    fn the_innermost_span_names_the_rule() {
        // Spans 0..30, 4..7 and an empty one at 30, each start after the previous one's.
        let trace = "0 0\n= display every command is followed by a display\n@ 0 30 display\n\
                     = landing fallers land when they cannot move down\n@ 4 3 landing\n\
                     = game-over-line GAME OVER on its own line\n@ 26 0 game-over-line\n1 30\n";
        let slug = |offset| {
            rules_at(trace, offset, b"")
                .first()
                .map(|rule| rule.slug.clone())
        };
        assert_eq!(slug(5).as_deref(), Some("landing"));
        assert_eq!(
            rules_at(trace, 4, b"")[0].words,
            "fallers land when they cannot move down"
        );
        assert_eq!(slug(3).as_deref(), Some("display"));
        assert_eq!(slug(7).as_deref(), Some("display"));
        assert_eq!(slug(30).as_deref(), Some("game-over-line"));
        assert_eq!(slug(31), None);
        assert_eq!(rules_at("0 0\n1 10\n", 5, b""), vec![]);
    }

    #[test]
    fn a_misreading_the_program_shows_names_the_misread_rule() {
        // Expected ` 4` at 10..13; counted per stone, the program would show ` 2` and go on
        // as expected (a newline: its hash), with diagonal liberties ` 7` and a newline (its
        // first bytes).
        let newline = format!("{:016x}", crate::corpus::fnv1a(b" 2\n"));
        let trace = format!(
            "= liberties every stone shows its group's liberties\n@ 10 3 liberties\n\
             ? 10 13 liberties-shared 2032 {newline} a group shares its liberties\n\
             ? 10 13 liberties-nsew 20370a 0 liberties are N, S, E, W only\n"
        );
        let trace = trace.as_str();
        let actual = |cell: &str| format!("0123456789{cell}\n").into_bytes();
        let slug = |cell| rules_at(trace, 11, &actual(cell))[0].slug.clone();
        assert_eq!(slug(" 2"), "liberties-shared");
        assert_eq!(slug(" 7"), "liberties-nsew");
        assert_eq!(slug(" 5"), "liberties");
        // Explaining the first wrong bytes but not the rest of the line is no explanation.
        let short = "? 10 13 liberties-shared 2032 0 a group shares its liberties\n";
        assert_eq!(rules_at(short, 11, &actual(" 2")), vec![]);
        // Printing all of a misreading beats printing its first bytes.
        let tied = format!("{trace}? 10 13 liberties-other 2032 0 another misreading\n");
        let slugs = |trace: &str, cell| -> Vec<String> {
            rules_at(trace, 11, &actual(cell))
                .into_iter()
                .map(|rule| rule.slug)
                .collect()
        };
        assert_eq!(slugs(&tied, " 2"), ["liberties-shared"]);
        // Two that explain as much are both named, in the trace's order.
        let even = format!("{tied}? 10 13 liberties-again 2032 {newline} the same again\n");
        assert_eq!(slugs(&even, " 2"), ["liberties-shared", "liberties-again"]);
        assert_eq!(
            rules_at(trace, 11, &actual(" 2"))[0].words,
            "a group shares its liberties"
        );
    }
}
