//! `cargo xtask new`: an assignment of your own, a corpus suite around your solution.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use super::output::done;
use super::shared::current_dir;
use crate::error::Error;

#[derive(clap::Args)]
pub struct NewArgs {
    /// The assignment's name: the suite's folder and its `--spec`.
    pub name: String,
    /// Your solution's command line, as you would type it here (`python3 solution.py`): it
    /// writes the expected outputs.
    #[arg(long, value_name = "CMD")]
    pub reference: String,
    /// A generator's command line, `{seed}` among its words (`python3 gen.py {seed}`): it
    /// prints one random input per seed, for `gen` and `fuzz`.
    #[arg(long, value_name = "CMD")]
    pub generate: Option<String>,
    /// The corpus folder the assignment goes into (default: the current folder).
    #[arg(long, value_name = "DIR")]
    pub cases: Option<PathBuf>,
}

impl NewArgs {
    pub fn request(&self) -> Result<crate::scaffold::Request, Error> {
        let dir = current_dir()?;
        Ok(crate::scaffold::Request {
            name: self.name.clone(),
            corpus: self.cases.clone().unwrap_or_else(|| dir.clone()),
            reference: self.reference.clone(),
            generate: self.generate.clone(),
            dir,
        })
    }
}

pub(super) fn run(args: NewArgs) -> Result<ExitCode, Error> {
    let request = args.request()?;
    let folder = crate::scaffold::create(&request)?;
    done(&new_suite_report(&folder, &request))
}

/// What `new` says it made, and the next steps.
pub(super) fn new_suite_report(folder: &Path, request: &crate::scaffold::Request) -> String {
    let corpus = request.corpus.display();
    let name = &request.name;
    let mut notes = String::new();
    for file in crate::scaffold::outside(request, folder) {
        notes +=
            &format!(
            "note: `{file}` stays where it is, outside the suite's folder, and suite.toml names \
             it there; a graded program run in a folder that holds it could read it: keep it \
             beside suite.toml (move it and name it `{}` in suite.toml), where no graded \
             program can\n",
            Path::new(&file).file_name().unwrap_or_default().to_string_lossy()
        );
    }
    notes + &format!(
        "created `{}` and its `handout/` group\n\
         next:\n  \
         1. put the handout's examples in `handout/` as `001-NAME.in` files (and your \
         solution and generator beside `suite.toml`)\n  \
         2. cargo xtask bless --cases {corpus} --spec {name}     (writes their `.out` with your solution)\n  \
         3. cargo xtask gen --cases {corpus} --spec {name} --count 50   (with a `generate` command)\n  \
         4. cargo xtask check --cases {corpus} --spec {name} -- python3 ~/student/student.py   \
         (a program outside this checkout: the checkout is hidden from graded programs)\n",
        folder.join("suite.toml").display()
    )
}
