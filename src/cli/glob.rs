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

use super::fnmatch::Pattern;

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

/// One path component's pattern as an fnmatch pattern: the marked
/// characters are special, every other `*?[]\\` is quoted (`!`, `^` and
/// `-` keep their meaning inside a bracket, as bash gives them). `Err` for
/// what grail does not expand.
fn parse(comp: &str) -> Result<Pattern, String> {
    let mut p = Vec::with_capacity(comp.len());
    for c in comp.chars() {
        match c {
            STAR => p.push(b'*'),
            QUESTION => p.push(b'?'),
            OPEN => p.push(b'['),
            CLOSE => p.push(b']'),
            c => {
                if "*?[]\\".contains(c) {
                    p.push(b'\\');
                }
                let mut b = [0u8; 4];
                p.extend_from_slice(c.encode_utf8(&mut b).as_bytes());
            }
        }
    }
    let pat = Pattern::new(&p);
    if pat.never() {
        return Err(format!(
            "the glob '{}' (an unknown character class)",
            literal(comp)
        ));
    }
    Ok(pat)
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
        let pattern = parse(comp)?;
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
                if !pattern.matches(nb) {
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
    fn glob_components_are_fnmatch_patterns() {
        let m = |p: &str, n: &str| parse(&pat(p)).unwrap().matches(n.as_bytes());
        assert!(m("*.log", "a.log"));
        assert!(m("[!ab]x", "cx"));
        assert!(m("[[:digit:]]*", "7z"));
        // Quoted characters are literal: the splitter left them unmarked.
        assert!(parse("[ab]").unwrap().matches(b"[ab]"));
        assert!(parse(&format!("{OPEN}!a{CLOSE}")).unwrap().matches(b"b"));
        assert!(parse(&format!("{OPEN}\\a{CLOSE}")).unwrap().matches(b"\\"));
        assert!(parse(&pat("[[:nope:]]")).is_err());
    }
}
