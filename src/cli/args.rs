//! Command-line parsing into typed arguments. grep's options keep grep's
//! meaning; grail's own options use letters GNU grep does not.

use super::walk::{self, Devices, Directories};
use crate::query::Syntax;
use crate::search::BinaryMode;
use lexopt::prelude::*;
use std::ffi::OsString;
use std::os::unix::ffi::{OsStrExt, OsStringExt};

/// What the command line asks for.
#[derive(Clone, Debug, Default)]
pub struct Args {
    /// Include syntax (last of -G/-E/-F wins, for every include pattern).
    pub syntax: Option<Syntax>,
    /// Include patterns, in order, as given with -e / -f (None: take the first operand).
    pub patterns: Vec<Vec<u8>>,
    /// Whether -e or -f was given.
    pub explicit_patterns: bool,
    /// Exclude patterns with an explicit syntax (None: BRE, as `grep -v`).
    pub excludes: Vec<(Option<Syntax>, Vec<u8>)>,
    /// Exclude patterns carrying their own syntax and -i/-w/-x (from `--sh` stages).
    pub stage_excludes: Vec<(Syntax, [bool; 3], Vec<u8>)>,
    /// -i
    pub ignore_case: bool,
    /// -w
    pub word: bool,
    /// -x
    pub line: bool,
    /// -v
    pub invert: bool,
    /// -c
    pub count: bool,
    /// -l
    pub files_with_matches: bool,
    /// -L
    pub files_without_match: bool,
    /// -q
    pub quiet: bool,
    /// -s
    pub no_messages: bool,
    /// -n
    pub line_number: bool,
    /// --no-line-number: no -n, and `--json` objects without line numbers
    /// (a tail then reads only the end of the file).
    pub no_line_number: bool,
    /// -b
    pub byte_offset: bool,
    /// -H (Some(true)) / -h (Some(false))
    pub with_filename: Option<bool>,
    /// --label
    pub label: Option<Vec<u8>>,
    /// -o
    pub only_matching: bool,
    /// -a / --binary-files / -I
    pub binary: BinaryMode,
    /// -m
    pub max_count: Option<u64>,
    /// -Z
    pub null: bool,
    /// -T
    pub initial_tab: bool,
    /// -z
    pub null_data: bool,
    /// --line-buffered
    pub line_buffered: bool,
    /// -t / --tail
    pub tail: Option<u64>,
    /// --head
    pub head: Option<u64>,
    /// --sh
    pub sh: Option<OsString>,
    /// --explain
    pub explain: bool,
    /// --sh-fallback
    pub sh_fallback: bool,
    /// --threads
    pub threads: Option<usize>,
    /// --chunk-size (testing)
    pub chunk_size: Option<usize>,
    /// Files (operands after the pattern).
    pub files: Vec<OsString>,
    /// -B (leading context lines)
    pub context_before: Option<usize>,
    /// -A (trailing context lines)
    pub context_after: Option<usize>,
    /// -C / -NUM (both, unless -A/-B say otherwise)
    pub context_default: Option<usize>,
    /// --group-separator (None: `--no-group-separator`)
    pub group_separator: Option<Vec<u8>>,
    /// --color
    pub color: ColorWhen,
    /// --json
    pub json: bool,
    /// --stats
    pub stats: bool,
    /// --since
    pub since: Option<String>,
    /// --before (a time, not grep's `--before-context`)
    pub before_time: Option<String>,
    /// --time-format
    pub time_format: Option<String>,
    /// --from-byte
    pub from_byte: Option<u64>,
    /// --follow
    pub follow: bool,
    /// --until
    pub until: Option<Vec<u8>>,
    /// --pid
    pub pid: Option<i32>,
    /// --timeout
    pub timeout: Option<std::time::Duration>,
    /// --help
    pub help: bool,
    /// -V
    pub version: bool,
    /// -r, -R, -d, -D, --include, --exclude, --exclude-from, --exclude-dir
    pub walk: walk::Settings,
    /// The locale (`LC_ALL`, `LC_CTYPE`, `LANG`) is a UTF-8 one.
    pub utf8: bool,
    /// --no-decompress
    pub no_decompress: bool,
    /// --rotated FILE (each: FILE's logrotate set, oldest first)
    pub rotated: Vec<OsString>,
    /// --merge
    pub merge: bool,
    /// Decompress gzip files only (a `zgrep` stage of `--sh`).
    pub gzip_only: bool,
}

/// When to colour the output (`--color`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ColorWhen {
    /// Never (the default).
    #[default]
    Never,
    /// When standard output is a terminal and `TERM` is not `dumb`.
    Auto,
    /// Always.
    Always,
}

impl Args {
    /// The context asked for, if any (`-A`, `-B`, `-C` or `-NUM`, even 0:
    /// grep then still prints group separators).
    pub fn context(&self) -> Option<crate::printer::ContextSpec> {
        let before = self.context_before.or(self.context_default);
        let after = self.context_after.or(self.context_default);
        if before.is_none() && after.is_none() {
            return None;
        }
        Some(crate::printer::ContextSpec {
            before: before.unwrap_or(0),
            after: after.unwrap_or(0),
            separator: self.group_separator.clone(),
        })
    }
}

/// grep's context length: a non-negative decimal, huge values capped.
fn context_len(v: &str) -> Result<usize, UsageError> {
    let t = v.trim_start();
    let digits = t.strip_prefix('+').unwrap_or(t);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err(UsageError(format!("{v}: invalid context length argument")));
    }
    Ok(digits.parse::<usize>().unwrap_or(usize::MAX))
}

/// A duration such as `30`, `30s`, `5m`, `1.5h`, `250ms`.
fn duration(v: &str) -> Result<std::time::Duration, UsageError> {
    let t = v.trim();
    let (num, unit) = match t.find(|c: char| !(c.is_ascii_digit() || c == '.')) {
        Some(i) => (&t[..i], &t[i..]),
        None => (t, "s"),
    };
    let mult = match unit {
        "ms" => 0.001,
        "s" | "sec" => 1.0,
        "m" | "min" => 60.0,
        "h" => 3600.0,
        "d" => 86400.0,
        _ => f64::NAN,
    };
    match num.parse::<f64>() {
        Ok(n) if n >= 0.0 && mult.is_finite() && (n * mult) < 1e12 => {
            Ok(std::time::Duration::from_secs_f64(n * mult))
        }
        _ => Err(UsageError(format!(
            "invalid duration '{v}' (expected e.g. 30s, 5m, 2h, 250ms)"
        ))),
    }
}

/// A usage error: message, printed as `grail: MESSAGE` with exit status 2.
#[derive(Debug)]
pub struct UsageError(pub String);

impl UsageError {
    /// The exit status: grep's argmatch failures (`-d foo`) exit with 1,
    /// every other usage error with 2.
    pub fn status(&self) -> i32 {
        if self.0.starts_with("invalid argument '") || self.0.starts_with("ambiguous argument '") {
            1
        } else {
            2
        }
    }
}

impl From<lexopt::Error> for UsageError {
    fn from(e: lexopt::Error) -> Self {
        // getopt's words, as grep prints them, then its usage lines.
        match e {
            lexopt::Error::MissingValue {
                option: Some(o), ..
            } => match o.strip_prefix("--") {
                Some(_) => UsageError(format!("option '{o}' requires an argument\n{USAGE}")),
                None => UsageError(format!(
                    "option requires an argument -- '{}'\n{USAGE}",
                    o.trim_start_matches('-')
                )),
            },
            lexopt::Error::UnexpectedValue { option, .. } => UsageError(format!(
                "option '{option}' doesn't allow an argument\n{USAGE}"
            )),
            e => UsageError(e.to_string()),
        }
    }
}

fn num(v: OsString, what: &str) -> Result<u64, UsageError> {
    let s = v.to_string_lossy().into_owned();
    s.trim()
        .parse::<u64>()
        .map_err(|_| UsageError(format!("invalid {what} argument '{s}'")))
}

/// grep refuses two different matchers (`-E -F`); the same one twice is fine.
fn set_syntax(a: &mut Args, s: Syntax) -> Result<(), UsageError> {
    match a.syntax {
        Some(old) if old != s => Err(UsageError("conflicting matchers specified".into())),
        _ => {
            a.syntax = Some(s);
            Ok(())
        }
    }
}

/// Whether a long option takes an argument.
#[derive(Clone, Copy, PartialEq, Eq)]
enum HasArg {
    No,
    Required,
    Optional,
}

/// GNU grep 3.8's long options in the order of its table (getopt lists
/// the candidates of an ambiguous prefix in this order), with what each
/// is: aliases share the last field.
const GREP_LONG: &[(&str, HasArg, &str)] = &[
    ("basic-regexp", HasArg::No, "G"),
    ("extended-regexp", HasArg::No, "E"),
    ("fixed-regexp", HasArg::No, "F"),
    ("fixed-strings", HasArg::No, "F"),
    ("perl-regexp", HasArg::No, "P"),
    ("after-context", HasArg::Required, "A"),
    ("before-context", HasArg::Required, "B"),
    ("binary-files", HasArg::Required, "binary-files"),
    ("byte-offset", HasArg::No, "b"),
    ("context", HasArg::Required, "C"),
    ("color", HasArg::Optional, "color"),
    ("colour", HasArg::Optional, "color"),
    ("count", HasArg::No, "c"),
    ("devices", HasArg::Required, "D"),
    ("directories", HasArg::Required, "d"),
    ("dereference-recursive", HasArg::No, "R"),
    ("exclude", HasArg::Required, "exclude"),
    ("exclude-from", HasArg::Required, "exclude-from"),
    ("exclude-dir", HasArg::Required, "exclude-dir"),
    ("file", HasArg::Required, "f"),
    ("files-with-matches", HasArg::No, "l"),
    ("files-without-match", HasArg::No, "L"),
    ("group-separator", HasArg::Required, "group-separator"),
    ("help", HasArg::No, "help"),
    ("include", HasArg::Required, "include"),
    ("ignore-case", HasArg::No, "i"),
    ("no-ignore-case", HasArg::No, "no-ignore-case"),
    ("initial-tab", HasArg::No, "T"),
    ("label", HasArg::Required, "label"),
    ("line-buffered", HasArg::No, "line-buffered"),
    ("line-number", HasArg::No, "n"),
    ("line-regexp", HasArg::No, "x"),
    ("max-count", HasArg::Required, "m"),
    ("no-filename", HasArg::No, "h"),
    ("no-group-separator", HasArg::No, "no-group-separator"),
    ("no-messages", HasArg::No, "s"),
    ("null", HasArg::No, "Z"),
    ("null-data", HasArg::No, "z"),
    ("only-matching", HasArg::No, "o"),
    ("quiet", HasArg::No, "q"),
    ("recursive", HasArg::No, "r"),
    ("regexp", HasArg::Required, "e"),
    ("invert-match", HasArg::No, "v"),
    ("silent", HasArg::No, "q"),
    ("text", HasArg::No, "a"),
    ("binary", HasArg::No, "U"),
    ("unix-byte-offsets", HasArg::No, "u"),
    ("version", HasArg::No, "V"),
    ("with-filename", HasArg::No, "H"),
    ("word-regexp", HasArg::No, "w"),
];

/// grail's own long options. A prefix that grep's options match keeps
/// grep's meaning (`--bef` is `--before-context`); only a prefix that
/// matches none of them is looked up here.
const GRAIL_LONG: &[(&str, HasArg, &str)] = &[
    ("not", HasArg::Required, "not"),
    ("not-E", HasArg::Required, "not-E"),
    ("not-F", HasArg::Required, "not-F"),
    ("not-G", HasArg::Required, "not-G"),
    ("tail", HasArg::Required, "t"),
    ("head", HasArg::Required, "head"),
    ("sh", HasArg::Required, "sh"),
    ("explain", HasArg::No, "explain"),
    ("sh-fallback", HasArg::No, "sh-fallback"),
    ("threads", HasArg::Required, "threads"),
    ("chunk-size", HasArg::Required, "chunk-size"),
    ("json", HasArg::No, "json"),
    ("stats", HasArg::No, "stats"),
    ("since", HasArg::Required, "since"),
    ("before", HasArg::Required, "before"),
    ("time-format", HasArg::Required, "time-format"),
    ("from-byte", HasArg::Required, "from-byte"),
    ("follow", HasArg::No, "follow"),
    ("until", HasArg::Required, "until"),
    ("pid", HasArg::Required, "pid"),
    ("timeout", HasArg::Required, "timeout"),
    ("no-decompress", HasArg::No, "no-decompress"),
    ("rotated", HasArg::Required, "rotated"),
    ("merge", HasArg::No, "merge"),
    ("no-line-number", HasArg::No, "no-line-number"),
];

/// The long option `typed` names, as getopt_long finds it: an exact name,
/// else the one option that the prefix `typed` abbreviates; a prefix of
/// several different options is an error naming them.
fn resolve_long(typed: &str) -> Result<(&'static str, HasArg), UsageError> {
    let tables = [GREP_LONG, GRAIL_LONG];
    if let Some(e) = tables.iter().flat_map(|t| t.iter()).find(|e| e.0 == typed) {
        return Ok((e.0, e.1));
    }
    for table in tables {
        let mut cands = table.iter().filter(|e| e.0.starts_with(typed));
        let Some(first) = cands.next() else {
            continue;
        };
        let others: Vec<String> = cands
            .filter(|e| e.1 != first.1 || e.2 != first.2)
            .map(|e| format!("'--{}'", e.0))
            .collect();
        if others.is_empty() {
            return Ok((first.0, first.1));
        }
        return Err(UsageError(format!(
            "option '--{typed}' is ambiguous; possibilities: '--{}' {}\n{USAGE}",
            first.0,
            others.join(" ")
        )));
    }
    Err(UsageError(format!(
        "unrecognized option '--{typed}'\n{USAGE}"
    )))
}

/// An option as given: its short letter or long name.
#[derive(Clone, Copy)]
enum Opt<'s> {
    S(char),
    L(&'s str),
}

/// An option, owned (a long name borrows the parser).
enum Key {
    Short(char),
    Long(String),
}

impl Key {
    fn as_opt(&self) -> Opt<'_> {
        match self {
            Key::Short(c) => Opt::S(*c),
            Key::Long(s) => Opt::L(s),
        }
    }
}

use Opt::{L, S};

/// Options that choose what is selected: patterns, syntax, excludes, case,
/// binary handling, `-m`. False: not one of them.
fn matching_option(a: &mut Args, opt: Opt<'_>, p: &mut lexopt::Parser) -> Result<bool, UsageError> {
    match opt {
        S('e') | L("regexp") => {
            a.patterns.push(p.value()?.into_vec());
            a.explicit_patterns = true;
        }
        S('f') | L("file") => {
            let path = p.value()?;
            let data = if path == "-" {
                let mut v = Vec::new();
                std::io::Read::read_to_end(&mut std::io::stdin(), &mut v)
                    .map_err(|e| UsageError(format!("-: {}", crate::error::io_text(&e))))?;
                v
            } else {
                std::fs::read(&path).map_err(|e| {
                    UsageError(format!(
                        "{}: {}",
                        path.to_string_lossy(),
                        crate::error::io_text(&e)
                    ))
                })?
            };
            let mut d = &data[..];
            if d.last() == Some(&b'\n') {
                d = &d[..d.len() - 1];
            }
            if !data.is_empty() {
                a.patterns.push(d.to_vec());
            }
            a.explicit_patterns = true;
        }
        S('E') | L("extended-regexp") => set_syntax(a, Syntax::Extended)?,
        S('F') | L("fixed-strings") | L("fixed-regexp") => set_syntax(a, Syntax::Fixed)?,
        S('G') | L("basic-regexp") => set_syntax(a, Syntax::Basic)?,
        S('P') | L("perl-regexp") => set_syntax(a, Syntax::Perl)?,
        S('N') | L("not") => a.excludes.push((None, p.value()?.into_vec())),
        L("not-E") => a
            .excludes
            .push((Some(Syntax::Extended), p.value()?.into_vec())),
        L("not-F") => a
            .excludes
            .push((Some(Syntax::Fixed), p.value()?.into_vec())),
        L("not-G") => a
            .excludes
            .push((Some(Syntax::Basic), p.value()?.into_vec())),
        S('i') | S('y') | L("ignore-case") => a.ignore_case = true,
        L("no-ignore-case") => a.ignore_case = false,
        S('w') | L("word-regexp") => a.word = true,
        S('x') | L("line-regexp") => a.line = true,
        S('v') | L("invert-match") => a.invert = true,
        S('a') | L("text") => a.binary = BinaryMode::Text,
        S('I') => a.binary = BinaryMode::WithoutMatch,
        L("binary-files") => {
            let v = p.value()?;
            a.binary = match v.to_str() {
                Some("binary") => BinaryMode::Grep,
                Some("text") => BinaryMode::Text,
                Some("without-match") => BinaryMode::WithoutMatch,
                _ => {
                    return Err(UsageError(format!(
                        "unknown binary-files type '{}'",
                        v.to_string_lossy()
                    )))
                }
            };
        }
        S('m') | L("max-count") => {
            let v = p.value()?;
            let s = v.to_string_lossy().into_owned();
            // grep: a negative count means no limit.
            a.max_count = match s.trim().parse::<i64>() {
                Ok(n) if n < 0 => None,
                Ok(n) => Some(n as u64),
                Err(_) => return Err(UsageError(format!("invalid max count '{s}'"))),
            };
        }
        _ => return Ok(false),
    }
    Ok(true)
}

/// Options that choose what is printed: counts, names, prefixes, colour,
/// context. False: not one of them.
fn output_option(a: &mut Args, opt: Opt<'_>, p: &mut lexopt::Parser) -> Result<bool, UsageError> {
    match opt {
        S('c') | L("count") => a.count = true,
        // The later of -l and -L wins, as in grep.
        S('l') | L("files-with-matches") => {
            a.files_with_matches = true;
            a.files_without_match = false;
        }
        S('L') | L("files-without-match") => {
            a.files_without_match = true;
            a.files_with_matches = false;
        }
        S('q') | L("quiet") | L("silent") => a.quiet = true,
        S('s') | L("no-messages") => a.no_messages = true,
        S('n') | L("line-number") => {
            a.line_number = true;
            a.no_line_number = false;
        }
        L("no-line-number") => {
            a.line_number = false;
            a.no_line_number = true;
        }
        S('b') | L("byte-offset") => a.byte_offset = true,
        S('H') | L("with-filename") => a.with_filename = Some(true),
        S('h') | L("no-filename") => a.with_filename = Some(false),
        L("label") => a.label = Some(p.value()?.into_vec()),
        S('o') | L("only-matching") => a.only_matching = true,
        S('Z') | L("null") => a.null = true,
        S('T') | L("initial-tab") => a.initial_tab = true,
        S('z') | L("null-data") => a.null_data = true,
        L("line-buffered") => a.line_buffered = true,
        S('U') | L("binary") => {}
        S('u') | L("unix-byte-offsets") => {}
        L("color") | L("colour") => {
            let v = p.optional_value();
            let when = v
                .as_ref()
                .and_then(|v| v.to_str())
                .unwrap_or("auto")
                .to_ascii_lowercase();
            a.color = match when.as_str() {
                "never" | "no" | "none" => ColorWhen::Never,
                "auto" | "tty" | "if-tty" => ColorWhen::Auto,
                "always" | "yes" | "force" => ColorWhen::Always,
                _ => {
                    return Err(UsageError(format!(
                        "invalid argument '{when}' for '--color'"
                    )))
                }
            };
        }
        S('A') | L("after-context") => {
            a.context_after = Some(context_len(&p.value()?.to_string_lossy())?)
        }
        S('B') | L("before-context") => {
            a.context_before = Some(context_len(&p.value()?.to_string_lossy())?)
        }
        S('C') | L("context") => {
            a.context_default = Some(context_len(&p.value()?.to_string_lossy())?)
        }
        L("group-separator") => a.group_separator = Some(p.value()?.into_vec()),
        L("no-group-separator") => a.group_separator = None,
        _ => return Ok(false),
    }
    Ok(true)
}

/// grail's own options: reports, time windows, follow, tail and head,
/// `--sh`, threads. False: not one of them.
fn grail_option(a: &mut Args, opt: Opt<'_>, p: &mut lexopt::Parser) -> Result<bool, UsageError> {
    match opt {
        L("json") => a.json = true,
        L("stats") => a.stats = true,
        L("since") => a.since = Some(p.value()?.to_string_lossy().into_owned()),
        L("before") => a.before_time = Some(p.value()?.to_string_lossy().into_owned()),
        L("time-format") => a.time_format = Some(p.value()?.to_string_lossy().into_owned()),
        L("from-byte") => a.from_byte = Some(num(p.value()?, "--from-byte")?),
        L("follow") => a.follow = true,
        L("until") => {
            a.until = Some(p.value()?.into_vec());
            a.follow = true;
        }
        L("pid") => {
            let v = p.value()?;
            let s = v.to_string_lossy().into_owned();
            a.pid = match s.trim().parse::<i32>() {
                Ok(n) if n > 0 => Some(n),
                _ => return Err(UsageError(format!("invalid process id '{s}'"))),
            };
            a.follow = true;
        }
        L("timeout") => a.timeout = Some(duration(&p.value()?.to_string_lossy())?),
        S('t') | L("tail") => a.tail = Some(num(p.value()?, "tail")?),
        L("head") => a.head = Some(num(p.value()?, "head")?),
        L("sh") => a.sh = Some(p.value()?),
        L("explain") => a.explain = true,
        L("sh-fallback") => a.sh_fallback = true,
        L("threads") => {
            let n = num(p.value()?, "threads")?;
            a.threads = Some(n.max(1) as usize);
        }
        L("chunk-size") => {
            let n = num(p.value()?, "chunk size")?;
            a.chunk_size = Some(n.max(1) as usize);
        }
        L("no-decompress") => a.no_decompress = true,
        L("rotated") => a.rotated.push(p.value()?),
        L("merge") => a.merge = true,
        L("help") => a.help = true,
        S('V') | L("version") => a.version = true,
        _ => return Ok(false),
    }
    Ok(true)
}

/// Options that choose which files are read: `-r`, `-R`, `-d`, `-D` and the
/// file-selection globs. False: not one of them.
fn file_option(a: &mut Args, opt: Opt<'_>, p: &mut lexopt::Parser) -> Result<bool, UsageError> {
    let w = &mut a.walk;
    match opt {
        S('r') | L("recursive") => w.directories = Directories::Recurse,
        S('R') | L("dereference-recursive") => {
            w.dereference = true;
            w.directories = Directories::Recurse;
        }
        S('d') | L("directories") => {
            const ACTIONS: [(&str, Directories); 3] = [
                ("read", Directories::Read),
                ("recurse", Directories::Recurse),
                ("skip", Directories::Skip),
            ];
            w.directories = argmatch(&p.value()?, "--directories", &ACTIONS)?;
        }
        S('D') | L("devices") => {
            w.devices = match p.value()?.as_bytes() {
                b"read" => Devices::Read,
                b"skip" => Devices::Skip,
                _ => return Err(UsageError("unknown devices method".into())),
            }
        }
        L("include") => w.selection.file_glob(p.value()?.as_bytes(), true),
        L("exclude") => w.selection.file_glob(p.value()?.as_bytes(), false),
        L("exclude-dir") => w.selection.exclude_dir(p.value()?.as_bytes()),
        L("exclude-from") => {
            let path = p.value()?;
            let text = if path == "-" {
                let mut v = Vec::new();
                std::io::Read::read_to_end(&mut std::io::stdin(), &mut v).map(|_| v)
            } else {
                std::fs::read(&path)
            };
            let text = text.map_err(|e| {
                UsageError(format!(
                    "{}: {}",
                    path.to_string_lossy(),
                    crate::error::io_text(&e)
                ))
            })?;
            w.selection.exclude_from(&text);
        }
        _ => return Ok(false),
    }
    Ok(true)
}

/// gnulib's `argmatch`: `v` is one of `choices` or an unambiguous prefix of
/// one; otherwise grep's message, its usage lines and exit status 1.
fn argmatch<T: Copy + PartialEq>(
    v: &OsString,
    option: &str,
    choices: &[(&str, T)],
) -> Result<T, UsageError> {
    let v = v.as_bytes();
    if let Some((_, t)) = choices.iter().find(|(c, _)| c.as_bytes() == v) {
        return Ok(*t);
    }
    let hits: Vec<T> = choices
        .iter()
        .filter(|(c, _)| c.as_bytes().starts_with(v))
        .map(|(_, t)| *t)
        .collect();
    match hits.first() {
        Some(&t) if hits.iter().all(|&h| h == t) => return Ok(t),
        _ => {}
    }
    let mut msg = format!(
        "{} argument '{}' for '{option}'\nValid arguments are:",
        if hits.is_empty() {
            "invalid"
        } else {
            "ambiguous"
        },
        String::from_utf8_lossy(v)
    );
    for (c, _) in choices {
        msg.push_str(&format!("\n  - '{c}'"));
    }
    Err(UsageError(format!("{msg}\n{USAGE}")))
}

/// Parse `argv` (without the program name).
pub fn parse(argv: Vec<OsString>) -> Result<Args, UsageError> {
    let mut a = Args::default();
    let mut p = lexopt::Parser::from_args(argv);
    let mut operands: Vec<OsString> = Vec::new();
    a.group_separator = Some(b"--".to_vec());
    let mut digits = String::new();
    let mut last_digit_continues = false;
    while let Some(arg) = p.next()? {
        let was_digit_run = last_digit_continues;
        last_digit_continues = false;
        let opt = match arg {
            Short(c) if c.is_ascii_digit() => {
                // grep's -NUM: digits in a row within one argument make one
                // number; a new argument (or another option between) starts
                // a new one.
                if was_digit_run {
                    digits.push(c);
                } else {
                    digits = c.to_string();
                }
                let trimmed = digits.trim_start_matches('0');
                a.context_default = Some(if trimmed.is_empty() {
                    0
                } else {
                    trimmed.parse::<usize>().unwrap_or(usize::MAX)
                });
                last_digit_continues = p.try_raw_args().is_none();
                continue;
            }
            Value(v) => {
                operands.push(v);
                continue;
            }
            Short(c) => Key::Short(c),
            Long(typed) => {
                let (full, arg) = resolve_long(typed)?;
                if arg == HasArg::No && p.optional_value().is_some() {
                    return Err(UsageError(format!(
                        "option '--{full}' doesn't allow an argument\n{USAGE}"
                    )));
                }
                Key::Long(full.to_string())
            }
        };
        let opt = opt.as_opt();
        let known = matching_option(&mut a, opt, &mut p)?
            || output_option(&mut a, opt, &mut p)?
            || grail_option(&mut a, opt, &mut p)?
            || file_option(&mut a, opt, &mut p)?;
        if !known {
            // grep's (getopt's) words, then its two usage lines.
            return Err(match opt {
                Opt::S(c) => UsageError(format!("invalid option -- '{c}'\n{USAGE}")),
                Opt::L(name) => UsageError(format!("unrecognized option '--{name}'\n{USAGE}")),
            });
        }
    }
    if !a.explicit_patterns && !a.help && !a.version && a.sh.is_none() {
        if operands.is_empty() {
            return Err(UsageError(USAGE.into()));
        }
        a.patterns.push(operands.remove(0).as_bytes().to_vec());
    }
    a.files = operands;
    a.utf8 = crate::query::locale_is_utf8();
    if a.timeout.is_some() && !a.follow {
        return Err(UsageError(
            "--timeout applies to --follow (and --until/--pid)".into(),
        ));
    }
    Ok(a)
}

/// grep's two lines after a usage error (and alone, with no pattern).
pub const USAGE: &str =
    "Usage: grail [OPTION]... PATTERNS [FILE]...\nTry 'grail --help' for more information.";

/// The `--help` text.
pub const HELP: &str = "\
Usage: grail [OPTION]... PATTERNS [FILE]...
Search for PATTERNS in each FILE; print what `grep PATTERNS FILE... | grep -v EXCL | tail -n N`
would print, byte for byte, in one parallel pass (tail answered from the end of the file).

Pattern selection (as GNU grep, in the C locale or a UTF-8 one: LC_ALL, LC_CTYPE, LANG):
  -E, --extended-regexp     PATTERNS are extended regular expressions
  -F, --fixed-strings       PATTERNS are strings
  -G, --basic-regexp        PATTERNS are basic regular expressions (default)
  -P, --perl-regexp         PATTERNS are Perl regular expressions (PCRE2; one pattern)
  -e, --regexp=PATTERNS     use PATTERNS for matching
  -f, --file=FILE           take PATTERNS from FILE
  -i, -y, --ignore-case     ignore case distinctions in patterns and data
      --no-ignore-case      do not ignore case distinctions (default)
  -w, --word-regexp         match only whole words
  -x, --line-regexp         match only whole lines
  -z, --null-data           a data line ends in 0 byte, not newline
  -v, --invert-match        select non-matching lines

Exclusion (grail):
  -N, --not=PATTERN         drop lines matching PATTERN, read as `| grep -v PATTERN` reads it
                            (a basic regular expression, whatever -E/-F say); repeatable
      --not-E=PATTERN       ... PATTERN is an extended regular expression
      --not-G=PATTERN       ... PATTERN is a basic regular expression
      --not-F=PATTERN       ... PATTERN is a fixed string

Output control:
  -m, --max-count=NUM       stop after NUM selected lines per file
  -b, --byte-offset         print the byte offset with output lines
  -n, --line-number         print line number with output lines
      --line-buffered       flush output on every line
  -H, --with-filename       print file name with output lines
  -h, --no-filename         suppress the file name prefix on output
      --label=LABEL         use LABEL as the standard input file name prefix
  -o, --only-matching       show only nonempty parts of lines that match
  -q, --quiet, --silent     suppress all normal output
      --binary-files=TYPE   binary (GNU grep's rule, exactly), text or without-match
                            default: logs are text. A file is binary only when its
                            first 96 KiB (grep's first read) hold a NUL byte; later
                            NUL bytes are searched as text and reported on stderr
  -a, --text                equivalent to --binary-files=text
  -I                        skip files binary by that rule (--binary-files=without-match)
  -L, --files-without-match print only names of FILEs with no selected lines
  -l, --files-with-matches  print only names of FILEs with selected lines
  -c, --count               print only a count of selected lines per FILE
  -T, --initial-tab         make tabs line up (if needed)
  -Z, --null                print 0 byte after FILE name
  -s, --no-messages         suppress error messages about files

Files and directories (as GNU grep):
  -r, --recursive           search the files below each directory (no FILE: the working directory)
  -R, --dereference-recursive  likewise, following all symbolic links
  -d, --directories=ACTION  read, recurse or skip directories
  -D, --devices=ACTION      read or skip devices, FIFOs and sockets
      --include=GLOB        search only files that match GLOB (the last matching option wins)
      --exclude=GLOB        skip files that match GLOB
      --exclude-from=FILE   skip files that match any pattern in FILE
      --exclude-dir=GLOB    skip directories that match GLOB

Tail and head (grail):
  -t, --tail=N              print only the last N output lines (of all files), found from the end
      --head=N              print only the first N output lines (of all files), then stop
      --sh='PIPELINE'       run a pasted `grep ... | grep -v ... | tail` pipeline exactly
      --explain             with --sh, print the plan instead of searching
      --sh-fallback         with --sh, hand a pipeline grail cannot run exactly to bash -c unchanged
      --threads=N           worker threads (default: all cores)
      --chunk-size=BYTES    bytes per parallel chunk (tests use tiny ones; the output never changes)
  -V, --version             print the version and exit
      --help                print this help and exit

Context and colour (as GNU grep):
  -B, --before-context=NUM  print NUM lines of leading context
  -A, --after-context=NUM   print NUM lines of trailing context
  -C, --context=NUM, -NUM   print NUM lines of output context
      --group-separator=SEP, --no-group-separator
      --color[=WHEN], --colour[=WHEN]  never, always or auto (a terminal, TERM not dumb); GREP_COLORS as grep
  With -t N: the last N selected lines with their context (the end of grep's output from the
  Nth-last selected line's leading context). Excluded lines are never selected but may be context.

Reports (grail):
      --stats               to stderr per file: bytes read vs size, time, lines selected, lines each
                            exclude hid, whether the last line is cut off, the resume offset
      --json                one JSON object per selected line (path, line_number, byte_offset, text or
                            bytes_base64, patterns, matches; with --merge its time) and context line,
                            then a summary object
      --no-line-number      no -n; with --json, objects without line numbers (a tail reads less)

Parts of a file (grail):
      --since=TIME          only lines at or after TIME, found by binary search of timestamps
      --before=TIME         only lines before TIME (not grep's --before-context)
      --time-format=FMT     strftime-like (%Y %y %m %d %e %b %H %M %S %f %L %z %s) when not detected
      --from-byte=OFFSET    start at OFFSET (a resume offset printed by --stats/--json)
  TIME: 2026-11-29, '2026-11-29 22:33[:01][.5][Z|+01:00]', 'Nov 29 22:33:01', '11-29 22:33:01',
        22:33 (the log's last day), @EPOCH, '10m ago', -2h

Many files as one log (grail):
      --no-decompress       search compressed files' bytes as grep does (default: gzip, zstd, xz,
                            bzip2 and lz4 files, known by their magic bytes, are searched as their text)
      --rotated=FILE        FILE's logrotate set, oldest first (FILE-DATE..., FILE.N[.gz...], FILE)
      --merge               print the selected lines of all files as one timeline, by timestamp

Following (grail):
      --follow              after the last N selected lines (-t N, default 10), print new ones as the
                            files grow; survives rotation by rename, truncation and re-creation
      --until=PATTERN       stop with status 0 when a new line matches PATTERN (implies --follow)
      --pid=PID             stop when process PID exits, then summarise on stderr (implies --follow)
      --timeout=DURATION    stop with status 124 after DURATION (30s, 5m, 1.5h, 250ms)

Exit status is 0 if a line is selected, 1 if none, 2 if an error occurred (124: --timeout passed).
Deliberate differences (said on stderr): NUL bytes after the first 96 KiB are text; in a UTF-8
locale a selected line that is not UTF-8 is printed (grep hides it: binary file matches); compressed
files are searched as their text (--no-decompress: as grep, their bytes).
Refused with exit status 2, with the reason: -o, --color and --json with back-references (and in a
UTF-8 locale with -w, \\b, \\B, \\<, \\>), where glibc's regex places matches; -z with --json, --since,
--before, --from-byte, --follow or in a --sh pipeline, and -P or back-references with -z; --follow
with -r/-R/-d; -P with \\D, \\S or \\W in a UTF-8 locale (grep's PCRE2 10.42 and grail's 10.46
differ there); with --binary-files=binary, where grep's answer depends on its buffer layout; patterns
nested more than 10,000 levels deep.
";
