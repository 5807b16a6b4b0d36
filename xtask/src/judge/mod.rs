//! Judging one case and the result model of a run.
//!
//! [`compare`] holds the canonical forms two outputs share exactly when they compare equal;
//! [`outcome`] the closed [`Verdict`], the [`Judgement`] of a case and [`judge`] (with
//! [`judge_hidden`] for a hidden case, redacted, by the salted hashes of [`hidden`]); [`cause`]
//! where a difference shows and the rule behind it, [`consequence`] what the program did after it; [`locate`] the input line of a difference,
//! from the reference's trace (which `process` makes: judging runs nothing); [`refute`] which misreadings a whole run refutes, [`family`] the handout section a failure
//! no misreading explains shows under, and [`command`] the spec's command it first shows after, [`grid`] the kind of
//! difference in the grid's terms and [`unexplained`] the causes of such failures, grouped over
//! the run; [`headline`] the line of a failed
//! build a report shows; [`diff`] the line diff with invisible characters made visible;
//! [`run`] the finished [`Run`] and its summaries, computed once, which every reporter only
//! formats; [`verdict`] the one place a case's final verdict is decided ([`judge_case`]).

mod cause;
mod command;
mod compare;
mod consequence;
mod diff;
mod family;
mod grid;
mod headline;
mod hidden;
mod locate;
mod outcome;
mod refute;
mod run;
mod tokens;
mod unexplained;
mod verdict;

pub use cause::{settle_run_ties, settle_ties, unexplained_cause};
pub use compare::Difference;
pub use diff::{line as visible_line, render as line_diff, visible};
pub use grid::Unexplained;
pub use headline::build_headline;
pub use hidden::{mask, Hashes};
pub use locate::{from_trace_text, without, RuleAt};
pub use outcome::{judge, judge_hidden, CaseResult, Judgement, Verdict};
pub use refute::{contradicts, forget, refute_run, variant_start};
pub use run::{stderr_tail, Build, BuildStatus, Cause, Run, Summaries, Totals};
pub use unexplained::{group as group_unexplained, Kind};
pub use verdict::{judge_case, Expected};
