//! Scanning: find the selected lines of a line-aligned byte range, forwards
//! in parallel ordered batches of chunks, or backwards from the end for an
//! exact tail. All paths share [`scan_region`], so they cannot disagree about
//! which lines are selected; the property tests check that they also agree
//! about order, numbering and stopping.

pub mod binary;

use crate::query::{NulWatch, Query};
use memchr::{memchr, memrchr};
use rayon::prelude::*;
use std::collections::VecDeque;

/// A selected line: byte range `[start, end)` without its newline.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Hit {
    /// Offset of the first byte of the line.
    pub start: usize,
    /// Offset just past the last byte of the line (the `\n`, or the end of input).
    pub end: usize,
}

/// The NUL bytes of a scanned range: where the first is and how many.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Nuls {
    /// Offset of the first NUL byte.
    pub first: usize,
    /// How many NUL bytes there are.
    pub count: u64,
}

impl Nuls {
    /// The NUL bytes of `hay[a..b]`; `None` when there are none. Costs one
    /// `memchr` pass where there are none.
    pub fn of(hay: &[u8], a: usize, b: usize) -> Option<Nuls> {
        let i = memchr(0, &hay[a..b])?;
        let rest = hay[a + i + 1..b].iter().filter(|&&c| c == 0).count() as u64;
        Some(Nuls {
            first: a + i,
            count: 1 + rest,
        })
    }

    /// Both reports together (of disjoint ranges).
    pub fn merge(a: Option<Nuls>, b: Option<Nuls>) -> Option<Nuls> {
        match (a, b) {
            (Some(x), Some(y)) => Some(Nuls {
                first: x.first.min(y.first),
                count: x.count + y.count,
            }),
            (x, None) => x,
            (None, y) => y,
        }
    }
}

/// What a scan calls with each selected line; false stops the scan.
pub type OnHit<'a> = dyn FnMut(Hit) -> bool + 'a;

/// How a scan splits its input.
#[derive(Clone, Copy, Debug)]
pub struct ScanConfig {
    /// Target chunk size in bytes for parallel forward scans (at least 1;
    /// chunks always end at line boundaries, so a long line makes a chunk longer).
    pub chunk_size: usize,
    /// First chunk size of the backward tail scan (it doubles each batch up
    /// to `chunk_size.max(tail_start)`).
    pub tail_start: usize,
    /// Run chunks on the rayon pool (false: one thread, same results).
    pub parallel: bool,
}

impl Default for ScanConfig {
    fn default() -> Self {
        ScanConfig {
            chunk_size: 4 << 20,
            tail_start: 64 << 10,
            parallel: true,
        }
    }
}

/// Scan `hay[start..end]` (`start` must be a line start; `end` a line start
/// or `hay.len()`), calling `f` with every selected line in order until it
/// returns false. Returns false if stopped by `f`.
pub fn scan_region(
    q: &Query,
    hay: &[u8],
    start: usize,
    end: usize,
    f: &mut dyn FnMut(Hit) -> bool,
) -> bool {
    scan_lines(q, hay, start, end, None, f)
}

/// [`scan_region`], telling `watch` what the include search read (it
/// checks for NUL bytes as it reads).
fn scan_lines(
    q: &Query,
    hay: &[u8],
    start: usize,
    end: usize,
    watch: Option<&mut NulWatch>,
    f: &mut OnHit,
) -> bool {
    if q.is_inverted() {
        return scan_inverted(q, hay, start, end, f);
    }
    let mut pos = start;
    let mut finder = q.include_finder(watch);
    while pos < end {
        let Some(m) = finder.find_end(hay, pos, end) else {
            break;
        };
        let Some((ls, le)) = matched_line(hay, pos, end, m) else {
            break;
        };
        if !q.exclude_matches(&hay[ls..le]) && !f(Hit { start: ls, end: le }) {
            return false;
        }
        pos = le + 1;
    }
    true
}

/// [`scan_region`] of `[a, b)` that also gives the NUL bytes of all of it
/// (when `f` stops the scan too), for the log rule's report. The region is
/// taken in blocks that stay in cache: the search reads a block, checking
/// for NUL bytes as it goes where it has a vector loop, and what it did not
/// read is checked after it, from cache. Only a region that holds a NUL
/// byte is read again, to count them.
fn scan_counting_nuls(
    q: &Query,
    hay: &[u8],
    (a, b): (usize, usize),
    f: &mut OnHit,
) -> (bool, Option<Nuls>) {
    let mut watch = NulWatch::new(a);
    let mut go_on = true;
    let mut s = a;
    while s < b && go_on {
        let e = next_line_start(hay, s.saturating_add(CACHE_BLOCK).min(b), b);
        go_on = scan_lines(q, hay, s, e, Some(&mut watch), f);
        watch.finish(hay, e);
        s = e;
    }
    let nuls = if watch.finish(hay, b) {
        Nuls::of(hay, a, b)
    } else {
        None
    };
    (go_on, nuls)
}

/// The line `[start, end)` (end at its newline) holding a match that ends
/// at `m`, searching from the line start `pos` within a region ending at
/// `end`; `None` for an empty match at `end` that is the start of a line
/// outside the region (or after the final newline).
fn matched_line(hay: &[u8], pos: usize, end: usize, m: usize) -> Option<(usize, usize)> {
    let ls = memrchr(b'\n', &hay[pos..m]).map_or(pos, |i| pos + i + 1);
    if m == end && ls == end {
        return None;
    }
    Some((ls, memchr(b'\n', &hay[m..end]).map_or(end, |i| m + i)))
}

/// Lines of `hay[a..b]` (line-aligned), none of which matches an include:
/// all are selected unless excluded.
fn emit_unmatched(q: &Query, hay: &[u8], a: usize, b: usize, f: &mut OnHit) -> bool {
    let mut pos = a;
    while pos < b {
        // Next excluded line in [pos, b), if any.
        let stop = match q
            .find_exclude_end(hay, pos, b)
            .and_then(|m| matched_line(hay, pos, b, m))
        {
            Some((ls, le)) => (ls, Some(le)),
            None => (b, None),
        };
        let mut p = pos;
        while p < stop.0 {
            let le = memchr(b'\n', &hay[p..stop.0]).map_or(stop.0, |i| p + i);
            if !f(Hit { start: p, end: le }) {
                return false;
            }
            p = le + 1;
        }
        match stop.1 {
            Some(le) => pos = le + 1,
            None => break,
        }
    }
    true
}

fn scan_inverted(q: &Query, hay: &[u8], start: usize, end: usize, f: &mut OnHit) -> bool {
    let mut pos = start;
    let mut finder = q.include_finder(None);
    while pos < end {
        let (gap_end, next) = match finder
            .find_end(hay, pos, end)
            .and_then(|m| matched_line(hay, pos, end, m))
        {
            Some((ls, le)) => (ls, Some(le + 1)),
            None => (end, None),
        };
        if !emit_unmatched(q, hay, pos, gap_end, f) {
            return false;
        }
        match next {
            Some(n) => pos = n,
            None => break,
        }
    }
    true
}

/// Start of the line containing offset `i` (`i <= hay.len()`).
pub fn line_start(hay: &[u8], i: usize) -> usize {
    memrchr(b'\n', &hay[..i]).map_or(0, |p| p + 1)
}

/// The first line start at or after `i`.
pub fn next_line_start(hay: &[u8], i: usize, end: usize) -> usize {
    if i == 0 || i >= end {
        return i.min(end);
    }
    if hay[i - 1] == b'\n' {
        return i;
    }
    memchr(b'\n', &hay[i..end]).map_or(end, |p| i + p + 1)
}

/// Where the `k` lines before the line starting at `start` begin (never
/// before `floor`, a line start): the start of the `k`-th line before it,
/// and how many lines that is (fewer when `floor` comes first).
pub fn lines_back(hay: &[u8], start: usize, k: usize, floor: usize) -> (usize, usize) {
    let mut p = start;
    let mut n = 0;
    while n < k && p > floor {
        p = match memrchr(b'\n', &hay[floor..p - 1]) {
            Some(i) => floor + i + 1,
            None => floor,
        };
        n += 1;
    }
    (p, n)
}

/// The bytes a set of ranges covers, each counted once.
pub fn union_len(ranges: &[(usize, usize)]) -> u64 {
    let mut v: Vec<(usize, usize)> = ranges.iter().copied().filter(|r| r.1 > r.0).collect();
    v.sort_unstable();
    let (mut total, mut reach) = (0usize, 0usize);
    for (a, b) in v {
        let a = a.max(reach);
        if b > a {
            total += b - a;
            reach = b;
        }
    }
    total as u64
}

/// Count `\n` bytes in `hay[a..b]`, in parallel for large ranges.
pub fn count_newlines(hay: &[u8], a: usize, b: usize, parallel: bool) -> u64 {
    count_newlines_then(hay, a, b, parallel, &|_, _| {})
}

/// [`count_newlines`], calling `done(x, y)` for each range counted (to
/// release its pages).
pub fn count_newlines_then(
    hay: &[u8],
    a: usize,
    b: usize,
    parallel: bool,
    done: &(dyn Fn(usize, usize) + Sync),
) -> u64 {
    const PAR: usize = 8 << 20;
    let one = |(i, c): (usize, &[u8])| {
        let n = memchr::memchr_iter(b'\n', c).count() as u64;
        done(a + i * PAR, a + i * PAR + c.len());
        n
    };
    if !parallel || b - a < PAR {
        return hay[a..b].chunks(PAR).enumerate().map(one).sum();
    }
    hay[a..b].par_chunks(PAR).enumerate().map(one).sum()
}

/// Index of the first NUL byte in `hay`, in parallel for large inputs.
/// `done(a, b)` is called for each range checked (to release its pages).
pub fn first_nul(
    hay: &[u8],
    parallel: bool,
    done: &(dyn Fn(usize, usize) + Sync),
) -> Option<usize> {
    const PAR: usize = 8 << 20;
    let one = |(i, c): (usize, &[u8])| {
        let r = memchr(0, c).map(|p| i * PAR + p);
        done(i * PAR, i * PAR + c.len());
        r
    };
    if !parallel || hay.len() < PAR {
        return hay.chunks(PAR).enumerate().find_map(one);
    }
    hay.par_chunks(PAR).enumerate().filter_map(one).min()
}

/// Size of the pieces [`first_nul_counting`] reports newline counts for.
pub const NUL_PIECE: usize = 8 << 20;

/// A block small enough to stay in a core's L2 cache between two passes.
const CACHE_BLOCK: usize = 256 << 10;

/// [`first_nul`] that also counts the newlines of every `NUL_PIECE`-sized
/// piece while it is in cache, so a tail with line numbers needs no second
/// pass over the file. Returns the first NUL and the per-piece counts.
pub fn first_nul_counting(
    hay: &[u8],
    parallel: bool,
    done: &(dyn Fn(usize, usize) + Sync),
) -> (Option<usize>, Vec<u64>) {
    let one = |(i, c): (usize, &[u8])| {
        let r = memchr(0, c).map(|p| i * NUL_PIECE + p);
        let n = memchr::memchr_iter(b'\n', c).count() as u64;
        done(i * NUL_PIECE, i * NUL_PIECE + c.len());
        (r, n)
    };
    let v: Vec<(Option<usize>, u64)> = if parallel && hay.len() >= NUL_PIECE {
        hay.par_chunks(NUL_PIECE).enumerate().map(one).collect()
    } else {
        hay.chunks(NUL_PIECE).enumerate().map(one).collect()
    };
    let z = v.iter().filter_map(|x| x.0).min();
    (z, v.into_iter().map(|x| x.1).collect())
}

/// Results of one chunk of a forward scan.
pub struct ChunkHits {
    /// Chunk range.
    pub range: (usize, usize),
    /// Selected lines, in order.
    pub hits: Vec<Hit>,
    /// True if the chunk stopped early because `limit` hits were found.
    pub truncated: bool,
    /// With numbering: newlines between the chunk start and each hit.
    pub newlines_before: Vec<u64>,
    /// With numbering: newlines in the whole chunk (when not truncated).
    pub newlines: u64,
    /// With a NUL check: the chunk's NUL bytes, if any.
    pub nuls: Option<Nuls>,
}

/// What a forward scan computes besides the selected lines.
#[derive(Clone, Copy, Debug, Default)]
pub struct Forward {
    /// At most this many hits per chunk (a chunk never needs more than the
    /// caller's remaining budget).
    pub limit: Option<usize>,
    /// Count the newlines of each chunk and before each hit (for line
    /// numbers without a second pass).
    pub number: bool,
    /// Count the NUL bytes of each chunk while it is in cache (for the log
    /// rule's report).
    pub nul_check: bool,
}

/// Scan `[start, end)` forwards in ordered batches of parallel chunks,
/// giving each batch's chunks to `consume` in file order until it returns
/// false.
pub fn forward(
    q: &Query,
    hay: &[u8],
    (start, end): (usize, usize),
    cfg: &ScanConfig,
    how: Forward,
    consume: &mut dyn FnMut(Vec<ChunkHits>) -> bool,
) {
    let Forward {
        limit,
        number,
        nul_check,
    } = how;
    // Chunk boundaries are found batch by batch, just ahead of the scan:
    // finding them all up front would touch (and map) a page per chunk of
    // the whole file before the first byte is scanned.
    let batch = if cfg.parallel {
        rayon::current_num_threads().max(1) * 2
    } else {
        1
    };
    let size = cfg.chunk_size.max(1);
    let run = |&(a, b): &(usize, usize)| {
        let mut hits = Vec::new();
        let mut truncated = false;
        let mut on_hit = |h| {
            hits.push(h);
            if limit.is_some_and(|l| hits.len() >= l) {
                truncated = true;
                return false;
            }
            true
        };
        let nuls = if nul_check {
            scan_counting_nuls(q, hay, (a, b), &mut on_hit).1
        } else {
            scan_region(q, hay, a, b, &mut on_hit);
            None
        };
        let mut newlines_before = Vec::new();
        let mut newlines = 0;
        if number {
            let mut pos = a;
            for h in &hits {
                newlines += memchr::memchr_iter(b'\n', &hay[pos..h.start]).count() as u64;
                newlines_before.push(newlines);
                pos = h.start;
            }
            newlines += memchr::memchr_iter(b'\n', &hay[pos..b]).count() as u64;
        }
        ChunkHits {
            range: (a, b),
            hits,
            truncated,
            newlines_before,
            newlines,
            nuls,
        }
    };
    let mut s = start;
    let mut group = Vec::with_capacity(batch);
    while s < end {
        group.clear();
        while group.len() < batch && s < end {
            let e = next_line_start(hay, s.saturating_add(size).min(end), end);
            let e = if e <= s { end } else { e };
            group.push((s, e));
            s = e;
        }
        let results: Vec<ChunkHits> = if cfg.parallel && group.len() > 1 {
            group.par_iter().map(run).collect()
        } else {
            group.iter().map(run).collect()
        };
        if !consume(results) {
            return;
        }
    }
}

/// The last lines of a stream of lines that weigh at least `need` together
/// (a line weighs the output records it makes: 1, or its `-o` matches).
#[derive(Debug)]
pub struct LastWeighted<T = Hit> {
    need: usize,
    total: usize,
    kept: VecDeque<(T, usize)>,
}

impl<T> LastWeighted<T> {
    /// Keep the last lines weighing at least `need`.
    pub fn new(need: usize) -> Self {
        LastWeighted {
            need,
            total: 0,
            kept: VecDeque::new(),
        }
    }

    /// Offer the next hit, of weight `w`; drops the oldest ones no longer needed.
    pub fn push(&mut self, h: T, w: usize) {
        self.kept.push_back((h, w));
        self.total += w;
        while let Some(&(_, fw)) = self.kept.front() {
            if self.total - fw < self.need {
                break;
            }
            self.total -= fw;
            self.kept.pop_front();
        }
    }

    /// The kept hits with their weights, oldest first.
    pub fn into_inner(self) -> VecDeque<(T, usize)> {
        self.kept
    }
}

/// The last lines of one chunk that can matter, with their weights.
type Kept = VecDeque<(Hit, usize)>;

/// What a backward tail scan found.
#[derive(Debug)]
pub struct TailHits {
    /// The last selected lines, in file order.
    pub hits: Vec<Hit>,
    /// The lowest offset scanned.
    pub low: usize,
    /// With a NUL check: the NUL bytes of `[low, end)`.
    pub nuls: Option<Nuls>,
}

/// What a backward tail scan looks for, and whom it tells what it reads.
pub struct Tail<'a> {
    /// Stop once the lines kept weigh at least this much.
    pub need: usize,
    /// The output records a line makes (1, or its `-o` matches).
    pub weight: &'a (dyn Fn(Hit) -> usize + Sync),
    /// Count the NUL bytes of every chunk scanned.
    pub nul_check: bool,
    /// Called with the range the next batch will scan, before the current
    /// one is scanned (to start reading it from disk: readahead only works
    /// forwards).
    pub ahead: &'a (dyn Fn(usize, usize) + Sync),
    /// Called with each range once it was scanned (to release its pages).
    pub done: &'a (dyn Fn(usize, usize) + Sync),
}

/// The last selected lines of `[start, end)`, found by scanning chunks
/// backwards from `end` in parallel batches whose chunks double in size,
/// stopping as soon as the lines kept weigh at least `t.need`.
pub fn tail(
    q: &Query,
    hay: &[u8],
    (start, end): (usize, usize),
    cfg: &ScanConfig,
    t: &Tail<'_>,
) -> TailHits {
    let (need, weight) = (t.need, t.weight);
    let mut nuls: Option<Nuls> = None;
    let mut kept: VecDeque<Hit> = VecDeque::new();
    let mut have = 0usize;
    let mut size = cfg.tail_start.max(1);
    let max_size = cfg.chunk_size.max(size);
    let mut cur = end;
    let threads = if cfg.parallel {
        rayon::current_num_threads().max(1)
    } else {
        1
    };
    // The batch sizes are known in advance, so the next batch's range is
    // too: it is handed to `ahead` while this one is scanned.
    let batch_span = |size: usize| size.saturating_mul(threads);
    (t.ahead)(end.saturating_sub(batch_span(size)).max(start), end);
    while cur > start && have < need {
        let next = (size * 2).min(max_size);
        (t.ahead)(
            cur.saturating_sub(batch_span(size) + batch_span(next))
                .max(start),
            cur.saturating_sub(batch_span(size)).max(start),
        );
        // Up to `threads` chunks, last to first.
        let mut ranges = Vec::new();
        for _ in 0..threads {
            if cur <= start {
                break;
            }
            let s = line_start(hay, cur.saturating_sub(size).max(start)).max(start);
            ranges.push((s, cur));
            cur = s;
        }
        let run = |&(a, b): &(usize, usize)| {
            // Keep only the last lines of this chunk that can matter.
            let mut ring = LastWeighted::new(need);
            let mut keep = |h| {
                ring.push(h, weight(h));
                true
            };
            let z = if t.nul_check {
                scan_counting_nuls(q, hay, (a, b), &mut keep).1
            } else {
                scan_region(q, hay, a, b, &mut keep);
                None
            };
            (ring.into_inner(), z)
        };
        let results: Vec<(Kept, Option<Nuls>)> = if cfg.parallel && ranges.len() > 1 {
            ranges.par_iter().map(run).collect()
        } else {
            ranges.iter().map(run).collect()
        };
        // ranges[0] is the last chunk of the file.
        for (ring, z) in results {
            nuls = Nuls::merge(nuls, z);
            for (h, hw) in ring.into_iter().rev() {
                if have >= need {
                    break;
                }
                kept.push_front(h);
                have += hw;
            }
        }
        if let (Some(first), Some(last)) = (ranges.last(), ranges.first()) {
            (t.done)(first.0, last.1);
        }
        size = next;
    }
    TailHits {
        hits: kept.into(),
        low: cur,
        nuls,
    }
}
