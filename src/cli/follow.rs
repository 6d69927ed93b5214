//! `--follow FILE…`: the initial search (the last N selected lines of all
//! files, `-t N`, default 10), then every new selected line as the files
//! grow (each followed on its own thread; with several files lines carry
//! grep's `file:` prefix and are written whole), like `tail -F` piped into
//! grep — surviving rotation by rename, truncation and
//! re-creation, without busy polling ([`crate::follow::Follower`]).
//!
//! It ends when `--until PATTERN` matches a new line (exit 0), when the
//! `--pid` process exits (exit 0 if any line was selected, else 1, after a
//! summary on stderr), or when `--timeout` passes (exit [`EXIT_TIMEOUT`]).
//! Without any of them it runs until interrupted.
//!
//! The new lines are searched as one stream: `-n` and `-b` continue from
//! the initial part (after a truncation or rotation they keep counting
//! across files), context and colour work as on a pipe, and output is
//! flushed line by line.

use super::args::Args;
use super::driver::{run_plan, Output, Stdin};
use super::plan::Phase;
use super::report::{FileStats, FollowSummary};
use super::{EXIT_NONE, EXIT_SELECTED, EXIT_TROUBLE};
use crate::follow::{Event, FollowOptions, Follower};
use crate::query::{Query, QueryBuilder, Syntax};
use std::collections::VecDeque;
use std::ffi::OsString;
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::os::unix::ffi::OsStrExt;
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::Instant;

/// Exit status when `--timeout` passes (as coreutils' `timeout`).
pub const EXIT_TIMEOUT: i32 = 124;

/// Why following stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum End {
    Until,
    Pid,
    Timeout,
    Error,
}

#[derive(Clone, Debug, Default)]
struct State {
    end: Option<End>,
    /// The last bytes delivered were an unterminated line (the writer left
    /// it cut off).
    cut_off: bool,
    /// That unterminated line was all NUL bytes: blocks allocated but never
    /// written (a power loss, or a crash before the page cache was flushed).
    nul_tail: bool,
    /// Bytes delivered in the follow phase.
    delivered: u64,
}

/// A `Read` over the followed file's new lines: blocks until lines arrive;
/// end of input when `--until` matched, the `--pid` process exited, or the
/// timeout passed.
struct FollowReader {
    follower: Follower,
    name: String,
    deadline: Option<Instant>,
    until: Option<Arc<Query>>,
    pending: Vec<u8>,
    pos: usize,
    done: bool,
    quiet: bool,
    state: Arc<Mutex<State>>,
    /// Set when another file's `--until` matched: stop too.
    stop: Arc<std::sync::atomic::AtomicBool>,
    /// Other files are followed too (wake up now and then to see `stop`).
    multi: bool,
}

/// How often a waiting reader looks at the shared stop flag.
const STOP_CHECK: std::time::Duration = std::time::Duration::from_millis(200);

impl FollowReader {
    fn set_end(&self, e: End) {
        if let Ok(mut s) = self.state.lock() {
            s.end.get_or_insert(e);
        }
    }

    fn note(&self, msg: &str) {
        if !self.quiet {
            say!("grail: {}: {msg}", self.name);
        }
    }

    /// Cut `v` after the first line `--until` matches.
    fn until_cut(&mut self, v: &mut Vec<u8>) {
        let Some(q) = self.until.clone() else {
            return;
        };
        let q: &Query = &q;
        let mut end = None;
        let how = crate::scan::Forward {
            limit: Some(1),
            ..Default::default()
        };
        crate::scan::forward(
            q,
            v,
            (0, v.len()),
            &crate::ScanConfig::default(),
            how,
            &mut |batch| {
                if let Some(h) = batch.iter().find_map(|c| c.hits.first()) {
                    end = Some((h.end + 1).min(v.len()));
                    return false;
                }
                true
            },
        );
        if let Some(e) = end {
            v.truncate(e);
            self.done = true;
            self.set_end(End::Until);
        }
    }
}

impl Read for FollowReader {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        loop {
            if self.pos < self.pending.len() {
                let n = buf.len().min(self.pending.len() - self.pos);
                buf[..n].copy_from_slice(&self.pending[self.pos..self.pos + n]);
                self.pos += n;
                return Ok(n);
            }
            if self.done {
                return Ok(0);
            }
            if self.stop.load(std::sync::atomic::Ordering::Acquire) {
                self.done = true;
                continue;
            }
            let wait = if self.multi {
                let soon = Instant::now() + STOP_CHECK;
                Some(self.deadline.map_or(soon, |d| d.min(soon)))
            } else {
                self.deadline
            };
            let ev = match self.follower.next(wait) {
                Ok(ev) => ev,
                Err(e) => {
                    self.set_end(End::Error);
                    return Err(e);
                }
            };
            match ev {
                Event::Lines(mut v) => {
                    self.until_cut(&mut v);
                    if let Ok(mut s) = self.state.lock() {
                        s.cut_off = false;
                        s.nul_tail = false;
                        s.delivered += v.len() as u64;
                    }
                    self.pending = v;
                    self.pos = 0;
                }
                Event::Partial(mut v) => {
                    // An unterminated line whose writer is gone: one line,
                    // as grep reads a last line without a newline.
                    if let Ok(mut s) = self.state.lock() {
                        s.cut_off = true;
                        s.nul_tail = !v.is_empty() && v.iter().all(|&b| b == 0);
                        s.delivered += v.len() as u64;
                    }
                    v.push(b'\n');
                    self.until_cut(&mut v);
                    self.pending = v;
                    self.pos = 0;
                }
                Event::Truncated => self.note("file truncated; following from its start"),
                Event::Reopened => self.note("file replaced; following the new file"),
                Event::Missing => self.note("file disappeared; waiting for it to come back"),
                Event::PidExited => {
                    self.done = true;
                    self.set_end(End::Pid);
                }
                Event::TimedOut => {
                    if self.deadline.is_some_and(|d| Instant::now() >= d) {
                        self.done = true;
                        self.set_end(End::Timeout);
                    }
                }
            }
        }
    }
}

/// A sink that keeps the last `n` lines written (for the `--pid` summary).
struct Tee<'a> {
    inner: &'a mut (dyn Write + Send),
    n: usize,
    last: VecDeque<Vec<u8>>,
    cur: Vec<u8>,
}

impl Write for Tee<'_> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let k = self.inner.write(buf)?;
        if self.n > 0 {
            for &b in &buf[..k] {
                self.cur.push(b);
                if b == b'\n' {
                    if self.last.len() == self.n {
                        self.last.pop_front();
                    }
                    self.last.push_back(std::mem::take(&mut self.cur));
                }
            }
        }
        Ok(k)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

/// The offset just after the last newline in the first `len` bytes of
/// `file`, read backwards in blocks (the end of the last complete line).
fn last_line_end(file: &mut std::fs::File, len: u64) -> io::Result<u64> {
    let mut end = len;
    let mut buf = vec![0u8; 64 << 10];
    while end > 0 {
        let start = end.saturating_sub(buf.len() as u64);
        let want = (end - start) as usize;
        file.seek(SeekFrom::Start(start))?;
        file.read_exact(&mut buf[..want])?;
        if let Some(i) = memchr::memrchr(b'\n', &buf[..want]) {
            return Ok(start + i as u64 + 1);
        }
        end = start;
    }
    Ok(0)
}

fn refuse(msg: &str) -> i32 {
    say!("grail: {msg}");
    EXIT_TROUBLE
}

/// One followed file, opened before the initial search.
struct Followed {
    name: String,
    name_os: OsString,
    file: std::fs::File,
    /// End of the last complete line at open: the initial search stops
    /// there and following starts there.
    start: u64,
}

fn open_followed(name_os: &OsString, no_decompress: bool) -> Result<Followed, String> {
    let name = String::from_utf8_lossy(name_os.as_bytes()).into_owned();
    let path = Path::new(name_os);
    let err = |e: io::Error| format!("{name}: {}", crate::error::io_text(&e));
    let mut file = std::fs::File::open(path).map_err(err)?;
    let meta = file.metadata().map_err(err)?;
    if !meta.is_file() {
        return Err(format!("{name}: --follow needs a regular file"));
    }
    let mut head = [0u8; 6];
    let n = io::Read::read(&mut file, &mut head).map_err(err)?;
    if let Some(f) = crate::source::decompress::Format::detect(&head[..n]) {
        if !no_decompress {
            return Err(format!(
                "{name}: {} compressed: --follow reads a log that grows as text (--no-decompress \
                 follows its bytes)",
                f.name()
            ));
        }
    }
    // The initial search covers the complete lines present now; the follow
    // starts right after them (a line being written is read once complete).
    let start = last_line_end(&mut file, meta.len()).map_err(err)?;
    Ok(Followed {
        name,
        name_os: name_os.clone(),
        file,
        start,
    })
}

/// Newlines before `start` in `path` (for `-n` across the two phases),
/// releasing the pages it reads.
fn lines_before(path: &Path, start: u64) -> u64 {
    match crate::source::open_path(path) {
        Ok(crate::source::Input::Whole(bytes)) => {
            let end = usize::try_from(start)
                .unwrap_or(usize::MAX)
                .min(bytes.len());
            let hay = bytes.haystack();
            let release = |a: usize, b: usize| hay.release(a, b);
            crate::scan::count_newlines_then(hay.bytes(), 0, end, true, &release)
        }
        _ => 0,
    }
}

/// A sink several follow threads share: each write (one flushed output
/// line, as the follow output is line-buffered) goes out whole.
struct TeeSink<'s, 'a>(&'s Mutex<Tee<'a>>);

impl Write for TeeSink<'_, '_> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let mut t = self
            .0
            .lock()
            .map_err(|_| io::Error::other("output lock poisoned"))?;
        t.write_all(buf)?;
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        let mut t = self
            .0
            .lock()
            .map_err(|_| io::Error::other("output lock poisoned"))?;
        t.flush()
    }
}

/// What every follow thread shares.
struct Common<'t, 'a> {
    args: &'t Args,
    /// Lines carry the file name.
    with_filename: bool,
    /// Several files are followed (messages name the file).
    multi: bool,
    until: Option<Arc<Query>>,
    started: Instant,
    stop: Arc<std::sync::atomic::AtomicBool>,
    tee: &'t Mutex<Tee<'a>>,
}

/// How following one file ended.
struct FileEnd {
    status: i32,
    selected: bool,
    state: State,
    reports: Vec<FileStats>,
}

impl FileEnd {
    fn error() -> FileEnd {
        FileEnd {
            status: EXIT_TROUBLE,
            selected: false,
            state: State {
                end: Some(End::Error),
                ..State::default()
            },
            reports: Vec::new(),
        }
    }
}

/// Run `grail --follow …`; returns the exit status.
pub fn run(args: &Args) -> i32 {
    let started = Instant::now();
    let (until, followed) = match prepare(args) {
        Ok(x) => x,
        Err(status) => return status,
    };
    let keep = args.tail.unwrap_or(10);
    let mut stdout = io::stdout();
    let tee = Mutex::new(Tee {
        inner: &mut stdout,
        n: if args.pid.is_some() {
            usize::try_from(keep).unwrap_or(usize::MAX).min(10_000)
        } else {
            0
        },
        last: VecDeque::new(),
        cur: Vec::new(),
    });
    let (r1, initial) = initial_part(args, &followed, keep, &tee);
    if r1.status == EXIT_TROUBLE {
        return EXIT_TROUBLE;
    }
    let multi = followed.len() > 1;
    let common = Common {
        args,
        with_filename: args.with_filename.unwrap_or(multi),
        multi,
        until: until.map(Arc::new),
        started,
        stop: Arc::new(std::sync::atomic::AtomicBool::new(false)),
        tee: &tee,
    };
    let results = follow_all(&common, followed);
    let mut t = match tee.into_inner() {
        Ok(t) => t,
        Err(p) => p.into_inner(),
    };
    if args.json {
        // One summary: the initial search per file, then each followed stream.
        let followed: Vec<&FileStats> = results.iter().flat_map(|r| r.reports.iter()).collect();
        let summary = FollowSummary {
            kind: "summary",
            selected: initial
                .iter()
                .chain(followed.iter().copied())
                .map(|f| f.selected)
                .sum(),
            elapsed_ms: started.elapsed().as_secs_f64() * 1000.0,
            files: &initial,
            followed,
        };
        let summary = serde_json::to_string(&summary).unwrap_or_default();
        let _ = writeln!(t, "{summary}");
    }
    let _ = t.flush();
    let selected = r1.selected || results.iter().any(|r| r.selected);
    finish(args, &t, &results, selected, started)
}

/// Check what `--follow` cannot do and open the files; `Err`: the exit
/// status after a message.
fn prepare(args: &Args) -> Result<(Option<Query>, Vec<Followed>), i32> {
    if args.files.is_empty() || args.files.iter().any(|f| f == "-") {
        return Err(refuse("--follow needs files (not standard input)"));
    }
    if args.count || args.files_with_matches || args.files_without_match || args.quiet {
        return Err(refuse("--follow does not combine with -c, -l, -L or -q"));
    }
    if args.head.is_some() {
        return Err(refuse("--follow does not combine with --head"));
    }
    if args.null_data {
        return Err(refuse("--follow does not combine with -z"));
    }
    if !args.rotated.is_empty() || args.merge {
        return Err(refuse(
            "--follow does not combine with --rotated or --merge (it follows the files named)",
        ));
    }
    if args.walk.directories != super::walk::Directories::Read {
        return Err(refuse(
            "--follow follows the files named (like tail -F), not directories (-r, -R, -d)",
        ));
    }
    let until = match &args.until {
        Some(p) => match QueryBuilder::new()
            .utf8(args.utf8)
            .syntax(args.syntax.unwrap_or(Syntax::Basic))
            .ignore_case(args.ignore_case)
            .include(p)
            .build()
        {
            Ok(q) => Some(q),
            Err(e) => return Err(refuse(&format!("--until: {e}"))),
        },
        None => None,
    };
    wait_for_files(args)?;
    let followed = args
        .files
        .iter()
        .map(|f| open_followed(f, args.no_decompress))
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| refuse(&e))?;
    Ok((until, followed))
}

/// As `tail -F` does, wait for named files that do not exist yet (a server
/// that has not started), saying so once per file; `--timeout` and `--pid`
/// still end the wait. Following starts when all of them exist.
fn wait_for_files(args: &Args) -> Result<(), i32> {
    let started = Instant::now();
    let missing = |f: &OsString| {
        std::fs::symlink_metadata(f).is_err_and(|e| e.kind() == io::ErrorKind::NotFound)
    };
    let mut said = vec![false; args.files.len()];
    while args.files.iter().any(missing) {
        for (f, said) in args.files.iter().zip(&mut said) {
            if !*said && missing(f) && !args.no_messages {
                say!(
                    "grail: {}: not there yet; waiting for it to appear",
                    String::from_utf8_lossy(f.as_bytes())
                );
            }
            *said = true;
        }
        if args.timeout.is_some_and(|t| started.elapsed() >= t) {
            if !args.no_messages {
                say!(
                    "grail: --timeout {:?} passed before the files appeared",
                    args.timeout.unwrap_or_default()
                );
            }
            return Err(EXIT_TIMEOUT);
        }
        if let Some(pid) = args.pid {
            if !crate::follow::process_alive(pid) {
                if !args.no_messages {
                    say!("grail: process {pid} exited before the files appeared");
                }
                return Err(EXIT_NONE);
            }
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    Ok(())
}

/// 1. The initial part (the last `keep` selected lines of all files, up to
///    where following starts), answered from the end like any tail.
fn initial_part(
    args: &Args,
    followed: &[Followed],
    keep: u64,
    tee: &Mutex<Tee<'_>>,
) -> (super::driver::RunResult, Vec<FileStats>) {
    let mut first = args.clone();
    first.follow = false;
    first.tail = Some(keep);
    first.line_buffered = true;
    let phase = Phase {
        to_byte: followed
            .iter()
            .map(|f| (f.name_os.as_bytes().to_vec(), f.start))
            .collect(),
        ..Phase::default()
    };
    let mut initial = Vec::new();
    let output = Output {
        sink: &mut TeeSink(tee),
        to_stdout: false,
        reports: Some(&mut initial),
    };
    (run_plan(&first, &phase, &Stdin::Real, output), initial)
}

/// 2. The new lines of each file, as one stream per file, on a thread
///    each; output lines are written whole, in the order they are found.
fn follow_all(common: &Common<'_, '_>, followed: Vec<Followed>) -> Vec<FileEnd> {
    std::thread::scope(|scope| {
        let handles: Vec<_> = followed
            .into_iter()
            .map(|f| scope.spawn(move || follow_one(common, f)))
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or_else(|_| FileEnd::error()))
            .collect()
    })
}

/// The exit status, and what `--timeout` and `--pid` say on stderr.
fn finish(args: &Args, t: &Tee<'_>, results: &[FileEnd], selected: bool, started: Instant) -> i32 {
    let trouble = results.iter().any(|r| r.status == EXIT_TROUBLE);
    let grep_status = if trouble {
        EXIT_TROUBLE
    } else if selected {
        EXIT_SELECTED
    } else {
        EXIT_NONE
    };
    let ended = |e: End| results.iter().any(|r| r.state.end == Some(e));
    let names: Vec<String> = args
        .files
        .iter()
        .map(|f| String::from_utf8_lossy(f.as_bytes()).into_owned())
        .collect();
    let all = names.join(", ");
    if ended(End::Until) {
        return EXIT_SELECTED;
    }
    if ended(End::Timeout) {
        if !args.no_messages {
            say!(
                "grail: {all}: --timeout {:?} passed{}",
                args.timeout.unwrap_or_default(),
                if args.until.is_some() {
                    " before --until matched"
                } else {
                    ""
                }
            );
        }
        return EXIT_TIMEOUT;
    }
    if ended(End::Pid) {
        pid_summary(args, t, results, &names, started);
    }
    grep_status
}

/// What `--pid` says when the process exited: how each log ended, and the
/// last selected lines again.
fn pid_summary(args: &Args, t: &Tee<'_>, results: &[FileEnd], names: &[String], started: Instant) {
    let all = names.join(", ");
    let pid = args.pid.unwrap_or(0);
    let mut e = io::stderr().lock();
    let _ = writeln!(
        e,
        "grail: process {pid} exited after {:.1} s",
        started.elapsed().as_secs_f64()
    );
    for (name, r) in names.iter().zip(results) {
        let _ = writeln!(
            e,
            "grail: {name}: {} new bytes while following; {}",
            r.state.delivered,
            if r.state.nul_tail {
                "the log ends in NUL bytes after its last line: blocks that were never written (a power loss or a crash before they were flushed?)"
            } else if r.state.cut_off {
                "the log ends in the middle of a line: the writer was cut off mid-write"
            } else {
                "the log ends with a complete line"
            }
        );
    }
    if t.last.is_empty() {
        let _ = writeln!(e, "grail: {all}: no line was selected");
    } else {
        let _ = writeln!(e, "grail: {all}: the last {} selected lines:", t.last.len());
        for l in &t.last {
            let _ = e.write_all(l);
        }
    }
}

/// Follow one file until `--until`, `--pid`, `--timeout` or `stop`.
fn follow_one(c: &Common<'_, '_>, f: Followed) -> FileEnd {
    let args = c.args;
    let path = Path::new(&f.name_os);
    let base_line = if args.line_number || (args.json && !args.no_line_number) {
        lines_before(path, f.start)
    } else {
        0
    };
    let follower = match f.file.try_clone().and_then(|file| {
        Follower::new(
            path,
            file,
            f.start,
            FollowOptions {
                pid: args.pid,
                ..FollowOptions::default()
            },
        )
    }) {
        Ok(x) => x,
        Err(e) => {
            say!(
                "grail: {}: cannot follow: {}",
                f.name,
                crate::error::io_text(&e)
            );
            c.stop.store(true, std::sync::atomic::Ordering::Release);
            return FileEnd::error();
        }
    };
    let state = Arc::new(Mutex::new(State::default()));
    let reader = FollowReader {
        follower,
        name: f.name.clone(),
        deadline: args.timeout.map(|t| c.started + t),
        until: c.until.clone(),
        pending: Vec::new(),
        pos: 0,
        done: false,
        quiet: args.no_messages,
        state: state.clone(),
        stop: c.stop.clone(),
        multi: c.multi,
    };
    let mut second = args.clone();
    second.follow = false;
    second.tail = None;
    second.files = vec![OsString::from("-")];
    second.label = Some(f.name_os.as_bytes().to_vec());
    second.with_filename = Some(c.with_filename);
    second.from_byte = None;
    second.since = None;
    second.before_time = None;
    second.time_format = None;
    let phase = Phase {
        to_byte: Vec::new(),
        base_line,
        base_offset: f.start,
    };
    second.line_buffered = true;
    let mut reports = Vec::new();
    let output = Output {
        sink: &mut TeeSink(c.tee),
        to_stdout: false,
        reports: Some(&mut reports),
    };
    let stdin = Stdin::Reader(Mutex::new(Some(Box::new(reader))));
    let r = run_plan(&second, &phase, &stdin, output);
    let st = state.lock().map(|s| s.clone()).unwrap_or_default();
    if st.end == Some(End::Until) {
        c.stop.store(true, std::sync::atomic::Ordering::Release);
    }
    FileEnd {
        status: r.status,
        selected: r.selected,
        state: st,
        reports,
    }
}
