//! The course folder: `course.toml` (the title and the assignments) and `roster.csv` (the
//! students), read once at start. Every mistake is an error naming the file, the line and the
//! field; `--init` writes a commented example of both.

use std::ops::Range;
use std::path::{Path, PathBuf};

use chrono::{DateTime, FixedOffset};
use serde::Deserialize;
use toml::Spanned;

use crate::error::Fault;
pub(crate) use crate::roster::Student;

/// The built-in specs a course may name without a cases folder of its own: the suites of the
/// bundled corpus (the server counts no assignment of its own), sorted.
pub(crate) fn built_in() -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(xtask::workspace::cases())
        .into_iter()
        .flatten()
        .flatten()
        .filter(|entry| entry.path().join("suite.toml").is_file())
        .map(|entry| entry.file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

#[derive(Debug, Clone)]
pub(crate) struct Course {
    pub(crate) title: String,
    pub(crate) assignments: Vec<Assignment>,
    pub(crate) roster: Vec<Student>,
    /// The LMS the course is reached from (`[lti]`), if any.
    pub(crate) lti: Option<Lti>,
    /// Each student's late days for the term (`late_days`); none: the course gives none.
    pub(crate) late_days: Option<u32>,
}

#[derive(Debug, Clone)]
pub(crate) struct Assignment {
    /// Its name in addresses: `go`, `project-4`.
    pub(crate) name: String,
    pub(crate) title: String,
    pub(crate) spec: String,
    /// A corpus root of the course's own (`<spec>/suite.toml` inside); none: the bundled one.
    pub(crate) cases: Option<PathBuf>,
    /// The reference binary of a built-in spec (none: the bundled one, built).
    pub(crate) reference: Option<PathBuf>,
    pub(crate) deadline: DateTime<FixedOffset>,
    pub(crate) late: Late,
    pub(crate) per_hour: u32,
    /// Languages of the table a submission may be in; empty: any.
    pub(crate) languages: Vec<String>,
    /// Groups whose cases are hidden from students.
    pub(crate) hidden: Vec<String>,
    pub(crate) show_hidden: ShowHidden,
    /// The CPU time limit per case, in seconds (none: `grade`'s default).
    pub(crate) timeout: Option<f64>,
}

/// What happens to work handed in after the deadline.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Late {
    /// Not accepted: the form and the API refuse it.
    Refused,
    /// Accepted, marked late, its score multiplied by `1 - penalty` in the grades.
    Accepted { penalty: f64 },
    /// Accepted, its score multiplied by `1 - penalty * days` for the days late beyond the
    /// student's late days (at least 0); more than `most_days` days late: not counted.
    PerDay {
        penalty: f64,
        most_days: Option<u32>,
    },
}

/// What a student sees of the hidden cases.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ShowHidden {
    /// Each hidden case's verdict, never its input, output or difference.
    Verdicts,
    /// Nothing of them until the deadline has passed; their verdicts after it.
    AfterDeadline,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct CourseFile {
    title: Spanned<String>,
    #[serde(default, rename = "assignment")]
    assignments: Vec<AssignmentFile>,
    lti: Option<Spanned<LtiFile>>,
    late_days: Option<Spanned<u32>>,
}

/// `[lti]`: the platform (the LMS) as its registration of this tool names it.
#[derive(Debug, Clone)]
pub(crate) struct Lti {
    pub(crate) issuer: String,
    pub(crate) client_id: String,
    pub(crate) deployment_ids: Vec<String>,
    pub(crate) auth_url: String,
    pub(crate) token_url: String,
    pub(crate) jwks_url: String,
    /// The server's address as the platform reaches it (`https://grader.example.edu`); none:
    /// the address each request came to.
    pub(crate) tool_url: Option<String>,
}

#[derive(Deserialize)]
#[serde(untagged)]
enum OneOrMany {
    One(String),
    Many(Vec<String>),
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct LtiFile {
    issuer: Spanned<String>,
    client_id: Spanned<String>,
    deployment_id: Spanned<OneOrMany>,
    auth_url: Spanned<String>,
    token_url: Spanned<String>,
    jwks_url: Spanned<String>,
    tool_url: Option<Spanned<String>>,
}

impl LtiFile {
    /// The `[lti]` table checked: every address an http(s) URL, at least one deployment.
    fn read(&self, place: &Place) -> Result<Lti, Fault> {
        let url = |field: &Spanned<String>, name: &str| {
            let value = field.get_ref().trim().trim_end_matches('/').to_string();
            match value.starts_with("https://") || value.starts_with("http://") {
                true => Ok(value),
                false => Err(place.fault(
                    field.span(),
                    name,
                    format!("`{}` is no http(s) address", field.get_ref()),
                )),
            }
        };
        let text = |field: &Spanned<String>, name: &str| match field.get_ref().trim() {
            "" => Err(place.fault(field.span(), name, "empty".into())),
            value => Ok(value.to_string()),
        };
        let deployment_ids = match self.deployment_id.get_ref() {
            OneOrMany::One(one) => vec![one.clone()],
            OneOrMany::Many(many) => many.clone(),
        };
        if deployment_ids.is_empty() || deployment_ids.iter().any(|d| d.trim().is_empty()) {
            let why = "name one deployment id or a list of them, none empty".into();
            return Err(place.fault(self.deployment_id.span(), "lti.deployment_id", why));
        }
        Ok(Lti {
            issuer: text(&self.issuer, "lti.issuer")?,
            client_id: text(&self.client_id, "lti.client_id")?,
            deployment_ids,
            auth_url: url(&self.auth_url, "lti.auth_url")?,
            token_url: url(&self.token_url, "lti.token_url")?,
            jwks_url: url(&self.jwks_url, "lti.jwks_url")?,
            tool_url: match &self.tool_url {
                Some(field) => Some(url(field, "lti.tool_url")?),
                None => None,
            },
        })
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct AssignmentFile {
    name: Spanned<String>,
    title: Option<String>,
    spec: Spanned<String>,
    cases: Option<Spanned<String>>,
    reference: Option<Spanned<String>>,
    deadline: Spanned<String>,
    #[serde(default = "accept")]
    late: Spanned<String>,
    late_penalty: Option<Spanned<f64>>,
    late_penalty_per_day: Option<Spanned<f64>>,
    late_days_max: Option<Spanned<u32>>,
    #[serde(default = "ten")]
    per_hour: Spanned<u32>,
    languages: Option<Spanned<Vec<String>>>,
    #[serde(default)]
    hidden: Vec<Spanned<String>>,
    #[serde(default = "verdicts")]
    show_hidden: Spanned<String>,
    timeout: Option<Spanned<f64>>,
}

fn accept() -> Spanned<String> {
    Spanned::new(0..0, "accept".into())
}
fn ten() -> Spanned<u32> {
    Spanned::new(0..0, 10)
}
fn verdicts() -> Spanned<String> {
    Spanned::new(0..0, "verdicts".into())
}

/// The line (from 1) of byte `offset` in `text`.
fn line_of(text: &str, offset: usize) -> usize {
    text[..offset.min(text.len())].matches('\n').count() + 1
}

/// Where in `course.toml` a mistake is: its errors name the file, the line and the field.
struct Place<'a> {
    path: &'a Path,
    text: &'a str,
}

impl Place<'_> {
    fn fault(&self, span: Range<usize>, field: &str, why: String) -> Fault {
        Fault::Course(format!(
            "{}:{}: `{field}`: {why}",
            self.path.display(),
            line_of(self.text, span.start)
        ))
    }
}

impl Course {
    /// Reads `course.toml` and `roster.csv` of `dir`.
    pub(crate) fn load(dir: &Path) -> Result<Course, Fault> {
        let path = dir.join("course.toml");
        let text = std::fs::read_to_string(&path).map_err(|err| {
            Fault::Course(format!(
                "{}: {err} (write an example with --init)",
                path.display()
            ))
        })?;
        let file: CourseFile = toml::from_str(&text)
            .map_err(|err| Fault::Course(format!("{}: {err}", path.display())))?;
        let place = Place {
            path: &path,
            text: &text,
        };
        let mut assignments: Vec<Assignment> = Vec::new();
        for a in file.assignments {
            let assignment = a.read(dir, &place)?;
            if assignments
                .iter()
                .any(|other| other.name == assignment.name)
            {
                let why = format!("`{}` is named twice", assignment.name);
                return Err(place.fault(a.name.span(), "name", why));
            }
            assignments.push(assignment);
        }
        if assignments.is_empty() {
            let why = "the course has no [[assignment]]".into();
            return Err(place.fault(file.title.span(), "assignment", why));
        }
        let lti = match &file.lti {
            Some(lti) => Some(lti.get_ref().read(&place)?),
            None => None,
        };
        // With an LMS, the roster comes from it: roster.csv is optional.
        let roster_path = dir.join("roster.csv");
        let roster = match lti.is_some() && !roster_path.exists() {
            true => Vec::new(),
            false => crate::roster::read(&roster_path)?,
        };
        Ok(Course {
            title: file.title.into_inner(),
            assignments,
            roster,
            lti,
            late_days: file.late_days.map(Spanned::into_inner),
        })
    }

    pub(crate) fn assignment(&self, name: &str) -> Option<&Assignment> {
        self.assignments.iter().find(|a| a.name == name)
    }

    pub(crate) fn student(&self, id: &str) -> Option<&Student> {
        self.roster.iter().find(|s| s.id == id)
    }
}

impl AssignmentFile {
    /// The assignment this `[[assignment]]` describes, every field checked.
    fn read(&self, dir: &Path, place: &Place) -> Result<Assignment, Fault> {
        let name = self.checked_name(place)?;
        Ok(Assignment {
            title: self.title.clone().unwrap_or_else(|| name.clone()),
            name,
            spec: self.spec.get_ref().clone(),
            cases: self.checked_cases(dir, place)?,
            reference: self.reference.as_ref().map(|r| dir.join(r.get_ref())),
            deadline: self.checked_deadline(place)?,
            late: self.checked_late(place)?,
            per_hour: self.checked_per_hour(place)?,
            languages: self.checked_languages(place)?,
            hidden: self.checked_hidden(dir, place)?,
            show_hidden: self.checked_show_hidden(place)?,
            timeout: self.checked_timeout(place)?,
        })
    }

    fn checked_name(&self, place: &Place) -> Result<String, Fault> {
        let name = self.name.get_ref().clone();
        let good_name = !name.is_empty()
            && name.len() <= 40
            && name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
        if !good_name {
            let why = format!(
                "`{name}` is no name for an address: use letters, digits, - and _ (at most 40)"
            );
            return Err(place.fault(self.name.span(), "name", why));
        }
        Ok(name)
    }

    /// The course's own corpus root, if it names one: it must hold the spec's suite; without
    /// one, the spec must be built in.
    fn checked_cases(&self, dir: &Path, place: &Place) -> Result<Option<PathBuf>, Fault> {
        let cases = self.cases.as_ref().map(|c| dir.join(c.get_ref()));
        let spec = self.spec.get_ref();
        match &cases {
            None if !built_in().contains(spec) => {
                let why = format!(
                    "`{spec}` is not a built-in spec ({}); give `cases` for a spec of your own",
                    built_in().join(", ")
                );
                Err(place.fault(self.spec.span(), "spec", why))
            }
            Some(root) if !root.join(spec).join("suite.toml").is_file() => {
                let span = self.cases.as_ref().map(Spanned::span).unwrap_or_default();
                let why = format!("`{}` holds no `{spec}/suite.toml`", root.display());
                Err(place.fault(span, "cases", why))
            }
            _ => Ok(cases),
        }
    }

    fn checked_deadline(&self, place: &Place) -> Result<DateTime<FixedOffset>, Fault> {
        DateTime::parse_from_rfc3339(self.deadline.get_ref()).map_err(|err| {
            let why = format!(
                "`{}` is not a date and time with its offset, as 2026-12-10T23:59:00+01:00 ({err})",
                self.deadline.get_ref()
            );
            place.fault(self.deadline.span(), "deadline", why)
        })
    }

    fn checked_late(&self, place: &Place) -> Result<Late, Fault> {
        let penalty = self.late_penalty.as_ref().map_or(0.0, |p| *p.get_ref());
        if !(0.0..=1.0).contains(&penalty) {
            let span = self
                .late_penalty
                .as_ref()
                .map(Spanned::span)
                .unwrap_or_default();
            let why = format!("{penalty} is not a fraction between 0 and 1");
            return Err(place.fault(span, "late_penalty", why));
        }
        let per_day = self.late_penalty_per_day.as_ref();
        if let Some(per_day) = per_day {
            let p = *per_day.get_ref();
            if !(0.0..=1.0).contains(&p) {
                let why = format!("{p} is not a fraction between 0 and 1");
                return Err(place.fault(per_day.span(), "late_penalty_per_day", why));
            }
            if let Some(flat) = &self.late_penalty {
                let why = "give late_penalty (once) or late_penalty_per_day, not both".into();
                return Err(place.fault(flat.span(), "late_penalty", why));
            }
        }
        if let (None, Some(max)) = (per_day, &self.late_days_max) {
            let why = "goes with late_penalty_per_day".into();
            return Err(place.fault(max.span(), "late_days_max", why));
        }
        let refused = self.late.get_ref() == "refuse";
        if let (true, Some(per_day)) = (refused, per_day) {
            let why = "late = \"refuse\" takes no late work to penalise".into();
            return Err(place.fault(per_day.span(), "late_penalty_per_day", why));
        }
        match self.late.get_ref().as_str() {
            "accept" if per_day.is_some() => Ok(Late::PerDay {
                penalty: per_day.map_or(0.0, |p| *p.get_ref()),
                most_days: self.late_days_max.as_ref().map(|d| *d.get_ref()),
            }),
            "accept" => Ok(Late::Accepted { penalty }),
            "refuse" => Ok(Late::Refused),
            other => {
                let why = format!("`{other}`: write \"accept\" or \"refuse\"");
                Err(place.fault(self.late.span(), "late", why))
            }
        }
    }

    /// The hidden groups, each one the spec's suite has: a name it lacks (a typo) would hide
    /// nothing and show every case of the group it meant, so it is refused, with the group
    /// the name comes closest to and the groups there are.
    fn checked_hidden(&self, dir: &Path, place: &Place) -> Result<Vec<String>, Fault> {
        if self.hidden.is_empty() {
            return Ok(Vec::new());
        }
        let root = self
            .cases
            .as_ref()
            .map_or_else(xtask::workspace::cases, |c| dir.join(c.get_ref()));
        let spec = self.spec.get_ref();
        let suite = xtask::corpus::find(&root, spec)
            .map_err(|err| place.fault(self.spec.span(), "spec", err.to_string()))?;
        let mut groups: Vec<String> = suite.file.groups.keys().cloned().collect();
        groups.extend(suite.file.ungraded.keys().cloned());
        if let Ok(cases) = xtask::corpus::discover(&suite) {
            groups.extend(cases.into_iter().map(|case| case.group));
        }
        groups.sort();
        groups.dedup();
        for name in &self.hidden {
            if groups.contains(name.get_ref()) {
                continue;
            }
            let closest =
                xtask::error::did_you_mean(name.get_ref(), groups.iter().map(String::as_str));
            let why = format!(
                "`{}` is no group of `{spec}`{closest}: a hidden group must be one of {}",
                name.get_ref(),
                groups.join(", ")
            );
            return Err(place.fault(name.span(), "hidden", why));
        }
        Ok(self
            .hidden
            .iter()
            .map(|name| name.get_ref().clone())
            .collect())
    }

    fn checked_show_hidden(&self, place: &Place) -> Result<ShowHidden, Fault> {
        match self.show_hidden.get_ref().as_str() {
            "verdicts" => Ok(ShowHidden::Verdicts),
            "after-deadline" => Ok(ShowHidden::AfterDeadline),
            other => {
                let why = format!("`{other}`: write \"verdicts\" or \"after-deadline\"");
                Err(place.fault(self.show_hidden.span(), "show_hidden", why))
            }
        }
    }

    fn checked_languages(&self, place: &Place) -> Result<Vec<String>, Fault> {
        let known: Vec<&str> = xtask::language::table()
            .iter()
            .map(|l| l.name.as_str())
            .collect();
        let languages = self
            .languages
            .as_ref()
            .map(|l| l.get_ref().clone())
            .unwrap_or_default();
        if let Some(unknown) = languages.iter().find(|l| !known.contains(&l.as_str())) {
            let span = self
                .languages
                .as_ref()
                .map(Spanned::span)
                .unwrap_or_default();
            let why = format!(
                "`{unknown}` is not in the language table ({})",
                known.join(", ")
            );
            return Err(place.fault(span, "languages", why));
        }
        Ok(languages)
    }

    fn checked_per_hour(&self, place: &Place) -> Result<u32, Fault> {
        match *self.per_hour.get_ref() {
            0 => Err(place.fault(
                self.per_hour.span(),
                "per_hour",
                "must be at least 1".into(),
            )),
            per_hour => Ok(per_hour),
        }
    }

    fn checked_timeout(&self, place: &Place) -> Result<Option<f64>, Fault> {
        // Checked as `--timeout` is, by the harness's own setter's check.
        match &self.timeout {
            Some(timeout) => match xtask::grade::Options::checked_timeout(*timeout.get_ref()) {
                Ok(_) => Ok(Some(*timeout.get_ref())),
                Err(why) => Err(place.fault(timeout.span(), "timeout", why)),
            },
            None => Ok(None),
        }
    }
}
