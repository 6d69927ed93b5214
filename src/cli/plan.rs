//! The settings of one run, derived once from the user's flags: the query,
//! the output format, the search options, the part of each file to search,
//! the files and what is done with them.

use super::args::{self, Args};
use super::report::ExcludeProbe;
use super::walk::{self, Directories};
use crate::printer::{self, ContextSpec, Format};
use crate::query::{Query, QueryBuilder, Syntax};
use crate::region::Limits;
use crate::scan::ScanConfig;
use crate::search::SearchOptions;
use crate::timewin::{Bound, TimeFormat};
use std::ffi::OsString;
use std::io;

/// What an earlier phase of a run fixes for this one (`--follow` searches
/// the files up to where following starts, then each followed stream).
#[derive(Clone, Debug, Default)]
pub struct Phase {
    /// Search each named file only up to this byte.
    pub to_byte: Vec<(Vec<u8>, u64)>,
    /// Added to printed line numbers.
    pub base_line: u64,
    /// Added to printed byte offsets.
    pub base_offset: u64,
}

/// What is done with the selected lines of all files.
#[derive(Clone, Debug)]
pub enum Job {
    /// Every file forwards in order: lines, counts (`-c`), names (`-l`,
    /// `-L`), or only the exit status (`-q`); `--head`/`--tail` over records.
    Forward,
    /// The last N selected lines of all files, answered from the end.
    Tail(u64),
    /// Lines with context, forwards (`--head N` also).
    Context(ContextSpec),
    /// The last N selected lines with their context, from the end.
    TailContext(ContextSpec, u64),
}

impl Job {
    /// Files are searched last to first (a tail).
    pub fn backwards(&self) -> bool {
        matches!(self, Job::Tail(_) | Job::TailContext(..))
    }
}

/// The settings of one run.
pub struct Plan<'a> {
    /// The flags as given.
    pub args: &'a Args,
    /// The compiled patterns.
    pub q: Query,
    /// How lines are printed.
    pub fmt: Format,
    /// How each input is searched.
    pub opts: SearchOptions,
    /// The part of each file to search (`None`: all of it).
    pub limits: Option<Limits>,
    /// Where to stop in each named file (from the earlier phase).
    pub to_byte: Vec<(Vec<u8>, u64)>,
    /// Counts what each exclude hid (`--stats`, `--json`).
    pub probe: Option<ExcludeProbe>,
    /// Per-file reports are kept (`--stats`, `--json`).
    pub reports: bool,
    /// The operands (`-`: standard input).
    pub files: Vec<OsString>,
    /// The operand is the `.` of `grep -r PATTERN` (names without `./`).
    pub implicit_dot: bool,
    /// Standard input's name as printed.
    pub stdin_name: Vec<u8>,
    /// What is done with the lines.
    pub job: Job,
    /// `--merge` with lines to print: one timeline of all files.
    pub merge: bool,
    /// Which compressed files are decompressed (`None`: `--no-decompress`).
    pub decompress: Option<super::driver::Decompress>,
}

/// The digits of `INTMAX_MAX`: grep's `-T` width for an input whose size
/// it does not know (a pipe).
pub const INTMAX_DIGITS: usize = 19;

/// grep's `-T` width for a file of `size` bytes: the digits of the size,
/// plus one with `-n` (`None`: a pipe).
pub fn tab_width(size: Option<u64>, line_number: bool) -> usize {
    match size {
        Some(n) => (n + line_number as u64).to_string().len(),
        None => INTMAX_DIGITS,
    }
}

/// `TERM` allows colour (grep's `should_colorize`: set and not `dumb`).
pub fn term_ok() -> bool {
    std::env::var_os("TERM").is_some_and(|t| t != "dumb")
}

/// A builder with the settings every pattern of `args` is read with:
/// syntax, `-i`, `-w`, `-x`, `-z` and the locale (no patterns yet).
pub fn query_builder(args: &Args) -> QueryBuilder {
    QueryBuilder::new()
        .utf8(args.utf8)
        .null_data(args.null_data)
        .syntax(args.syntax.unwrap_or(Syntax::Basic))
        .ignore_case(args.ignore_case)
        .word(args.word)
        .line(args.line)
}

/// Build the query described by `args`.
pub fn build_query(args: &Args) -> Result<Query, crate::QueryError> {
    let mut b = query_builder(args).invert(args.invert);
    for p in &args.patterns {
        b = b.include(p);
    }
    for (s, p) in &args.excludes {
        b = match s {
            Some(s) => b.exclude_with(*s, p),
            None => b.exclude(p),
        };
    }
    for (s, [i, w, x], p) in &args.stage_excludes {
        b = b.exclude_with_flags(*s, p, *i, *w, *x);
    }
    b.build()
}

/// With `-E` or `-F`, an `-N` pattern holding an unescaped `|`, `+`, `?`,
/// `(` or `{` (ordinary characters in a basic regex) was probably meant as
/// an extended regex: say how `-N` reads it. stdout is not changed.
pub fn exclude_syntax_hint(args: &Args) -> Option<&'static str> {
    if !matches!(args.syntax, Some(Syntax::Extended | Syntax::Fixed)) {
        return None;
    }
    let ere_like = |p: &[u8]| {
        let mut escaped = false;
        p.iter().any(|&b| {
            let hit = !escaped && b"|+?({".contains(&b);
            escaped = !escaped && b == b'\\';
            hit
        })
    };
    args.excludes
        .iter()
        .any(|(syntax, p)| syntax.is_none() && ere_like(p))
        .then_some(
            "-N reads PATTERN as grep -v does (basic regex); use --not-E for an extended one",
        )
}

/// A locale that is neither C/POSIX nor UTF-8 (`en_US.ISO-8859-1`): grail
/// reads it as C and says so (grep would use its single-byte tables).
pub fn locale_note() -> Option<String> {
    let name = crate::locale_name();
    let plain = matches!(name.as_str(), "C" | "POSIX");
    (!plain && !crate::locale_is_utf8()).then(|| {
        format!("the locale {name} is not UTF-8: grail reads patterns and text as in the C locale")
    })
}

/// How a plan could not be made: the exit status to end with (the message,
/// if any, was printed).
pub struct Stop(pub i32);

impl<'a> Plan<'a> {
    /// Derive the settings of a run from `args`; `Err` when the run ends
    /// before any file is read.
    pub fn new(args: &'a Args, phase: &Phase) -> Result<Plan<'a>, Stop> {
        let q = build_query(args).map_err(|e| refuse(&e.to_string()))?;
        if cannot_match(args) {
            return Err(Stop(super::EXIT_NONE));
        }
        if args.only_matching {
            if let Some(why) = q.only_matching_refusal() {
                return Err(refuse(&format!("{why} is not supported")));
            }
        }
        let recurse = args.walk.directories == Directories::Recurse;
        // grep -r with no operand searches the working directory.
        let mut named = super::rotated::expand(&args.rotated);
        named.extend(args.files.iter().cloned());
        let implicit_dot = named.is_empty() && recurse;
        let files: Vec<OsString> = match (named.is_empty(), recurse) {
            (false, _) => named,
            (true, true) => vec![OsString::from(".")],
            (true, false) => vec![OsString::from("-")],
        };
        // With one operand, grep -r names files when it is a directory.
        let many = files.len() > 1
            || args.merge
            || (recurse
                && files[0] != "-"
                && std::fs::metadata(&files[0]).is_ok_and(|m| m.is_dir()));
        let fmt = format(args, &q, many, phase)?;
        let mut scan = ScanConfig::default();
        if let Some(c) = args.chunk_size {
            scan.chunk_size = c;
            scan.tail_start = c;
        }
        if args.null_data {
            let with = [
                (args.json, "--json"),
                (
                    args.since.is_some() || args.before_time.is_some(),
                    "--since/--before",
                ),
                (
                    args.from_byte.is_some() || !phase.to_byte.is_empty(),
                    "--from-byte",
                ),
            ];
            if let Some((_, what)) = with.iter().find(|(on, _)| *on) {
                return Err(refuse(&format!(
                    "-z does not combine with {what}: NUL-terminated records are read as a stream"
                )));
            }
        }
        let opts = SearchOptions {
            scan,
            // grep finds no binary file by NUL bytes when they end records.
            binary: if args.null_data {
                crate::search::BinaryMode::Text
            } else {
                args.binary
            },
            max_count: args.max_count,
            line_numbers: args.line_number || (args.json && !args.no_line_number),
        };
        let limits = limits(args, phase).map_err(|e| refuse(&e))?;
        let stdin_name = args
            .label
            .clone()
            .unwrap_or_else(|| b"(standard input)".to_vec());
        let reports = args.stats || args.json;
        Ok(Plan {
            args,
            q,
            fmt,
            opts,
            limits,
            to_byte: phase.to_byte.clone(),
            probe: reports.then(|| ExcludeProbe::new(args)).flatten(),
            reports,
            files,
            implicit_dot,
            stdin_name,
            job: job(args)?,
            merge: merged(args)?,
            decompress: match (args.no_decompress, args.gzip_only) {
                (true, _) => None,
                (false, true) => Some(super::driver::Decompress::Gzip),
                (false, false) => Some(super::driver::Decompress::All),
            },
        })
    }

    /// The inputs, in grep's order: the operands and what `-r` finds.
    pub fn inputs(&self) -> walk::Walk<'_> {
        let a = self.args;
        walk::Walk::new(
            &a.walk,
            &self.files,
            &self.stdin_name,
            self.implicit_dot,
            a.no_messages,
        )
    }

    /// `-l` or `-L`.
    pub fn listing(&self) -> bool {
        self.args.files_with_matches || self.args.files_without_match
    }
}

fn refuse(msg: &str) -> Stop {
    say!("grail: {msg}");
    Stop(super::EXIT_TROUBLE)
}

/// grep's shortcut: when matching obviously cannot succeed (`-m 0`, or
/// `-v` with only empty patterns, or no patterns at all without -v), it
/// fails at once without reading (or reporting on) any file.
fn cannot_match(args: &Args) -> bool {
    let no_keys = args.patterns.iter().all(|p| p.is_empty());
    let (invert, wx) = if args.patterns.is_empty() {
        (!args.invert, false)
    } else {
        (args.invert, args.word || args.line)
    };
    let listing_nonmatching = args.files_without_match && !args.quiet; // -q overrides -L
    (args.max_count == Some(0) || (no_keys && invert && !wx)) && !listing_nonmatching
}

/// Whether lines are merged into one timeline (`--merge` with lines to
/// print: counts and names are per file anyway).
fn merged(args: &Args) -> Result<bool, Stop> {
    let listing = args.files_with_matches || args.files_without_match;
    if !args.merge || args.quiet || args.count || listing {
        return Ok(false);
    }
    let with = [
        (args.context().is_some(), "context (-A, -B, -C)"),
        (args.null_data, "-z"),
        (args.follow, "--follow"),
        (
            args.tail.is_some() && args.head.is_some(),
            "both --head and --tail",
        ),
    ];
    if let Some((_, what)) = with.iter().find(|(on, _)| *on) {
        return Err(refuse(&format!("--merge does not combine with {what}")));
    }
    Ok(true)
}

/// What is done with the lines.
fn job(args: &Args) -> Result<Job, Stop> {
    let listing = args.files_with_matches || args.files_without_match;
    let plain_lines = !args.quiet && !args.count && !listing;
    let context = if plain_lines { args.context() } else { None };
    Ok(match (context, args.tail, args.head) {
        (Some(_), Some(_), Some(_)) => {
            return Err(refuse(
                "context with both --head and --tail is not supported",
            ))
        }
        (Some(spec), Some(t), None) => Job::TailContext(spec, t),
        (Some(spec), None, _) => Job::Context(spec),
        (None, Some(t), None) if plain_lines => Job::Tail(t),
        _ => Job::Forward,
    })
}

/// How lines are printed: prefixes, colour, JSON.
fn format(args: &Args, q: &Query, many: bool, phase: &Phase) -> Result<Format, Stop> {
    let color_on = match args.color {
        args::ColorWhen::Never => false,
        args::ColorWhen::Always => true,
        args::ColorWhen::Auto => io::IsTerminal::is_terminal(&io::stdout()) && term_ok(),
    };
    let color = if color_on && !args.quiet {
        let lines_out = !(args.count || args.files_with_matches || args.files_without_match);
        if let (true, Some(why)) = (lines_out, q.only_matching_refusal()) {
            return Err(refuse(&format!("--color: {why} is not supported")));
        }
        let (c, warning) = printer::Colors::from_env(
            std::env::var("GREP_COLOR").ok().as_deref(),
            std::env::var("GREP_COLORS").ok().as_deref(),
        );
        if let Some(w) = warning {
            say!("grail: {w}");
        }
        Some(std::sync::Arc::new(c))
    } else {
        None
    };
    let mut fmt = Format {
        with_filename: args.with_filename.unwrap_or(many),
        line_number: args.line_number,
        byte_offset: args.byte_offset,
        only_matching: args.only_matching,
        null_after_name: args.null,
        color,
        json: None,
        base_offset: phase.base_offset,
        base_line: phase.base_line,
        tab_width: args.initial_tab.then_some(INTMAX_DIGITS),
        null_data: args.null_data,
        bad_utf8: None,
    };
    if args.json {
        fmt.json = Some(std::sync::Arc::new(json_spec(args, fmt.color.is_some())?));
    }
    Ok(fmt)
}

/// What `--json` needs: each include pattern with a query of its own.
fn json_spec(args: &Args, color: bool) -> Result<printer::JsonSpec, Stop> {
    let conflict = [
        (args.count, "-c"),
        (args.files_with_matches, "-l"),
        (args.files_without_match, "-L"),
        (args.quiet, "-q"),
        (
            args.only_matching,
            "-o (matches are in each object's \"matches\")",
        ),
        (color, "--color"),
    ];
    if let Some((_, what)) = conflict.iter().find(|(on, _)| *on) {
        return Err(refuse(&format!(
            "--json does not combine with {what}: it prints selected lines and a summary"
        )));
    }
    let patterns = args
        .patterns
        .iter()
        .filter_map(|p| {
            query_builder(args)
                .include(p)
                .build()
                .ok()
                .map(|q| (String::from_utf8_lossy(p).into_owned(), q))
        })
        .collect();
    Ok(printer::JsonSpec {
        patterns,
        line_numbers: !args.no_line_number,
    })
}

/// `--from-byte`, `--since`, `--before` and `--time-format` (and the
/// earlier phase's end offsets); `None` when none applies.
fn limits(args: &Args, phase: &Phase) -> Result<Option<Limits>, String> {
    if args.from_byte.is_none()
        && phase.to_byte.is_empty()
        && args.since.is_none()
        && args.before_time.is_none()
    {
        if args.time_format.is_some() {
            return Err("--time-format needs --since or --before".into());
        }
        return Ok(None);
    }
    let now = std::time::SystemTime::now();
    let bound = |opt: &str, v: &Option<String>| {
        v.as_deref()
            .map(|s| Bound::parse(s, now).map_err(|e| format!("{opt}: {e}")))
            .transpose()
    };
    Ok(Some(Limits {
        from_byte: args.from_byte,
        end: None,
        since: bound("--since", &args.since)?,
        before: bound("--before", &args.before_time)?,
        format: args
            .time_format
            .as_deref()
            .map(|f| TimeFormat::parse(f).map_err(|e| format!("--time-format: {e}")))
            .transpose()?,
    }))
}
