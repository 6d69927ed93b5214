//! The pieces patterns are built from, as HIR: bytes and byte classes of
//! the C locale, characters and classes of a UTF-8 locale, `-w`/`-x`
//! around a pattern, and the last pass that keeps every class off the line
//! terminator (the NUL's place for `-z`).

use super::parse::Flags;
use regex_syntax::hir::{
    Class, ClassBytes, ClassBytesRange, ClassUnicode, ClassUnicodeRange, Hir, Look,
};

/// No class may match the line terminator, so that a match never crosses a
/// line. Classes are built as grep defines them (with `\n` where the
/// definition has it); here the newline is taken out, and for `-z` data
/// (NUL and newline swapped) the NUL takes the newline's place first: a
/// class matches the NUL exactly where grep's matches a newline inside a
/// NUL-terminated record, and a literal NUL byte becomes a newline, which
/// no record holds.
pub(super) fn terminated(h: Hir, null_data: bool) -> Hir {
    use regex_syntax::hir::HirKind;
    let swap = |b: u8| match (null_data, b) {
        (true, 0) => b'\n',
        (true, b'\n') => 0,
        _ => b,
    };
    match h.into_kind() {
        HirKind::Class(Class::Bytes(set)) => {
            let mut member = [false; 256];
            for r in set.iter() {
                (r.start()..=r.end()).for_each(|b| member[swap(b) as usize] = true);
            }
            member[b'\n' as usize] = false;
            let mut runs = Vec::new();
            let mut b = 0usize;
            while b < 256 {
                let start = b;
                while b < 256 && member[b] {
                    b += 1;
                }
                if b > start {
                    runs.push(ClassBytesRange::new(start as u8, (b - 1) as u8));
                }
                b += 1;
            }
            Hir::class(Class::Bytes(ClassBytes::new(runs)))
        }
        HirKind::Class(Class::Unicode(mut set)) => {
            let has =
                |set: &ClassUnicode, c: char| set.iter().any(|r| r.start() <= c && c <= r.end());
            if null_data {
                let (nul, nl) = (has(&set, '\0'), has(&set, '\n'));
                set.difference(&ClassUnicode::new([ClassUnicodeRange::new('\0', '\0')]));
                if nl {
                    set.push(ClassUnicodeRange::new('\0', '\0'));
                }
                let _ = nul; // a NUL would become the newline, which no record holds
            }
            set.difference(&ClassUnicode::new([ClassUnicodeRange::new('\n', '\n')]));
            Hir::class(Class::Unicode(set))
        }
        HirKind::Literal(lit) if null_data => {
            Hir::literal(lit.0.iter().map(|&b| swap(b)).collect::<Vec<u8>>())
        }
        HirKind::Repetition(mut r) => {
            r.sub = Box::new(terminated(*r.sub, null_data));
            Hir::repetition(r)
        }
        HirKind::Capture(mut c) => {
            c.sub = Box::new(terminated(*c.sub, null_data));
            Hir::capture(c)
        }
        HirKind::Concat(v) => {
            Hir::concat(v.into_iter().map(|x| terminated(x, null_data)).collect())
        }
        HirKind::Alternation(v) => {
            Hir::alternation(v.into_iter().map(|x| terminated(x, null_data)).collect())
        }
        HirKind::Literal(lit) => Hir::literal(lit.0),
        HirKind::Look(l) => Hir::look(l),
        HirKind::Empty => Hir::empty(),
    }
}

/// A literal in a UTF-8 locale with `-i`: each character as a class of
/// itself and its case counterparts; bytes that are not UTF-8 as they are.
pub(super) fn utf8_literal_hir(bytes: &[u8]) -> Hir {
    let mut items = Vec::new();
    let mut rest = bytes;
    while !rest.is_empty() {
        let (c, n) = decode(rest);
        items.push(match c {
            Some(c) => utf8_char_hir(c, true),
            None => Hir::literal(vec![rest[0]]),
        });
        rest = &rest[n..];
    }
    Hir::concat(items)
}

/// The character at the start of `b` and its length (`None`, 1: a byte
/// that does not start a valid UTF-8 character).
pub(super) fn decode(b: &[u8]) -> (Option<char>, usize) {
    let want = match b[0] {
        0x00..=0x7F => 1,
        0xC2..=0xDF => 2,
        0xE0..=0xEF => 3,
        0xF0..=0xF4 => 4,
        _ => return (None, 1),
    };
    match b.get(..want).and_then(|s| std::str::from_utf8(s).ok()) {
        Some(s) => (s.chars().next(), want),
        None => (None, 1),
    }
}

/// One character in a UTF-8 locale (`icase`: with its counterparts).
pub(super) fn utf8_char_hir(c: char, icase: bool) -> Hir {
    if !icase {
        let mut b = [0u8; 4];
        return Hir::literal(c.encode_utf8(&mut b).as_bytes().to_vec());
    }
    let set: Vec<ClassUnicodeRange> = super::locale::counterparts(c)
        .into_iter()
        .map(|x| ClassUnicodeRange::new(x, x))
        .collect();
    Hir::class(Class::Unicode(ClassUnicode::new(set)))
}

/// Any character (a UTF-8 locale's `.`).
pub(super) fn any_char() -> Hir {
    Hir::class(Class::Unicode(ClassUnicode::new([ClassUnicodeRange::new(
        '\0',
        char::MAX,
    )])))
}

/// A class of the UTF-8 locale, or its complement.
pub(super) fn utf8_class(name: &[u8], extra: Option<char>, negate: bool) -> Hir {
    let mut set = super::locale::class(name).unwrap_or_else(ClassUnicode::empty);
    if let Some(c) = extra {
        set.push(ClassUnicodeRange::new(c, c));
    }
    if negate {
        set.negate();
    }
    Hir::class(Class::Unicode(set))
}

/// Apply `-x` / `-w` around a translated pattern.
pub(super) fn wrap(core: Hir, flags: Flags) -> Hir {
    if flags.line {
        Hir::concat(vec![Hir::look(Look::StartLF), core, Hir::look(Look::EndLF)])
    } else if flags.word {
        // GNU's -w: some match of the pattern that is preceded by a non-word
        // byte (or the line start) and followed by one (or the line end).
        // The half-boundaries say exactly that, unlike `\b`, which would
        // also need the match's own first byte to be a word byte.
        Hir::concat(vec![
            Hir::look(Look::WordStartHalfAscii),
            core,
            Hir::look(Look::WordEndHalfAscii),
        ])
    } else {
        core
    }
}

pub(super) fn literal_hir(bytes: &[u8], icase: bool) -> Hir {
    if !icase || !bytes.iter().any(u8::is_ascii_alphabetic) {
        return Hir::literal(bytes.to_vec());
    }
    Hir::concat(bytes.iter().map(|&b| byte_hir(b, true)).collect())
}

pub(super) fn byte_hir(b: u8, icase: bool) -> Hir {
    if icase && b.is_ascii_alphabetic() {
        let mut c = ClassBytes::new([ClassBytesRange::new(b, b)]);
        c.case_fold_simple();
        Hir::class(Class::Bytes(c))
    } else {
        Hir::literal(vec![b])
    }
}

pub(super) fn class_hir(mut set: ClassBytes, icase: bool) -> Hir {
    if icase {
        set.case_fold_simple();
    }
    // The line terminator is taken out at the end (see `terminated`).
    Hir::class(Class::Bytes(set))
}

pub(super) fn ranges(rs: &[(u8, u8)]) -> ClassBytes {
    ClassBytes::new(rs.iter().map(|&(a, b)| ClassBytesRange::new(a, b)))
}

pub(super) fn word_class() -> ClassBytes {
    ranges(&[(b'0', b'9'), (b'A', b'Z'), (b'_', b'_'), (b'a', b'z')])
}

pub(super) fn space_class() -> ClassBytes {
    ranges(&[(b'\t', b'\r'), (b' ', b' ')])
}

pub(super) fn negated(mut c: ClassBytes) -> ClassBytes {
    c.negate();
    c
}

/// A POSIX character class in the C locale.
pub(super) fn named_class(name: &[u8]) -> Option<ClassBytes> {
    Some(match name {
        b"alpha" => ranges(&[(b'A', b'Z'), (b'a', b'z')]),
        b"digit" => ranges(&[(b'0', b'9')]),
        b"alnum" => ranges(&[(b'0', b'9'), (b'A', b'Z'), (b'a', b'z')]),
        b"upper" => ranges(&[(b'A', b'Z')]),
        b"lower" => ranges(&[(b'a', b'z')]),
        b"space" => space_class(),
        b"blank" => ranges(&[(b'\t', b'\t'), (b' ', b' ')]),
        b"punct" => ranges(&[(b'!', b'/'), (b':', b'@'), (b'[', b'`'), (b'{', b'~')]),
        b"print" => ranges(&[(b' ', b'~')]),
        b"graph" => ranges(&[(b'!', b'~')]),
        b"cntrl" => ranges(&[(0, 0x1f), (0x7f, 0x7f)]),
        b"xdigit" => ranges(&[(b'0', b'9'), (b'A', b'F'), (b'a', b'f')]),
        _ => return None,
    })
}
