//! `--follow`: the initial search (the last N selected lines, `-t N`,
//! default 10), then every new selected line as the file grows, like
//! `tail -F` piped into grep — surviving rotation by rename, truncation and
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
use super::{run_with, Stdin, EXIT_NONE, EXIT_SELECTED, EXIT_TROUBLE};
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

#[derive(Debug, Default)]
struct State {
    end: Option<End>,
    /// The last bytes delivered were an unterminated line (the writer left
    /// it cut off).
    cut_off: bool,
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
    until: Option<Query>,
    pending: Vec<u8>,
    pos: usize,
    done: bool,
    quiet: bool,
    state: Arc<Mutex<State>>,
}

impl FollowReader {
    fn set_end(&self, e: End) {
        if let Ok(mut s) = self.state.lock() {
            s.end.get_or_insert(e);
        }
    }

    fn note(&self, msg: &str) {
        if !self.quiet {
            eprintln!("grail: {}: {msg}", self.name);
        }
    }

    /// Cut `v` after the first line `--until` matches.
    fn until_cut(&mut self, v: &mut Vec<u8>) {
        let Some(q) = &self.until else {
            return;
        };
        let mut end = None;
        crate::scan::forward(
            q,
            v,
            0,
            v.len(),
            &crate::ScanConfig::default(),
            Some(1),
            &mut |c| {
                if let Some(h) = c.hits.first() {
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
            let ev = match self.follower.next(self.deadline) {
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
                    self.done = true;
                    self.set_end(End::Timeout);
                }
            }
        }
    }
}

/// A sink that keeps the last `n` lines written (for the `--pid` summary).
struct Tee<'a> {
    inner: &'a mut dyn Write,
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
    eprintln!("grail: {msg}");
    EXIT_TROUBLE
}

/// Run `grail --follow …`; returns the exit status.
pub fn run(args: &Args) -> i32 {
    let started = Instant::now();
    if args.files.len() != 1 || args.files[0] == "-" {
        return refuse("--follow takes exactly one file (not standard input)");
    }
    if args.count || args.files_with_matches || args.files_without_match || args.quiet {
        return refuse("--follow does not combine with -c, -l, -L or -q");
    }
    if args.head.is_some() {
        return refuse("--follow does not combine with --head");
    }
    let name_os: &OsString = &args.files[0];
    let name = String::from_utf8_lossy(name_os.as_bytes()).into_owned();
    let path = Path::new(name_os);
    let until = match &args.until {
        Some(p) => match QueryBuilder::new()
            .syntax(args.syntax.unwrap_or(Syntax::Basic))
            .ignore_case(args.ignore_case)
            .include(p)
            .build()
        {
            Ok(q) => Some(q),
            Err(e) => return refuse(&format!("--until: {e}")),
        },
        None => None,
    };
    let mut file = match std::fs::File::open(path) {
        Ok(f) => f,
        Err(e) => return refuse(&format!("{name}: {}", crate::io_error_text(&e))),
    };
    let meta = match file.metadata() {
        Ok(m) if m.is_file() => m,
        Ok(_) => return refuse(&format!("{name}: --follow needs a regular file")),
        Err(e) => return refuse(&format!("{name}: {}", crate::io_error_text(&e))),
    };
    // The initial search covers the complete lines present now; the follow
    // starts right after them (a line being written is read once complete).
    let start = match last_line_end(&mut file, meta.len()) {
        Ok(s) => s,
        Err(e) => return refuse(&format!("{name}: {}", crate::io_error_text(&e))),
    };
    let keep = args.tail.unwrap_or(10);
    let stdout = io::stdout();
    let mut lock = stdout.lock();
    let mut tee = Tee {
        inner: &mut lock,
        n: if args.pid.is_some() {
            usize::try_from(keep).unwrap_or(usize::MAX).min(10_000)
        } else {
            0
        },
        last: VecDeque::new(),
        cur: Vec::new(),
    };

    // 1. The initial part, answered from the end like any tail.
    let mut first = args.clone();
    first.follow = false;
    first.to_byte = Some(start);
    first.tail = Some(keep);
    first.no_json_summary = args.json;
    first.line_buffered = true;
    let r1 = run_with(&first, &Stdin::Real, &mut tee);
    if r1.status == EXIT_TROUBLE {
        return EXIT_TROUBLE;
    }

    // 2. The new lines, as one stream.
    let base_line = if args.line_number || args.json {
        match crate::source::open_path(path) {
            Ok(crate::source::Input::Whole { bytes, .. }) => {
                let end = usize::try_from(start)
                    .unwrap_or(usize::MAX)
                    .min(bytes.len());
                crate::scan::count_newlines(&bytes, 0, end, true)
            }
            _ => 0,
        }
    } else {
        0
    };
    let follower = match file.try_clone().and_then(|f| {
        Follower::new(
            path,
            f,
            start,
            FollowOptions {
                pid: args.pid,
                ..FollowOptions::default()
            },
        )
    }) {
        Ok(f) => f,
        Err(e) => {
            return refuse(&format!(
                "{name}: cannot follow: {}",
                crate::io_error_text(&e)
            ))
        }
    };
    let state = Arc::new(Mutex::new(State::default()));
    let reader = FollowReader {
        follower,
        name: name.clone(),
        deadline: args.timeout.map(|t| started + t),
        until,
        pending: Vec::new(),
        pos: 0,
        done: false,
        quiet: args.no_messages,
        state: state.clone(),
    };
    let mut second = args.clone();
    second.follow = false;
    second.tail = None;
    second.files = vec![OsString::from("-")];
    second.label = Some(name_os.as_bytes().to_vec());
    second.with_filename = Some(args.with_filename.unwrap_or(false));
    second.from_byte = None;
    second.since = None;
    second.before_time = None;
    second.time_format = None;
    second.base_line = base_line;
    second.base_offset = start;
    second.line_buffered = true;
    let r2 = run_with(
        &second,
        &Stdin::Reader(Mutex::new(Some(Box::new(reader)))),
        &mut tee,
    );
    let _ = tee.flush();
    let st = state.lock().map(|s| (s.end, s.cut_off, s.delivered));
    let (end, cut_off, delivered) = st.unwrap_or((Some(End::Error), false, 0));
    let selected = r1.selected || r2.selected;
    let grep_status = if r2.status == EXIT_TROUBLE {
        EXIT_TROUBLE
    } else if selected {
        EXIT_SELECTED
    } else {
        EXIT_NONE
    };
    match end {
        Some(End::Until) => EXIT_SELECTED,
        Some(End::Timeout) => {
            if !args.no_messages {
                eprintln!(
                    "grail: {name}: --timeout {:?} passed{}",
                    args.timeout.unwrap_or_default(),
                    if args.until.is_some() {
                        " before --until matched"
                    } else {
                        ""
                    }
                );
            }
            EXIT_TIMEOUT
        }
        Some(End::Pid) => {
            let pid = args.pid.unwrap_or(0);
            let mut e = io::stderr().lock();
            let _ = writeln!(
                e,
                "grail: process {pid} exited after {:.1} s; {name}: {} new bytes while following; {}",
                started.elapsed().as_secs_f64(),
                delivered,
                if cut_off {
                    "the log ends in the middle of a line: the writer was cut off mid-write"
                } else {
                    "the log ends with a complete line"
                }
            );
            if tee.last.is_empty() {
                let _ = writeln!(e, "grail: {name}: no line was selected");
            } else {
                let _ = writeln!(
                    e,
                    "grail: {name}: the last {} selected lines:",
                    tee.last.len()
                );
                for l in &tee.last {
                    let _ = e.write_all(l);
                }
            }
            grep_status
        }
        _ => grep_status,
    }
}
