//! Searching one input: the text part (mapped, parallel, forwards or from
//! the end) and the binary part (grep's quiet NUL-splitting mode), with
//! line numbers and byte offsets. The CLI and the library API share this.
//!
//! Where the text part ends is decided once per input, by [`text_end`]:
//! under the default [`BinaryMode::Log`] an input is binary when grep's
//! first read (96 KiB) holds a NUL byte, and later NUL bytes are ordinary
//! bytes of a log; [`BinaryMode::Grep`] reproduces GNU grep exactly
//! (module [`gnu`]).

pub mod gnu;

use crate::query::Query;
use crate::scan::{self, binary, Hit, Nuls, ScanConfig};
use crate::source::GREP_READ;
use std::io::{self, Read};

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
#[derive(Clone, Debug, Default)]
pub struct SearchOptions {
    /// Chunking and parallelism.
    pub scan: ScanConfig,
    /// NUL-byte handling.
    pub binary: BinaryMode,
    /// `-m`: stop after this many selected lines.
    pub max_count: Option<u64>,
    /// Compute line numbers for reported lines.
    pub line_numbers: bool,
    /// The input is a private read-only file mapping whose scanned pages may
    /// be released (set only by [`SearchOptions::for_input`]).
    pub(crate) mapped: bool,
    /// Raised by the SIGBUS handler when the mapped file shrank.
    pub(crate) shrink: Option<&'static std::sync::atomic::AtomicBool>,
}

impl SearchOptions {
    /// Options for searching `bytes`: when they are a file mapping, pages
    /// already scanned are released as the scan moves on (small resident
    /// set), and a truncation of the file during the search is reported as
    /// [`SearchError::Shrank`] instead of crashing.
    pub fn for_input(mut self, bytes: &crate::source::Bytes) -> Self {
        if let crate::source::Bytes::Mapped(..) = bytes {
            self.mapped = true;
            self.shrink = bytes.shrink_flag();
        }
        self
    }

    fn shrank(&self) -> bool {
        self.shrink
            .is_some_and(|f| f.load(std::sync::atomic::Ordering::Acquire))
    }
}

/// A reported line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Line {
    /// The line's bytes, without its newline.
    pub bytes: Vec<u8>,
    /// 1-based line number (0 when line numbers were not requested).
    pub number: u64,
    /// Byte offset of the line's first byte in the input.
    pub offset: u64,
}

/// What happened in one input.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Outcome {
    /// Selected lines counted, as `grep -c` would count them (at most `-m`),
    /// including lines in the binary part; only exact when the search was
    /// not stopped early by the caller.
    pub selected: u64,
    /// Selected lines in the text part that were reported.
    pub reported: u64,
    /// The binary part had a line the include patterns select: grep prints
    /// "binary file matches".
    pub binary_matched: bool,
    /// The input was found to be binary (NUL bytes or holes).
    pub is_binary: bool,
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

/// The search could not be done exactly.
#[derive(Debug)]
pub enum SearchError {
    /// Reading failed.
    Io(io::Error),
    /// The exact answer depends on GNU grep's buffer layout (a NUL byte far
    /// into a file with very long lines).
    AmbiguousBinary,
    /// `-o` could not build its matcher.
    Query(crate::QueryError),
    /// The file was truncated while it was being searched; what was printed
    /// before is exact, nothing after it was printed.
    Shrank,
    /// Trailing context would run into the binary part of a file, where
    /// grep prints NUL-split pieces whose layout depends on its buffers.
    ContextIntoBinary,
}

impl std::fmt::Display for SearchError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SearchError::Io(e) => f.write_str(&crate::io_error_text(e)),
            SearchError::AmbiguousBinary => f.write_str(
                "binary file: where grep stops printing depends on its buffer layout here, so no \
                 exact answer exists; use -a (--text) to search it as text",
            ),
            SearchError::Query(e) => write!(f, "{e}"),
            SearchError::Shrank => f.write_str("file shrank during search"),
            SearchError::ContextIntoBinary => f.write_str(
                "binary file: trailing context would run into the part after the first NUL byte, \
                 which grep prints in pieces that depend on its buffer layout; use -a (--text)",
            ),
        }
    }
}

impl From<io::Error> for SearchError {
    fn from(e: io::Error) -> Self {
        SearchError::Io(e)
    }
}

/// Where the text part of a whole input ends, by `opts.binary`'s rule:
/// `hay.len()` when the input is text, 0 when it is binary by the log rule,
/// grep's exact text end under [`BinaryMode::Grep`].
pub fn text_end(
    q: &Query,
    hay: &[u8],
    has_holes: bool,
    opts: &SearchOptions,
) -> Result<usize, SearchError> {
    match opts.binary {
        BinaryMode::Text => Ok(hay.len()),
        BinaryMode::Log | BinaryMode::WithoutMatch => {
            Ok(if is_binary_log(hay) { 0 } else { hay.len() })
        }
        BinaryMode::Grep => gnu::text_end(q, hay, has_holes, opts, false).map(|(l, _)| l),
    }
}

/// The log rule: binary when grep's first read holds a NUL byte (a hole
/// there reads as NUL bytes too).
pub fn is_binary_log(hay: &[u8]) -> bool {
    memchr::memchr(0, &hay[..hay.len().min(GREP_READ)]).is_some()
}

/// For a binary input that starts with NUL bytes: how many, when what
/// follows them looks like text lines (no NUL in the next 4 KiB, a newline
/// there, and mostly printable bytes).
pub fn leading_nul_run(hay: &[u8]) -> Option<u64> {
    if hay.first() != Some(&0) {
        return None;
    }
    let k = hay.iter().position(|&b| b != 0)?;
    let after = &hay[k..hay.len().min(k + 4096)];
    let printable = after
        .iter()
        .filter(|&&b| b >= 0x20 || b == b'\n' || b == b'\t' || b == b'\r')
        .count();
    let text = memchr::memchr(0, after).is_none()
        && memchr::memchr(b'\n', after).is_some()
        && printable * 100 >= after.len() * 95;
    text.then_some(k as u64)
}

/// How far the log rule's check read: grep's first read.
fn first_read(hay: &[u8]) -> usize {
    hay.len().min(GREP_READ)
}

/// The bytes the binary decision read, given the text end `l` it found.
fn check_range(hay: &[u8], has_holes: bool, opts: &SearchOptions, l: usize) -> (usize, usize) {
    match opts.binary {
        BinaryMode::Text => (0, 0),
        BinaryMode::Log | BinaryMode::WithoutMatch => (0, first_read(hay)),
        BinaryMode::Grep => (0, gnu::nul_reach(hay, has_holes, opts, l)),
    }
}

/// What an input that is binary by the log rule gets said about it.
fn binary_notes(hay: &[u8], opts: &SearchOptions, l: usize, out: &mut Outcome) {
    if opts.binary.is_log() && l < hay.len() {
        out.leading_nuls = leading_nul_run(hay);
    }
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
        self.scanned = union_len(merged);
    }
}

/// The length of the union of byte ranges, each byte counted once.
fn union_len(ranges: Vec<(usize, usize)>) -> u64 {
    crate::timewin::union_len(&ranges)
}

/// Tracks line numbers of increasing offsets.
struct Numberer {
    on: bool,
    pos: usize,
    n: u64,
}

impl Numberer {
    fn number(&mut self, hay: &[u8], at: usize, parallel: bool) -> u64 {
        if !self.on {
            return 0;
        }
        self.n += scan::count_newlines(hay, self.pos, at, parallel);
        self.pos = at;
        self.n + 1
    }
}

/// Search the whole input `hay` forwards, calling `emit` for each reported
/// line of the text part in order until it returns false. `want_binary`:
/// also search the binary part (for counts and the "binary file matches"
/// message); `count_binary`: count all its selected lines rather than stop
/// at the first.
pub fn search_forward(
    q: &Query,
    hay: &[u8],
    has_holes: bool,
    opts: &SearchOptions,
    emit: &mut dyn FnMut(&Query, &Line) -> bool,
    count_binary: bool,
) -> Result<Outcome, SearchError> {
    let l = text_end(q, hay, has_holes, opts)?;
    let mut out = Outcome {
        is_binary: l < hay.len(),
        ..Outcome::default()
    };
    binary_notes(hay, opts, l, &mut out);
    let max = opts.max_count.unwrap_or(u64::MAX);
    if max == 0 {
        return Ok(out);
    }
    let mut stopped = false;
    let mut shrank = false;
    let mut released_to = 0usize;
    let mut nuls = None;
    // One line buffer, refilled for every hit: no allocation per line.
    let mut line = Line {
        bytes: Vec::new(),
        number: 0,
        offset: 0,
    };
    let remaining = usize::try_from(max).unwrap_or(usize::MAX);
    let mut base = 0u64; // newlines before the current chunk
    let number_on = opts.line_numbers;
    let mut reach = 0usize;
    let mut each = |chunk: scan::ChunkHits| {
        {
            if opts.shrank() {
                // Pages of this chunk may have read as zeros: print nothing more.
                shrank = true;
                return false;
            }
            nuls = Nuls::merge(nuls, chunk.nuls);
            for (i, h) in chunk.hits.iter().copied().enumerate() {
                line.number = if number_on {
                    base + chunk.newlines_before[i] + 1
                } else {
                    0
                };
                line.offset = h.start as u64;
                line.bytes.clear();
                line.bytes.extend_from_slice(&hay[h.start..h.end]);
                if opts.shrank() {
                    // The copy may have read zeros from a truncated page.
                    shrank = true;
                    return false;
                }
                out.selected += 1;
                out.reported += 1;
                let go = emit(q, &line);
                if !go {
                    stopped = true;
                    return false;
                }
                if out.selected >= max {
                    return false;
                }
            }
            // Released after the hits were copied, so they do not re-map pages.
            if opts.mapped {
                // SAFETY: see `text_end`: only set for private read-only mappings.
                // From where the last release stopped (page-aligned), so pages
                // on chunk boundaries are released too.
                unsafe { crate::source::release_pages(hay, released_to, chunk.range.1) };
                released_to = chunk.range.1;
            }
            base += chunk.newlines;
            reach = chunk.range.1;
            true
        }
    };
    scan::forward_batches_checked(
        q,
        hay,
        0,
        l,
        &opts.scan,
        Some(remaining),
        number_on,
        opts.binary.is_log(),
        &mut |batch| batch.into_iter().all(&mut each),
    );
    out.nuls = nuls;
    out.set_read(&[(0, reach), check_range(hay, has_holes, opts, l)]);
    if !stopped && !shrank && out.selected < max && l < hay.len() {
        binary_part(q, hay, l, opts, max, count_binary, &mut out);
        out.set_read(&[(0, hay.len())]);
    }
    if shrank || opts.shrank() {
        return Err(SearchError::Shrank);
    }
    Ok(out)
}

/// Where a context search starts and stops (for a tail answered from the
/// end: the leading context of the first line wanted, and the last line).
#[derive(Clone, Copy, Debug, Default)]
pub struct ContextRange {
    /// Start scanning here (a line start).
    pub from: usize,
    /// Newlines before `from` (for line numbers).
    pub newlines_before: u64,
    /// Stop after the selected line starting here.
    pub stop_after: Option<usize>,
    /// The end of the text part, when already known.
    pub text_end: Option<usize>,
}

/// Search `hay` forwards printing selected lines with context through
/// `fc` (grep's `-A/-B/-C`), handing the output to `sink` piece by piece
/// until it returns false.
#[allow(clippy::too_many_arguments)]
pub fn search_forward_context(
    q: &Query,
    hay: &[u8],
    has_holes: bool,
    opts: &SearchOptions,
    range: ContextRange,
    fc: &mut crate::context::FileContext<'_>,
    sh: &mut crate::context::Shared,
    after: usize,
    sink: &mut dyn FnMut(&[u8]) -> bool,
    count_binary: bool,
) -> Result<Outcome, SearchError> {
    let l = match range.text_end {
        Some(l) => l,
        None => text_end(q, hay, has_holes, opts)?,
    };
    let mut out = Outcome {
        is_binary: l < hay.len(),
        ..Outcome::default()
    };
    binary_notes(hay, opts, l, &mut out);
    let max = opts.max_count.unwrap_or(u64::MAX);
    if max == 0 {
        return Ok(out);
    }
    if l < hay.len() && after > 0 && l > range.from {
        // grep keeps printing owed trailing context into the binary part, in
        // pieces split at NULs whose extent depends on its reads: refuse
        // when a selected line lies within `after` lines of the text end.
        let (p, _) = crate::context::context_start(hay, l, after);
        let p = p.max(range.from);
        let mut near = false;
        scan::forward(q, hay, p, l, &opts.scan, Some(1), &mut |c| {
            near |= !c.hits.is_empty();
            !near
        });
        if near {
            return Err(SearchError::ContextIntoBinary);
        }
    }
    let (mut stopped, mut shrank, mut limited) = (false, false, false);
    fc.start_at(range.from);
    let mut reach = range.from;
    let mut released_to = range.from;
    let mut base = range.newlines_before;
    let number_on = opts.line_numbers;
    let mut buf: Vec<u8> = Vec::new();
    let mut nuls = None;
    let mut each = |chunk: scan::ChunkHits| {
        {
            if opts.shrank() {
                shrank = true;
                return false;
            }
            nuls = Nuls::merge(nuls, chunk.nuls);
            for (i, h) in chunk.hits.iter().copied().enumerate() {
                let number = if number_on {
                    base + chunk.newlines_before[i] + 1
                } else {
                    0
                };
                buf.clear();
                fc.selected(sh, &mut buf, hay, h.start, h.end, number);
                if opts.shrank() {
                    shrank = true;
                    return false;
                }
                out.selected += 1;
                out.reported += 1;
                if !sink(&buf) {
                    stopped = true;
                    return false;
                }
                if out.selected >= max || range.stop_after == Some(h.start) {
                    limited = true;
                    return false;
                }
            }
            if opts.mapped && chunk.range.1 > released_to + (1 << 20) {
                // Keep the last MiB: leading context may reach back into it.
                let to = chunk.range.1 - (1 << 20);
                // SAFETY: `mapped` is only set by `for_input` for a private
                // read-only file mapping; released pages read back the file.
                unsafe { crate::source::release_pages(hay, released_to, to) };
                released_to = to;
            }
            base += chunk.newlines;
            reach = chunk.range.1;
            true
        }
    };
    scan::forward_batches_checked(
        q,
        hay,
        range.from,
        l,
        &opts.scan,
        usize::try_from(max).ok(),
        number_on,
        opts.binary.is_log(),
        &mut |batch| batch.into_iter().all(&mut each),
    );
    out.nuls = nuls;
    let checked = match range.text_end {
        Some(_) => (0, 0), // the caller decided (and counts) it
        None => check_range(hay, has_holes, opts, l),
    };
    out.set_read(&[(range.from, reach), checked]);
    if shrank || opts.shrank() {
        return Err(SearchError::Shrank);
    }
    if !stopped {
        buf.clear();
        fc.print_pending(&mut buf, hay, l);
        if opts.shrank() {
            return Err(SearchError::Shrank);
        }
        if !buf.is_empty() && !sink(&buf) {
            stopped = true;
        }
    }
    if !stopped && !limited && l < hay.len() {
        binary_part(q, hay, l, opts, max, count_binary, &mut out);
        out.set_read(&[(0, hay.len())]);
        if out.selected > out.reported {
            // grep's quiet match in the binary part still starts a group.
            sh.used = true;
        }
    }
    Ok(out)
}

/// Count the selected lines of `hay` as `grep -c` does: the text part's
/// selected lines, chunk by chunk in parallel, then the binary part's.
pub fn count_forward(
    q: &Query,
    hay: &[u8],
    has_holes: bool,
    opts: &SearchOptions,
) -> Result<Outcome, SearchError> {
    if opts.max_count.is_some() {
        return search_forward(q, hay, has_holes, opts, &mut |_, _| true, true);
    }
    let l = text_end(q, hay, has_holes, opts)?;
    let mut out = Outcome {
        is_binary: l < hay.len(),
        ..Outcome::default()
    };
    binary_notes(hay, opts, l, &mut out);
    let mut released_to = 0usize;
    scan::forward_batches_checked(
        q,
        hay,
        0,
        l,
        &opts.scan,
        None,
        false,
        opts.binary.is_log(),
        &mut |batch| {
            for c in &batch {
                out.nuls = Nuls::merge(out.nuls, c.nuls);
                out.selected += c.hits.len() as u64;
            }
            if let (true, Some(c)) = (opts.mapped, batch.last()) {
                // SAFETY: `mapped` is only set by `for_input` for a private
                // read-only file mapping; released pages read back the file.
                unsafe { crate::source::release_pages(hay, released_to, c.range.1) };
                released_to = c.range.1;
            }
            true
        },
    );
    if opts.shrank() {
        return Err(SearchError::Shrank);
    }
    out.reported = out.selected;
    out.set_read(&[(0, l), check_range(hay, has_holes, opts, l)]);
    if l < hay.len() {
        binary_part(q, hay, l, opts, u64::MAX, true, &mut out);
        out.set_read(&[(0, hay.len())]);
    }
    Ok(out)
}

/// Formats one selected line into a buffer: `(buf, line, number, offset)`.
pub type LineFormat<'a> = dyn Fn(&mut Vec<u8>, &[u8], u64, u64) + Sync + 'a;

/// Search the whole input forwards and hand the text part's selected lines,
/// formatted by `format(buf, line, number, offset)` in parallel chunk by
/// chunk, to `sink` in file order until it returns false. The fast path for
/// plain output (no `-m`, tail, head or `-o`): nothing is allocated per line
/// and formatting runs on every core.
pub fn search_forward_bulk(
    q: &Query,
    hay: &[u8],
    has_holes: bool,
    opts: &SearchOptions,
    format: &LineFormat<'_>,
    sink: &mut dyn FnMut(&[u8]) -> bool,
) -> Result<Outcome, SearchError> {
    let l = text_end(q, hay, has_holes, opts)?;
    let mut out = Outcome {
        is_binary: l < hay.len(),
        ..Outcome::default()
    };
    binary_notes(hay, opts, l, &mut out);
    let mut released_to = 0usize;
    let mut stopped = false;
    bulk_chunks(
        q,
        hay,
        (0, l),
        opts,
        format,
        &mut released_to,
        &mut |c, buf| {
            out.nuls = Nuls::merge(out.nuls, c.nuls);
            out.selected += c.hits.len() as u64;
            out.reported += c.hits.len() as u64;
            if !buf.is_empty() && !sink(&buf) {
                stopped = true;
                return false;
            }
            true
        },
    )?;
    out.set_read(&[(0, l), check_range(hay, has_holes, opts, l)]);
    if !stopped && l < hay.len() {
        binary_part(q, hay, l, opts, u64::MAX, false, &mut out);
        out.set_read(&[(0, hay.len())]);
    }
    Ok(out)
}

/// Scan `range` in parallel batches, format each chunk's selected lines in
/// parallel, and hand chunks to `each(chunk, formatted)` in file order
/// until it returns false. Pages behind the scan are released.
fn bulk_chunks(
    q: &Query,
    hay: &[u8],
    (start, end): (usize, usize),
    opts: &SearchOptions,
    format: &LineFormat<'_>,
    released_to: &mut usize,
    each: &mut dyn FnMut(scan::ChunkHits, Vec<u8>) -> bool,
) -> Result<(), SearchError> {
    use rayon::prelude::*;
    let number_on = opts.line_numbers;
    let mut base = 0u64; // newlines before the batch
    let mut shrank = false;
    scan::forward_batches_checked(
        q,
        hay,
        start,
        end,
        &opts.scan,
        None,
        number_on,
        opts.binary.is_log(),
        &mut |batch| {
            let mut bases = Vec::with_capacity(batch.len());
            for c in &batch {
                bases.push(base);
                base += c.newlines;
            }
            let render = |(c, b0): (&scan::ChunkHits, &u64)| {
                let mut buf = Vec::new();
                for (i, h) in c.hits.iter().enumerate() {
                    let n = if number_on {
                        b0 + c.newlines_before[i] + 1
                    } else {
                        0
                    };
                    format(&mut buf, &hay[h.start..h.end], n, h.start as u64);
                }
                buf
            };
            let bufs: Vec<Vec<u8>> = if opts.scan.parallel {
                batch.par_iter().zip(bases.par_iter()).map(render).collect()
            } else {
                batch.iter().zip(bases.iter()).map(render).collect()
            };
            if opts.shrank() {
                // Some copy may have read zeros from a truncated page.
                shrank = true;
                return false;
            }
            let last_end = batch.last().map(|c| c.range.1);
            for (c, buf) in batch.into_iter().zip(bufs) {
                if !each(c, buf) {
                    return false;
                }
            }
            if let (true, Some(e)) = (opts.mapped, last_end) {
                // SAFETY: `mapped` is only set by `for_input` for a private
                // read-only file mapping; what was formatted is copied out.
                unsafe { crate::source::release_pages(hay, *released_to, e) };
                *released_to = e;
            }
            true
        },
    );
    if shrank || opts.shrank() {
        return Err(SearchError::Shrank);
    }
    Ok(())
}

fn binary_part(
    q: &Query,
    hay: &[u8],
    l: usize,
    opts: &SearchOptions,
    max: u64,
    count_all: bool,
    out: &mut Outcome,
) {
    let _ = opts;
    binary::scan_zapped(q, hay, l, hay.len(), &mut |line| {
        out.selected += 1;
        out.binary_matched |= q.include_matches(line) != q.is_inverted();
        count_all && out.selected < max
    });
}

/// The last `n` records of the text part of `hay` (records are lines, or
/// `-o` matches when `weight` counts them), found from the end. Returns the
/// lines in file order, and the outcome (its `selected` is only known to be
/// non-zero or zero).
pub fn search_tail(
    q: &Query,
    hay: &[u8],
    has_holes: bool,
    n: usize,
    opts: &SearchOptions,
    weight: &(dyn Fn(&[u8]) -> usize + Sync),
) -> Result<(Vec<Line>, Outcome), SearchError> {
    search_tail_text(q, hay, has_holes, n, opts, weight).map(|(lines, o, _)| (lines, o))
}

/// [`search_tail`], also returning where the text part ends.
pub fn search_tail_text(
    q: &Query,
    hay: &[u8],
    has_holes: bool,
    n: usize,
    opts: &SearchOptions,
    weight: &(dyn Fn(&[u8]) -> usize + Sync),
) -> Result<(Vec<Line>, Outcome, usize), SearchError> {
    let need = n.max(1);
    let w = |h: Hit| weight(&hay[h.start..h.end]);
    let release = |a: usize, b: usize| {
        if opts.mapped {
            // SAFETY: `mapped` is only set by `for_input` for a private
            // read-only file mapping.
            unsafe { crate::source::release_pages(hay, a, b) }
        }
    };
    // A cold file is read backwards: ask for each batch before it is needed,
    // and for grep's first read and the end of the file at once, so that
    // their reads from disk overlap.
    let ahead = |a: usize, b: usize| crate::source::prefetch(hay, a, b);
    if opts.max_count.is_none() {
        const END_AHEAD: usize = 256 << 10;
        ahead(hay.len().saturating_sub(END_AHEAD), hay.len());
        if opts.binary.is_log() {
            ahead(0, first_read(hay));
        }
    }
    let (l, piece_newlines) = match opts.binary {
        BinaryMode::Grep => gnu::text_end(q, hay, has_holes, opts, opts.line_numbers)?,
        _ => (text_end(q, hay, has_holes, opts)?, None),
    };
    let mut out = Outcome {
        is_binary: l < hay.len(),
        ..Outcome::default()
    };
    binary_notes(hay, opts, l, &mut out);
    // What was read: the binary decision, the scan, the newline count.
    let mut read = vec![check_range(hay, has_holes, opts, l)];
    let hits: Vec<Hit> = if let Some(max) = opts.max_count {
        // -m counts from the start of the file: the first `max`, then their tail.
        let mut first = scan::LastWeighted::new(need);
        let mut seen = 0u64;
        let mut reach = 0usize;
        if max > 0 {
            scan::forward_batches_checked(
                q,
                hay,
                0,
                l,
                &opts.scan,
                usize::try_from(max).ok(),
                false,
                opts.binary.is_log(),
                &mut |batch| {
                    for chunk in batch {
                        out.nuls = Nuls::merge(out.nuls, chunk.nuls);
                        reach = chunk.range.1;
                        for h in chunk.hits {
                            first.push(h, w(h));
                            seen += 1;
                            if seen >= max {
                                return false;
                            }
                        }
                    }
                    true
                },
            );
        }
        read.push((0, reach));
        first.into_inner().into_iter().map(|(h, _)| h).collect()
    } else {
        let hooks = scan::TailHooks {
            ahead: &ahead,
            done: &release,
        };
        let t = scan::tail_checked(
            q,
            hay,
            0,
            l,
            need,
            &opts.scan,
            &w,
            &hooks,
            opts.binary.is_log(),
        );
        out.nuls = t.nuls;
        read.push((t.low, l));
        t.hits
    };
    if opts.shrank() {
        return Err(SearchError::Shrank);
    }
    let mut lines = Vec::with_capacity(hits.len());
    if let Some(first) = hits.first() {
        let mut numberer = Numberer {
            on: opts.line_numbers,
            pos: 0,
            n: 0,
        };
        if opts.line_numbers {
            numberer.n = match &piece_newlines {
                // The NUL check already counted whole pieces: count only
                // the part of the last piece before the first line.
                Some(c) => {
                    let k = first.start / scan::NUL_PIECE;
                    c[..k].iter().sum::<u64>()
                        + scan::count_newlines(hay, k * scan::NUL_PIECE, first.start, false)
                }
                None => {
                    read.push((0, first.start));
                    scan::count_newlines_then(hay, 0, first.start, opts.scan.parallel, &release)
                }
            };
            numberer.pos = first.start;
        }
        const FOLIO: usize = 2 << 20;
        // The stretch whose folios the copies below mapped, not yet released.
        let mut mapped: Option<(usize, usize)> = None;
        for h in &hits {
            // The newlines between two lines of a tail can span most of
            // the file (few selected lines): count them releasing pages.
            let number = if numberer.on {
                numberer.n += scan::count_newlines_then(
                    hay,
                    numberer.pos,
                    h.start,
                    opts.scan.parallel,
                    &release,
                );
                numberer.pos = h.start;
                numberer.n + 1
            } else {
                0
            };
            lines.push(Line {
                bytes: hay[h.start..h.end].to_vec(),
                number,
                offset: h.start as u64,
            });
            // A fault maps the page cache's whole folio around the line
            // (up to 2 MiB with large folios): release the folios the copies
            // mapped, or a tail of 1000 scattered lines keeps 1000 folios
            // resident. Lines close together share one release.
            let (lo, hi) = (
                h.start.saturating_sub(FOLIO),
                (h.end + FOLIO).min(hay.len()),
            );
            match &mut mapped {
                Some((_, end)) if lo <= *end => *end = hi,
                _ => {
                    if let Some((a, b)) = mapped.replace((lo, hi)) {
                        release(a, b);
                    }
                }
            }
        }
        if let Some((a, b)) = mapped {
            release(a, b);
        }
        out.selected = hits.len() as u64;
        out.reported = hits.len() as u64;
    } else if l < hay.len() && opts.max_count != Some(0) {
        binary_part(
            q,
            hay,
            l,
            opts,
            opts.max_count.unwrap_or(u64::MAX),
            false,
            &mut out,
        );
        read.push((l, hay.len()));
    }
    out.set_read(&read);
    Ok((lines, out, l))
}

/// grep's read size on a stream.
const STREAM_READ: usize = GREP_READ;

/// The binary rule on a stream, applied read by read: under the log rule
/// only grep's first read can make a stream binary (later NUL bytes are
/// counted in [`Outcome::nuls`]); under [`BinaryMode::Grep`] any read can.
struct StreamRule {
    mode: BinaryMode,
    binary: bool,
    reads: u64,
    /// Bytes read before the current read.
    offset: u64,
}

impl StreamRule {
    fn new(mode: BinaryMode) -> Self {
        StreamRule {
            mode,
            binary: false,
            reads: 0,
            offset: 0,
        }
    }

    /// Whether the stream is binary, now that the bytes `new` were read.
    fn binary(&mut self, new: &[u8], out: &mut Outcome) -> bool {
        let first = self.reads == 0;
        let at = self.offset as usize;
        self.reads += 1;
        self.offset += new.len() as u64;
        if self.binary {
            return true;
        }
        let nul = memchr::memchr(0, new).is_some();
        self.binary = match self.mode {
            BinaryMode::Text => false,
            BinaryMode::Grep => nul,
            BinaryMode::Log | BinaryMode::WithoutMatch if first => nul,
            BinaryMode::Log | BinaryMode::WithoutMatch => {
                if nul {
                    let n = Nuls::of(new, 0, new.len()).map(|n| Nuls {
                        first: n.first + at,
                        count: n.count,
                    });
                    out.nuls = Nuls::merge(out.nuls, n);
                }
                false
            }
        };
        self.binary
    }
}

/// Append up to `n` bytes from `reader` to `buf` (one read, retried when
/// interrupted); returns how many arrived (0 at end of input).
fn read_more(reader: &mut dyn Read, buf: &mut Vec<u8>, n: usize) -> io::Result<usize> {
    let old = buf.len();
    buf.resize(old + n, 0);
    let got = loop {
        match reader.read(&mut buf[old..]) {
            Ok(k) => break k,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => {
                buf.truncate(old);
                return Err(e);
            }
        }
    };
    buf.truncate(old + got);
    Ok(got)
}

/// Search a stream (pipe, terminal, special file) as GNU grep reads it:
/// 96 KiB reads, NUL detection per read, bounded memory. Calls `emit` for
/// each reported line of the text part in order until it returns false.
pub fn search_stream(
    q: &Query,
    reader: &mut dyn Read,
    opts: &SearchOptions,
    emit: &mut dyn FnMut(&Query, &Line) -> bool,
    count_binary: bool,
) -> Result<Outcome, SearchError> {
    let mut out = Outcome::default();
    let max = opts.max_count.unwrap_or(u64::MAX);
    if max == 0 {
        return Ok(out);
    }
    let mut buf: Vec<u8> = Vec::with_capacity(2 * STREAM_READ);
    let mut base: u64 = 0; // file offset of buf[0]
    let mut lines_before: u64 = 0; // newlines before buf[0]
    let mut binary = false;
    let mut eof = false;
    let seq = ScanConfig {
        parallel: false,
        ..opts.scan
    };
    let mut rule = StreamRule::new(opts.binary);
    while !eof {
        let old = buf.len();
        eof = read_more(reader, &mut buf, STREAM_READ)? == 0;
        if rule.binary(&buf[old..], &mut out) && !binary {
            binary = true;
            out.is_binary = true;
        }
        // Complete lines (all remaining bytes at EOF).
        let lim = if eof {
            buf.len()
        } else {
            match memchr::memrchr(b'\n', &buf[old..]) {
                Some(i) => old + i + 1,
                None => continue,
            }
        };
        if binary {
            let mut stop = false;
            binary::scan_zapped(q, &buf, 0, lim, &mut |line| {
                out.selected += 1;
                out.binary_matched |= q.include_matches(line) != q.is_inverted();
                stop = !(count_binary && out.selected < max);
                !stop
            });
            if stop {
                return Ok(out);
            }
        } else {
            let mut numberer = Numberer {
                on: opts.line_numbers,
                pos: 0,
                n: lines_before,
            };
            let mut stop = false;
            scan::forward(q, &buf[..lim], 0, lim, &seq, None, &mut |chunk| {
                for h in chunk.hits {
                    let number = numberer.number(&buf, h.start, false);
                    out.selected += 1;
                    out.reported += 1;
                    let line = Line {
                        bytes: buf[h.start..h.end].to_vec(),
                        number,
                        offset: base + h.start as u64,
                    };
                    if !emit(q, &line) || out.selected >= max {
                        stop = true;
                        return false;
                    }
                }
                true
            });
            if stop {
                return Ok(out);
            }
            if opts.line_numbers {
                lines_before += scan::count_newlines(&buf, 0, lim, false);
            }
        }
        buf.drain(..lim);
        base += lim as u64;
    }
    Ok(out)
}

/// [`search_stream`] printing selected lines with context through `fc`
/// (grep's `-A/-B/-C`): the lines a later group may need as leading context
/// are kept between reads, so memory stays bounded by the context asked for.
pub fn search_stream_context(
    q: &Query,
    reader: &mut dyn Read,
    opts: &SearchOptions,
    fc: &mut crate::context::FileContext<'_>,
    sh: &mut crate::context::Shared,
    sink: &mut dyn FnMut(&[u8]) -> bool,
    count_binary: bool,
) -> Result<Outcome, SearchError> {
    let mut out = Outcome::default();
    let max = opts.max_count.unwrap_or(u64::MAX);
    if max == 0 {
        return Ok(out);
    }
    let mut buf: Vec<u8> = Vec::with_capacity(2 * STREAM_READ);
    let mut scanned = 0usize; // buf[..scanned] was searched already
    let mut lines_before: u64 = 0; // newlines before buf[0]
    let mut binary = false;
    let mut eof = false;
    let mut limited = false;
    let mut piece: Vec<u8> = Vec::new();
    let seq = ScanConfig {
        parallel: false,
        ..opts.scan
    };
    let mut rule = StreamRule::new(opts.binary);
    while !eof {
        let old = buf.len();
        eof = read_more(reader, &mut buf, STREAM_READ)? == 0;
        if rule.binary(&buf[old..], &mut out) && !binary {
            binary = true;
            out.is_binary = true;
            if fc.pending() > 0 {
                return Err(SearchError::ContextIntoBinary);
            }
        }
        let lim = if eof {
            buf.len()
        } else {
            match memchr::memrchr(b'\n', &buf[old..]) {
                Some(i) => old + i + 1,
                None => continue,
            }
        };
        if binary {
            if limited {
                return Ok(out);
            }
            let mut stop = false;
            binary::scan_zapped(q, &buf, scanned, lim, &mut |line| {
                out.selected += 1;
                out.binary_matched |= q.include_matches(line) != q.is_inverted();
                sh.used = true;
                stop = !(count_binary && out.selected < max);
                !stop
            });
            if stop {
                return Ok(out);
            }
            buf.drain(..lim);
            scanned = 0;
            continue;
        }
        let mut stop = false;
        if !limited {
            let mut nl_pos = 0usize;
            let mut nl_count = lines_before;
            scan::forward(q, &buf[..lim], scanned, lim, &seq, None, &mut |chunk| {
                for h in chunk.hits {
                    let number = if opts.line_numbers {
                        nl_count += scan::count_newlines(&buf, nl_pos, h.start, false);
                        nl_pos = h.start;
                        nl_count + 1
                    } else {
                        0
                    };
                    piece.clear();
                    fc.selected(sh, &mut piece, &buf, h.start, h.end, number);
                    out.selected += 1;
                    out.reported += 1;
                    if !sink(&piece) {
                        stop = true;
                        return false;
                    }
                    if out.selected >= max {
                        limited = true;
                        return false;
                    }
                }
                true
            });
        }
        if stop {
            return Ok(out);
        }
        piece.clear();
        fc.print_pending(&mut piece, &buf, lim);
        if !piece.is_empty() && !sink(&piece) {
            return Ok(out);
        }
        if limited && fc.pending() == 0 {
            return Ok(out);
        }
        let keep = fc.keep_from(&buf, lim);
        if opts.line_numbers {
            lines_before += scan::count_newlines(&buf, 0, keep, false);
        }
        buf.drain(..keep);
        fc.advance(keep);
        scanned = lim - keep;
    }
    Ok(out)
}
