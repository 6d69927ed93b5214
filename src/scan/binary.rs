//! GNU grep 3.8's binary-file behaviour, reproduced exactly.
//!
//! grep reads a file in buffers. When a buffer holds a NUL byte (or, on the
//! first read, the file has a hole), grep stops printing: lines completed in
//! earlier buffers were already printed; from then on NUL bytes count as line
//! ends, output is suppressed, and the first selected line ends the search
//! with "binary file matches" on stderr.
//!
//! Which lines were "earlier" depends on grep's read sizes, which depend on
//! the length of the partial line carried between reads and on the address
//! alignment of grep's buffer (`malloc`'s choice). [`text_end`] simulates the
//! reads for every possible alignment; when they disagree about the boundary,
//! no exact answer exists and grail refuses rather than guess.

use super::{scan_region, Hit};
use crate::query::Query;
use memchr::memrchr;

const PAGE: usize = 4096;
const UWORD: usize = 8;
/// grep's INITIAL_BUFSIZE.
const INITIAL: usize = 96 * 1024;
/// The first read grep makes; a hole after it makes the file binary.
pub const FIRST_READ: usize = INITIAL;

/// The end of the text part of a file whose first NUL byte is at `z`: the
/// bytes grep processes as text before it notices binary data. `None`: the
/// boundary depends on grep's memory layout, so no exact answer exists.
pub fn text_end(hay: &[u8], z: usize) -> Option<usize> {
    let (lo, hi) = text_end_range(hay, z)?;
    (lo == hi).then_some(lo)
}

/// The earliest and the latest end of the text part over every buffer
/// alignment grep may get, for a first NUL byte at `z`. `None` only in
/// pathological cases the simulation does not follow.
pub fn text_end_range(hay: &[u8], z: usize) -> Option<(usize, usize)> {
    if z < FIRST_READ {
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

/// Scan a binary region `[start, end)` of `hay` the way grep does after it
/// has seen a NUL: every NUL byte ends a line. Lines are copied block by block
/// into a scratch buffer with NULs turned into newlines. Calls `f` for each
/// selected line (offsets are into the scratch block and meaningless to the
/// caller) until it returns false.
pub fn scan_zapped(
    q: &Query,
    hay: &[u8],
    start: usize,
    end: usize,
    f: &mut dyn FnMut(&[u8]) -> bool,
) {
    const BLOCK: usize = 1 << 20;
    let mut buf = Vec::with_capacity(BLOCK + 1);
    let mut pos = start;
    while pos < end {
        let mut e = (pos + BLOCK).min(end);
        if e < end {
            // Cut after a line end (a newline or a NUL) so no line straddles blocks.
            match hay[pos..e].iter().rposition(|&b| b == b'\n' || b == 0) {
                Some(i) => e = pos + i + 1,
                None => {
                    e = match hay[e..end].iter().position(|&b| b == b'\n' || b == 0) {
                        Some(i) => e + i + 1,
                        None => end,
                    }
                }
            }
        }
        buf.clear();
        buf.extend(hay[pos..e].iter().map(|&b| if b == 0 { b'\n' } else { b }));
        let blk = &buf[..];
        let mut stop = false;
        scan_region(q, blk, 0, blk.len(), &mut |h: Hit| {
            if !f(&blk[h.start..h.end]) {
                stop = true;
                return false;
            }
            true
        });
        if stop {
            return;
        }
        pos = e;
    }
}
