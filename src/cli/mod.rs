//! The command-line program. The flags are parsed ([`args`]), the settings
//! of the run derived once ([`plan`]), and one per-file loop ([`driver`])
//! hands each file to the job the plan chose ([`jobs`]), which searches it
//! with [`crate::search::run`]. `--sh` ([`sh`]) and `--follow` ([`follow`])
//! build flags and phases for the driver; the exit status is grep's.

/// One message line to stderr, never panicking (see [`say::line`]).
macro_rules! say {
    ($($t:tt)*) => {
        $crate::cli::say::line(format_args!($($t)*))
    };
}

mod args;
mod driver;
mod fnmatch;
mod follow;
mod glob;
mod jobs;
mod plan;
mod report;
mod rotated;
mod say;
mod select;
mod sh;
mod walk;
mod zcat;

use driver::{Output, Stdin};
use std::ffi::OsString;
use std::io;

/// Exit statuses, as grep's.
pub const EXIT_SELECTED: i32 = 0;
/// No line selected.
pub const EXIT_NONE: i32 = 1;
/// An error occurred.
pub const EXIT_TROUBLE: i32 = 2;

/// Run grail with `argv` (the program name first); returns the exit status.
pub fn run(mut argv: Vec<OsString>) -> i32 {
    let argv0 = (!argv.is_empty()).then(|| argv.remove(0));
    say::set_program(argv0.as_deref());
    let args = match args::parse(argv) {
        Ok(a) => a,
        Err(e) if e.0 == args::USAGE => {
            say!("{}", e.0);
            return EXIT_TROUBLE;
        }
        Err(e) => {
            say!("grail: {}", e.0);
            return e.status();
        }
    };
    if args.help {
        return say::stdout(args::HELP.as_bytes());
    }
    if args.version {
        return say::stdout(format!("grail {}\n", env!("CARGO_PKG_VERSION")).as_bytes());
    }
    let pool = match args.threads {
        Some(n) => match rayon::ThreadPoolBuilder::new().num_threads(n).build() {
            Ok(p) => Some(p),
            Err(e) => {
                say!("grail: cannot start {n} threads: {e}");
                return EXIT_TROUBLE;
            }
        },
        None => None,
    };
    if let Some(hint) = plan::exclude_syntax_hint(&args) {
        say!("grail: {hint}");
    }
    if let Some(note) = plan::locale_note() {
        say!("grail: {note}");
    }
    let go = || match &args.sh {
        Some(line) => sh::run(line, &args),
        None if args.follow => follow::run(&args),
        None => {
            let stdout = io::stdout();
            let mut lock = stdout.lock();
            let output = Output {
                sink: &mut lock,
                to_stdout: true,
                reports: None,
            };
            driver::run_plan(&args, &plan::Phase::default(), &Stdin::Real, output).status
        }
    };
    match pool {
        Some(p) => p.install(go),
        None => go(),
    }
}
