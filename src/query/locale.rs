//! Character rules of a UTF-8 locale, taken from the C library that GNU
//! grep itself asks: POSIX classes from `iswctype`, case from `towupper`
//! and `towlower` (with gnulib's `case_folded_counterparts`, grep's `-i`),
//! in the locale the environment names (`C.UTF-8` when that one cannot be
//! loaded). Tables are computed once per class, over every code point.

use regex_syntax::hir::{ClassUnicode, ClassUnicodeRange};
use std::collections::HashMap;
use std::ffi::{c_char, c_int, c_ulong, CString};
use std::sync::{Mutex, OnceLock};

type WInt = u32;
type WCtype = c_ulong;

extern "C" {
    fn wctype(name: *const c_char) -> WCtype;
    fn iswctype(wc: WInt, desc: WCtype) -> c_int;
    fn towupper(wc: WInt) -> WInt;
    fn towlower(wc: WInt) -> WInt;
}

/// The character-type locale the environment asks for, as grep reads it:
/// `LC_ALL`, else `LC_CTYPE`, else `LANG` (the first that is set and not
/// empty); `C` when none is.
pub fn locale_name() -> String {
    ["LC_ALL", "LC_CTYPE", "LANG"]
        .iter()
        .find_map(|v| std::env::var(v).ok().filter(|s| !s.is_empty()))
        .unwrap_or_else(|| "C".into())
}

/// Whether that locale's character set is UTF-8 (`C.UTF-8`, `en_US.utf8`).
pub fn locale_is_utf8() -> bool {
    let n = locale_name().to_ascii_lowercase();
    let codeset = n.split('.').nth(1).unwrap_or("");
    let codeset = codeset.split('@').next().unwrap_or("");
    codeset == "utf-8" || codeset == "utf8"
}

/// A loaded locale object (immutable once made; used with `uselocale`).
struct Locale(libc::locale_t);

// SAFETY: a locale object is never changed after newlocale and glibc allows
// using one from any thread (each thread selects it with uselocale).
unsafe impl Send for Locale {}
// SAFETY: as above.
unsafe impl Sync for Locale {}

/// The UTF-8 locale's character type data, loaded once.
fn locale() -> Option<&'static Locale> {
    static L: OnceLock<Option<Locale>> = OnceLock::new();
    L.get_or_init(|| {
        // The environment's locale when it is a UTF-8 one (its tables are
        // the ones grep uses), else the built-in C.UTF-8.
        let env = if locale_is_utf8() {
            locale_name()
        } else {
            "C.UTF-8".into()
        };
        for name in [env.as_str(), "C.UTF-8"] {
            let Ok(c) = CString::new(name) else {
                continue;
            };
            // SAFETY: a NUL-terminated name; a null base asks for a new object.
            let l =
                unsafe { libc::newlocale(libc::LC_CTYPE_MASK, c.as_ptr(), std::ptr::null_mut()) };
            if !l.is_null() {
                return Some(Locale(l));
            }
        }
        None
    })
    .as_ref()
}

/// Run `f` with the UTF-8 locale selected on this thread (`None`: no such
/// locale could be loaded).
pub fn with_utf8<T>(f: impl FnOnce() -> T) -> Option<T> {
    let l = locale()?;
    // SAFETY: `l.0` is a valid locale object that lives for the process;
    // the previous selection is restored before returning.
    let old = unsafe { libc::uselocale(l.0) };
    let out = f();
    // SAFETY: `old` is what uselocale returned for this thread.
    unsafe { libc::uselocale(old) };
    Some(out)
}

/// Every Unicode scalar value.
fn scalars() -> impl Iterator<Item = char> {
    (0u32..=0x10FFFF).filter_map(char::from_u32)
}

/// The characters of a POSIX class (`alpha`, `digit`, …) in the UTF-8
/// locale; `None` for an unknown name.
pub fn class(name: &[u8]) -> Option<ClassUnicode> {
    static CACHE: OnceLock<Mutex<HashMap<Vec<u8>, Option<ClassUnicode>>>> = OnceLock::new();
    let cache = CACHE.get_or_init(Default::default);
    if let Some(c) = cache.lock().ok()?.get(name) {
        return c.clone();
    }
    let cname = CString::new(name).ok()?;
    let computed = with_utf8(|| {
        // SAFETY: a NUL-terminated class name.
        let desc = unsafe { wctype(cname.as_ptr()) };
        if desc == 0 {
            return None;
        }
        let mut ranges: Vec<ClassUnicodeRange> = Vec::new();
        for c in scalars() {
            // SAFETY: iswctype reads the thread's locale tables only.
            if unsafe { iswctype(c as WInt, desc) } != 0 {
                match ranges.last_mut() {
                    Some(r) if r.end() as u32 + 1 == c as u32 => {
                        *r = ClassUnicodeRange::new(r.start(), c);
                    }
                    _ => ranges.push(ClassUnicodeRange::new(c, c)),
                }
            }
        }
        Some(ClassUnicode::new(ranges))
    })
    .flatten();
    if let Ok(mut m) = cache.lock() {
        m.insert(name.to_vec(), computed.clone());
    }
    computed
}

/// Whether `c` is a word character in the UTF-8 locale (`_` or alnum).
pub fn is_word(c: char) -> bool {
    static ALNUM: OnceLock<ClassUnicode> = OnceLock::new();
    if c == '_' {
        return true;
    }
    let set = ALNUM.get_or_init(|| class(b"alnum").unwrap_or_else(ClassUnicode::empty));
    let ranges = set.ranges();
    let i = ranges.partition_point(|r| r.end() < c);
    ranges.get(i).is_some_and(|r| r.start() <= c)
}

/// The character ending just before byte `i` of `line` and the one
/// starting at `i`, each `None` at an edge or where the bytes are not
/// UTF-8 (grep's `wordchar_prev`/`wordchar_next` then see no word).
pub fn around(line: &[u8], i: usize) -> (Option<char>, Option<char>) {
    let next = std::str::from_utf8(&line[i..line.len().min(i + 4)]).map_or_else(
        |e| {
            std::str::from_utf8(&line[i..i + e.valid_up_to()])
                .ok()
                .and_then(|s| s.chars().next())
        },
        |s| s.chars().next(),
    );
    let prev = (1..=4.min(i)).find_map(|k| {
        std::str::from_utf8(&line[i - k..i])
            .ok()
            .and_then(|s| s.chars().next().filter(|c| c.len_utf8() == k))
    });
    (prev, next)
}

/// Lower-case letters without an upper-case letter of their own that
/// `towupper` maps onto another's (gnulib's `lonesome_lower`).
const LONESOME_LOWER: [u32; 19] = [
    0x00B5, 0x0131, 0x017F, 0x01C5, 0x01C8, 0x01CB, 0x01F2, 0x0345, 0x03C2, 0x03D0, 0x03D1, 0x03D5,
    0x03D6, 0x03F0, 0x03F1, 0x03F2, 0x03F5, 0x1E9B, 0x1FBE,
];

/// `c` and the characters `-i` treats as the same letter (gnulib's
/// `case_folded_counterparts`, in the UTF-8 locale).
pub fn counterparts(c: char) -> Vec<char> {
    with_utf8(|| {
        // SAFETY: towupper/towlower read the thread's locale tables only.
        let up = |x: u32| unsafe { towupper(x) };
        // SAFETY: as above.
        let low = |x: u32| unsafe { towlower(x) };
        let c32 = c as u32;
        let uc = up(c32);
        let lc = low(uc);
        let mut out = vec![c];
        let mut add = |x: u32| {
            if let Some(ch) = char::from_u32(x) {
                if !out.contains(&ch) {
                    out.push(ch);
                }
            }
        };
        if uc != c32 {
            add(uc);
        }
        if lc != uc && lc != c32 && up(lc) == uc {
            add(lc);
        }
        for li in LONESOME_LOWER {
            if li != lc && li != uc && li != c32 && up(li) == uc {
                add(li);
            }
        }
        out
    })
    .unwrap_or_else(|| vec![c])
}

/// `set` with every member's case counterparts added (`-i`).
pub fn fold(set: &ClassUnicode) -> ClassUnicode {
    let mut out = set.clone();
    let mut extra = Vec::new();
    for r in set.iter() {
        for c in (r.start() as u32..=r.end() as u32).filter_map(char::from_u32) {
            for f in counterparts(c) {
                if f != c {
                    extra.push(ClassUnicodeRange::new(f, f));
                }
            }
        }
    }
    out.union(&ClassUnicode::new(extra));
    out
}
