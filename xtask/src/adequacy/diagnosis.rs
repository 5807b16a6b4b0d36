//! How well `check` names the bug: the causes each wrong variant's failures fall into, as
//! `cargo xtask adequacy` measures them (`Kills::causes`, `Kills::unaided`), and the table of
//! them in `docs/adequacy.md`.
//!
//! A variant breaks one rule, so a program behaving like it should be told one cause, and two
//! variants breaking different rules should never be told the same one.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write;

use super::matrix::{Kills, Report};

/// Causes by id, with their words and how many failures they hold.
type Causes = BTreeMap<String, (String, usize)>;

impl Report {
    /// What breaks the promise above, one line each: a variant told more than `most` causes,
    /// or a cause told to variants of different rules. `unaided`: measured by the traces'
    /// rule spans alone.
    pub fn cause_problems(&self, most: usize, unaided: bool) -> Vec<String> {
        let causes = |kills| pick(kills, unaided);
        let mut problems = Vec::new();
        for kills in &self.kills {
            let n = causes(kills).len();
            if n > most {
                problems.push(format!("{}: {n} causes", kills.variant.name));
            }
        }
        let mut rules_of: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
        let mut variants_of: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
        for kills in &self.kills {
            for id in causes(kills).keys() {
                rules_of.entry(id).or_default().insert(kills.variant.rule);
                variants_of.entry(id).or_default().push(kills.variant.name);
            }
        }
        for (id, rules) in rules_of {
            if rules.len() > 1 {
                problems.push(format!(
                    "cause {id} is told to variants of {} rules: {}",
                    rules.len(),
                    variants_of[id].join(", ")
                ));
            }
        }
        problems
    }

    /// The causes section of `docs/adequacy.md`: per variant, how many causes its failures
    /// fall into, with and without its own misreading in the traces, and the words of the
    /// largest.
    pub fn causes_table(&self) -> String {
        let mut out = String::from(
            "\n## Causes per variant\n\n\
             What `check` tells a program that behaves like each variant: its failing cases \
             grouped into causes (`xtask/src/judge/cause.rs`). *Named*: as `check` runs, the \
             reference's trace holds what each variant prints where it parts from the \
             reference, so a program printing the same is told which rule it misread. *By rule*: \
             the traces' rule spans alone, without misreadings, as for a bug no variant \
             foresaw: the cause is the rule whose output went wrong first and the kind of \
             difference.\n\n",
        );
        for unaided in [false, true] {
            let counts: Vec<usize> = self.kills.iter().map(|k| pick(k, unaided).len()).collect();
            let _ = writeln!(
                out,
                "- {}: {}; {} of {} variants have 1 cause; {}.",
                if unaided { "By rule" } else { "Named" },
                spread(&counts),
                counts.iter().filter(|&&n| n == 1).count(),
                counts.len(),
                match self.cause_problems(usize::MAX, unaided).len() {
                    0 => "no cause is told to variants of different rules".to_string(),
                    n => format!("{n} causes are told to variants of different rules"),
                }
            );
        }
        out.push_str(
            "\n| variant | failing cases | causes named | causes by rule | the largest cause, named |\n\
             |---|---|---|---|---|\n",
        );
        for kills in &self.kills {
            let failing: usize = kills.causes.values().map(|(_, n)| n).sum();
            let largest = kills
                .causes
                .values()
                .max_by_key(|(_, n)| *n)
                .map_or("", |(text, _)| text.as_str());
            let _ = writeln!(
                out,
                "| `{}` | {failing} | {} | {} | {} |",
                kills.variant.name,
                kills.causes.len(),
                kills.unaided.len(),
                largest.replace('|', "\\|")
            );
        }
        out
    }
}

/// The variant's causes, named or by rule alone.
fn pick(kills: &Kills, unaided: bool) -> &Causes {
    if unaided {
        &kills.unaided
    } else {
        &kills.causes
    }
}

/// The median and the largest of some counts, in words.
fn spread(counts: &[usize]) -> String {
    let mut sorted = counts.to_vec();
    sorted.sort_unstable();
    let median = sorted.get(sorted.len() / 2).copied().unwrap_or(0);
    let most = sorted.last().copied().unwrap_or(0);
    format!("median {median} cause(s), at most {most}")
}
