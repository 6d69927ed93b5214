//! # grail
//!
//! Exact, fast `grep PATTERN FILE | grep -v EXCLUDE | tail -n N` for huge logs.
//!
//! grail compiles grep patterns (BRE, ERE or fixed strings, with GNU's
//! semantics under `LC_ALL=C`) and exclude patterns into automata, memory-maps
//! the input, and scans line-aligned chunks in parallel. For a tail it scans
//! chunks backwards from the end of the file and stops as soon as the last N
//! selected lines are certain. Its output is byte-for-byte what the GNU
//! pipeline prints; what it cannot do exactly it refuses.
//!
//! ```
//! use grail::{QueryBuilder, Searcher, Syntax};
//!
//! let log = b"INFO start\nERROR disk full\nWARNING FutureWarning: Error soon\nERROR oom\n";
//! let query = QueryBuilder::new()
//!     .syntax(Syntax::Extended)
//!     .include("Error|ERROR")
//!     .exclude("FutureWarning")
//!     .build()
//!     .unwrap();
//! let searcher = Searcher::new(&query).line_numbers(true);
//! let last = searcher.tail(log, 1).unwrap();
//! assert_eq!(last.lines[0].bytes, b"ERROR oom");
//! assert_eq!(last.lines[0].number, 4);
//! assert_eq!(searcher.count(log).unwrap().count, 2);
//! let all: Vec<_> = searcher.all(log).unwrap().lines.iter().map(|l| l.offset).collect();
//! assert_eq!(all, vec![11, 61]);
//! ```
//!
//! The layers, each used only by the ones after it: [`query`] compiles
//! patterns; [`source`] opens inputs (mapped files, read bytes, streams) and
//! owns every memory-level `unsafe`; [`scan`] finds selected lines forwards
//! in parallel or backwards from the end; [`search`] handles one input in
//! every mode through one entry point, [`search::run`], handing lines to a
//! [`search::Sink`]; [`printer`] formats grep's lines, colours, context
//! groups and JSON. Beside them, [`timewin`] finds time windows by binary
//! search, [`region`] turns `--from-byte`/`--since`/`--before` into the part
//! of a file to search, and [`follow`] follows growing files. The command
//! line is built on these and is not part of the API.
#![deny(missing_docs)]

mod cli;
mod error;
pub mod follow;
pub mod printer;
pub mod query;
pub mod region;
pub mod scan;
pub mod search;
pub mod source;
pub mod timewin;

pub use query::{locale_is_utf8, locale_name, Query, QueryBuilder, QueryError, Syntax};
pub use scan::ScanConfig;
pub use search::{BinaryMode, Line, Outcome, SearchError, SearchOptions};

use search::{Input, Mode, Selected, Sink};
use source::Haystack;
use std::path::Path;

/// The `grail` program: runs the command line `argv` (the program name
/// first: messages are named after it) and returns its exit status. For the
/// `grail` binary; not an API.
#[doc(hidden)]
pub fn run_cli(argv: Vec<std::ffi::OsString>) -> i32 {
    cli::run(argv)
}

/// What to search: bytes in memory, or a file by path (memory-mapped when
/// large, its pages released behind the scan; a pipe or special file is
/// read as a stream).
#[derive(Clone, Copy, Debug)]
pub enum Target<'a> {
    /// Bytes in memory.
    Bytes(&'a [u8]),
    /// A file to open.
    Path(&'a Path),
}

impl<'a> From<&'a [u8]> for Target<'a> {
    fn from(b: &'a [u8]) -> Self {
        Target::Bytes(b)
    }
}

impl<'a, const N: usize> From<&'a [u8; N]> for Target<'a> {
    fn from(b: &'a [u8; N]) -> Self {
        Target::Bytes(b)
    }
}

impl<'a> From<&'a Vec<u8>> for Target<'a> {
    fn from(b: &'a Vec<u8>) -> Self {
        Target::Bytes(b)
    }
}

impl<'a> From<&'a Path> for Target<'a> {
    fn from(p: &'a Path) -> Self {
        Target::Path(p)
    }
}

impl<'a> From<&'a std::path::PathBuf> for Target<'a> {
    fn from(p: &'a std::path::PathBuf) -> Self {
        Target::Path(p)
    }
}

/// The lines a search found, and what happened on the way (a binary input,
/// NUL bytes searched as text, bytes read), as data.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Found {
    /// The lines, in file order.
    pub lines: Vec<Line>,
    /// What happened.
    pub outcome: Outcome,
}

/// Searches byte slices or files with one query, with the same semantics as
/// the command line (binary handling, `-m`, line numbers, the part of a
/// file to search), through the same [`search::run`].
#[derive(Debug)]
pub struct Searcher<'q> {
    query: &'q Query,
    opts: SearchOptions,
    limits: region::Limits,
}

impl<'q> Searcher<'q> {
    /// A searcher with default options: parallel, logs are text ([`BinaryMode::Log`]).
    pub fn new(query: &'q Query) -> Self {
        Searcher {
            query,
            opts: SearchOptions::default(),
            limits: region::Limits::default(),
        }
    }

    /// Report 1-based line numbers in [`Line::number`].
    pub fn line_numbers(mut self, yes: bool) -> Self {
        self.opts.line_numbers = yes;
        self
    }

    /// Stop after `n` selected lines (grep's `-m`).
    pub fn max_count(mut self, n: Option<u64>) -> Self {
        self.opts.max_count = n;
        self
    }

    /// How NUL bytes are treated.
    pub fn binary(mut self, mode: BinaryMode) -> Self {
        self.opts.binary = mode;
        self
    }

    /// Chunking and parallelism (tests set tiny chunks to stress boundaries).
    pub fn scan_config(mut self, cfg: ScanConfig) -> Self {
        self.opts.scan = cfg;
        self
    }

    /// Search only part of each input: from a byte offset, up to an end
    /// offset, inside a time window ([`region::Limits`]). Line numbers and
    /// offsets stay those of the whole input.
    ///
    /// ```
    /// use grail::{region::Limits, QueryBuilder, Searcher};
    /// let log = b"2026-11-29 22:30:00 ERROR early\n2026-11-29 22:40:00 ERROR late\n";
    /// let q = QueryBuilder::new().include("ERROR").build().unwrap();
    /// let since = grail::timewin::Bound::parse("22:35", std::time::SystemTime::now()).unwrap();
    /// let s = Searcher::new(&q).line_numbers(true).limits(Limits { since: Some(since), ..Limits::default() });
    /// let found = s.all(log).unwrap();
    /// assert_eq!((found.lines.len(), found.lines[0].number), (1, 2));
    /// ```
    pub fn limits(mut self, limits: region::Limits) -> Self {
        self.limits = limits;
        self
    }

    /// Every selected line, in order.
    pub fn all<'a>(&self, target: impl Into<Target<'a>>) -> Result<Found, SearchError> {
        self.collect(target.into(), Mode::Lines, usize::MAX)
    }

    /// The first `n` selected lines.
    pub fn head<'a>(&self, target: impl Into<Target<'a>>, n: usize) -> Result<Found, SearchError> {
        if n == 0 {
            return Ok(Found::default());
        }
        self.collect(target.into(), Mode::Lines, n)
    }

    /// The last `n` selected lines, found from the end.
    pub fn tail<'a>(&self, target: impl Into<Target<'a>>, n: usize) -> Result<Found, SearchError> {
        let weight = |_: &[u8]| 1;
        let mode = Mode::Tail {
            records: n,
            weight: &weight,
        };
        let mut found = self.collect(target.into(), mode, usize::MAX)?;
        let extra = found.lines.len().saturating_sub(n);
        found.lines.drain(..extra);
        Ok(found)
    }

    /// Count the selected lines as `grep -c` does: [`Outcome::count`].
    pub fn count<'a>(&self, target: impl Into<Target<'a>>) -> Result<Outcome, SearchError> {
        Ok(self.collect(target.into(), Mode::Count, 0)?.outcome)
    }

    /// Search `target` in `mode`, handing lines to `sink`: the streaming form
    /// of every other method. Line numbers and offsets are those of the
    /// whole input, also when [`Searcher::limits`] searches a part.
    pub fn run<'a>(
        &self,
        target: impl Into<Target<'a>>,
        mode: Mode<'_>,
        sink: &mut dyn Sink,
    ) -> Result<Outcome, SearchError> {
        match target.into() {
            Target::Bytes(b) => self.run_whole(Haystack::new(b), mode, sink),
            Target::Path(p) => match source::open_path(p) {
                Ok(source::Input::Whole(bytes)) => self.run_whole(bytes.haystack(), mode, sink),
                Ok(source::Input::Stream(mut r)) if self.limits.is_empty() => {
                    search::run(self.query, Input::Stream(&mut r), &self.opts, mode, sink)
                }
                Ok(source::Input::Stream(_)) => Err(SearchError::Io(std::io::Error::other(
                    "a part of a file (limits) needs a regular file, not a stream",
                ))),
                Err(e) => Err(SearchError::Io(e.into())),
            },
        }
    }

    fn run_whole(
        &self,
        hay: Haystack<'_>,
        mode: Mode<'_>,
        sink: &mut dyn Sink,
    ) -> Result<Outcome, SearchError> {
        if self.limits.is_empty() {
            return search::run(self.query, Input::Bytes(hay), &self.opts, mode, sink);
        }
        let r = region::region(
            hay,
            &self.limits,
            self.opts.line_numbers,
            self.opts.scan.parallel,
        )
        .map_err(|e| SearchError::Io(std::io::Error::other(e)))?;
        let mut shifted = Shifted {
            inner: sink,
            lines: r.base_line,
            bytes: r.start as u64,
        };
        let part = Input::Bytes(hay.slice(r.start, r.end));
        search::run(self.query, part, &self.opts, mode, &mut shifted)
    }

    /// Collect at most `n` lines of a search in `mode`.
    fn collect(&self, target: Target<'_>, mode: Mode<'_>, n: usize) -> Result<Found, SearchError> {
        let mut lines = Vec::new();
        let mut keep = |buf: &[u8], l: &Selected| {
            lines.push(Line::of(buf, l));
            lines.len() < n
        };
        let outcome = self.run(target, mode, &mut keep)?;
        Ok(Found { lines, outcome })
    }
}

/// A sink for a part of an input: numbers and offsets made those of the
/// whole input.
struct Shifted<'s> {
    inner: &'s mut dyn Sink,
    lines: u64,
    bytes: u64,
}

impl Sink for Shifted<'_> {
    fn selected(&mut self, out: &mut Vec<u8>, buf: &[u8], line: &Selected) -> bool {
        let l = Selected {
            number: if line.number > 0 {
                line.number + self.lines
            } else {
                0
            },
            offset: line.offset + self.bytes,
            ..*line
        };
        self.inner.selected(out, buf, &l)
    }
    fn reached(&mut self, out: &mut Vec<u8>, buf: &[u8], upto: usize) {
        self.inner.reached(out, buf, upto)
    }
    fn write(&mut self, bytes: &[u8]) -> bool {
        self.inner.write(bytes)
    }
    fn keep_from(&self, buf: &[u8], lim: usize) -> usize {
        self.inner.keep_from(buf, lim)
    }
    fn dropped(&mut self, n: usize) {
        self.inner.dropped(n)
    }
    fn after(&self) -> usize {
        self.inner.after()
    }
    fn owed(&self) -> usize {
        self.inner.owed()
    }
}
