//! Patterns with back-references, matched as GNU grep 3.8 matches them: by
//! glibc's GNU regex (`re_compile_pattern`, `re_search`, `re_match`) with
//! grep's syntax bits, one line at a time, and grep's own loop for `-w`
//! (`EGexecute`: a match must have a non-word byte or the line's edge on
//! both sides; if the leftmost-longest one has not, shorter ones at the
//! same start are tried, then later starts). No finite automaton can match
//! a back-reference; the automaton runs the pattern loosened (each `\N`
//! read as "any bytes") to find candidate lines, and this decides.

use std::ffi::{c_char, c_int, c_uint, c_ulong, c_void, CStr};
use std::sync::Mutex;

/// glibc's `struct re_pattern_buffer` (x86-64 and AArch64 layout), with
/// its bit fields in one byte.
#[repr(C)]
struct PatternBuffer {
    buffer: *mut c_void,
    allocated: usize,
    used: usize,
    syntax: c_ulong,
    fastmap: *mut c_char,
    translate: *mut u8,
    re_nsub: usize,
    /// can_be_null:1, regs_allocated:2, fastmap_accurate:1, no_sub:1,
    /// not_bol:1, not_eol:1, newline_anchor:1.
    bits: u8,
}

const NOT_EOL: u8 = 1 << 6;
const NEWLINE_ANCHOR: u8 = 1 << 7;

#[repr(C)]
struct Registers {
    num_regs: c_uint,
    start: *mut c_int,
    end: *mut c_int,
}

extern "C" {
    fn re_set_syntax(syntax: c_ulong) -> c_ulong;
    fn re_compile_pattern(
        pattern: *const c_char,
        length: usize,
        buffer: *mut PatternBuffer,
    ) -> *const c_char;
    fn re_search(
        buffer: *mut PatternBuffer,
        string: *const c_char,
        length: c_int,
        start: c_int,
        range: c_int,
        regs: *mut Registers,
    ) -> c_int;
    fn re_match(
        buffer: *mut PatternBuffer,
        string: *const c_char,
        length: c_int,
        start: c_int,
        regs: *mut Registers,
    ) -> c_int;
    fn regfree(buffer: *mut PatternBuffer);
}

// glibc's syntax bits (regex.h).
const RE_CHAR_CLASSES: c_ulong = 1 << 2;
const RE_CONTEXT_INDEP_ANCHORS: c_ulong = 1 << 3;
const RE_CONTEXT_INDEP_OPS: c_ulong = 1 << 4;
const RE_CONTEXT_INVALID_OPS: c_ulong = 1 << 5;
const RE_DOT_NEWLINE: c_ulong = 1 << 6;
const RE_DOT_NOT_NULL: c_ulong = 1 << 7;
const RE_INTERVALS: c_ulong = 1 << 9;
const RE_NEWLINE_ALT: c_ulong = 1 << 11;
const RE_NO_BK_BRACES: c_ulong = 1 << 12;
const RE_NO_BK_PARENS: c_ulong = 1 << 13;
const RE_NO_BK_VBAR: c_ulong = 1 << 15;
const RE_NO_EMPTY_RANGES: c_ulong = 1 << 16;
const RE_UNMATCHED_RIGHT_PAREN_ORD: c_ulong = 1 << 17;
const RE_INVALID_INTERVAL_ORD: c_ulong = 1 << 21;
const RE_ICASE: c_ulong = 1 << 22;
const RE_CONTEXT_INVALID_DUP: c_ulong = 1 << 24;
const RE_BK_PLUS_QM: c_ulong = 1 << 1;

const POSIX_COMMON: c_ulong =
    RE_CHAR_CLASSES | RE_DOT_NEWLINE | RE_DOT_NOT_NULL | RE_INTERVALS | RE_NO_EMPTY_RANGES;
const POSIX_BASIC: c_ulong = POSIX_COMMON | RE_BK_PLUS_QM | RE_CONTEXT_INVALID_DUP;
const POSIX_EXTENDED: c_ulong = POSIX_COMMON
    | RE_CONTEXT_INDEP_ANCHORS
    | RE_CONTEXT_INDEP_OPS
    | RE_NO_BK_BRACES
    | RE_NO_BK_PARENS
    | RE_NO_BK_VBAR
    | RE_CONTEXT_INVALID_OPS
    | RE_UNMATCHED_RIGHT_PAREN_ORD;
/// `RE_SYNTAX_GREP` and `RE_SYNTAX_EGREP`, grep's matchers `-G` and `-E`.
const SYNTAX_GREP: c_ulong =
    (POSIX_BASIC | RE_NEWLINE_ALT) & !(RE_CONTEXT_INVALID_DUP | RE_DOT_NOT_NULL);
const SYNTAX_EGREP: c_ulong = (POSIX_EXTENDED | RE_INVALID_INTERVAL_ORD | RE_NEWLINE_ALT)
    & !(RE_CONTEXT_INVALID_OPS | RE_DOT_NOT_NULL);

/// `re_set_syntax` sets a process-wide variable: compiles take turns.
static COMPILE: Mutex<()> = Mutex::new(());

struct Compiled {
    buf: PatternBuffer,
    regs: Registers,
}

// SAFETY: the buffer and registers are owned by this value alone and used
// only behind the `Mutex` in `GnuPattern`, one call at a time.
unsafe impl Send for Compiled {}

impl Drop for Compiled {
    fn drop(&mut self) {
        // SAFETY: `buf` was filled by a successful re_compile_pattern and is
        // freed once; the register arrays were malloc'd by glibc (or are
        // null, which free accepts).
        unsafe {
            regfree(&mut self.buf);
            libc::free(self.regs.start.cast());
            libc::free(self.regs.end.cast());
        }
    }
}

/// One pattern compiled by glibc, with grep's `-w`/`-x` handling.
pub struct GnuPattern {
    inner: Mutex<Compiled>,
    word: bool,
    line: bool,
    /// Compiled and run in the UTF-8 locale (word characters from it too).
    utf8: bool,
}

impl std::fmt::Debug for GnuPattern {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("GnuPattern")
    }
}

impl GnuPattern {
    /// Compile `pattern` (`ere`: `-E`) with `-i`, `-w`, `-x`; `Err` holds
    /// glibc's message (grep's, for these patterns).
    pub fn new(
        pattern: &[u8],
        ere: bool,
        icase: bool,
        word: bool,
        line: bool,
        utf8: bool,
    ) -> Result<Self, String> {
        let mut syntax = if ere { SYNTAX_EGREP } else { SYNTAX_GREP };
        if icase {
            syntax |= RE_ICASE;
        }
        // SAFETY: an all-zero re_pattern_buffer is glibc's documented
        // starting state (no buffer, no fastmap, no translate table).
        let mut buf: PatternBuffer = unsafe { std::mem::zeroed() };
        let mut compile = || {
            let _turn = COMPILE.lock().unwrap_or_else(|e| e.into_inner());
            // SAFETY: `pattern` is valid for its length (it need not be
            // NUL-terminated) and `buf` is a zeroed buffer glibc fills.
            unsafe {
                re_set_syntax(syntax);
                re_compile_pattern(pattern.as_ptr().cast(), pattern.len(), &mut buf)
            }
        };
        let err = if utf8 {
            super::locale::with_utf8(&mut compile).ok_or("no UTF-8 locale could be loaded")?
        } else {
            compile()
        };
        if !err.is_null() {
            // SAFETY: glibc returns a static NUL-terminated message.
            let msg = unsafe { CStr::from_ptr(err) }
                .to_string_lossy()
                .into_owned();
            // SAFETY: a failed compile may still have allocated parts.
            unsafe { regfree(&mut buf) };
            return Err(msg);
        }
        buf.bits |= NEWLINE_ANCHOR;
        Ok(GnuPattern {
            inner: Mutex::new(Compiled {
                buf,
                regs: Registers {
                    num_regs: 0,
                    start: std::ptr::null_mut(),
                    end: std::ptr::null_mut(),
                },
            }),
            word,
            line,
            utf8,
        })
    }

    /// Whether `line` (without its newline) holds a match, as grep decides.
    /// Lines longer than glibc's offsets reach (2 GiB) never match.
    pub fn matches_line(&self, line: &[u8]) -> bool {
        if self.utf8 {
            return super::locale::with_utf8(|| self.decide(line)).unwrap_or(false);
        }
        self.decide(line)
    }

    /// [`matches_line`](Self::matches_line) in the current locale.
    fn decide(&self, line: &[u8]) -> bool {
        let Ok(n) = c_int::try_from(line.len()) else {
            return false;
        };
        let mut c = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        let c = &mut *c;
        let s = line.as_ptr().cast::<c_char>();
        let search = |c: &mut Compiled, from: c_int| -> Option<(c_int, c_int)> {
            c.buf.bits &= !NOT_EOL;
            // SAFETY: `s` points to `n` readable bytes; `from <= n`; the
            // registers are glibc-managed arrays owned by `c`.
            let start = unsafe { re_search(&mut c.buf, s, n, from, n - from, &mut c.regs) };
            // SAFETY: after a successful search register 0 is set.
            (start >= 0).then(|| (start, unsafe { *c.regs.end } - start))
        };
        let Some((mut start, mut len)) = search(c, 0) else {
            return false;
        };
        if !self.word {
            return !self.line || len == n;
        }
        if self.line {
            return len == n;
        }
        let ascii_word = |i: c_int| {
            (0..n).contains(&i) && {
                let b = line[i as usize];
                b.is_ascii_alphanumeric() || b == b'_'
            }
        };
        // Whether the characters before `a` and at `b` are not word ones.
        let edges = |a: c_int, b: c_int| {
            if self.utf8 {
                let w = |c: Option<char>| c.is_some_and(super::locale::is_word);
                !w(super::locale::around(line, a as usize).0)
                    && !w(super::locale::around(line, b as usize).1)
            } else {
                !ascii_word(b) && !ascii_word(a - 1)
            }
        };
        loop {
            if edges(start, start + len) {
                return true;
            }
            let mut shorter = 0;
            if len > 0 {
                len -= 1;
                c.buf.bits |= NOT_EOL;
                // SAFETY: as above, on the first `start + len` bytes.
                shorter = unsafe { re_match(&mut c.buf, s, start + len, start, &mut c.regs) };
            }
            if shorter > 0 {
                len = shorter;
                continue;
            }
            if start == n {
                return false;
            }
            match search(c, start + 1) {
                Some((st, l)) => (start, len) = (st, l),
                None => return false,
            }
        }
    }
}
