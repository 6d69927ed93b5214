//! The command-line program: typed arguments to a query, inputs, a search
//! mode and a printer; exit status as grep's.

/// One message line to stderr, never panicking (see [`say::line`]).
macro_rules! say {
    ($($t:tt)*) => {
        $crate::cli::say::line(format_args!($($t)*))
    };
}

pub mod args;
pub mod follow;
pub mod glob;
pub mod region;
mod say;
pub mod sh;

use crate::context::{ContextSpec, FileContext, Shared};
use crate::printer::{self, Format};
use crate::query::{Query, QueryBuilder, Syntax};
use crate::scan::ScanConfig;
use crate::search::{self, BinaryMode, Line, Outcome, SearchError, SearchOptions};
use crate::source::{self, Input};
use args::Args;
use std::collections::VecDeque;
use std::ffi::OsString;
use std::io::{self, Write};
use std::os::unix::ffi::OsStrExt;

/// Exit statuses, as grep's.
pub const EXIT_SELECTED: i32 = 0;
/// No line selected.
pub const EXIT_NONE: i32 = 1;
/// An error occurred.
pub const EXIT_TROUBLE: i32 = 2;

/// Run grail with `argv` (without the program name); returns the exit status.
pub fn run(argv: Vec<OsString>) -> i32 {
    let args = match args::parse(argv) {
        Ok(a) => a,
        Err(e) if e.0 == args::USAGE => {
            say!("{}", e.0);
            return EXIT_TROUBLE;
        }
        Err(e) => {
            say!("grail: {}", e.0);
            return EXIT_TROUBLE;
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
    if let Some(hint) = exclude_syntax_hint(&args) {
        say!("grail: {hint}");
    }
    let go = || match &args.sh {
        Some(line) => sh::run(line, &args),
        None if args.follow => follow::run(&args),
        None => {
            let stdout = io::stdout();
            let mut lock = stdout.lock();
            run_inner(&args, &Stdin::Real, &mut lock, None, true).0
        }
    };
    match pool {
        Some(p) => p.install(go),
        None => go(),
    }
}

/// With `-E` or `-F`, an `-N` pattern holding an unescaped `|`, `+`, `?`,
/// `(` or `{` (ordinary characters in a basic regex) was probably meant as
/// an extended regex: say how `-N` reads it. stdout is not changed.
fn exclude_syntax_hint(args: &Args) -> Option<&'static str> {
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

/// `TERM` allows colour (grep's `should_colorize`: set and not `dumb`).
pub(crate) fn term_ok() -> bool {
    std::env::var_os("TERM").is_some_and(|t| t != "dumb")
}

/// What standard input is for a search.
pub enum Stdin {
    /// The process's standard input.
    Real,
    /// The output of an earlier pipeline stage (pipe semantics).
    Bytes(Vec<u8>),
    /// A file piped in by `cat FILE |` (pipe semantics, read without copying).
    File(std::path::PathBuf),
    /// A reader handed over once (`--follow`'s growing file).
    Reader(std::sync::Mutex<Option<Box<dyn io::Read + Send>>>),
}

/// Build the query described by `args`.
pub fn build_query(args: &Args) -> Result<Query, crate::QueryError> {
    let syntax = args.syntax.unwrap_or(Syntax::Basic);
    let mut b = QueryBuilder::new()
        .syntax(syntax)
        .ignore_case(args.ignore_case)
        .word(args.word)
        .line(args.line)
        .invert(args.invert);
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

/// The output stream: buffered stdout that remembers a closed pipe.
struct Out<'w> {
    w: io::BufWriter<&'w mut dyn Write>,
    line_buffered: bool,
    /// Set when writing failed; `Some(None)` for a closed pipe (quiet).
    failed: Option<Option<io::Error>>,
}

impl Out<'_> {
    fn write(&mut self, b: &[u8]) -> bool {
        if self.failed.is_some() {
            return false;
        }
        let r = self.w.write_all(b).and_then(|_| {
            if self.line_buffered {
                self.w.flush()
            } else {
                Ok(())
            }
        });
        self.check(r)
    }

    fn check(&mut self, r: io::Result<()>) -> bool {
        match r {
            Ok(()) => true,
            Err(e) if e.kind() == io::ErrorKind::BrokenPipe => {
                self.failed = Some(None);
                false
            }
            Err(e) => {
                self.failed = Some(Some(e));
                false
            }
        }
    }

    /// Write through `f` into the buffer, remembering a failure.
    fn with(&mut self, f: impl FnOnce(&mut dyn Write) -> io::Result<()>) -> bool {
        if self.failed.is_some() {
            return false;
        }
        let r = f(&mut self.w).and_then(|_| {
            if self.line_buffered {
                self.w.flush()
            } else {
                Ok(())
            }
        });
        self.check(r)
    }

    fn flush(&mut self) -> bool {
        if self.failed.is_some() {
            return false;
        }
        let r = self.w.flush();
        self.check(r)
    }
}

/// Records kept for `--tail`/`--head` across all files.
struct Records {
    tail: Option<usize>,
    head: Option<usize>,
    emitted: usize,
    ring: VecDeque<Vec<u8>>,
}

impl Records {
    /// Count one record written directly; false when none is wanted.
    fn take_one(&mut self) -> bool {
        if self.head.is_some_and(|h| self.emitted >= h) {
            return false;
        }
        self.emitted += 1;
        true
    }

    /// Whether another record is wanted after this one.
    fn wants_more(&self) -> bool {
        self.head.is_none_or(|h| self.emitted < h)
    }

    /// Offer a record; returns false when no more records are wanted.
    fn push(&mut self, out: &mut Out, rec: Vec<u8>) -> bool {
        if let Some(h) = self.head {
            if self.emitted >= h {
                return false;
            }
        }
        self.emitted += 1;
        match self.tail {
            Some(t) => {
                if t > 0 {
                    if self.ring.len() == t {
                        self.ring.pop_front();
                    }
                    self.ring.push_back(rec);
                }
            }
            None => {
                if !out.write(&rec) {
                    return false;
                }
            }
        }
        self.head.is_none_or(|h| self.emitted < h)
    }
}

struct Ctx<'a> {
    args: &'a Args,
    stdin: &'a Stdin,
    q: &'a Query,
    fmt: Format,
    opts: SearchOptions,
    errors: bool,
    limits: Option<region::Limits>,
    probe: Option<region::ExcludeProbe>,
    /// Per-file reports, when `--stats` or `--json` asks for them.
    stats: Option<Vec<region::FileStats>>,
    /// Standard output's file, when no input may be it (see [`output_file`]).
    output: Option<(u64, u64)>,
}

const LIMITS_NEED_A_FILE: &str =
    "--from-byte, --since and --before need a regular file (not a pipe or terminal)";

/// Counts the bytes read from a stream (for `--stats`).
struct CountingReader<'a> {
    inner: &'a mut dyn io::Read,
    n: &'a mut u64,
}

impl io::Read for CountingReader<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let k = self.inner.read(buf)?;
        *self.n += k as u64;
        Ok(k)
    }
}

impl Ctx<'_> {
    /// Open input `name` (`-`: standard input), refusing the file that is
    /// also the output, as grep does.
    fn open(&self, name: &OsString) -> Result<Input, source::OpenError> {
        if let Some(out) = self.output {
            use std::os::fd::AsFd;
            use std::os::unix::fs::MetadataExt;
            let md = if name == "-" {
                match self.stdin {
                    Stdin::Real => io::stdin()
                        .as_fd()
                        .try_clone_to_owned()
                        .ok()
                        .and_then(|fd| std::fs::File::from(fd).metadata().ok()),
                    _ => None,
                }
            } else {
                std::fs::metadata(name).ok()
            };
            if md.is_some_and(|m| m.is_file() && (m.dev(), m.ino()) == out) {
                return Err(source::OpenError::Io(io::Error::other(
                    "input file is also the output",
                )));
            }
        }
        open(self.stdin, name, self.opts.binary)
    }

    /// The part of a whole input to search; `None` after reporting an error.
    fn region(&mut self, name: &[u8], bytes: &source::Bytes) -> Option<region::Region> {
        let Some(l) = &self.limits else {
            return Some(region::Region {
                start: 0,
                end: bytes.len(),
                ..Default::default()
            });
        };
        match region::region(
            bytes,
            name,
            l,
            self.opts.line_numbers,
            self.opts.scan.parallel,
        ) {
            Ok(r) => {
                if let Some(n) = &r.note {
                    if !self.args.no_messages {
                        say!("grail: {}: {n}", String::from_utf8_lossy(name));
                    }
                }
                Some(r)
            }
            Err(e) => {
                self.error(name, &e);
                None
            }
        }
    }

    /// The region of an opened input (`None` for a stream or a directory)
    /// and the format to print it with; `Err` after reporting an error.
    fn input_region(
        &mut self,
        name: &[u8],
        input: Option<&Input>,
    ) -> Result<(Option<region::Region>, Format), ()> {
        let region = match input {
            Some(Input::Whole { bytes, .. }) => Some(self.region(name, bytes).ok_or(())?),
            Some(Input::Stream(_)) if self.limits.is_some() => {
                self.error(name, LIMITS_NEED_A_FILE);
                return Err(());
            }
            _ => None,
        };
        let fmt = self.file_format(region.as_ref());
        Ok((region, fmt))
    }

    /// A search's outcome. A read error is reported and the file counts as
    /// having nothing selected (as grep); other errors skip the file (`None`).
    fn outcome(&mut self, name: &[u8], res: Result<Outcome, SearchError>) -> Option<Outcome> {
        match res {
            Ok(o) => Some(o),
            Err(SearchError::Io(e)) => {
                self.error(name, &crate::io_error_text(&e));
                Some(Outcome::default())
            }
            Err(e) => {
                self.error(name, &e.to_string());
                None
            }
        }
    }

    /// The output format for a file searched from `region`.
    fn file_format(&self, region: Option<&region::Region>) -> Format {
        let mut f = self.fmt.clone();
        if let Some(r) = region {
            f.base_offset = r.start as u64;
            f.base_line = r.base_line;
        }
        f
    }

    /// Keep the `--stats`/`--json` report for one searched input.
    /// `first_out`: for a tail, where the lines it printed start (exclude
    /// counts cover that part only).
    #[allow(clippy::too_many_arguments)]
    fn record_stats(
        &mut self,
        name: &[u8],
        input: &Option<Input>,
        region: Option<&region::Region>,
        o: &Outcome,
        started: std::time::Instant,
        stream_read: u64,
        first_out: Option<usize>,
    ) {
        if self.stats.is_none() || input.is_none() {
            return;
        }
        let base = region.map_or(0, |r| r.start as u64);
        let mut st = region::FileStats {
            path: String::from_utf8_lossy(name).into_owned(),
            selected: o.selected,
            nul: o.nuls.map(|n| region::NulStat {
                first: base + n.first as u64,
                count: n.count,
            }),
            ..Default::default()
        };
        match (input, region) {
            (Some(Input::Whole { bytes, .. }), Some(r)) => {
                let hay: &[u8] = bytes;
                st.size = hay.len() as u64;
                st.region_start = r.start as u64;
                st.region_end = r.end as u64;
                // Each byte counted once: the search's reads (in the
                // region) and the time window's probes (in the file).
                let mut read: Vec<(usize, usize)> = o
                    .read
                    .iter()
                    .map(|&(a, b)| (r.start + a, r.start + b))
                    .collect();
                read.extend(r.read.iter().copied());
                st.scanned = crate::timewin::union_len(&read);
                st.window = r.window.clone();
                st.trailing_newline = hay.last() == Some(&b'\n');
                st.end_offset = memchr::memrchr(b'\n', hay).map_or(0, |i| i + 1) as u64;
                let last = &hay[st.end_offset as usize..];
                if !last.is_empty() && last.iter().all(|&b| b == 0) {
                    st.nul_tail = last.len() as u64;
                }
                if let Some(p) = &self.probe {
                    let from = first_out.map_or(r.start, |f| r.start + f);
                    let (ex, hidden) = p.count(hay, from, r.end, &self.opts.scan);
                    st.excludes = ex;
                    st.hidden = hidden;
                    st.excludes_from = from as u64;
                }
            }
            _ => {
                st.stream = true;
                st.scanned = stream_read;
            }
        }
        st.elapsed_ms = started.elapsed().as_secs_f64() * 1000.0;
        if self.args.stats {
            say::text(&region::report(&st));
        }
        if let Some(v) = &mut self.stats {
            v.push(st);
        }
    }

    fn error(&mut self, name: &[u8], msg: &str) {
        self.errors = true;
        if !self.args.no_messages {
            say!("grail: {}: {}", String::from_utf8_lossy(name), msg);
        }
    }

    /// What grep says about a binary input, and what the log rule adds:
    /// NUL bytes searched as text (`base`: the region's file offset;
    /// `whole`: the search read the input from its start), or a binary
    /// input that looks like a log truncated under its writer.
    fn notes(&self, name: &[u8], o: &Outcome, base: usize, whole: bool) {
        let name = String::from_utf8_lossy(name);
        if o.binary_matched
            && !self.args.quiet
            && !self.args.count
            && matches!(self.opts.binary, BinaryMode::Log | BinaryMode::Grep)
        {
            say!("grail: {name}: binary file matches");
        }
        if self.args.quiet || self.args.no_messages {
            return;
        }
        if let Some(n) = &o.nuls {
            let what = format!(
                "{} NUL byte{} from offset {}",
                n.count,
                if n.count == 1 { "" } else { "s" },
                base + n.first
            );
            if whole {
                say!("grail: {name}: {what} (GNU grep would stop printing there)");
            } else {
                say!(
                    "grail: {name}: {what} in the part read (GNU grep would stop printing at the first NUL)"
                );
            }
        }
        if let Some(k) = o.leading_nuls {
            say!("grail: {name}: starts with {k} NUL bytes, then text: a log truncated under its writer? -a searches it");
        }
    }

    /// Whether this outcome counts as "a line was selected" for the exit status.
    fn file_selected(&self, o: &Outcome) -> bool {
        if o.is_binary && self.opts.binary == BinaryMode::WithoutMatch {
            return false;
        }
        // A pipeline's `grep -v` (and a `grep -c ''` after it) sees only what
        // the first grep printed: nothing of a binary part.
        if self.q.has_excludes() && !self.listing() && !self.args.quiet {
            // A pipeline's `grep -v` sees only what the first grep printed.
            return o.reported > 0;
        }
        o.selected > 0
    }

    fn listing(&self) -> bool {
        self.args.files_with_matches || self.args.files_without_match
    }
}

fn open(stdin: &Stdin, name: &OsString, mode: BinaryMode) -> Result<Input, source::OpenError> {
    if name != "-" {
        return source::open_path(std::path::Path::new(name));
    }
    // Where grep decides from what one read of a pipe returned, the answer
    // depends on pipe timing: under the log rule only its first read
    // decides, under grep's rule every read.
    let piped_nul = |b: &[u8]| {
        let decided_by_reads = match mode {
            BinaryMode::Text => &b[..0],
            BinaryMode::Grep => b,
            BinaryMode::Log | BinaryMode::WithoutMatch => &b[..b.len().min(source::GREP_READ)],
        };
        if memchr::memchr(0, decided_by_reads).is_some() {
            Err(source::OpenError::Io(io::Error::other(
                "input read from a pipe contains NUL bytes: grep's output would depend on pipe timing, \
                 so grail refuses (add -a to that grep)",
            )))
        } else {
            Ok(())
        }
    };
    match stdin {
        Stdin::Real => {
            use std::os::fd::AsFd;
            let fd = io::stdin()
                .as_fd()
                .try_clone_to_owned()
                .map_err(source::OpenError::Io)?;
            source::open_file(std::fs::File::from(fd))
        }
        Stdin::Bytes(b) => {
            piped_nul(b)?;
            Ok(Input::Whole {
                bytes: source::Bytes::Owned(b.clone()),
                has_holes: false,
            })
        }
        Stdin::Reader(m) => match m.lock().ok().and_then(|mut r| r.take()) {
            Some(r) => Ok(Input::Stream(r)),
            None => Err(source::OpenError::Io(io::Error::other(
                "the followed file can be read only once",
            ))),
        },
        Stdin::File(p) => match source::open_path(p)? {
            Input::Whole { bytes, .. } => {
                piped_nul(&bytes)?;
                Ok(Input::Whole {
                    bytes,
                    has_holes: false,
                })
            }
            s => Ok(s),
        },
    }
}

/// The result of [`run_with`].
#[derive(Clone, Copy, Debug)]
pub struct RunResult {
    /// grep's exit status.
    pub status: i32,
    /// Whether a line was selected (regardless of errors).
    pub selected: bool,
}

/// Run the search `args` describe, reading `-` from `stdin` and writing to
/// `sink`.
pub fn run_with(args: &Args, stdin: &Stdin, sink: &mut dyn Write) -> RunResult {
    let (status, selected) = run_inner(args, stdin, sink, None, false);
    RunResult { status, selected }
}

/// [`run_with`] for `--json` without its summary object: the per-file
/// reports are handed back instead (`--follow` prints one summary of all).
pub fn run_with_reports(
    args: &Args,
    stdin: &Stdin,
    sink: &mut dyn Write,
) -> (RunResult, Vec<region::FileStats>) {
    let mut reports = Vec::new();
    let (status, selected) = run_inner(args, stdin, sink, Some(&mut reports), false);
    (RunResult { status, selected }, reports)
}

/// The identity (device, inode) of standard output when it is a regular
/// file and grep would refuse to read that file: it would read what it
/// writes (`grep x log >> log`). grep skips the check when it writes no
/// lines (`-q`, `-l`, `-L`, `-c`) or stops after one (`-m 1`).
fn output_file(args: &Args) -> Option<(u64, u64)> {
    use std::os::fd::AsFd;
    use std::os::unix::fs::MetadataExt;
    let writes_lines = !args.quiet
        && !args.count
        && !args.files_with_matches
        && !args.files_without_match
        && args.max_count.is_none_or(|m| m > 1);
    if !writes_lines {
        return None;
    }
    let fd = io::stdout().as_fd().try_clone_to_owned().ok()?;
    let md = std::fs::File::from(fd).metadata().ok()?;
    md.is_file().then(|| (md.dev(), md.ino()))
}

/// `to_stdout`: `sink` is the process's standard output (grep's check that
/// an input is not also the output applies).
fn run_inner(
    args: &Args,
    stdin: &Stdin,
    sink: &mut dyn Write,
    reports: Option<&mut Vec<region::FileStats>>,
    to_stdout: bool,
) -> (i32, bool) {
    let run_started = std::time::Instant::now();
    let q = match build_query(args) {
        Ok(q) => q,
        Err(e) => {
            say!("grail: {e}");
            return (EXIT_TROUBLE, false);
        }
    };
    // grep's shortcut: when matching obviously cannot succeed (`-m 0`, or
    // `-v` with only empty patterns, or no patterns at all without -v),
    // it fails at once without reading (or reporting on) any file.
    let no_keys = args.patterns.iter().all(|p| p.is_empty());
    let (invert, wx) = if args.patterns.is_empty() {
        (!args.invert, false)
    } else {
        (args.invert, args.word || args.line)
    };
    let listing_nonmatching = args.files_without_match && !args.quiet; // -q overrides -L
    if (args.max_count == Some(0) || (no_keys && invert && !wx)) && !listing_nonmatching {
        return (EXIT_NONE, false);
    }
    if args.only_matching {
        if let Some(why) = q.only_matching_refusal() {
            say!("grail: {why} is not supported");
            return (EXIT_TROUBLE, false);
        }
    }
    let files: Vec<OsString> = if args.files.is_empty() {
        vec![OsString::from("-")]
    } else {
        args.files.clone()
    };
    let with_filename = args.with_filename.unwrap_or(files.len() > 1);
    let color_on = match args.color {
        args::ColorWhen::Never => false,
        args::ColorWhen::Always => true,
        args::ColorWhen::Auto => io::IsTerminal::is_terminal(&io::stdout()) && term_ok(),
    };
    let color = if color_on && !args.quiet {
        let lines_out = !(args.count || args.files_with_matches || args.files_without_match);
        if let (true, Some(why)) = (lines_out, q.only_matching_refusal()) {
            say!("grail: --color: {why} is not supported");
            return (EXIT_TROUBLE, false);
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
    let fmt = Format {
        with_filename,
        line_number: args.line_number,
        byte_offset: args.byte_offset,
        only_matching: args.only_matching,
        null_after_name: args.null,
        color,
        json: None,
        base_offset: args.base_offset,
        base_line: args.base_line,
    };
    let mut fmt = fmt;
    if args.json {
        let conflict = [
            (args.count, "-c"),
            (args.files_with_matches, "-l"),
            (args.files_without_match, "-L"),
            (args.quiet, "-q"),
            (
                args.only_matching,
                "-o (matches are in each object's \"matches\")",
            ),
            (fmt.color.is_some(), "--color"),
        ];
        if let Some((_, what)) = conflict.iter().find(|(on, _)| *on) {
            say!("grail: --json does not combine with {what}: it prints selected lines and a summary");
            return (EXIT_TROUBLE, false);
        }
        let syntax = args.syntax.unwrap_or(Syntax::Basic);
        let patterns = args
            .patterns
            .iter()
            .filter_map(|p| {
                QueryBuilder::new()
                    .syntax(syntax)
                    .ignore_case(args.ignore_case)
                    .word(args.word)
                    .line(args.line)
                    .include(p)
                    .build()
                    .ok()
                    .map(|q| (String::from_utf8_lossy(p).into_owned(), q))
            })
            .collect();
        fmt.json = Some(std::sync::Arc::new(printer::JsonSpec { patterns }));
    }
    let mut scan = ScanConfig::default();
    if let Some(c) = args.chunk_size {
        scan.chunk_size = c;
        scan.tail_start = c;
    }
    let opts = SearchOptions {
        scan,
        binary: args.binary,
        max_count: args.max_count,
        line_numbers: args.line_number || args.json,
        ..SearchOptions::default()
    };
    let limits = match region::Limits::from_args(args) {
        Ok(l) => l,
        Err(e) => {
            say!("grail: {e}");
            return (EXIT_TROUBLE, false);
        }
    };
    let mut ctx = Ctx {
        args,
        stdin,
        q: &q,
        fmt,
        opts,
        errors: false,
        limits,
        probe: if args.stats || args.json {
            region::ExcludeProbe::new(args)
        } else {
            None
        },
        stats: (args.stats || args.json).then(Vec::new),
        output: if to_stdout { output_file(args) } else { None },
    };
    let mut out = Out {
        w: io::BufWriter::with_capacity(256 << 10, sink),
        line_buffered: args.line_buffered,
        failed: None,
    };
    let mut recs = Records {
        tail: args.tail.map(|t| usize::try_from(t).unwrap_or(usize::MAX)),
        head: args.head.map(|h| usize::try_from(h).unwrap_or(usize::MAX)),
        emitted: 0,
        ring: VecDeque::new(),
    };
    let names: Vec<Vec<u8>> = files
        .iter()
        .map(|f| {
            if f == "-" {
                args.label
                    .clone()
                    .unwrap_or_else(|| b"(standard input)".to_vec())
            } else {
                f.as_bytes().to_vec()
            }
        })
        .collect();

    let plain_lines = !args.quiet && !args.count && !ctx.listing();
    let context = if plain_lines { args.context() } else { None };
    if context.is_some() && args.tail.is_some() && args.head.is_some() {
        say!("grail: context with both --head and --tail is not supported");
        return (EXIT_TROUBLE, false);
    }
    let selected = if let Some(spec) = &context {
        match args.tail {
            Some(t) => tail_context(&mut ctx, &files, &names, &mut out, spec, t),
            None => forward_context(&mut ctx, &files, &names, &mut out, spec),
        }
    } else if let (true, Some(t), None) = (plain_lines, args.tail, args.head) {
        tail_lines(&mut ctx, &files, &names, &mut out, t)
    } else {
        forward_all(&mut ctx, &files, &names, &mut out, &mut recs)
    };
    let selected = match selected {
        Ok(s) => s,
        Err(()) => {
            // -q found a line.
            return (EXIT_SELECTED, true);
        }
    };
    for r in recs.ring.drain(..) {
        if !out.write(&r) {
            break;
        }
    }
    if let Some(r) = reports {
        r.extend(ctx.stats.take().unwrap_or_default());
    } else if args.json {
        let files = ctx.stats.take().unwrap_or_default();
        let summary = region::Summary {
            kind: "summary",
            selected: files.iter().map(|f| f.selected).sum::<u64>(),
            elapsed_ms: run_started.elapsed().as_secs_f64() * 1000.0,
            files,
        };
        let mut b = serde_json::to_vec(&summary).unwrap_or_default();
        b.push(b'\n');
        out.write(&b);
    }
    out.flush();
    match &out.failed {
        Some(Some(e)) => {
            say!("grail: write error: {}", crate::io_error_text(e));
            return (EXIT_TROUBLE, selected);
        }
        Some(None) => return (if selected { EXIT_SELECTED } else { EXIT_NONE }, selected),
        None => {}
    }
    let status = if ctx.errors && !(args.quiet && selected) {
        EXIT_TROUBLE
    } else if selected {
        EXIT_SELECTED
    } else {
        EXIT_NONE
    };
    (status, selected)
}

/// Forward search of every file in order. `Err(())`: -q found a line.
fn forward_all(
    ctx: &mut Ctx,
    files: &[OsString],
    names: &[Vec<u8>],
    out: &mut Out,
    recs: &mut Records,
) -> Result<bool, ()> {
    let args = ctx.args;
    let q = ctx.q;
    let mut any = false;
    let mut more = true;
    for (f, name) in files.iter().zip(names) {
        if !more || out.failed.is_some() {
            // Still open the remaining files so that errors are reported as
            // the pipeline would report them.
            if let Err(e) = ctx.open(f) {
                ctx.error(name, &e.to_string());
            }
            continue;
        }
        let mut input = match ctx.open(f) {
            Ok(i) => Some(i),
            // grep opens a directory and fails at its first read: the file
            // still gets its count (0) and can be listed by -L.
            Err(e @ source::OpenError::Directory) => {
                ctx.error(name, &e.to_string());
                None
            }
            Err(e) => {
                ctx.error(name, &e.to_string());
                continue;
            }
        };
        let quiet_mode = args.quiet || ctx.listing();
        // -q overrides -l and -L, which override -c (as in grep).
        let count_mode = args.count && !quiet_mode;
        let count_binary = count_mode;
        let started = std::time::Instant::now();
        let Ok((region, fmt)) = ctx.input_region(name, input.as_ref()) else {
            continue;
        };
        // Plain output of every selected line: formatted in parallel.
        let bulk = !quiet_mode
            && !count_mode
            && recs.tail.is_none()
            && recs.head.is_none()
            && args.max_count.is_none()
            && !args.only_matching
            && !args.line_buffered;
        let mut emit = |q: &Query, line: &Line| -> bool {
            if quiet_mode {
                return false; // one selected line settles it
            }
            if count_mode {
                return true;
            }
            if recs.tail.is_none()
                && !fmt.only_matching
                && fmt.color.is_none()
                && fmt.json.is_none()
            {
                // Straight into the output buffer: no allocation per line.
                if !recs.take_one() {
                    more = false;
                    return false;
                }
                if !out.with(|w| fmt.write_line(w, name, line)) {
                    more = false;
                    return false;
                }
                return recs.wants_more();
            }
            let mut rs = Vec::new();
            fmt.records(&mut rs, q, name, line);
            for r in rs {
                if !recs.push(out, r) {
                    more = false;
                    return false;
                }
            }
            true
        };
        let mut read = 0u64;
        let (rs, re) = region
            .as_ref()
            .map_or((0, usize::MAX), |r| (r.start, r.end));
        fn cut(bytes: &[u8], rs: usize, re: usize) -> &[u8] {
            &bytes[rs..re.min(bytes.len())]
        }
        let res = match &mut input {
            Some(Input::Whole { bytes, has_holes }) if count_mode => {
                // Counting needs no line copies: one fused pass.
                let opts = ctx.opts.clone().for_input(bytes);
                search::count_forward(q, cut(bytes, rs, re), *has_holes, &opts)
            }
            Some(Input::Whole { bytes, has_holes }) if !bulk => {
                let opts = ctx.opts.clone().for_input(bytes);
                search::search_forward(
                    q,
                    cut(bytes, rs, re),
                    *has_holes,
                    &opts,
                    &mut emit,
                    count_binary,
                )
            }
            Some(Input::Whole { bytes, has_holes }) => {
                let has_holes = *has_holes;
                let opts = ctx.opts.clone().for_input(bytes);
                let fmt = fmt.clone();
                let format = |buf: &mut Vec<u8>, line: &[u8], n: u64, off: u64| {
                    if fmt.json.is_some() {
                        fmt.push_json(buf, q, name, line, n, off)
                    } else if fmt.color.is_some() {
                        fmt.push_prline(buf, q, name, line, n, off, true)
                    } else {
                        fmt.push_line(buf, name, line, n, off)
                    }
                };
                let r = search::search_forward_bulk(
                    q,
                    cut(bytes, rs, re),
                    has_holes,
                    &opts,
                    &format,
                    &mut |b| out.write(b),
                );
                if let Ok(o) = &r {
                    recs.emitted += o.reported as usize;
                }
                r
            }
            Some(Input::Stream(r)) => {
                let mut cr = CountingReader {
                    inner: &mut **r,
                    n: &mut read,
                };
                search::search_stream(q, &mut cr, &ctx.opts, &mut emit, count_binary)
            }
            None => Ok(Outcome::default()),
        };
        let Some(o) = ctx.outcome(name, res) else {
            continue;
        };
        ctx.record_stats(name, &input, region.as_ref(), &o, started, read, None);
        if !quiet_mode {
            ctx.notes(name, &o, rs, true);
        }
        let sel = ctx.file_selected(&o);
        any |= sel;
        if args.quiet && sel {
            return Err(());
        }
        if count_mode {
            let n = if o.is_binary && ctx.opts.binary == BinaryMode::WithoutMatch {
                0
            } else if q.has_excludes() {
                // Like `grep X f | grep -v Y | grep -c ''`: text lines only.
                o.reported
            } else {
                o.selected
            };
            let mut r = Vec::new();
            if ctx.fmt.with_filename {
                ctx.fmt.push_name(&mut r, name);
                if args.null {
                    r.push(0);
                } else {
                    ctx.fmt.push_sep(&mut r, b':');
                }
            }
            r.extend_from_slice(n.to_string().as_bytes());
            r.push(b'\n');
            if !recs.push(out, r) {
                more = false;
            }
        } else if ctx.listing() && !args.quiet {
            let listed = if args.files_with_matches { sel } else { !sel };
            if listed {
                let mut r = Vec::new();
                ctx.fmt.push_name(&mut r, name);
                r.push(if args.null { 0 } else { b'\n' });
                if !recs.push(out, r) {
                    more = false;
                }
            }
        }
    }
    Ok(any)
}

/// `--tail N` over line records: files from last to first, each answered
/// from its end, until N records are known.
fn tail_lines(
    ctx: &mut Ctx,
    files: &[OsString],
    names: &[Vec<u8>],
    out: &mut Out,
    n: u64,
) -> Result<bool, ()> {
    let n = usize::try_from(n).unwrap_or(usize::MAX);
    let q = ctx.q;
    let mut parts: Vec<Vec<Vec<u8>>> = Vec::new();
    let mut have = 0usize;
    let mut any = false;
    for (f, name) in files.iter().zip(names).rev() {
        let mut input = match ctx.open(f) {
            Ok(i) => i,
            Err(e) => {
                ctx.error(name, &e.to_string());
                continue;
            }
        };
        if any && have >= n {
            continue; // the answer is known; only errors still matter
        }
        let want = n.saturating_sub(have);
        let started = std::time::Instant::now();
        let Ok((region, fmt)) = ctx.input_region(name, Some(&input)) else {
            continue;
        };
        let mut recs: Vec<Vec<u8>> = Vec::new();
        let mut read = 0u64;
        let mut first_out = None;
        let res = match &mut input {
            Input::Whole { bytes, has_holes } => {
                let weight = |l: &[u8]| fmt.weight(q, l);
                let opts = ctx.opts.clone().for_input(bytes);
                let r = region.as_ref().expect("whole inputs have a region");
                let hay = &bytes[r.start..r.end];
                search::search_tail(q, hay, *has_holes, want, &opts, &weight).map(|(lines, o)| {
                    first_out = lines.first().map(|l| l.offset as usize);
                    for l in &lines {
                        fmt.records(&mut recs, q, name, l);
                    }
                    o
                })
            }
            Input::Stream(r) => {
                let mut ring: VecDeque<Vec<u8>> = VecDeque::new();
                let res = search::search_stream(
                    q,
                    &mut CountingReader {
                        inner: &mut **r,
                        n: &mut read,
                    },
                    &ctx.opts,
                    &mut |q, line: &Line| {
                        let mut rs = Vec::new();
                        fmt.records(&mut rs, q, name, line);
                        for rec in rs {
                            if want > 0 {
                                if ring.len() == want {
                                    ring.pop_front();
                                }
                                ring.push_back(rec);
                            }
                        }
                        true
                    },
                    false,
                );
                recs = ring.into();
                res
            }
        };
        let o = match res {
            Ok(o) => o,
            Err(e) => {
                ctx.error(name, &e.to_string());
                continue;
            }
        };
        let input = Some(input);
        ctx.record_stats(name, &input, region.as_ref(), &o, started, read, first_out);
        let base = region.as_ref().map_or(0, |r| r.start);
        ctx.notes(name, &o, base, region.is_none());
        any |= ctx.file_selected(&o);
        if recs.len() > want {
            recs.drain(..recs.len() - want);
        }
        have += recs.len();
        parts.push(recs);
    }
    for part in parts.iter().rev() {
        for r in part {
            if !out.write(r) {
                return Ok(any);
            }
        }
    }
    Ok(any)
}

/// Forward search with context (`-A/-B/-C`) of every file in order; with
/// `--head N`, the first N selected lines (of all files) with their context.
fn forward_context(
    ctx: &mut Ctx,
    files: &[OsString],
    names: &[Vec<u8>],
    out: &mut Out,
    spec: &ContextSpec,
) -> Result<bool, ()> {
    let q = ctx.q;
    let mut any = false;
    let mut shared = Shared::default();
    let mut head_left = ctx.args.head;
    for (f, name) in files.iter().zip(names) {
        let done = head_left == Some(0) || out.failed.is_some();
        let mut input = match ctx.open(f) {
            Ok(i) => i,
            Err(e) => {
                ctx.error(name, &e.to_string());
                continue;
            }
        };
        if done {
            continue;
        }
        let mut opts = ctx.opts.clone();
        if let Some(h) = head_left {
            opts.max_count = Some(opts.max_count.map_or(h, |m| m.min(h)));
        }
        let started = std::time::Instant::now();
        let Ok((region, fmt)) = ctx.input_region(name, Some(&input)) else {
            continue;
        };
        let mut read = 0u64;
        let mut fc = FileContext::new(spec, &fmt, q, name);
        let mut sink = |b: &[u8]| out.write(b);
        let res = match &mut input {
            Input::Whole { bytes, has_holes } => {
                let opts = opts.for_input(bytes);
                let r = region.as_ref().expect("whole inputs have a region");
                search::search_forward_context(
                    q,
                    &bytes[r.start..r.end],
                    *has_holes,
                    &opts,
                    search::ContextRange::default(),
                    &mut fc,
                    &mut shared,
                    spec.after,
                    &mut sink,
                    false,
                )
            }
            Input::Stream(r) => search::search_stream_context(
                q,
                &mut CountingReader {
                    inner: &mut **r,
                    n: &mut read,
                },
                &opts,
                &mut fc,
                &mut shared,
                &mut sink,
                false,
            ),
        };
        let Some(o) = ctx.outcome(name, res) else {
            continue;
        };
        let input = Some(input);
        ctx.record_stats(name, &input, region.as_ref(), &o, started, read, None);
        ctx.notes(name, &o, region.as_ref().map_or(0, |r| r.start), true);
        any |= ctx.file_selected(&o);
        if let Some(h) = &mut head_left {
            *h = h.saturating_sub(o.reported);
        }
    }
    Ok(any)
}

/// `--tail N` with context on a whole file: the last `want` selected lines
/// found from the end, then grep's output with context from the first
/// leading-context line of the first of them. Returns the output, the
/// outcome, how many selected lines it holds and where the first starts.
#[allow(clippy::too_many_arguments)]
fn file_tail_context(
    q: &Query,
    hay: &[u8],
    has_holes: bool,
    opts: &SearchOptions,
    spec: &ContextSpec,
    fmt: &Format,
    name: &[u8],
    want: usize,
) -> Result<(Vec<u8>, Outcome, u64, Option<usize>), SearchError> {
    let (lines, o, l) = search::search_tail_text(q, hay, has_holes, want, opts, &|_| 1)?;
    let mut part = Vec::new();
    let Some(first) = lines.first().filter(|_| want > 0) else {
        return Ok((part, o, 0, None));
    };
    let (from, k) = crate::context::context_start(hay, first.offset as usize, spec.before);
    let range = search::ContextRange {
        from,
        newlines_before: if opts.line_numbers {
            first.number.saturating_sub(1 + k as u64)
        } else {
            0
        },
        stop_after: opts.max_count.and(lines.last().map(|l| l.offset as usize)),
        text_end: Some(l),
    };
    let mut ropts = opts.clone();
    ropts.max_count = None;
    let mut fc = FileContext::new(spec, fmt, q, name);
    let mut sh = Shared::default();
    let o2 = search::search_forward_context(
        q,
        hay,
        has_holes,
        &ropts,
        range,
        &mut fc,
        &mut sh,
        spec.after,
        &mut |b| {
            part.extend_from_slice(b);
            true
        },
        false,
    )?;
    let o = Outcome {
        binary_matched: o.binary_matched || o2.binary_matched,
        ..o
    };
    Ok((part, o, lines.len() as u64, Some(first.offset as usize)))
}

/// `--tail N` with context on a stream: grep's output with context is
/// produced as it would be printed, keeping only its end: the lines from
/// the first leading-context line of the Nth-last selected line on.
fn stream_tail_context(
    q: &Query,
    r: &mut dyn io::Read,
    opts: &SearchOptions,
    spec: &ContextSpec,
    fmt: &Format,
    name: &[u8],
    want: usize,
) -> Result<(Vec<u8>, Outcome, u64), SearchError> {
    let marks: crate::context::Marks = Default::default();
    let mut fc = FileContext::new(spec, fmt, q, name);
    fc.mark_into(marks.clone());
    let mut sh = Shared::default();
    // Printed lines (number, bytes; separators have no number) and the
    // line numbers of the last `want` selected lines.
    let mut units: VecDeque<(Option<u64>, Vec<u8>)> = VecDeque::new();
    let mut sel: VecDeque<u64> = VecDeque::new();
    let before = spec.before as u64;
    let mut sink = |piece: &[u8]| {
        let ms = std::mem::take(&mut *marks.borrow_mut());
        for (i, m) in ms.iter().enumerate() {
            let end = ms.get(i + 1).map_or(piece.len(), |n| n.at);
            units.push_back((m.number, piece[m.at..end].to_vec()));
            if m.selected {
                sel.push_back(m.number.unwrap_or(0));
                if sel.len() > want {
                    sel.pop_front();
                }
            }
        }
        if want == 0 {
            units.clear();
        } else if sel.len() == want {
            let cut = sel[0].saturating_sub(before);
            while let Some(u) = units.front() {
                match u.0 {
                    Some(n) if n >= cut => break,
                    _ => {
                        units.pop_front();
                    }
                }
            }
        }
        true
    };
    let mut nopts = opts.clone();
    nopts.line_numbers = true; // the marks need line numbers
    let o = search::search_stream_context(q, r, &nopts, &mut fc, &mut sh, &mut sink, false)?;
    while units.front().is_some_and(|u| u.0.is_none()) {
        units.pop_front();
    }
    let got = sel.len() as u64;
    Ok((units.into_iter().flat_map(|u| u.1).collect(), o, got))
}

/// `--tail N` with context: the last N selected lines (of all files), each
/// with its context, found from the end. The output is exactly the end of
/// what `grep -A/-B/-C` prints, from the first leading-context line of the
/// Nth selected line from the end.
fn tail_context(
    ctx: &mut Ctx,
    files: &[OsString],
    names: &[Vec<u8>],
    out: &mut Out,
    spec: &ContextSpec,
    n: u64,
) -> Result<bool, ()> {
    let q = ctx.q;
    let mut parts: Vec<Vec<u8>> = Vec::new();
    let mut have = 0u64;
    let mut any = false;
    let sep_fmt = ctx.fmt.clone();
    for (f, name) in files.iter().zip(names).rev() {
        let mut input = match ctx.open(f) {
            Ok(i) => i,
            Err(e) => {
                ctx.error(name, &e.to_string());
                continue;
            }
        };
        if any && have >= n {
            continue;
        }
        let want = usize::try_from(n - have).unwrap_or(usize::MAX);
        let started = std::time::Instant::now();
        let Ok((region, fmt)) = ctx.input_region(name, Some(&input)) else {
            continue;
        };
        let region = region.unwrap_or_default();
        let mut read = 0u64;
        let res = match &mut input {
            Input::Stream(r) => stream_tail_context(
                q,
                &mut CountingReader {
                    inner: &mut **r,
                    n: &mut read,
                },
                &ctx.opts,
                spec,
                &fmt,
                name,
                want,
            )
            .map(|(part, o, got)| (part, o, got, None)),
            Input::Whole { bytes, has_holes } => {
                let opts = ctx.opts.clone().for_input(bytes);
                let hay: &[u8] = &bytes[region.start..region.end];
                file_tail_context(q, hay, *has_holes, &opts, spec, &fmt, name, want)
            }
        };
        let (part, o, got, first_out) = match res {
            Ok(r) => r,
            Err(e) => {
                ctx.error(name, &e.to_string());
                continue;
            }
        };
        let stream = matches!(input, Input::Stream(_));
        let input = Some(input);
        let whole = (!stream).then_some(&region);
        ctx.record_stats(name, &input, whole, &o, started, read, first_out);
        ctx.notes(name, &o, region.start, stream);
        any |= ctx.file_selected(&o);
        have += got;
        if !part.is_empty() {
            parts.push(part);
        }
    }
    for (i, part) in parts.iter().rev().enumerate() {
        if i > 0 {
            if let Some(sep) = &spec.separator {
                let mut b = Vec::new();
                sep_fmt.push_separator(&mut b, sep);
                if !out.write(&b) {
                    return Ok(any);
                }
            }
        }
        if !out.write(part) {
            return Ok(any);
        }
    }
    Ok(any)
}
