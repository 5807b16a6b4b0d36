//! The course server's flags: `cargo xtask serve --course DIR [--listen ADDR] [--jobs N]
//! [--init | --links | --revoke ID | --worker] ...`. Parsed here, acted on in `start`.

use std::path::PathBuf;

use clap::Parser;

/// The course server.
#[derive(Parser)]
#[command(
    name = "cargo xtask serve",
    about = "The course server: students hand in work in a browser, the instructor sees the class",
    after_long_help = "The guide: docs/guide/src/course.md (and lti.md, machines.md beside it)"
)]
pub struct Args {
    /// The course folder: course.toml, roster.csv, and the server's state (.gridjudge/).
    #[arg(long, value_name = "DIR")]
    pub(crate) course: PathBuf,
    /// The address to serve on (loopback by default; put a TLS proxy in front for a network).
    #[arg(long, value_name = "ADDR", default_value = "127.0.0.1:8080")]
    pub(crate) listen: String,
    /// CPU seats for grading (cases run at once); 0: this server grades nothing.
    #[arg(long, value_name = "N")]
    pub(crate) jobs: Option<usize>,
    /// Write a commented course.toml and roster.csv into the course folder, and stop.
    #[arg(long)]
    pub(crate) init: bool,
    /// Print a CSV `id,name,link` of fresh login links (the earlier ones stop working, their
    /// sessions end; each link signs in once), the instructor's last, and stop.
    #[arg(long)]
    pub(crate) links: bool,
    /// Print a CSV `id,name,token` of fresh API tokens (each person's earlier one stops
    /// working), the instructor's last, and stop. A link signs in once; a token is for scripts.
    #[arg(long, conflicts_with = "links")]
    pub(crate) api_tokens: bool,
    /// With --links or --api-tokens: only this student's (or `instructor`'s).
    #[arg(long, value_name = "ID")]
    pub(crate) student: Option<String>,
    /// Revoke the links and API token of student ID (or `instructor`) and end their sessions,
    /// and stop.
    #[arg(long, value_name = "ID")]
    pub(crate) revoke: Option<String>,
    /// The address students reach the server at, for --links (default: http://LISTEN). An
    /// https address makes the session cookie Secure.
    #[arg(long, value_name = "URL")]
    pub(crate) base_url: Option<String>,
    /// The address of the TLS proxy in front of the server: from it, and only from it, the
    /// client's own address is read from `X-Forwarded-For` (or `Forwarded`), for the limit on
    /// wrong links. Without it every client behind a proxy has the proxy's address.
    #[arg(long, value_name = "ADDR")]
    pub(crate) trusted_proxy: Option<std::net::IpAddr>,
    /// Seconds a client has to send a request's headers; past them its connection is closed.
    #[arg(long, value_name = "SECS", default_value_t = 10.0, value_parser = header_timeout)]
    pub(crate) header_timeout: f64,
    /// The largest upload taken, in MiB.
    #[arg(long, value_name = "MIB", default_value_t = 10)]
    pub(crate) max_upload: usize,
    /// The reference binary of the built-in specs (default: the bundled one, built).
    #[arg(long, value_name = "PATH")]
    pub(crate) reference: Option<PathBuf>,
    /// The database: a PostgreSQL URL (`postgres://user@host/db`, or a Unix socket's folder
    /// as `postgres:///db?host=/run/postgresql`), shared by the web server and its workers.
    /// Default: SQLite in the course folder.
    #[arg(
        long,
        value_name = "URL",
        env = "GRIDJUDGE_DATABASE",
        hide_env_values = true
    )]
    pub(crate) database: Option<String>,
    /// Seconds a grading may go without moving (starting, building, running a case) before it
    /// is given up and its submission graded again, and that work may wait while this process
    /// grades nothing before its grading worker starts again; the pages say a queue is stalled
    /// past them.
    #[arg(long, value_name = "SECS", default_value_t = crate::watch::STALL_AFTER,
          value_parser = clap::value_parser!(u64).range(1..=86400))]
    pub(crate) stall_after: u64,
    /// Grade only, serving no pages: a worker beside a web server on the same database (any
    /// number of them, on any machine with the course folder's cases).
    #[arg(long, requires = "database", conflicts_with_all = ["links", "api_tokens", "revoke", "init"])]
    pub(crate) worker: bool,
}

/// A header timeout: a number of seconds from 0.1 to an hour.
fn header_timeout(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(secs) if (0.1..=3600.0).contains(&secs) => Ok(secs),
        _ => Err(format!(
            "`{text}` is not a number of seconds from 0.1 to 3600"
        )),
    }
}
