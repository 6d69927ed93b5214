//! A whole input (mapped or in memory): forwards in parallel ordered
//! batches, or backwards from the end for a tail. Pages behind the scan are
//! released (file mappings only, see [`Haystack`]), and what a sink is
//! handed is checked against a truncation of the file before it is written.

use super::rule::{self, binary_part, check_range};
use super::{Mode, Outcome, Resume, SearchError, SearchOptions, Selected, Sink, Weight};
use crate::query::Query;
use crate::scan::{self, ChunkHits, Forward, Hit, Nuls};
use crate::source::Haystack;

/// The state of a forward search as batches of chunks arrive.
struct Walk<'s, 'h> {
    q: &'s Query,
    hay: Haystack<'h>,
    opts: &'s SearchOptions,
    mode: Mode<'s>,
    sink: &'s mut dyn Sink,
    out: Outcome,
    max: u64,
    stop_after: Option<usize>,
    /// Newlines before the current chunk.
    base: u64,
    /// Pages before this offset were released.
    released_to: usize,
    /// The scan reached this offset.
    reach: usize,
    /// Output made from the current chunk, written once checked.
    buf: Vec<u8>,
    /// The sink said stop.
    stopped: bool,
    /// `-m` (or `stop_after`) was reached.
    limited: bool,
    /// The file shrank under the scan.
    shrank: bool,
}

/// Every selected line (`Lines`, `Formatted`) or their count, from
/// `resume.from` on.
pub(super) fn forward(
    q: &Query,
    hay: Haystack<'_>,
    opts: &SearchOptions,
    mode: Mode<'_>,
    resume: Resume,
    sink: &mut dyn Sink,
) -> Result<Outcome, SearchError> {
    let l = match resume.text_end {
        Some(l) => l,
        None => rule::text_end(q, hay, opts, false)?.0,
    };
    let bytes = hay.bytes();
    let out = rule::start(bytes, opts, l);
    let formatted = matches!(mode, Mode::Formatted(_));
    let max = match opts.max_count {
        Some(m) if !formatted => m,
        _ => u64::MAX,
    };
    if max == 0 {
        return Ok(out);
    }
    check_context_into_binary(q, bytes, opts, (resume.from, l), sink.after())?;
    let mut w = Walk {
        q,
        hay,
        opts,
        mode,
        sink,
        out,
        max,
        stop_after: resume.stop_after,
        base: resume.newlines_before,
        released_to: resume.from,
        reach: resume.from,
        buf: Vec::new(),
        stopped: false,
        limited: false,
        shrank: false,
    };
    let how = Forward {
        limit: (!formatted).then(|| usize::try_from(max).unwrap_or(usize::MAX)),
        number: opts.line_numbers && !matches!(mode, Mode::Count),
        nul_check: opts.binary.is_log(),
    };
    scan::forward(q, bytes, (resume.from, l), &opts.scan, how, &mut |batch| {
        if formatted {
            w.formatted(batch)
        } else {
            batch.into_iter().all(|c| w.chunk(c))
        }
    });
    let checked = match resume.text_end {
        Some(_) => (0, 0), // the caller decided (and counts) it
        None => check_range(hay, opts, l),
    };
    w.out.set_read(&[(resume.from, w.reach), checked]);
    w.finish(l)
}

/// grep keeps printing owed trailing context into the binary part, in
/// pieces split at NULs whose extent depends on its reads: refuse when a
/// selected line lies within `after` lines of the text end `l`.
fn check_context_into_binary(
    q: &Query,
    hay: &[u8],
    opts: &SearchOptions,
    (from, l): (usize, usize),
    after: usize,
) -> Result<(), SearchError> {
    if l == hay.len() || after == 0 || l <= from {
        return Ok(());
    }
    let p = scan::lines_back(hay, l, after, 0).0.max(from);
    let mut near = false;
    let how = Forward {
        limit: Some(1),
        ..Forward::default()
    };
    scan::forward(q, hay, (p, l), &opts.scan, how, &mut |b| {
        near |= b.iter().any(|c| !c.hits.is_empty());
        !near
    });
    if near {
        return Err(SearchError::ContextIntoBinary);
    }
    Ok(())
}

impl Walk<'_, '_> {
    /// One chunk of a `Lines` or `Count` search; false to stop the scan.
    fn chunk(&mut self, c: ChunkHits) -> bool {
        if self.hay.shrank() {
            // Pages of this chunk may have read as zeros: hand nothing more.
            self.shrank = true;
            return false;
        }
        let bytes = self.hay.bytes();
        self.out.nuls = Nuls::merge(self.out.nuls, c.nuls);
        let counting = matches!(self.mode, Mode::Count);
        if counting && self.max == u64::MAX {
            // A count needs no line: the chunk's hits at once.
            self.out.selected += c.hits.len() as u64;
            self.out.reported += c.hits.len() as u64;
        } else {
            for (i, h) in c.hits.iter().enumerate() {
                if !counting && !self.hay.intact(h.start, h.end) {
                    // The line's pages read as zeros: hand nothing more.
                    self.shrank = true;
                    return false;
                }
                self.out.selected += 1;
                self.out.reported += 1;
                if !counting {
                    let line = Selected {
                        start: h.start,
                        end: h.end,
                        number: if self.opts.line_numbers {
                            self.base + c.newlines_before[i] + 1
                        } else {
                            0
                        },
                        offset: h.start as u64,
                    };
                    if !self.sink.selected(&mut self.buf, bytes, &line) {
                        self.stopped = true;
                        break;
                    }
                }
                if self.out.selected >= self.max || self.stop_after == Some(h.start) {
                    self.limited = true;
                    break;
                }
            }
        }
        if !self.stopped {
            self.sink.reached(&mut self.buf, bytes, c.range.1);
        }
        if !self.commit() {
            return false;
        }
        // Released after the output was made, so it does not re-map pages;
        // from where the last release stopped, so pages on chunk boundaries
        // go too.
        let keep = self.sink.keep_from(bytes, c.range.1).max(self.released_to);
        self.hay.release(self.released_to, keep);
        self.released_to = keep;
        self.base += c.newlines;
        self.reach = c.range.1;
        !(self.stopped || self.limited)
    }

    /// Write the output made so far once the pages it came from are known
    /// to have read intact; false when the search must stop.
    fn commit(&mut self) -> bool {
        if self.hay.shrank() {
            self.shrank = true;
            return false;
        }
        // Written even when the sink said stop: its last line is in it.
        if !self.buf.is_empty() {
            if !self.sink.write(&self.buf) {
                self.stopped = true;
            }
            self.buf.clear();
        }
        !self.stopped
    }

    /// One batch of a `Formatted` search: every chunk formatted in parallel.
    fn formatted(&mut self, batch: Vec<ChunkHits>) -> bool {
        use rayon::prelude::*;
        let Mode::Formatted(format) = self.mode else {
            unreachable!("formatted batches come from Mode::Formatted");
        };
        let bytes = self.hay.bytes();
        let number_on = self.opts.line_numbers;
        let mut bases = Vec::with_capacity(batch.len());
        for c in &batch {
            bases.push(self.base);
            self.base += c.newlines;
        }
        let render = |(c, b0): (&ChunkHits, &u64)| {
            let mut buf = Vec::new();
            for (i, h) in c.hits.iter().enumerate() {
                let n = if number_on {
                    b0 + c.newlines_before[i] + 1
                } else {
                    0
                };
                format(&mut buf, &bytes[h.start..h.end], n, h.start as u64);
            }
            buf
        };
        let bufs: Vec<Vec<u8>> = if self.opts.scan.parallel {
            batch.par_iter().zip(bases.par_iter()).map(render).collect()
        } else {
            batch.iter().zip(bases.iter()).map(render).collect()
        };
        if self.hay.shrank() {
            // Some copy may have read zeros from a truncated page.
            self.shrank = true;
            return false;
        }
        for (c, buf) in batch.iter().zip(bufs) {
            self.out.nuls = Nuls::merge(self.out.nuls, c.nuls);
            self.out.selected += c.hits.len() as u64;
            self.out.reported += c.hits.len() as u64;
            self.reach = c.range.1;
            if !buf.is_empty() && !self.sink.write(&buf) {
                self.stopped = true;
                return false;
            }
        }
        self.hay.release(self.released_to, self.reach);
        self.released_to = self.reach;
        true
    }

    /// After the scan of the text part `[.., l)`: owed trailing context, then
    /// the binary part.
    fn finish(mut self, l: usize) -> Result<Outcome, SearchError> {
        if self.shrank || self.hay.shrank() {
            return Err(SearchError::Shrank);
        }
        let bytes = self.hay.bytes();
        if !self.stopped {
            self.sink.reached(&mut self.buf, bytes, l);
            if !self.commit() && self.shrank {
                return Err(SearchError::Shrank);
            }
        }
        if !self.stopped && !self.limited && l < bytes.len() {
            let counting = matches!(self.mode, Mode::Count);
            binary_part(self.q, bytes, l, self.max, counting, &mut self.out);
            self.out.set_read(&[(0, bytes.len())]);
        }
        Ok(self.out)
    }
}

/// The last `records` records of the text part (records are lines, or `-o`
/// matches when `weight` counts them), found from the end, handed to the
/// sink in file order. The outcome's `selected` is only known to be
/// non-zero or zero.
pub(super) fn tail(
    q: &Query,
    hay: Haystack<'_>,
    opts: &SearchOptions,
    (records, weight): (usize, &Weight<'_>),
    sink: &mut dyn Sink,
) -> Result<Outcome, SearchError> {
    let bytes = hay.bytes();
    if opts.max_count.is_none() {
        // A cold file is read backwards: ask for the end of the file and
        // grep's first read at once, so that their reads from disk overlap.
        const END_AHEAD: usize = 256 << 10;
        hay.prefetch(bytes.len().saturating_sub(END_AHEAD), bytes.len());
        if opts.binary.is_log() {
            hay.prefetch(0, rule::first_read(bytes));
        }
    }
    let (l, piece_newlines) = rule::text_end(q, hay, opts, opts.line_numbers)?;
    let mut out = rule::start(bytes, opts, l);
    // What was read: the binary decision, the scan, the newline count.
    let mut read = vec![check_range(hay, opts, l)];
    let need = records.max(1);
    let hits = last_hits(q, hay, opts, (l, need), weight, &mut out, &mut read);
    if hay.shrank() {
        return Err(SearchError::Shrank);
    }
    if let Some(first) = hits.first() {
        let newlines = match &piece_newlines {
            // The NUL check already counted whole pieces: count only the
            // part of the last piece before the first line.
            Some(c) => {
                let k = first.start / scan::NUL_PIECE;
                c[..k].iter().sum::<u64>()
                    + scan::count_newlines(bytes, k * scan::NUL_PIECE, first.start, false)
            }
            None if opts.line_numbers => {
                read.push((0, first.start));
                let release = |a: usize, b: usize| hay.release(a, b);
                scan::count_newlines_then(bytes, 0, first.start, opts.scan.parallel, &release)
            }
            None => 0,
        };
        hand_over(hay, opts, &hits, newlines, sink)?;
        out.selected = hits.len() as u64;
        out.reported = hits.len() as u64;
    } else if l < bytes.len() && opts.max_count != Some(0) {
        let max = opts.max_count.unwrap_or(u64::MAX);
        binary_part(q, bytes, l, max, false, &mut out);
        read.push((l, bytes.len()));
    }
    out.set_read(&read);
    Ok(out)
}

/// The hits of a tail of the text part `[0, l)` weighing at least `need`:
/// with `-m`, the last of the first `-m` (counted from the start of the
/// file); else found backwards from `l`.
fn last_hits(
    q: &Query,
    hay: Haystack<'_>,
    opts: &SearchOptions,
    (l, need): (usize, usize),
    weight: &Weight<'_>,
    out: &mut Outcome,
    read: &mut Vec<(usize, usize)>,
) -> Vec<Hit> {
    let bytes = hay.bytes();
    let w = |h: Hit| weight(&bytes[h.start..h.end]);
    let Some(max) = opts.max_count else {
        let release = |a: usize, b: usize| hay.release(a, b);
        let ahead = |a: usize, b: usize| hay.prefetch(a, b);
        let t = scan::Tail {
            need,
            weight: &w,
            nul_check: opts.binary.is_log(),
            ahead: &ahead,
            done: &release,
        };
        let t = scan::tail(q, bytes, (0, l), &opts.scan, &t);
        out.nuls = t.nuls;
        read.push((t.low, l));
        return t.hits;
    };
    let mut first = scan::LastWeighted::new(need);
    let mut seen = 0u64;
    let mut reach = 0usize;
    if max > 0 {
        let how = Forward {
            limit: usize::try_from(max).ok(),
            number: false,
            nul_check: opts.binary.is_log(),
        };
        scan::forward(q, bytes, (0, l), &opts.scan, how, &mut |batch| {
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
        });
    }
    read.push((0, reach));
    first.into_inner().into_iter().map(|(h, _)| h).collect()
}

/// Hand a tail's hits to the sink in order, numbering them from
/// `newlines` (the newlines before the first), and release the pages the
/// lines and the counts between them mapped.
fn hand_over(
    hay: Haystack<'_>,
    opts: &SearchOptions,
    hits: &[Hit],
    mut newlines: u64,
    sink: &mut dyn Sink,
) -> Result<(), SearchError> {
    const FOLIO: usize = 2 << 20;
    let bytes = hay.bytes();
    let release = |a: usize, b: usize| hay.release(a, b);
    let mut pos = hits.first().map_or(0, |h| h.start);
    let mut buf = Vec::new();
    // The stretch whose folios the copies below mapped, not yet released.
    let mut mapped: Option<(usize, usize)> = None;
    for h in hits {
        let number = if opts.line_numbers {
            // The newlines between two lines of a tail can span most of
            // the file (few selected lines): count them releasing pages.
            newlines +=
                scan::count_newlines_then(bytes, pos, h.start, opts.scan.parallel, &release);
            pos = h.start;
            newlines + 1
        } else {
            0
        };
        let line = Selected {
            start: h.start,
            end: h.end,
            number,
            offset: h.start as u64,
        };
        if !hay.intact(h.start, h.end) {
            return Err(SearchError::Shrank);
        }
        let go = sink.selected(&mut buf, bytes, &line);
        // A fault maps the page cache's whole folio around the line (up to
        // 2 MiB with large folios): release the folios the copies mapped, or
        // a tail of 1000 scattered lines keeps 1000 folios resident. Lines
        // close together share one release.
        let (lo, hi) = (
            h.start.saturating_sub(FOLIO),
            (h.end + FOLIO).min(bytes.len()),
        );
        match &mut mapped {
            Some((_, end)) if lo <= *end => *end = hi,
            _ => {
                if let Some((a, b)) = mapped.replace((lo, hi)) {
                    release(a, b);
                }
            }
        }
        if !go {
            break;
        }
    }
    if let Some((a, b)) = mapped {
        release(a, b);
    }
    if hay.shrank() {
        return Err(SearchError::Shrank);
    }
    if !buf.is_empty() {
        sink.write(&buf);
    }
    Ok(())
}
