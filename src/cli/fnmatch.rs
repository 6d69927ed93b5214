//! `fnmatch(3)` as glibc answers it in the C locale with no flags, the way
//! grep's `--include`/`--exclude`/`--exclude-dir` and bash's pathname
//! expansion (one component at a time) use it: `*` and `?` match any byte
//! (`/` and a leading `.` too), `[…]` is a set of bytes (`!` or `^` negates,
//! `a-z` ranges by byte value, `[:class:]`, `[=c=]`, `[.c.]`), and `\`
//! quotes the next byte. An unclosed `[` is an ordinary byte; a trailing `\`
//! or an unknown class name makes the pattern match nothing, as in glibc.

#[derive(Clone, Debug, PartialEq)]
enum Tok {
    Lit(u8),
    Any,
    Star,
    /// The bytes a bracket expression matches, negation applied.
    Set(Box<[bool; 256]>),
}

/// A compiled pattern.
#[derive(Clone, Debug)]
pub struct Pattern {
    toks: Vec<Tok>,
    /// glibc's answer for this pattern is "no match" whatever the name.
    never: bool,
}

/// Whether `p` holds a wildcard (gnulib's `fnmatch_pattern_has_wildcards`
/// with `\` quoting): a name without one is compared as a string.
pub fn has_wildcards(p: &[u8]) -> bool {
    let mut i = 0;
    while i < p.len() {
        match p[i] {
            b'\\' => i += 1,
            b'?' | b'*' | b'[' => return true,
            _ => {}
        }
        i += 1;
    }
    false
}

/// `p` with each `\` quoting the byte after it removed (gnulib's
/// `unescape_pattern`).
pub fn unescape(p: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(p.len());
    let mut i = 0;
    while i < p.len() {
        if p[i] == b'\\' && i + 1 < p.len() {
            i += 1;
        }
        out.push(p[i]);
        i += 1;
    }
    out
}

impl Pattern {
    /// Compile `p`.
    pub fn new(p: &[u8]) -> Pattern {
        let mut toks = Vec::new();
        let mut i = 0;
        while i < p.len() {
            match p[i] {
                b'*' => {
                    if toks.last() != Some(&Tok::Star) {
                        toks.push(Tok::Star);
                    }
                    i += 1;
                }
                b'?' => {
                    toks.push(Tok::Any);
                    i += 1;
                }
                b'\\' => match p.get(i + 1) {
                    Some(&c) => {
                        toks.push(Tok::Lit(c));
                        i += 2;
                    }
                    None => return Pattern { toks, never: true },
                },
                b'[' => match bracket(p, i + 1) {
                    Bracket::Set(set, next) => {
                        toks.push(Tok::Set(set));
                        i = next;
                    }
                    Bracket::Unclosed => {
                        toks.push(Tok::Lit(b'['));
                        i += 1;
                    }
                    Bracket::Never => return Pattern { toks, never: true },
                },
                c => {
                    toks.push(Tok::Lit(c));
                    i += 1;
                }
            }
        }
        Pattern { toks, never: false }
    }

    /// Whether glibc would match nothing with this pattern (an unknown
    /// class name, a trailing `\`).
    pub fn never(&self) -> bool {
        self.never
    }

    /// Whether the whole of `name` matches.
    pub fn matches(&self, name: &[u8]) -> bool {
        if self.never {
            return false;
        }
        let toks = &self.toks;
        let (mut t, mut n) = (0usize, 0usize);
        // The last `*` seen and where its match ends so far: a mismatch
        // lets that star take one more byte (enough for patterns whose
        // only variable-length part is `*`).
        let mut star: Option<(usize, usize)> = None;
        while n < name.len() {
            let ok = match toks.get(t) {
                Some(Tok::Lit(c)) => *c == name[n],
                Some(Tok::Any) => true,
                Some(Tok::Set(set)) => set[name[n] as usize],
                Some(Tok::Star) => {
                    star = Some((t, n));
                    t += 1;
                    continue;
                }
                None => false,
            };
            if ok {
                t += 1;
                n += 1;
            } else if let Some((st, sn)) = star {
                star = Some((st, sn + 1));
                t = st + 1;
                n = sn + 1;
            } else {
                return false;
            }
        }
        toks[t..].iter().all(|x| *x == Tok::Star)
    }
}

enum Bracket {
    /// The set and the index after the closing `]`.
    Set(Box<[bool; 256]>, usize),
    /// No closing `]`: the `[` is an ordinary byte.
    Unclosed,
    /// An unknown class name: nothing matches.
    Never,
}

/// The bracket expression whose body starts at `i` (after the `[`).
fn bracket(p: &[u8], mut i: usize) -> Bracket {
    let mut set = Box::new([false; 256]);
    let negate = matches!(p.get(i), Some(b'!' | b'^'));
    if negate {
        i += 1;
    }
    let mut first = true;
    loop {
        let Some(&c) = p.get(i) else {
            return Bracket::Unclosed;
        };
        if c == b']' && !first {
            if negate {
                set.iter_mut().for_each(|b| *b = !*b);
            }
            return Bracket::Set(set, i + 1);
        }
        first = false;
        if c == b'[' && p.get(i + 1) == Some(&b':') {
            match class(p, i + 2) {
                Some(Some((f, next))) => {
                    (0..=255u8)
                        .filter(|&b| f(b))
                        .for_each(|b| set[b as usize] = true);
                    i = next;
                    continue;
                }
                Some(None) => return Bracket::Never,
                None => {} // not a class: `[` is an ordinary member
            }
        }
        // `[=c=]` and `[.c.]` name one byte in the C locale.
        let (lo, next) = match (c, p.get(i + 1), p.get(i + 2), p.get(i + 3), p.get(i + 4)) {
            (b'[', Some(&k @ (b'=' | b'.')), Some(&x), Some(&k2), Some(b']')) if k2 == k => {
                (x, i + 5)
            }
            (b'\\', Some(&x), ..) => (x, i + 2),
            _ => (c, i + 1),
        };
        i = next;
        if p.get(i) == Some(&b'-') && p.get(i + 1).is_some_and(|&d| d != b']') {
            let (hi, after) = match (p[i + 1], p.get(i + 2)) {
                (b'\\', Some(&x)) => (x, i + 3),
                (d, _) => (d, i + 2),
            };
            (lo..=hi).for_each(|b| set[b as usize] = true);
            i = after;
        } else {
            set[lo as usize] = true;
        }
    }
}

type Class = fn(u8) -> bool;

/// The class whose name starts at `i` (after `[:`): `None` when this is not
/// a class (glibc then reads `[` as an ordinary member), `Some(None)` for an
/// unknown name.
fn class(p: &[u8], i: usize) -> Option<Option<(Class, usize)>> {
    let rest = &p[i.min(p.len())..];
    let end = rest.windows(2).position(|w| w == b":]")?;
    let name = &rest[..end];
    if !name.iter().all(|b| b.is_ascii_lowercase()) {
        return None;
    }
    let f: Class = match name {
        b"alpha" => |b| b.is_ascii_alphabetic(),
        b"digit" => |b| b.is_ascii_digit(),
        b"alnum" => |b| b.is_ascii_alphanumeric(),
        b"upper" => |b| b.is_ascii_uppercase(),
        b"lower" => |b| b.is_ascii_lowercase(),
        b"space" => |b| matches!(b, b' ' | b'\t' | b'\n' | b'\r' | 0x0b | 0x0c),
        b"blank" => |b| b == b' ' || b == b'\t',
        b"punct" => |b| b.is_ascii_punctuation(),
        b"xdigit" => |b| b.is_ascii_hexdigit(),
        b"cntrl" => |b| b.is_ascii_control(),
        b"print" => |b| (0x20..0x7f).contains(&b),
        b"graph" => |b| (0x21..0x7f).contains(&b),
        _ => return Some(None),
    };
    Some(Some((f, i + end + 2)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(p: &str, n: &str) -> bool {
        Pattern::new(p.as_bytes()).matches(n.as_bytes())
    }

    #[test]
    fn fnmatch_as_glibc_in_the_c_locale() {
        assert!(m("*.log", "a.log"));
        assert!(m("*.log", "dir/a.log"), "no FNM_PATHNAME: * crosses /");
        assert!(m("*", ".hidden"), "no FNM_PERIOD");
        assert!(!m("*.log", "a.log1"));
        assert!(m("a?c", "abc"));
        assert!(m("a?c", "a/c"));
        assert!(m("[ab]x", "bx"));
        assert!(!m("[!ab]x", "bx"));
        assert!(m("[^ab]x", "cx"));
        assert!(m("[a-c]*", "b1"));
        assert!(m("[[:digit:]]*", "7z"));
        assert!(!m("[[:nope:]]", "a"), "an unknown class matches nothing");
        assert!(m("[]]", "]"));
        assert!(m("[!]]", "a"));
        assert!(m("[a-]", "-"));
        assert!(m("[", "["), "an unclosed bracket is literal");
        assert!(m("[ab", "[ab"));
        assert!(m("\\*", "*"));
        assert!(!m("\\*", "a"));
        assert!(!m("a\\", "a\\"), "a trailing backslash matches nothing");
        assert!(m("[\\]]", "]"));
        assert!(m("[[=a=]]", "a"));
        assert!(m("[[.-.]]", "-"));
        assert!(m("*a*b*", "xxaybzz"));
        assert!(!m("*a*b*", "xxbyazz"));
        assert!(m("", ""));
        assert!(!m("", "a"));
        assert!(has_wildcards(b"a*") && !has_wildcards(b"a\\*b") && !has_wildcards(b"ab"));
        assert_eq!(unescape(b"a\\*b\\"), b"a*b\\");
    }
}
