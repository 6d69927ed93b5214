//! Pathname expansion for `--sh`, as `bash -c` does it by default (bash
//! 5.2, `LC_ALL=C`): unquoted `*`, `?` and `[…]` match names in each path
//! component; names starting with `.` only when the pattern component starts
//! with a literal `.`; `.` and `..` never (bash's `globskipdots`); matches
//! sorted by bytes; a pattern that matches nothing stays as written.
//!
//! The splitter marks the glob characters it saw unquoted with private-use
//! code points ([`STAR`], [`QUESTION`], [`OPEN`], [`CLOSE`]), so a word here
//! knows which characters are special and which were quoted.

use std::ffi::OsString;
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::path::{Path, PathBuf};

/// An unquoted `*`.
pub const STAR: char = '\u{E000}';
/// An unquoted `?`.
pub const QUESTION: char = '\u{E001}';
/// An unquoted `[`.
pub const OPEN: char = '\u{E002}';
/// An unquoted `]`.
pub const CLOSE: char = '\u{E003}';

/// Whether `s` uses one of the marker code points.
pub fn has_marker(s: &str) -> bool {
    s.chars()
        .any(|c| matches!(c, STAR | QUESTION | OPEN | CLOSE))
}

/// The word with its markers turned back into the characters they mark.
pub fn literal(word: &str) -> String {
    word.chars()
        .map(|c| match c {
            STAR => '*',
            QUESTION => '?',
            OPEN => '[',
            CLOSE => ']',
            c => c,
        })
        .collect()
}

#[derive(Clone, Debug, PartialEq)]
enum Tok {
    Lit(u8),
    Any,
    Star,
    /// A bracket expression: the bytes it matches (C locale), negated or not.
    Set(Box<[bool; 256]>, bool),
}

/// Parse one path component's pattern. `Err` for what grail does not expand.
fn parse(comp: &str) -> Result<Vec<Tok>, String> {
    let chars: Vec<char> = comp.chars().collect();
    let mut toks = Vec::new();
    let mut i = 0;
    let lit = |toks: &mut Vec<Tok>, c: char| {
        let mut b = [0u8; 4];
        for &x in literal(c.encode_utf8(&mut b)).as_bytes() {
            toks.push(Tok::Lit(x));
        }
    };
    while i < chars.len() {
        match chars[i] {
            STAR => {
                if toks.last() != Some(&Tok::Star) {
                    toks.push(Tok::Star);
                }
                i += 1;
            }
            QUESTION => {
                toks.push(Tok::Any);
                i += 1;
            }
            OPEN => match bracket(&chars, i + 1)? {
                Some((set, neg, next)) => {
                    toks.push(Tok::Set(set, neg));
                    i = next;
                }
                None => {
                    lit(&mut toks, '[');
                    i += 1;
                }
            },
            c => {
                lit(&mut toks, c);
                i += 1;
            }
        }
    }
    Ok(toks)
}

/// A bracket expression starting after `[` at `i`: the set, negation and
/// where it ends; `None` when there is no closing unquoted `]`.
#[allow(clippy::type_complexity)]
fn bracket(
    chars: &[char],
    mut i: usize,
) -> Result<Option<(Box<[bool; 256]>, bool, usize)>, String> {
    let mut set = Box::new([false; 256]);
    let neg = matches!(chars.get(i), Some('!') | Some('^'));
    if neg {
        i += 1;
    }
    let byte = |c: char| -> Result<u8, String> {
        let c = match c {
            STAR => '*',
            QUESTION => '?',
            OPEN => '[',
            CLOSE => ']',
            c => c,
        };
        u8::try_from(c as u32)
            .ok()
            .filter(|b| b.is_ascii())
            .ok_or_else(|| "a non-ASCII character in a glob bracket expression".to_string())
    };
    let mut first = true;
    loop {
        let Some(&c) = chars.get(i) else {
            return Ok(None);
        };
        if c == CLOSE && !first {
            return Ok(Some((set, neg, i + 1)));
        }
        first = false;
        if c == OPEN && chars.get(i + 1) == Some(&':') {
            // [:class:]
            let rest: String = chars[i + 2..].iter().collect();
            let Some(end) = rest
                .find(":]")
                .or_else(|| rest.find(':').filter(|&e| rest[e + 1..].starts_with(CLOSE)))
            else {
                return Ok(None);
            };
            let name = &rest[..end];
            let f: fn(u8) -> bool = match name {
                "alpha" => |b| b.is_ascii_alphabetic(),
                "digit" => |b| b.is_ascii_digit(),
                "alnum" => |b| b.is_ascii_alphanumeric(),
                "upper" => |b| b.is_ascii_uppercase(),
                "lower" => |b| b.is_ascii_lowercase(),
                "space" => |b| matches!(b, b' ' | b'\t' | b'\n' | b'\r' | 0x0b | 0x0c),
                "blank" => |b| b == b' ' || b == b'\t',
                "punct" => |b| b.is_ascii_punctuation(),
                "xdigit" => |b| b.is_ascii_hexdigit(),
                "cntrl" => |b| b.is_ascii_control(),
                "print" => |b| (0x20..0x7f).contains(&b),
                "graph" => |b| (0x21..0x7f).contains(&b),
                _ => return Err(format!("the glob class '[:{name}:]'")),
            };
            for b in 0..=255u8 {
                if f(b) {
                    set[b as usize] = true;
                }
            }
            // Skip "[:name:" and the closing ']' (marked or not).
            i += 2 + name.chars().count() + 2;
            continue;
        }
        if c == OPEN && matches!(chars.get(i + 1), Some('=') | Some('.')) {
            return Err("glob equivalence classes and collating symbols".into());
        }
        let lo = byte(c)?;
        if chars.get(i + 1) == Some(&'-') && chars.get(i + 2).is_some_and(|&d| d != CLOSE) {
            let hi = byte(chars[i + 2])?;
            for b in lo..=hi {
                set[b as usize] = true;
            }
            i += 3;
        } else {
            set[lo as usize] = true;
            i += 1;
        }
    }
}

/// fnmatch on one name (no `/` in it).
fn matches(toks: &[Tok], name: &[u8]) -> bool {
    let (mut t, mut n) = (0usize, 0usize);
    let (mut star_t, mut star_n) = (None::<usize>, 0usize);
    while n < name.len() {
        let ok = match toks.get(t) {
            Some(Tok::Lit(c)) => *c == name[n],
            Some(Tok::Any) => true,
            Some(Tok::Set(set, neg)) => set[name[n] as usize] != *neg,
            Some(Tok::Star) => {
                star_t = Some(t);
                star_n = n;
                t += 1;
                continue;
            }
            None => false,
        };
        if ok {
            t += 1;
            n += 1;
        } else if let Some(st) = star_t {
            t = st + 1;
            star_n += 1;
            n = star_n;
        } else {
            return false;
        }
    }
    toks[t..].iter().all(|x| *x == Tok::Star)
}

/// Expand one word. `Ok(None)`: not a glob, or no match (the caller keeps
/// the word as written).
pub fn expand(word: &str, cwd: &Path) -> Result<Option<Vec<String>>, String> {
    if !has_marker(word) {
        return Ok(None);
    }
    let absolute = word.starts_with('/');
    let dir_only = word.ends_with('/');
    let comps: Vec<&str> = word.split('/').filter(|c| !c.is_empty()).collect();
    // (path to read from, text of the result so far)
    let mut cur: Vec<(PathBuf, String)> = vec![if absolute {
        (PathBuf::from("/"), String::from("/"))
    } else {
        (cwd.to_path_buf(), String::new())
    }];
    for (k, comp) in comps.iter().enumerate() {
        let last = k + 1 == comps.len();
        let mut next = Vec::new();
        if !has_marker(comp) || !comp.contains([STAR, QUESTION, OPEN]) {
            let lit = literal(comp);
            for (p, text) in cur {
                let joined = p.join(&lit);
                // Intermediate literal components must exist as directories
                // (bash checks them when matching what follows).
                if !last || joined.symlink_metadata().is_ok() {
                    next.push((
                        joined,
                        format!("{text}{lit}{}", if last { "" } else { "/" }),
                    ));
                }
            }
            cur = next;
            continue;
        }
        let toks = parse(comp)?;
        let dot_ok = comp.starts_with('.');
        for (p, text) in cur {
            let Ok(rd) = std::fs::read_dir(&p) else {
                continue;
            };
            let mut names: Vec<OsString> =
                rd.filter_map(|e| e.ok().map(|e| e.file_name())).collect();
            names.sort_by(|a, b| a.as_bytes().cmp(b.as_bytes()));
            for name in names {
                let nb = name.as_bytes();
                if nb == b"." || nb == b".." || (nb.first() == Some(&b'.') && !dot_ok) {
                    continue;
                }
                if !matches(&toks, nb) {
                    continue;
                }
                let path = p.join(&name);
                if (!last || dir_only) && !path.is_dir() {
                    continue;
                }
                let Ok(s) = String::from_utf8(name.into_vec()) else {
                    return Err("a file name that is not UTF-8 matched a glob".into());
                };
                next.push((path, format!("{text}{s}{}", if last { "" } else { "/" })));
            }
        }
        cur = next;
    }
    let mut out: Vec<String> = cur
        .into_iter()
        .map(|(_, t)| if dir_only { format!("{t}/") } else { t })
        .collect();
    if out.is_empty() {
        return Ok(None);
    }
    out.sort_by(|a, b| a.as_bytes().cmp(b.as_bytes()));
    out.dedup();
    Ok(Some(out))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pat(s: &str) -> String {
        s.chars()
            .map(|c| match c {
                '*' => STAR,
                '?' => QUESTION,
                '[' => OPEN,
                ']' => CLOSE,
                c => c,
            })
            .collect()
    }

    #[test]
    fn glob_fnmatch_basics() {
        let m = |p: &str, n: &str| matches(&parse(&pat(p)).unwrap(), n.as_bytes());
        assert!(m("*.log", "a.log"));
        assert!(!m("*.log", "a.log1"));
        assert!(m("a?c", "abc"));
        assert!(m("[ab]x", "bx"));
        assert!(!m("[!ab]x", "bx"));
        assert!(m("[^ab]x", "cx"));
        assert!(m("[a-c]*", "b1"));
        assert!(m("[[:digit:]]*", "7z"));
        assert!(m("[]]", "]"));
        assert!(m("[", "["), "an unclosed bracket is literal");
        assert!(m("*a*b*", "xxaybzz"));
        assert!(!m("*a*b*", "xxbyazz"));
    }
}
