//! GNU grep pattern syntax (BRE, ERE, fixed strings) translated to
//! `regex-syntax` HIR, with the semantics of GNU grep 3.8 under `LC_ALL=C`.
//!
//! The translation is written by hand rather than by rewriting the pattern
//! into another regex dialect because the two dialects disagree on many small
//! points (where `*` is literal, when `{` starts an interval, what `[^a]`
//! matches across lines). Every rule below was checked against GNU grep 3.8;
//! the conformance tests in `tests/conformance.rs` pin them.
//!
//! Rules that matter for whole-buffer searching: no class, escape or `.` ever
//! matches `\n`, so a match can never cross a line, and `^`/`$` are the
//! line-anchored look-arounds `StartLF`/`EndLF`.

use super::hir::*;
use regex_syntax::hir::{
    Class, ClassBytes, ClassBytesRange, ClassUnicode, ClassUnicodeRange, Hir, Look, Repetition,
};

/// The largest repetition count GNU regex accepts (`RE_DUP_MAX`).
const RE_DUP_MAX: u32 = 0x7fff;

/// How deep groups and repetitions may nest. GNU grep recurses over the
/// pattern too and reports "stack overflow" somewhere past ten thousand
/// levels (where depends on its stack); grail refuses past this depth with
/// a message instead of crashing, and compiles on a thread whose stack is
/// sized for it (see `query::build_on_big_stack`).
pub const MAX_NESTING: usize = 10_000;

/// Pattern dialect, as selected by grep's `-G`, `-E` and `-F`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Syntax {
    /// POSIX basic regular expressions with GNU extensions (`grep -G`, the default).
    Basic,
    /// POSIX extended regular expressions (`grep -E`).
    Extended,
    /// Fixed strings (`grep -F`).
    Fixed,
    /// Perl-compatible regular expressions (`grep -P`), run by PCRE2.
    Perl,
}

/// Why a pattern could not be translated.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PatternError {
    /// The pattern is invalid; the text is GNU grep's own message.
    Invalid(String),
    /// The pattern is valid for GNU grep but uses a feature grail cannot run
    /// exactly (back-references).
    Unsupported(String),
}

/// Constructs that GNU grep's two matchers (its DFA and glibc regex) read
/// differently; grail records them so it can refuse where its answer would
/// not be grep's.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Quirks {
    /// An ERE repetition operator with nothing to repeat (`*a`, `(+b)`):
    /// lines are selected alike, but `-o` prints differently.
    pub leading_repetition: bool,
    /// A repeated `^`/`$` (`^*`, `$+`): same selection, different `-o`.
    pub repeated_anchor: bool,
    /// An unmatched `)` in ERE: with `-w`/`-x` grep wraps the pattern in
    /// parentheses textually and the `)` closes the wrapper.
    pub stray_close: bool,
    /// A back-reference (`\1`), or in a UTF-8 locale a word edge (`\b`,
    /// `\<`…) or `-w`: the translation is loosened, a superset of the lines
    /// the pattern matches, and glibc's regex decides each candidate line.
    pub backref: bool,
}

/// Flags that change how every pattern is translated.
#[derive(Clone, Copy, Debug, Default)]
pub struct Flags {
    /// `-i`: ASCII case-insensitive (the C locale has no other letters).
    pub ignore_case: bool,
    /// `-w`: the match must be preceded and followed by a non-word byte or a line edge.
    pub word: bool,
    /// `-x`: the match must be the whole line.
    pub line: bool,
    /// `-z`: the data has NUL and newline swapped (records end in `\n`).
    pub null_data: bool,
    /// A UTF-8 locale: `.` and bracket expressions match characters, and
    /// classes and case follow the C library's tables for the locale.
    pub utf8: bool,
}

/// Translate one pattern (no newlines: the caller splits on them) into HIR.
#[cfg(test)]
pub fn translate(pattern: &[u8], syntax: Syntax, flags: Flags) -> Result<Hir, PatternError> {
    translate_quirks(pattern, syntax, flags).map(|(h, _)| h)
}

/// [`translate`], also reporting the [`Quirks`] the pattern uses.
pub fn translate_quirks(
    pattern: &[u8],
    syntax: Syntax,
    flags: Flags,
) -> Result<(Hir, Quirks), PatternError> {
    let mut quirks = Quirks::default();
    let core = match syntax {
        Syntax::Fixed if flags.utf8 && flags.ignore_case => utf8_literal_hir(pattern),
        Syntax::Fixed => literal_hir(pattern, flags.ignore_case),
        // PCRE2 decides every line (see `query::pcre`): the automaton's part
        // matches them all.
        Syntax::Perl => return Ok((Hir::empty(), quirks)),
        Syntax::Basic | Syntax::Extended => {
            let mut p = Parser {
                pat: pattern,
                pos: 0,
                ere: syntax == Syntax::Extended,
                icase: flags.ignore_case,
                utf8: flags.utf8,
                quirks: Quirks::default(),
            };
            let hir = p.parse_alternation(0)?;
            if p.pos != p.pat.len() {
                // Only an unmatched closing group can stop the top level early.
                return Err(PatternError::Invalid("Unmatched ) or \\)".into()));
            }
            quirks = p.quirks;
            hir
        }
    };
    // The parser bounds group nesting; chained intervals (`a{2}{2}…`)
    // nest without groups, so the depth of the result is checked too.
    if depth(&core) > MAX_NESTING {
        return Err(too_deep());
    }
    // -w in a UTF-8 locale: glibc's regex decides, with grep's -w loop and
    // the locale's word characters (a byte that is not UTF-8 is no word).
    if flags.utf8 && flags.word {
        quirks.backref = true;
    }
    if quirks.stray_close && (flags.word || flags.line) {
        return Err(PatternError::Unsupported(
            "an unmatched ')' with -w or -x: GNU grep wraps the pattern in parentheses as text, so the ')' \
             closes the wrapper; write it as \\) to mean a literal ')'"
                .into(),
        ));
    }
    // glibc's regex applies -w and -x itself where it decides the line (in
    // a UTF-8 locale a non-word neighbour may also be a byte that is not
    // UTF-8, which the automaton's word edges would refuse).
    let wrapped = if quirks.backref && flags.utf8 {
        core
    } else {
        wrap(core, flags)
    };
    Ok((terminated(wrapped, flags.null_data), quirks))
}

fn too_deep() -> PatternError {
    PatternError::Unsupported(format!(
        "stack overflow: groups or repetitions nested more than {MAX_NESTING} levels deep"
    ))
}

/// Apply a repetition operator to `sub`. A `*`, `+` or `?` applied to a
/// `*` or `+` is folded into one operator (`a**` is `a*`, `a+?` is `a*`),
/// so a run of such operators does not nest.
fn repeat(sub: Hir, min: u32, max: Option<u32>) -> Hir {
    if let regex_syntax::hir::HirKind::Repetition(r) = sub.kind() {
        let simple = |m: u32, x: Option<u32>| m <= 1 && x.is_none();
        let op = |m: u32, x: Option<u32>| {
            (m, x) == (0, None) || (m, x) == (1, None) || (m, x) == (0, Some(1))
        };
        if r.greedy && simple(r.min, r.max) && op(min, max) {
            let min = if r.min == 1 && min == 1 { 1 } else { 0 };
            return Hir::repetition(Repetition {
                min,
                max: None,
                greedy: true,
                sub: r.sub.clone(),
            });
        }
    }
    Hir::repetition(Repetition {
        min,
        max,
        greedy: true,
        sub: Box::new(sub),
    })
}

/// The nesting depth of `hir`, computed without recursion.
fn depth(hir: &Hir) -> usize {
    use regex_syntax::hir::HirKind;
    let mut max = 0;
    let mut stack = vec![(hir, 1usize)];
    while let Some((h, d)) = stack.pop() {
        max = max.max(d);
        match h.kind() {
            HirKind::Concat(v) | HirKind::Alternation(v) => {
                stack.extend(v.iter().map(|c| (c, d + 1)))
            }
            HirKind::Repetition(r) => stack.push((&r.sub, d + 1)),
            HirKind::Capture(c) => stack.push((&c.sub, d + 1)),
            _ => {}
        }
    }
    max
}

fn invalid(msg: &str) -> PatternError {
    PatternError::Invalid(msg.to_string())
}

struct Parser<'a> {
    pat: &'a [u8],
    pos: usize,
    ere: bool,
    icase: bool,
    utf8: bool,
    quirks: Quirks,
}

/// A member of a bracket expression: a byte or character, a range, or a
/// named class.
enum Member {
    One(u32),
    Range(u32, u32),
    Class(Vec<u8>),
}

/// One element of a branch, before repetition operators are applied.
enum Piece {
    Atom(Hir),
    /// A `^` anchor in BRE: `*` right after it is literal.
    BreCaret,
}

impl<'a> Parser<'a> {
    fn peek(&self) -> Option<u8> {
        self.pat.get(self.pos).copied()
    }

    fn peek_at(&self, off: usize) -> Option<u8> {
        self.pat.get(self.pos + off).copied()
    }

    fn at_alt(&self) -> bool {
        if self.ere {
            self.peek() == Some(b'|')
        } else {
            self.peek() == Some(b'\\') && self.peek_at(1) == Some(b'|')
        }
    }

    fn at_close(&self) -> bool {
        if self.ere {
            self.peek() == Some(b')')
        } else {
            self.peek() == Some(b'\\') && self.peek_at(1) == Some(b')')
        }
    }

    fn parse_alternation(&mut self, depth: usize) -> Result<Hir, PatternError> {
        let mut branches = vec![self.parse_branch(depth)?];
        while self.at_alt() {
            self.pos += if self.ere { 1 } else { 2 };
            branches.push(self.parse_branch(depth)?);
        }
        Ok(if branches.len() == 1 {
            branches.pop().unwrap()
        } else {
            Hir::alternation(branches)
        })
    }

    fn parse_branch(&mut self, depth: usize) -> Result<Hir, PatternError> {
        let mut items: Vec<Hir> = Vec::new();
        // The last piece, still open to repetition operators.
        let mut last: Option<Piece> = None;
        // Whether glibc regex (which GNU grep also compiles every pattern
        // with) sees a single-character repetition operator here as having
        // nothing to repeat: at a branch start or after an assertion.
        let mut glibc_leading = true;
        while let Some(c) = self.peek() {
            if self.at_alt() {
                break;
            }
            if self.at_close() {
                if depth > 0 {
                    break;
                }
                if self.ere {
                    // An unmatched `)` in ERE is an ordinary character.
                    self.pos += 1;
                    self.quirks.stray_close = true;
                    push_piece(&mut items, &mut last, Piece::Atom(byte_hir(b')', false)));
                    continue;
                }
                return Err(invalid("Unmatched ) or \\)"));
            }
            // Repetition operators.
            if let Some((min, max, len)) = self.repetition_op()? {
                if self.ere && matches!(c, b'*' | b'+' | b'?') && glibc_leading {
                    // glibc skips such operators and reads what follows as
                    // an atom, even a `)`: the group is then unclosed.
                    let mut j = self.pos;
                    while matches!(self.pat.get(j), Some(b'*' | b'+' | b'?')) {
                        j += 1;
                    }
                    if depth > 0 && self.pat.get(j) == Some(&b')') {
                        return Err(invalid("Unmatched ( or \\("));
                    }
                } else {
                    // A leading `{…}` is ordinary text to glibc.
                    glibc_leading = false;
                }
                match last.take() {
                    Some(Piece::Atom(h)) => {
                        if let regex_syntax::hir::HirKind::Look(look) = h.kind() {
                            match look {
                                Look::StartLF | Look::EndLF => self.quirks.repeated_anchor = true,
                                _ => {
                                    return Err(PatternError::Unsupported(
                                        "a repetition operator applied to a word-boundary assertion \
                                         (\\<, \\>, \\b, \\B): GNU grep's meaning for it is not reproduced"
                                            .into(),
                                    ))
                                }
                            }
                        }
                        self.pos += len;
                        last = Some(Piece::Atom(repeat(h, min, max)));
                        continue;
                    }
                    other => {
                        last = other;
                        if self.ere {
                            // ERE: an operator with nothing before it repeats
                            // the empty string (GNU warns and goes on).
                            self.pos += len;
                            self.quirks.leading_repetition = true;
                            continue;
                        }
                        // BRE: `*` (or `\{`, `\+`, `\?`) at the start of an
                        // expression or after a leading `^` is literal.
                        let lit = if c == b'*' {
                            self.pos += 1;
                            b'*'
                        } else {
                            self.pos += 2;
                            self.pat[self.pos - 1]
                        };
                        push_piece(
                            &mut items,
                            &mut last,
                            Piece::Atom(byte_hir(lit, self.icase)),
                        );
                        continue;
                    }
                }
            }
            let at_start = items.is_empty() && last.is_none();
            let piece = self.parse_atom(depth, at_start)?;
            glibc_leading = match &piece {
                Piece::BreCaret => true,
                Piece::Atom(h) => matches!(h.kind(), regex_syntax::hir::HirKind::Look(_)),
            };
            push_piece(&mut items, &mut last, piece);
        }
        if let Some(p) = last {
            items.push(piece_hir(p));
        }
        Ok(match items.len() {
            0 => Hir::empty(),
            1 => items.pop().unwrap(),
            _ => Hir::concat(items),
        })
    }

    /// If a repetition operator starts here, return (min, max, length).
    /// An ERE `{` that does not start a valid interval is not an operator.
    fn repetition_op(&self) -> Result<Option<(u32, Option<u32>, usize)>, PatternError> {
        let c = self.peek().unwrap();
        if c == b'*' {
            return Ok(Some((0, None, 1)));
        }
        if self.ere {
            return match c {
                b'+' => Ok(Some((1, None, 1))),
                b'?' => Ok(Some((0, Some(1), 1))),
                b'{' => self.interval(self.pos + 1),
                _ => Ok(None),
            };
        }
        if c != b'\\' {
            return Ok(None);
        }
        match self.peek_at(1) {
            Some(b'+') => Ok(Some((1, None, 2))),
            Some(b'?') => Ok(Some((0, Some(1), 2))),
            Some(b'{') => self.interval(self.pos + 2),
            _ => Ok(None),
        }
    }

    /// Parse an interval body starting at `start` (just after `{` / `\{`).
    fn interval(&self, start: usize) -> Result<Option<(u32, Option<u32>, usize)>, PatternError> {
        let p = self.pat;
        let mut i = start;
        let num = |i: &mut usize| -> Option<u32> {
            let s = *i;
            let mut v: u32 = 0;
            while *i < p.len() && p[*i].is_ascii_digit() {
                v = (v * 10 + u32::from(p[*i] - b'0')).min(RE_DUP_MAX + 1);
                *i += 1;
            }
            (*i > s).then_some(v)
        };
        let min = num(&mut i);
        let mut max = min;
        let mut comma = false;
        if i < p.len() && p[i] == b',' {
            comma = true;
            i += 1;
            max = num(&mut i);
        }
        let close_ok = if self.ere {
            i < p.len() && p[i] == b'}'
        } else {
            i + 1 < p.len() && p[i] == b'\\' && p[i + 1] == b'}'
        };
        let body_empty = min.is_none() && !comma;
        if !close_ok {
            if self.ere {
                return Ok(None); // `{` is an ordinary character
            }
            return Err(invalid("Unmatched \\{"));
        }
        if body_empty {
            return Err(invalid("Invalid content of \\{\\}"));
        }
        let min_v = min.unwrap_or(0);
        if let Some(m) = max {
            if min_v > m {
                return Err(invalid("Invalid content of \\{\\}"));
            }
            if m > RE_DUP_MAX {
                return Err(invalid("Regular expression too big"));
            }
        }
        if min_v > RE_DUP_MAX {
            return Err(invalid("Regular expression too big"));
        }
        let end = i + if self.ere { 1 } else { 2 };
        let max = if comma { max } else { Some(min_v) };
        Ok(Some((min_v, max, end - self.pos)))
    }

    fn parse_atom(&mut self, depth: usize, at_start: bool) -> Result<Piece, PatternError> {
        let c = self.peek().unwrap();
        match c {
            b'.' => {
                self.pos += 1;
                Ok(Piece::Atom(if self.utf8 {
                    any_char()
                } else {
                    class_hir(ranges(&[(0, 255)]), false)
                }))
            }
            b'[' => {
                self.pos += 1;
                Ok(Piece::Atom(if self.utf8 {
                    self.parse_bracket_utf8()?
                } else {
                    self.parse_bracket()?
                }))
            }
            b'^' => {
                self.pos += 1;
                if self.ere {
                    Ok(Piece::Atom(Hir::look(Look::StartLF)))
                } else if at_start {
                    Ok(Piece::BreCaret)
                } else {
                    Ok(Piece::Atom(byte_hir(b'^', false)))
                }
            }
            b'$' => {
                self.pos += 1;
                if self.ere
                    || self.pos == self.pat.len()
                    || self.at_alt()
                    || (depth > 0 && self.at_close())
                {
                    Ok(Piece::Atom(Hir::look(Look::EndLF)))
                } else {
                    Ok(Piece::Atom(byte_hir(b'$', false)))
                }
            }
            b'(' if self.ere => {
                self.pos += 1;
                self.group(depth)
            }
            b'\\' => self.parse_escape(depth),
            _ if self.utf8 && (c >= 0x80 || (self.icase && c.is_ascii_alphabetic())) => {
                let (ch, n) = decode(&self.pat[self.pos..]);
                self.pos += n;
                Ok(Piece::Atom(match ch {
                    Some(ch) => utf8_char_hir(ch, self.icase),
                    None => Hir::literal(vec![c]),
                }))
            }
            _ => {
                self.pos += 1;
                Ok(Piece::Atom(byte_hir(c, self.icase)))
            }
        }
    }

    fn group(&mut self, depth: usize) -> Result<Piece, PatternError> {
        if depth >= MAX_NESTING {
            return Err(too_deep());
        }
        let inner = self.parse_alternation(depth + 1)?;
        if !self.at_close() {
            return Err(invalid("Unmatched ( or \\("));
        }
        self.pos += if self.ere { 1 } else { 2 };
        Ok(Piece::Atom(inner))
    }

    fn parse_escape(&mut self, depth: usize) -> Result<Piece, PatternError> {
        let Some(e) = self.peek_at(1) else {
            return Err(invalid("Trailing backslash"));
        };
        self.pos += 2;
        let atom = match e {
            b'(' if !self.ere => return self.group(depth),
            b'1'..=b'9' => {
                // No automaton matches a back-reference: the pattern is
                // loosened here (the reference matches any bytes) and each
                // candidate line is decided by glibc's regex, as grep does.
                self.quirks.backref = true;
                Hir::repetition(Repetition {
                    min: 0,
                    max: None,
                    greedy: true,
                    sub: Box::new(class_hir(ranges(&[(0, 255)]), false)),
                })
            }
            b'w' if self.utf8 => utf8_class(b"alnum", Some('_'), false),
            b'W' if self.utf8 => utf8_class(b"alnum", Some('_'), true),
            b's' if self.utf8 => utf8_class(b"space", None, false),
            b'S' if self.utf8 => utf8_class(b"space", None, true),
            // grep's DFA cannot do word edges in a multibyte locale: glibc's
            // regex decides such a pattern (the automaton runs it without
            // the edge, a superset).
            b'b' | b'B' | b'<' | b'>' if self.utf8 => {
                self.quirks.backref = true;
                Hir::empty()
            }
            b'w' => class_hir(word_class(), false),
            b'W' => class_hir(negated(word_class()), false),
            b's' => class_hir(space_class(), false),
            b'S' => class_hir(negated(space_class()), false),
            b'b' => Hir::look(Look::WordAscii),
            b'B' => Hir::look(Look::WordAsciiNegate),
            b'<' => Hir::look(Look::WordStartAscii),
            b'>' => Hir::look(Look::WordEndAscii),
            b'`' => Hir::look(Look::StartLF),
            b'\'' => Hir::look(Look::EndLF),
            // Anything else escaped is itself (GNU 3.8 warns about stray `\`).
            other
                if self.utf8 && (other >= 0x80 || (self.icase && other.is_ascii_alphabetic())) =>
            {
                self.pos -= 1;
                let (ch, n) = decode(&self.pat[self.pos..]);
                self.pos += n;
                match ch {
                    Some(ch) => utf8_char_hir(ch, self.icase),
                    None => Hir::literal(vec![other]),
                }
            }
            other => byte_hir(other, self.icase),
        };
        Ok(Piece::Atom(atom))
    }

    /// Parse a bracket expression; `self.pos` is just after `[`.
    /// The members of a bracket expression (`self.pos` is just after `[`;
    /// it ends after the `]`), with grep's errors, and whether it is
    /// negated. In a UTF-8 locale members are characters (a byte that is
    /// not UTF-8 is no member: such bytes never match a bracket in grep),
    /// and a range or collating element must be ASCII ("Invalid collation
    /// character" otherwise).
    fn bracket_members(&mut self) -> Result<(bool, Vec<Member>), PatternError> {
        const UNMATCHED: &str = "Unmatched [, [^, [:, [., or [=";
        const COLLATION: &str = "Invalid collation character";
        let p = self.pat;
        let mut i = self.pos;
        let negate = p.get(i) == Some(&b'^');
        if negate {
            i += 1;
        }
        let content_start = i;
        let mut members = Vec::new();
        let mut first = true;
        // The previous single member that may start a range.
        let mut prev: Option<u32> = None;
        // One element `[.c.]`/`[=c=]` at `i`: its byte and where it ends.
        let collating = |i: usize| -> Result<(u32, usize), PatternError> {
            let kind = p[i + 1];
            let j = bracket_item_end(p, i + 2, kind)?;
            let name = &p[i + 2..j];
            if name.len() != 1 || (self.utf8 && !name[0].is_ascii()) {
                return Err(invalid(COLLATION));
            }
            Ok((name[0] as u32, j + 2))
        };
        loop {
            let Some(&c) = p.get(i) else {
                return Err(invalid(UNMATCHED));
            };
            if c == b']' && !first {
                break;
            }
            first = false;
            if c == b'[' && p.get(i + 1) == Some(&b':') {
                let j = bracket_item_end(p, i + 2, b':')?;
                let name = p[i + 2..j].to_vec();
                if named_class(&name).is_none() {
                    return Err(invalid("Invalid character class name"));
                }
                i = j + 2;
                members.push(Member::Class(name));
                if p.get(i) == Some(&b'-') && p.get(i + 1) != Some(&b']') {
                    return Err(invalid("Invalid range end"));
                }
                prev = None;
                continue;
            }
            if c == b'[' && matches!(p.get(i + 1), Some(b'=' | b'.')) {
                let (m, next) = collating(i)?;
                i = next;
                members.push(Member::One(m));
                prev = Some(m);
                continue;
            }
            // A range `a-z` (the `-` must not be the last byte before `]`).
            if c == b'-' && i != content_start && p.get(i + 1) != Some(&b']') {
                let Some(lo) = prev else {
                    return Err(invalid("Invalid range end"));
                };
                i += 1;
                let hi = match p.get(i) {
                    None => return Err(invalid(UNMATCHED)),
                    Some(b'[') if matches!(p.get(i + 1), Some(b'.' | b'=')) => {
                        let (m, next) = collating(i)?;
                        i = next;
                        m
                    }
                    Some(b'[') if p.get(i + 1) == Some(&b':') => {
                        return Err(invalid("Invalid range end"));
                    }
                    Some(&b) if !self.utf8 || b.is_ascii() => {
                        i += 1;
                        b as u32
                    }
                    Some(_) => return Err(invalid(COLLATION)),
                };
                if self.utf8 && lo > 0x7F {
                    return Err(invalid(COLLATION));
                }
                if hi < lo {
                    return Err(invalid("Invalid range end"));
                }
                members.push(Member::Range(lo, hi));
                // A range end cannot start another range.
                prev = None;
                if p.get(i) == Some(&b'-') && p.get(i + 1) != Some(&b']') {
                    return Err(invalid("Invalid range end"));
                }
                continue;
            }
            let (m, n) = if self.utf8 {
                let (ch, n) = decode(&p[i..]);
                (ch.map(|c| c as u32), n)
            } else {
                (Some(c as u32), 1)
            };
            if let Some(m) = m {
                members.push(Member::One(m));
            }
            prev = m;
            i += n;
        }
        let content = &p[content_start..i];
        self.pos = i + 1;
        if content.len() >= 2 && content[0] == b':' && content[content.len() - 1] == b':' {
            return Err(invalid(
                "character class syntax is [[:space:]], not [:space:]",
            ));
        }
        Ok((negate, members))
    }

    /// A bracket expression in a UTF-8 locale: a set of characters, the
    /// classes from the C library (with `-i`, upper and lower mean alpha,
    /// as in grep's DFA).
    fn parse_bracket_utf8(&mut self) -> Result<Hir, PatternError> {
        let (negate, members) = self.bracket_members()?;
        let mut set = ClassUnicode::empty();
        let ch = |m: u32| char::from_u32(m).unwrap_or('\u{FFFD}');
        for m in members {
            match m {
                Member::One(c) => set.push(ClassUnicodeRange::new(ch(c), ch(c))),
                Member::Range(lo, hi) => set.push(ClassUnicodeRange::new(ch(lo), ch(hi))),
                Member::Class(name) => {
                    let name: &[u8] = if self.icase && matches!(&name[..], b"upper" | b"lower") {
                        b"alpha"
                    } else {
                        &name
                    };
                    set.union(&super::locale::class(name).unwrap_or_else(ClassUnicode::empty));
                }
            }
        }
        if self.icase {
            set = super::locale::fold(&set);
        }
        if negate {
            set.negate();
        }
        Ok(Hir::class(Class::Unicode(set)))
    }

    /// Parse a bracket expression; `self.pos` is just after `[`.
    fn parse_bracket(&mut self) -> Result<Hir, PatternError> {
        let (negate, members) = self.bracket_members()?;
        let mut set = ClassBytes::empty();
        for m in members {
            match m {
                Member::One(b) => set.push(ClassBytesRange::new(b as u8, b as u8)),
                Member::Range(lo, hi) => set.push(ClassBytesRange::new(lo as u8, hi as u8)),
                Member::Class(name) => {
                    set.union(&named_class(&name).unwrap_or_else(ClassBytes::empty))
                }
            }
        }
        if negate {
            if self.icase {
                set.case_fold_simple();
            }
            set.negate();
            return Ok(class_hir(set, false));
        }
        Ok(class_hir(set, self.icase))
    }
}

/// The end of a `[:name:]`, `[=c=]` or `[.c.]` body starting at `body`:
/// the index of the closing `kind` byte (followed by `]`).
fn bracket_item_end(p: &[u8], body: usize, kind: u8) -> Result<usize, PatternError> {
    let mut j = body;
    loop {
        if j + 1 >= p.len() {
            return Err(invalid("Unmatched [, [^, [:, [., or [="));
        }
        if p[j] == kind && p[j + 1] == b']' {
            return Ok(j);
        }
        j += 1;
    }
}

fn piece_hir(p: Piece) -> Hir {
    match p {
        Piece::Atom(h) => h,
        Piece::BreCaret => Hir::look(Look::StartLF),
    }
}

fn push_piece(items: &mut Vec<Hir>, last: &mut Option<Piece>, next: Piece) {
    if let Some(p) = last.take() {
        items.push(piece_hir(p));
    }
    *last = Some(next);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ok(p: &str, s: Syntax) -> bool {
        translate(p.as_bytes(), s, Flags::default()).is_ok()
    }

    #[test]
    fn errors_match_gnu_messages() {
        let e = |p: &str, s| translate(p.as_bytes(), s, Flags::default()).unwrap_err();
        assert_eq!(e("a\\{1", Syntax::Basic), invalid("Unmatched \\{"));
        assert_eq!(e("(a", Syntax::Extended), invalid("Unmatched ( or \\("));
        assert_eq!(
            e("[a", Syntax::Extended),
            invalid("Unmatched [, [^, [:, [., or [=")
        );
        assert_eq!(e("a\\", Syntax::Basic), invalid("Trailing backslash"));
        assert_eq!(e("[z-a]", Syntax::Basic), invalid("Invalid range end"));
        // A back-reference is translated loosely (glibc decides the line).
        let (_, q) = translate_quirks(b"\\(a\\)\\1", Syntax::Basic, Flags::default()).unwrap();
        assert!(q.backref);
    }

    #[test]
    fn ere_brace_without_interval_is_literal() {
        assert!(ok("a{1", Syntax::Extended));
        assert!(ok("a{x", Syntax::Extended));
        assert!(!ok("x{}", Syntax::Extended));
    }
}
