//! Judging one case and the result model of a run. The judge knows no game: what it says of a
//! built-in spec comes from the reference's trace (each span's rule and handout section, each
//! input line's command) and from the grid the suite hands it (`corpus::Grid`).
//!
//! [`compare`] holds the canonical forms two outputs share exactly when they compare equal;
//! [`outcome`] the closed [`Verdict`] and the [`Judgement`] of a case; [`decide`] the verdict
//! a run earns, [`judge`] (with [`judge_hidden`] for a hidden case, redacted, by the salted
//! hashes of [`hidden`]); [`cause`] where a difference shows and the rule behind it,
//! [`consequence`] what the program did after it; [`locate`] the input line of a difference,
//! its command and the rule behind it, from the reference's trace (which `process` makes:
//! judging runs nothing); [`refute`] which misreadings a whole run refutes; [`unexplained`] the
//! causes of failures no misreading explains, told in the grid's terms and grouped over the
//! run; [`headline`] the line of a failed build a report shows; [`diff`] the line diff with
//! invisible characters made visible; [`run`] the finished [`Run`] and its summaries, computed
//! once, which every reporter only formats; [`verdict`] the one place a case's final verdict is
//! decided ([`judge_case`]).

mod cause;
mod compare;
mod consequence;
mod decide;
mod diff;
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
pub use decide::{judge, judge_hidden};
pub use diff::{line as visible_line, render as line_diff, visible};
pub use headline::build_headline;
pub use hidden::{mask, Hashes};
pub use locate::{from_trace_text, without, Command, RuleAt};
pub use outcome::{CaseResult, Judgement, Unexplained, Verdict};
pub use refute::{contradicts, forget, refute_run, variant_start};
pub use run::{stderr_tail, Build, BuildStatus, Cause, Run, Summaries, Totals};
pub use unexplained::{group as group_unexplained, kind_in, Kind};
pub use verdict::{judge_case, Expected};
