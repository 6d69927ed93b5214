//! The binary part of an input, scanned as GNU grep scans it after it has
//! seen a NUL byte: every NUL ends a line, nothing is printed, and a
//! selected line means "binary file matches".

use super::{scan_region, Hit};
use crate::query::Query;

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
