//! Similarity across a class, for the instructor: every pair of students ranked by how alike
//! their code is and how alike their mistakes are, with the evidence of each.
//!
//! [`tokens`] reads each source file with its language's real parser (tree-sitter) into a
//! stream of token kinds with names, literals, comments and layout set aside; [`fingerprint`]
//! winnows the hashes of its runs; [`code`] indexes the fingerprints across the class, leaves
//! out the starter code's and the idioms of the class (held by many who share little else),
//! and scores each pair sharing one; [`fragment`] finds the shared runs a report shows side by side;
//! [`behaviour`] weighs the wrong outputs two students share by how rare they are. [`analyse`]
//! puts both into one ranking that names which kind of evidence supports each pair, and joins
//! the students flagged pair by pair into rings (`cluster`).
//!
//! The crate knows nothing of grading: it takes sources and, where known, each student's wrong
//! outputs by case, and returns values; the harness reads submissions and writes the reports.

pub mod behaviour;
mod cluster;
pub mod code;
pub mod fingerprint;
mod fragment;
pub mod tokens;

use serde::Serialize;

pub use behaviour::{Outputs, SharedCase, SharedMistakes, WrongOutput};
pub use cluster::Cluster;
pub use code::{CodeMatch, Fragment, LeftOut, Settings, Source, Span};
pub use tokens::{tokenize, Grammar, Token, Tokens};

/// One student of the class.
#[derive(Debug, Clone)]
pub struct Student {
    pub id: String,
    pub sources: Vec<Source>,
    /// Their wrong outputs, when the class was graded (`None`: not known).
    pub outputs: Option<Outputs>,
}

/// How the class is analysed and when a pair is flagged.
#[derive(Debug, Clone, Copy)]
pub struct Options {
    pub settings: Settings,
    /// A pair whose code score reaches this is flagged for its code.
    pub code_flag: f64,
    /// A pair whose behavioural score reaches this is flagged for its mistakes.
    pub behaviour_flag: f64,
    /// The fragments of this many pairs, from the top of the ranking, are found.
    pub detailed: usize,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            settings: Settings::default(),
            code_flag: 0.5,
            // One wrong output only the two print, on three cases or more; or two rarer ones.
            behaviour_flag: 0.6,
            detailed: 50,
        }
    }
}

/// The mistakes score from which shared mistakes support a pair flagged for its code (one
/// rare, specific wrong output on one case): the pair is then marked "code and mistakes".
pub const SUPPORTING: f64 = 0.3;

/// Which kind of evidence supports a pair.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Evidence {
    /// The code score reaches its flag, and the mistakes score its own or [`SUPPORTING`].
    Both,
    /// The code score does.
    Code,
    /// The behavioural score does.
    Behaviour,
    /// Neither: listed for the ranking, not flagged.
    None,
}

impl Evidence {
    pub fn flagged(self) -> bool {
        self != Evidence::None
    }

    /// In words, for the reports.
    pub fn words(self) -> &'static str {
        match self {
            Evidence::Both => "code and mistakes",
            Evidence::Code => "code",
            Evidence::Behaviour => "mistakes",
            Evidence::None => "not flagged",
        }
    }
}

/// One pair of students with anything in common.
#[derive(Debug, Clone, Serialize)]
pub struct Pair {
    pub left: String,
    pub right: String,
    /// `1 - (1 - code)(1 - behaviour)`: what the ranking is by.
    pub score: f64,
    pub evidence: Evidence,
    pub code: Option<CodeMatch>,
    pub behaviour: Option<SharedMistakes>,
}

/// What was read of one student.
#[derive(Debug, Clone, Serialize)]
pub struct Summary {
    pub id: String,
    pub files: usize,
    pub tokens: usize,
    /// Bytes the parser could not read (a file not of its language, or broken).
    pub unparsed_bytes: usize,
    /// Whether their wrong outputs were known.
    pub outputs: bool,
}

/// The whole analysis.
#[derive(Debug, Clone, Serialize)]
pub struct Analysis {
    pub students: Vec<Summary>,
    /// Every pair sharing a fingerprint or a wrong output, highest score first.
    pub pairs: Vec<Pair>,
    pub left_out: LeftOut,
    /// The rings: groups of three or more flagged for their code pair by pair, largest first.
    pub clusters: Vec<Cluster>,
    /// Whether any student's wrong outputs were known.
    pub behaviour_known: bool,
}

impl Analysis {
    /// How many pairs are flagged, for either kind of evidence.
    pub fn flagged(&self) -> usize {
        self.pairs.iter().filter(|p| p.evidence.flagged()).count()
    }
}

/// Ranks every pair of `students`, leaving out the fingerprints of `base` (the starter code).
pub fn analyse(students: &[Student], base: &[Source], options: &Options) -> Analysis {
    let settings = &options.settings;
    let printed: Vec<code::Printed> = students
        .iter()
        .map(|s| code::Printed::of(&s.sources, settings))
        .collect();
    let base_hashes = code::base_hashes(base, settings);
    let (mut code_pairs, left_out) = code::pairs(&printed, &base_hashes, settings);
    let outputs: Vec<Option<&Outputs>> = students.iter().map(|s| s.outputs.as_ref()).collect();
    let mut behaviour_pairs = behaviour::pairs(&outputs);
    let mut keys: Vec<(usize, usize)> = code_pairs.keys().copied().collect();
    keys.extend(behaviour_pairs.keys().copied());
    keys.sort_unstable();
    keys.dedup();
    let mut pairs: Vec<(usize, usize, Pair)> = keys
        .into_iter()
        .map(|(a, b)| {
            let code = code_pairs.remove(&(a, b));
            let behaviour = behaviour_pairs.remove(&(a, b));
            let (c, m) = (
                code.as_ref().map_or(0.0, |c| c.score),
                behaviour.as_ref().map_or(0.0, |m| m.score),
            );
            let supported = m >= options.behaviour_flag.min(SUPPORTING);
            let evidence = match (c >= options.code_flag, m >= options.behaviour_flag) {
                (true, _) if supported => Evidence::Both,
                (true, _) => Evidence::Code,
                (false, true) => Evidence::Behaviour,
                (false, false) => Evidence::None,
            };
            let pair = Pair {
                left: students[a].id.clone(),
                right: students[b].id.clone(),
                score: 1.0 - (1.0 - c) * (1.0 - m),
                evidence,
                code,
                behaviour,
            };
            (a, b, pair)
        })
        .collect();
    pairs.sort_by(|x, y| {
        y.2.score
            .total_cmp(&x.2.score)
            .then_with(|| (&x.2.left, &x.2.right).cmp(&(&y.2.left, &y.2.right)))
    });
    let ids: Vec<String> = students.iter().map(|s| s.id.clone()).collect();
    let code_scores: Vec<(usize, usize, f64)> = pairs
        .iter()
        .map(|(a, b, pair)| (*a, *b, pair.code.as_ref().map_or(0.0, |c| c.score)))
        .collect();
    let clusters = cluster::clusters(&ids, &printed, &code_scores, options.code_flag, settings.k);
    for (a, b, pair) in pairs.iter_mut().take(options.detailed) {
        if let Some(code) = &mut pair.code {
            code.fragments =
                fragment::fragments(&printed[*a], &printed[*b], &code.shared, settings.k);
        }
    }
    Analysis {
        students: students
            .iter()
            .zip(&printed)
            .map(|(student, printed)| Summary {
                id: student.id.clone(),
                files: printed.files.len(),
                tokens: printed.token_count(),
                unparsed_bytes: printed.files.iter().map(|f| f.unparsed_bytes).sum(),
                outputs: student.outputs.is_some(),
            })
            .collect(),
        pairs: pairs.into_iter().map(|(_, _, pair)| pair).collect(),
        left_out,
        clusters,
        behaviour_known: students.iter().any(|s| s.outputs.is_some()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Code alike and one rare, specific wrong output on one case: both point at the pair,
    /// which is marked so, though the mistake alone would not flag it.
    #[test]
    fn code_and_one_rare_mistake_mark_a_pair_code_and_mistakes() {
        let program = "def solve(rows, cols):\n    grid = [[0] * cols for _ in range(rows)]\n    for r in range(rows):\n        for c in range(cols):\n            grid[r][c] = (r * cols + c) % 7\n            if grid[r][c] > 3:\n                grid[r][c] -= 3\n    return grid\n\n\nprint(solve(4, 5))\n";
        let student = |id: &str, text: &str, wrong: Vec<WrongOutput>| Student {
            id: id.into(),
            sources: vec![Source {
                path: "a.py".into(),
                grammar: Grammar::Python,
                text: text.into(),
            }],
            outputs: Some(Outputs { wrong }),
        };
        let board = WrongOutput {
            case: "g/7".into(),
            output: "board".into(),
            common: false,
            wrong_bytes: Some(80),
        };
        let mut class = vec![
            student("a", program, vec![board.clone()]),
            student("b", &program.replace("grid", "g"), vec![board]),
        ];
        for k in 0..8 {
            class.push(student(&format!("x{k}"), &format!("print({k})\n"), vec![]));
        }
        let analysis = analyse(&class, &[], &Options::default());
        let pair = &analysis.pairs[0];
        assert_eq!((pair.left.as_str(), pair.right.as_str()), ("a", "b"));
        let mistakes = pair.behaviour.as_ref().unwrap().score;
        assert!(mistakes < Options::default().behaviour_flag, "{mistakes}");
        assert_eq!(pair.evidence, Evidence::Both, "{pair:?}");
        assert_eq!(pair.evidence.words(), "code and mistakes");
    }
}
