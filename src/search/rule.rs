//! The binary rule, decided once per input: where the text part ends, what
//! the decision read, what is said about a binary input, and the quiet
//! search of the binary part.

use super::{gnu, BinaryMode, Outcome, SearchError, SearchOptions};
use crate::query::Query;
use crate::scan::{binary, Nuls};
use crate::source::{Haystack, GREP_READ};

/// Where the text part of a whole input ends, by `opts.binary`'s rule:
/// `hay.len()` when the input is text, 0 when it is binary by the log rule,
/// grep's exact text end under [`BinaryMode::Grep`] (with per-piece newline
/// counts when `count` asks for them).
pub(super) fn text_end(
    q: &Query,
    hay: Haystack<'_>,
    opts: &SearchOptions,
    count: bool,
) -> Result<(usize, Option<Vec<u64>>), SearchError> {
    let bytes = hay.bytes();
    match opts.binary {
        BinaryMode::Text => Ok((bytes.len(), None)),
        BinaryMode::Log | BinaryMode::WithoutMatch => {
            Ok((if is_binary_log(bytes) { 0 } else { bytes.len() }, None))
        }
        BinaryMode::Grep => gnu::text_end(q, hay, opts, count),
    }
}

/// The log rule: binary when grep's first read holds a NUL byte (a hole
/// there reads as NUL bytes too).
pub fn is_binary_log(hay: &[u8]) -> bool {
    memchr::memchr(0, &hay[..first_read(hay)]).is_some()
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
pub(super) fn first_read(hay: &[u8]) -> usize {
    hay.len().min(GREP_READ)
}

/// The outcome of an input whose text part ends at `l`, before any line
/// is searched: whether it is binary, and what the log rule says of it.
pub(super) fn start(hay: &[u8], opts: &SearchOptions, l: usize) -> Outcome {
    let is_binary = l < hay.len();
    Outcome {
        is_binary,
        text_end: l,
        leading_nuls: if opts.binary.is_log() && is_binary {
            leading_nul_run(hay)
        } else {
            None
        },
        ..Outcome::default()
    }
}

/// The bytes the binary decision read, given the text end `l` it found.
pub(super) fn check_range(hay: Haystack<'_>, opts: &SearchOptions, l: usize) -> (usize, usize) {
    match opts.binary {
        BinaryMode::Text => (0, 0),
        BinaryMode::Log | BinaryMode::WithoutMatch => (0, first_read(hay.bytes())),
        BinaryMode::Grep => (0, gnu::nul_reach(hay, l)),
    }
}

/// Search the binary part `[l, end)` as grep does after a NUL byte: count
/// its selected lines into `out` (all of them up to `max` when `count_all`,
/// else only the first) and note whether one matched.
pub(super) fn binary_part(
    q: &Query,
    hay: &[u8],
    l: usize,
    max: u64,
    count_all: bool,
    out: &mut Outcome,
) {
    binary::scan_zapped(q, hay, l, hay.len(), &mut |line| {
        out.selected += 1;
        out.binary_matched |= q.include_matches(line) != q.is_inverted();
        count_all && out.selected < max
    });
}

/// The binary rule on a stream, applied read by read: under the log rule
/// only grep's first read can make a stream binary (later NUL bytes are
/// counted in [`Outcome::nuls`]); under [`BinaryMode::Grep`] any read can.
pub(super) struct StreamRule {
    mode: BinaryMode,
    binary: bool,
    reads: u64,
    /// Bytes read before the current read.
    offset: u64,
}

impl StreamRule {
    pub(super) fn new(mode: BinaryMode) -> Self {
        StreamRule {
            mode,
            binary: false,
            reads: 0,
            offset: 0,
        }
    }

    /// Whether the stream is binary, now that the bytes `new` were read.
    pub(super) fn binary(&mut self, new: &[u8], out: &mut Outcome) -> bool {
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
