//! Any pattern, in any syntax, with any of -i/-w/-x, either compiles or is
//! refused: it never panics. When it is a fixed string, or a BRE/ERE made only
//! of literal bytes, `.`, a leading `^` and a trailing `$`, line selection and
//! the `-o` matches must equal a naive reference matcher. For every pattern,
//! `Query::matches` must report non-empty, increasing, non-overlapping ranges
//! inside the line.
//!
//! Input: byte 0 picks the syntax (bits 0-1: 0 BRE, 1 ERE, 2/3 fixed) and the
//! flags (bit 2 -i, bit 3 -w, bit 4 -x); the rest, split on `\n`, is the
//! pattern and then up to 4 lines.
#![no_main]

use grail::{QueryBuilder, Syntax};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&sel, rest)) = data.split_first() else {
        return;
    };
    let syntax = match sel & 3 {
        0 => Syntax::Basic,
        1 => Syntax::Extended,
        _ => Syntax::Fixed,
    };
    let (i, w, x) = (sel & 4 != 0, sel & 8 != 0, sel & 16 != 0);
    let mut parts = rest.split(|&b| b == b'\n');
    let pat = parts.next().unwrap_or_default();
    if pat.len() > 256 {
        return;
    }
    let lines: Vec<&[u8]> = parts.take(4).collect();
    let built = QueryBuilder::new()
        .ignore_case(i)
        .word(w)
        .line(x)
        .include_with(syntax, pat)
        .build();
    let Ok(q) = built else { return };
    let simple = Simple::parse(pat, syntax);
    for line in lines {
        let repro = || {
            format!(
                "QueryBuilder::new().ignore_case({i}).word({w}).line({x}).include_with(Syntax::{syntax:?}, b\"{}\").build().unwrap() on line b\"{}\"",
                pat.escape_ascii(),
                line.escape_ascii()
            )
        };
        let got = q.is_selected(line);
        let ms = match q.matches(line) {
            Ok(ms) => ms,
            Err(_) => continue, // refused (automaton too large): fine
        };
        let mut prev = 0;
        for &(s, e) in &ms {
            assert!(
                prev <= s && s < e && e <= line.len(),
                "bad -o range ({s},{e}) in {ms:?}: {}",
                repro()
            );
            prev = e;
        }
        assert!(
            ms.is_empty() || got,
            "-o found {ms:?} but the line is not selected: {}",
            repro()
        );
        if let Some(simple) = &simple {
            let want = simple.selects(line, i, w, x);
            assert_eq!(got, want, "is_selected: {}", repro());
            let want_ms = simple.matches(line, i, w, x);
            assert_eq!(ms, want_ms, "matches (-o): {}", repro());
        }
    }
});

/// A pattern the reference matcher handles exactly: optional `^`, a fixed
/// number of atoms (a byte, or `.` for any byte), optional `$`.
struct Simple {
    start: bool,
    atoms: Vec<Option<u8>>, // None = `.`
    end: bool,
}

impl Simple {
    fn parse(p: &[u8], syntax: Syntax) -> Option<Simple> {
        if syntax == Syntax::Fixed {
            return Some(Simple {
                start: false,
                atoms: p.iter().map(|&b| Some(b)).collect(),
                end: false,
            });
        }
        let ere = syntax == Syntax::Extended;
        let mut s = Simple {
            start: p.first() == Some(&b'^'),
            atoms: Vec::new(),
            end: false,
        };
        let mut k = usize::from(s.start);
        while k < p.len() {
            match p[k] {
                b'\\' => match p.get(k + 1) {
                    Some(&c) if b".[]*^$\\".contains(&c) => {
                        s.atoms.push(Some(c));
                        k += 1;
                    }
                    _ => return None,
                },
                b'$' if k + 1 == p.len() => s.end = true,
                b'.' => s.atoms.push(None),
                b'[' | b']' | b'*' | b'^' | b'$' => return None,
                b'+' | b'?' | b'{' | b'}' | b'(' | b')' | b'|' if ere => return None,
                c => s.atoms.push(Some(c)),
            }
            k += 1;
        }
        Some(s)
    }

    /// Does the pattern match `l` at `p`, with -i/-w/-x applied?
    fn at(&self, l: &[u8], p: usize, i: bool, w: bool, x: bool) -> bool {
        let n = self.atoms.len();
        let word = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
        let eq = |a: u8, b: u8| {
            if i {
                a.eq_ignore_ascii_case(&b)
            } else {
                a == b
            }
        };
        p + n <= l.len()
            && (!self.start || p == 0)
            && (!self.end || p + n == l.len())
            && (!x || (p == 0 && p + n == l.len()))
            && (!w || x || ((p == 0 || !word(l[p - 1])) && (p + n == l.len() || !word(l[p + n]))))
            && self
                .atoms
                .iter()
                .zip(&l[p..])
                .all(|(a, &b)| a.is_none_or(|a| eq(a, b)))
    }

    fn selects(&self, l: &[u8], i: bool, w: bool, x: bool) -> bool {
        (0..=l.len()).any(|p| self.at(l, p, i, w, x))
    }

    /// Leftmost non-overlapping non-empty matches (all matches have one length).
    fn matches(&self, l: &[u8], i: bool, w: bool, x: bool) -> Vec<(usize, usize)> {
        let n = self.atoms.len();
        let mut out = Vec::new();
        let mut p = 0;
        while n > 0 && p + n <= l.len() {
            if self.at(l, p, i, w, x) {
                out.push((p, p + n));
                p += n;
            } else {
                p += 1;
            }
        }
        out
    }
}
