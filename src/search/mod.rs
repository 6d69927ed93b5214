//! Searching one input, for every mode and every kind of input, through one
//! entry point: [`run`] takes the query, the input (a [`Haystack`] or a
//! stream), the options, a [`Mode`] and a [`Sink`], and hands the selected
//! lines to the sink in file order. The command line and the library call
//! it the same way.
//!
//! Where the text part of an input ends is decided once, by the binary rule
//! of [`BinaryMode`] (module `rule`): under the default [`BinaryMode::Log`]
//! an input is binary when grep's first read (96 KiB) holds a NUL byte, and
//! later NUL bytes are ordinary bytes of a log; [`BinaryMode::Grep`]
//! reproduces GNU grep exactly (module [`gnu`]).
//!
//! ```
//! use grail::search::{self, Input, Mode, SearchOptions, Selected};
//! use grail::source::Haystack;
//! use grail::QueryBuilder;
//!
//! let q = QueryBuilder::new().include("ERROR").build().unwrap();
//! let log = b"INFO up\nERROR disk\nERROR oom\n";
//! let mut seen = Vec::new();
//! let mut sink = |buf: &[u8], l: &Selected| {
//!     seen.push(buf[l.start..l.end].to_vec());
//!     true // go on
//! };
//! let input = Input::Bytes(Haystack::new(log));
//! let o = search::run(&q, input, &SearchOptions::default(), Mode::Lines, &mut sink).unwrap();
//! assert_eq!(seen, [b"ERROR disk".to_vec(), b"ERROR oom".to_vec()]);
//! assert_eq!((o.selected, o.count), (2, 2));
//! ```

pub mod gnu;
mod rule;
mod stream;
mod whole;

pub use rule::{is_binary_log, leading_nul_run};

use crate::query::Query;
use crate::scan::{Nuls, ScanConfig};
use crate::source::Haystack;
use std::io;

/// How files containing NUL bytes are treated (grep's `--binary-files`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum BinaryMode {
    /// Logs are text: an input is binary only when grep's first read (its
    /// first 96 KiB) holds a NUL byte, and is then treated exactly as grep
    /// treats it; NUL bytes after that are ordinary bytes (as with `-a`)
    /// and reported in [`Outcome::nuls`]. The default.
    #[default]
    Log,
    /// GNU grep's behaviour exactly (`--binary-files=binary`): text lines
    /// up to the read buffer holding the first NUL byte, then quiet
    /// matching with "binary file matches"; refused where grep's answer
    /// depends on its buffer layout.
    Grep,
    /// Treat every input as text (`-a`).
    Text,
    /// Like `Log`, but a binary input never counts as matching (`-I`).
    WithoutMatch,
}

impl BinaryMode {
    /// Whether NUL bytes after the first read are searched as text and
    /// reported (the modes that follow the log rule).
    pub fn is_log(self) -> bool {
        matches!(self, BinaryMode::Log | BinaryMode::WithoutMatch)
    }
}

/// Options for searching one input.
#[derive(Clone, Copy, Debug, Default)]
pub struct SearchOptions {
    /// Chunking and parallelism.
    pub scan: ScanConfig,
    /// NUL-byte handling.
    pub binary: BinaryMode,
    /// `-m`: stop after this many selected lines.
    pub max_count: Option<u64>,
    /// Compute line numbers ([`Selected::number`]).
    pub line_numbers: bool,
}

/// One input to search.
pub enum Input<'a> {
    /// A whole input in memory or mapped: searched in parallel chunks, and
    /// from its end for a tail.
    Bytes(Haystack<'a>),
    /// A stream (pipe, terminal, special file): read as GNU grep reads it,
    /// 96 KiB at a time, in bounded memory.
    Stream(&'a mut dyn io::Read),
}

/// Formats one selected line into a buffer: `(buf, line, number, offset)`.
pub type LineFormat<'a> = dyn Fn(&mut Vec<u8>, &[u8], u64, u64) + Sync + 'a;

/// The output records a selected line makes (1, or its `-o` matches).
pub type Weight<'a> = dyn Fn(&[u8]) -> usize + Sync + 'a;

/// What a search does with the selected lines.
#[derive(Clone, Copy)]
pub enum Mode<'a> {
    /// Every selected line of the text part, in order, to
    /// [`Sink::selected`] (up to `-m`, or until the sink says stop).
    Lines,
    /// Only count them, as `grep -c` does ([`Outcome::count`]): the sink
    /// sees no line, and nothing is copied.
    Count,
    /// Every selected line, formatted by the function in parallel chunk by
    /// chunk, handed to [`Sink::write`] in order: nothing is allocated per
    /// line. `-m` does not apply.
    Formatted(&'a LineFormat<'a>),
    /// The last selected lines, enough for `records` output records, found
    /// from the end of a whole input (a stream is read to its end), handed
    /// to [`Sink::selected`] in file order.
    Tail {
        /// How many records are wanted.
        records: usize,
        /// The records each line makes.
        weight: &'a Weight<'a>,
    },
    /// Like `Lines`, starting at a known line of a whole input (a tail
    /// with context resumes at the first line it needs).
    Resume(Resume),
}

/// Where a [`Mode::Resume`] search starts and stops.
#[derive(Clone, Copy, Debug, Default)]
pub struct Resume {
    /// Start scanning here (a line start).
    pub from: usize,
    /// Newlines before `from` (for line numbers).
    pub newlines_before: u64,
    /// Stop after the selected line starting here.
    pub stop_after: Option<usize>,
    /// The end of the text part, when already known
    /// ([`Outcome::text_end`] of an earlier search).
    pub text_end: Option<usize>,
}

/// A selected line as a search hands it to its [`Sink`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Selected {
    /// Where the line starts in the buffer handed with it.
    pub start: usize,
    /// Where it ends (its newline, or the end of the input).
    pub end: usize,
    /// 1-based line number (0 when line numbers were not asked for).
    pub number: u64,
    /// Byte offset of the line's first byte in the input.
    pub offset: u64,
}

/// Where a search hands what it finds. Only [`Sink::selected`] is required;
/// a closure `FnMut(&[u8], &Selected) -> bool` is a sink.
///
/// A file truncated under its mapping reads as zeros. A line's pages are
/// checked just before the line is handed over; should the file shrink
/// while the sink reads them, the search ends with [`SearchError::Shrank`].
/// Output the sink makes from the bytes it is handed (in `selected` and
/// `reached`) may be appended to `out`: the search passes it back through
/// [`Sink::write`] only once it has checked that the pages it came from
/// read intact, so that nothing it cannot vouch for is printed.
pub trait Sink {
    /// A selected line: `buf[line.start..line.end]`. `buf` holds whole
    /// lines from a line start to at least the line's end (the lines before
    /// it are there for leading context). Return false to stop the search.
    fn selected(&mut self, out: &mut Vec<u8>, buf: &[u8], line: &Selected) -> bool;

    /// The search has looked at every line of `buf` that starts before
    /// `upto`: trailing context owed up to there can be printed into `out`.
    fn reached(&mut self, out: &mut Vec<u8>, buf: &[u8], upto: usize) {
        let _ = (out, buf, upto);
    }

    /// Output that read intact, in order. Return false to stop the search.
    fn write(&mut self, bytes: &[u8]) -> bool {
        let _ = bytes;
        true
    }

    /// Streams: where the buffer may be cut before the next read; the sink
    /// still needs `buf[keep_from..]` (leading context of later lines). On a
    /// mapping, pages before it are released.
    fn keep_from(&self, buf: &[u8], lim: usize) -> usize {
        let _ = buf;
        lim
    }

    /// Streams: the first `n` bytes of the buffer were dropped.
    fn dropped(&mut self, n: usize) {
        let _ = n;
    }

    /// Lines of trailing context each selected line is owed (`-A`).
    fn after(&self) -> usize {
        0
    }

    /// Lines of trailing context still owed now.
    fn owed(&self) -> usize {
        0
    }
}

impl<F: FnMut(&[u8], &Selected) -> bool> Sink for F {
    fn selected(&mut self, _out: &mut Vec<u8>, buf: &[u8], line: &Selected) -> bool {
        self(buf, line)
    }
}

/// A reported line, owned.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Line {
    /// The line's bytes, without its newline.
    pub bytes: Vec<u8>,
    /// 1-based line number (0 when line numbers were not requested).
    pub number: u64,
    /// Byte offset of the line's first byte in the input.
    pub offset: u64,
}

impl Line {
    /// The line a sink was handed, copied out of its buffer.
    pub fn of(buf: &[u8], l: &Selected) -> Line {
        Line {
            bytes: buf[l.start..l.end].to_vec(),
            number: l.number,
            offset: l.offset,
        }
    }
}

/// What happened in one input: the counts, and what grep would have said
/// or hidden (binary input, NUL bytes) as data.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Outcome {
    /// Selected lines counted, as `grep -c` counts them (at most `-m`),
    /// including lines in the binary part; only exact when the search was
    /// not stopped early by the sink.
    pub selected: u64,
    /// Selected lines in the text part that were handed to the sink.
    pub reported: u64,
    /// What `grep -c` (or the pipeline `grep | grep -v | grep -c ''`, with
    /// excludes) prints for this input, in [`Mode::Count`].
    pub count: u64,
    /// The binary part had a line the include patterns select: grep prints
    /// "binary file matches".
    pub binary_matched: bool,
    /// The input was found to be binary (NUL bytes or holes).
    pub is_binary: bool,
    /// Where the text part ends (whole inputs; the input's length when it
    /// is text).
    pub text_end: usize,
    /// Bytes of the input the search read (the binary check, the pattern
    /// scan, the newline count; overlapping parts counted once): what
    /// `--stats` reports.
    pub scanned: u64,
    /// The byte ranges of the input those reads covered (unused ones are
    /// empty), to count them once together with other reads.
    pub read: [(usize, usize); 4],
    /// Under the log rule: the NUL bytes of the text part that the search
    /// read (GNU grep would have stopped printing at the first).
    pub nuls: Option<Nuls>,
    /// A binary input that starts with this many NUL bytes and continues
    /// as text: typically a log truncated under a writer that does not use
    /// `O_APPEND` (the hole reads as NULs). `-a` searches it.
    pub leading_nuls: Option<u64>,
}

impl Outcome {
    /// Record what the search read: `read` and `scanned`.
    fn set_read(&mut self, ranges: &[(usize, usize)]) {
        let mut v: Vec<(usize, usize)> = ranges.iter().copied().filter(|r| r.1 > r.0).collect();
        v.sort_unstable();
        // Merge overlapping ranges so that four always suffice.
        let mut merged: Vec<(usize, usize)> = Vec::new();
        for r in v {
            match merged.last_mut() {
                Some(m) if r.0 <= m.1 => m.1 = m.1.max(r.1),
                _ => merged.push(r),
            }
        }
        self.read = [(0, 0); 4];
        for (slot, r) in self.read.iter_mut().zip(&merged) {
            *slot = *r;
        }
        self.scanned = crate::scan::union_len(&merged);
    }
}

/// The search could not be done exactly.
#[derive(Debug)]
pub enum SearchError {
    /// Reading failed.
    Io(io::Error),
    /// The exact answer depends on GNU grep's buffer layout (a NUL byte far
    /// into a file with very long lines, under [`BinaryMode::Grep`]).
    AmbiguousBinary,
    /// `-o` could not build its matcher.
    Query(crate::QueryError),
    /// The file was truncated while it was being searched; what the sink
    /// was handed before is exact, nothing after it was handed.
    Shrank,
    /// Trailing context would run into the binary part of a file, where
    /// grep prints NUL-split pieces whose layout depends on its buffers.
    ContextIntoBinary,
}

impl std::fmt::Display for SearchError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SearchError::Io(e) => f.write_str(&crate::error::io_text(e)),
            SearchError::AmbiguousBinary => f.write_str(
                "binary file: where grep stops printing depends on its buffer layout here, so no \
                 exact answer exists; search it as text (BinaryMode::Text)",
            ),
            SearchError::Query(e) => write!(f, "{e}"),
            SearchError::Shrank => f.write_str("file shrank during search"),
            SearchError::ContextIntoBinary => f.write_str(
                "binary file: trailing context would run into the part after the first NUL byte, \
                 which grep prints in pieces that depend on its buffer layout; search it as text \
                 (BinaryMode::Text)",
            ),
        }
    }
}

impl std::error::Error for SearchError {}

impl From<io::Error> for SearchError {
    fn from(e: io::Error) -> Self {
        SearchError::Io(e)
    }
}

/// Search one input: hand its selected lines to `sink` as `mode` says, and
/// report what happened. The one entry point of every search grail makes.
pub fn run(
    q: &Query,
    input: Input<'_>,
    opts: &SearchOptions,
    mode: Mode<'_>,
    sink: &mut dyn Sink,
) -> Result<Outcome, SearchError> {
    let mut o = match (input, mode) {
        (Input::Bytes(hay), Mode::Tail { records, weight }) => {
            whole::tail(q, hay, opts, (records, weight), sink)?
        }
        (Input::Bytes(hay), Mode::Resume(r)) => whole::forward(q, hay, opts, Mode::Lines, r, sink)?,
        (Input::Bytes(hay), mode) => whole::forward(q, hay, opts, mode, Resume::default(), sink)?,
        (Input::Stream(r), Mode::Tail { records, weight }) => {
            stream::tail(q, r, opts, (records, weight), sink)?
        }
        // A stream has no known line to resume at: it is read from its start.
        (Input::Stream(r), Mode::Resume(_)) => stream::lines(q, r, opts, Mode::Lines, sink)?,
        (Input::Stream(r), mode) => stream::lines(q, r, opts, mode, sink)?,
    };
    o.count = if o.is_binary && opts.binary == BinaryMode::WithoutMatch {
        0
    } else if q.has_excludes() {
        // Like `grep X f | grep -v Y | grep -c ''`: text lines only.
        o.reported
    } else {
        o.selected
    };
    Ok(o)
}
