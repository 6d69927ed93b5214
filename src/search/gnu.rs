//! GNU grep 3.8's binary-file behaviour, reproduced exactly: only
//! `--binary-files=binary` ([`super::BinaryMode::Grep`]) reaches this module.
//!
//! grep reads a file in buffers. When a buffer holds a NUL byte (or, on the
//! first read, the file has a hole), grep stops printing: lines completed in
//! earlier buffers were already printed; from then on NUL bytes count as line
//! ends, output is suppressed, and the first selected line ends the search
//! with "binary file matches" on stderr.
//!
//! Which lines were "earlier" depends on grep's read sizes, which depend on
//! the length of the partial line carried between reads and on the address
//! alignment of grep's buffer (`malloc`'s choice). [`text_end_range`]
//! simulates the reads for every possible alignment; when they disagree
//! about a boundary that matters, no exact answer exists and grail refuses
//! rather than guess.

use super::{SearchError, SearchOptions};
use crate::query::Query;
use crate::scan;
use crate::source::{Haystack, GREP_READ};
use memchr::memrchr;

/// Where grep's text part ends, given the first NUL byte at `z`. Where it
/// depends on grep's buffer alignment (read boundaries drift apart), every
/// possible end gives the same answer when no line `q` selects starts in the
/// uncertain range: then its start is taken; otherwise no exact answer exists.
pub(super) fn text_end_at(q: &Query, hay: &[u8], z: usize) -> Result<usize, SearchError> {
    let (lo, hi) = text_end_range(hay, z).ok_or(SearchError::AmbiguousBinary)?;
    if lo == hi {
        return Ok(lo);
    }
    let mut selected = false;
    scan::scan_region(q, hay, lo, hi, &mut |_| {
        selected = true;
        false
    });
    if selected {
        Err(SearchError::AmbiguousBinary)
    } else {
        Ok(lo)
    }
}

/// How far the NUL check read, given the text end `l` it found.
pub(super) fn nul_reach(hay: Haystack<'_>, l: usize) -> usize {
    let (has_holes, hay) = (hay.has_holes(), hay.bytes());
    if has_holes {
        0
    } else if l == hay.len() {
        hay.len()
    } else {
        l + memchr::memchr(0, &hay[l..]).map_or(hay.len() - l, |i| i + 1)
    }
}

/// Where grep's text part of a whole input ends: the full NUL check (with
/// per-piece newline counts, see [`scan::first_nul_counting`], when `count`
/// is set), then grep's read boundaries before the first NUL.
pub fn text_end(
    q: &Query,
    haystack: Haystack<'_>,
    opts: &SearchOptions,
    count: bool,
) -> Result<(usize, Option<Vec<u64>>), SearchError> {
    if haystack.has_holes() {
        return Ok((0, None));
    }
    let hay = haystack.bytes();
    let release = |a: usize, b: usize| haystack.release(a, b);
    let (z, counts) = if count {
        let (z, c) = scan::first_nul_counting(hay, opts.scan.parallel, &release);
        (z, Some(c))
    } else {
        (scan::first_nul(hay, opts.scan.parallel, &release), None)
    };
    if haystack.shrank() {
        return Err(SearchError::Shrank);
    }
    match z {
        None => Ok((hay.len(), counts)),
        Some(z) => text_end_at(q, hay, z).map(|l| (l, counts)),
    }
}

const PAGE: usize = 4096;
const UWORD: usize = 8;
/// grep's INITIAL_BUFSIZE: its first read.
const INITIAL: usize = GREP_READ;

/// The earliest and the latest end of the text part over every buffer
/// alignment grep may get, for a first NUL byte at `z`. `None` only in
/// pathological cases the simulation does not follow.
pub fn text_end_range(hay: &[u8], z: usize) -> Option<(usize, usize)> {
    if z < INITIAL {
        return Some((0, 0));
    }
    // State: (file offset read so far, saved partial line, bufalloc, alignment).
    let init_alloc = INITIAL + PAGE + UWORD;
    let mut states: Vec<(usize, usize, usize, usize)> = (0..PAGE)
        .step_by(16)
        .map(|a| (0, 0, init_alloc, a))
        .collect();
    let mut ends: Vec<usize> = Vec::new();
    let size = hay.len();
    let mut rounds = 0usize;
    while !states.is_empty() {
        rounds += 1;
        if rounds > 10_000_000 {
            return None;
        }
        let mut next = Vec::with_capacity(states.len());
        for &(pos, save, alloc, a) in &states {
            // Compute this read's size as grep's fillbuf does.
            let (alloc, aligns): (usize, Vec<usize>) = if pos == 0 {
                (alloc, vec![a])
            } else {
                let min_after = PAGE + UWORD;
                // After a read, free room past the data is below a page
                // whenever the read filled the buffer; grep then moves the
                // saved bytes to the start (or to a new, larger buffer).
                let incr_min = (save + PAGE) as isize - alloc as isize + min_after as isize;
                if incr_min <= 0 {
                    (alloc, vec![a])
                } else {
                    // xpalloc: grow by half, at least by incr_min, at most to
                    // what the rest of the file needs.
                    let to_read = size.saturating_sub(pos);
                    let alloc_max = (to_read + save + min_after).max(alloc + incr_min as usize);
                    let mut n = alloc + (alloc >> 1);
                    if n > alloc_max {
                        n = alloc_max;
                    }
                    if n - alloc < incr_min as usize {
                        n = alloc + incr_min as usize;
                    }
                    // A new buffer: its alignment is malloc's, unknown.
                    (n, (0..PAGE).step_by(16).collect())
                }
            };
            for a in aligns {
                let readbuf_off = if pos == 0 {
                    align_up(a + 1) - a
                } else {
                    align_up(a + 1 + save) - a
                };
                let room = alloc as isize - UWORD as isize - readbuf_off as isize;
                if room < PAGE as isize {
                    return None;
                }
                let readsize = (room as usize) / PAGE * PAGE;
                let fill = readsize.min(size - pos);
                let buf_start = pos - save;
                let buf_end = pos + fill;
                if z >= buf_start && z < buf_end {
                    ends.push(buf_start);
                    continue;
                }
                if fill == 0 {
                    // EOF without seeing z: cannot happen for z < len.
                    return None;
                }
                let new_save = match memrchr(b'\n', &hay[pos..buf_end]) {
                    Some(i) => buf_end - (pos + i + 1),
                    None => save + fill,
                };
                next.push((buf_end, new_save, alloc, a));
            }
        }
        next.sort_unstable();
        next.dedup();
        // Alignments that lead to the same read positions stay separate only
        // while they may still diverge; bound the work in pathological cases.
        if next.len() > 4096 {
            return None;
        }
        states = next;
    }
    Some((*ends.iter().min()?, *ends.iter().max()?))
}

fn align_up(x: usize) -> usize {
    x.div_ceil(PAGE) * PAGE
}
