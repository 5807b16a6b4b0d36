//! How well `check` names the bug: the causes each wrong variant's failures fall into, as
//! `cargo xtask adequacy` measures them (`Kills::causes`, `Kills::held_out`), and the table of
//! them in `docs/adequacy.md`.
//!
//! A variant breaks one rule, so a program behaving like it should be told one cause, and two
//! variants breaking different rules should never be told the same one. Held out (its own
//! misreading and its twins' left out of the traces, as for a bug nobody listed), it should
//! still be told few causes, and never a misreading its own run refutes.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write;

use super::matrix::{Causes, Kills, Report};

impl Report {
    /// What breaks the promise above, one line each: a variant told more than `most` causes
    /// (named, and held out), a cause told to variants of different rules (named, and held
    /// out), or, held out, a failure told a misreading the run refutes.
    pub fn cause_problems(&self, most: usize) -> Vec<String> {
        let mut problems = Vec::new();
        for kills in &self.kills {
            for (held_out, causes) in [(false, &kills.causes), (true, &kills.held_out)] {
                if causes.len() > most {
                    problems.push(format!(
                        "{}: {} causes{}",
                        kills.variant.name,
                        causes.len(),
                        if held_out { ", held out" } else { "" }
                    ));
                }
            }
            if kills.refuted_named > 0 {
                problems.push(format!(
                    "{}: held out, {} failures are told a misreading its run refutes",
                    kills.variant.name, kills.refuted_named
                ));
            }
        }
        let mut rules_of: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
        let mut variants_of: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
        for kills in &self.kills {
            for id in kills.causes.keys() {
                rules_of.entry(id).or_default().insert(kills.variant.rule);
                variants_of.entry(id).or_default().push(kills.variant.name);
            }
        }
        // Held out, as for bugs nobody listed, no two rules' variants share a cause either.
        let mut held_out_rules: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
        for kills in &self.kills {
            for id in kills.held_out.keys() {
                held_out_rules
                    .entry(id)
                    .or_default()
                    .insert(kills.variant.rule);
            }
        }
        for (id, rules) in held_out_rules {
            if rules.len() > 1 {
                problems.push(format!(
                    "held out, cause {id} is told to variants of {} rules",
                    rules.len()
                ));
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
    /// largest held out.
    pub fn causes_table(&self) -> String {
        let mut out = String::from(
            "\n## Causes per variant\n\n\
             What `check` tells a program that behaves like each variant: its failing cases \
             grouped into causes (`xtask/src/judge/cause.rs`). *Named*: as `check` runs, the \
             reference's trace holds what each variant prints where it parts from the \
             reference, so a program printing the same is told which rule it misread. *Held \
             out*: the same with the variant's own misreading and its twins' (the variants of \
             its rule) left out of the traces, as for a bug nobody listed. In both, a \
             misreading the program's whole run refutes is named nowhere \
             (`xtask/src/judge/refute.rs`): one that would fail a case the program passes, or \
             part from the reference before the program does, or where it does without \
             printing what the program prints. The failures left with no misreading are \
             grouped over the run by the command each first shows after and the kind of \
             difference in the grid's terms (`xtask/src/judge/unexplained.rs`): held out, no \
             two variants of different rules share a cause.\n\n",
        );
        for (held_out, words) in [(false, "Named"), (true, "Held out")] {
            let counts: Vec<usize> = self.kills.iter().map(|k| pick(k, held_out).len()).collect();
            let _ = writeln!(
                out,
                "- {words}: {}; {} of {} variants have 1 cause, {} more than 2.",
                spread(&counts),
                counts.iter().filter(|&&n| n == 1).count(),
                counts.len(),
                counts.iter().filter(|&&n| n > 2).count(),
            );
        }
        let told: Vec<&Kills> = self.kills.iter().filter(|k| k.refuted_told > 0).collect();
        let _ = writeln!(
            out,
            "- Refuted, held out: without refutation, {} failures of {} variants would be told \
             a misreading their own run refutes; with it, {}.",
            told.iter().map(|k| k.refuted_told).sum::<usize>(),
            told.len(),
            self.kills.iter().map(|k| k.refuted_named).sum::<usize>(),
        );
        out.push_str(
            "\n| variant | failing cases | causes named | causes held out | the largest cause, held out |\n\
             |---|---|---|---|---|\n",
        );
        for kills in &self.kills {
            let failing: usize = kills.causes.values().map(|(_, n)| n).sum();
            let largest = kills
                .held_out
                .values()
                .max_by_key(|(_, n)| *n)
                .map_or("", |(text, _)| text.as_str());
            let _ = writeln!(
                out,
                "| `{}` | {failing} | {} | {} | {} |",
                kills.variant.name,
                kills.causes.len(),
                kills.held_out.len(),
                largest.replace('|', "\\|")
            );
        }
        out
    }
}

/// The variant's causes, named or held out.
fn pick(kills: &Kills, held_out: bool) -> &Causes {
    if held_out {
        &kills.held_out
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
