//! Literal prefilters: [`Folded`] for case-insensitive includes, and
//! [`Plain`] for large case-sensitive literal sets (`-F -f names`, see
//! there).
//!
//! Case-insensitive: `-i error` is 32
//! case variants to regex-automata's literal extractor (`RuntimeError`
//! 4096), so its prefilter gives up and the lazy DFA reads every byte.
//! Here the include patterns are reduced to one lower-case literal per
//! alternative. On a CPU with AVX2 (32 bytes at a time) or SSSE3 (16),
//! Teddy ([`super::teddy`]) finds them with the text folded to lower case
//! inside the vector registers. Else (and for the last bytes, and for
//! literals shorter than 3 bytes) the text is folded a block at a time into
//! a buffer, and aho-corasick's case-sensitive search runs over it.
//! `GRAIL_SIMD=avx2|ssse3|sse2|scalar` forces a path (`sse2`: the buffer
//! fold the compiler vectorizes; `scalar`: the fold 8 bytes at a time in a
//! `u64`). The prefilter only says where to look: each candidate's line is then
//! searched by the query's own automaton, so nothing it does can change
//! which lines are selected; and since every match of a reduced pattern
//! contains one of its literals (in ASCII case folding, within one line),
//! no line with a match is skipped.
//!
//! It applies when every include pattern is an alternation of literals in
//! which some letter matches both cases: bytes, ASCII case pairs (`[Ee]`),
//! with anchors and word edges (zero-width) around them. A class with more
//! members (`[Kk\u{212A}]` in a UTF-8 locale, `[a-z]`), a repetition or a
//! group of alternatives keeps today's path.

use aho_corasick::{AhoCorasick, AhoCorasickKind, MatchKind};
use regex_syntax::hir::{Class, Hir, HirKind};

/// What one search's vector loop read: `hay[start..to]`, and whether a
/// NUL byte is there.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Seen {
    /// The end of the bytes read.
    pub to: usize,
    /// A NUL byte was among them.
    pub nul: bool,
}

/// Text is folded this much at a time (plus the longest literal).
const BLOCK: usize = 64 << 10;

/// Literals shorter than this make too many candidates to pay for the
/// folding: the automaton alone is faster.
const MIN_LEN: usize = 3;

/// The prefilter for the include patterns `hirs`, unless the environment
/// says `GRAIL_PREFILTER=off` (to measure, and to test both paths).
pub fn choose(hirs: &[Hir]) -> Option<Folded> {
    if std::env::var_os("GRAIL_PREFILTER").is_some_and(|v| v == "off") {
        return None;
    }
    Folded::new(hirs)
}

/// Case-insensitive (ASCII) search for any of a set of literals.
#[derive(Debug)]
pub struct Folded {
    ac: AhoCorasick,
    /// The same literals for the AVX2 path (which folds in registers).
    /// (Literals shorter than 3 bytes have no fingerprint: none then.)
    #[cfg(target_arch = "x86_64")]
    teddy: Option<super::teddy::Teddy>,
    /// The longest literal, less one: how far a block's fold reaches past
    /// its end.
    overlap: usize,
}

/// ASCII lower case of `b` (other bytes unchanged).
#[inline(always)]
pub(super) fn fold(b: u8) -> u8 {
    b | ((b.wrapping_sub(b'A') < 26) as u8) << 5
}

/// `src` folded into `dst`, by the widest vector code this CPU runs
/// (`GRAIL_SIMD=avx2|ssse3|sse2|scalar` forces one, to measure and to test each).
fn fold_into(dst: &mut Vec<u8>, src: &[u8]) {
    dst.resize(src.len(), 0);
    match simd() {
        #[cfg(target_arch = "x86_64")]
        Simd::Avx2 => {
            // SAFETY: `simd()` returns `Avx2` only when the CPU has AVX2.
            unsafe { fold_avx2(dst, src) }
        }
        #[cfg(target_arch = "x86_64")]
        Simd::Ssse3 => fold_slice(dst, src),
        Simd::Baseline => fold_slice(dst, src),
        Simd::Scalar => fold_swar(dst, src),
    }
}

/// The fold loop: the compiler vectorizes it (SSE2 on any x86-64, NEON on
/// aarch64).
#[inline(always)]
fn fold_slice(dst: &mut [u8], src: &[u8]) {
    for (d, &s) in dst.iter_mut().zip(src) {
        *d = fold(s);
    }
}

/// The fold without vector instructions: eight bytes at a time in a
/// 64-bit word (each byte's high bit tells whether it is `A`..=`Z`).
fn fold_swar(dst: &mut [u8], src: &[u8]) {
    const LO: u64 = 0x0101_0101_0101_0101;
    const HI: u64 = 0x8080_8080_8080_8080;
    let mut d = dst.chunks_exact_mut(8);
    let mut s = src.chunks_exact(8);
    for (d, s) in (&mut d).zip(&mut s) {
        let x = u64::from_le_bytes(s.try_into().expect("8 bytes"));
        let low7 = x & !HI;
        let from_a = low7 + (0x80 - u64::from(b'A')) * LO; // high bit: >= 'A'
        let past_z = low7 + (0x80 - u64::from(b'Z') - 1) * LO; // high bit: > 'Z'
        let upper = from_a & !past_z & !x & HI;
        d.copy_from_slice(&(x | (upper >> 2)).to_le_bytes());
    }
    for (d, &s) in d.into_remainder().iter_mut().zip(s.remainder()) {
        *d = fold(s);
    }
}

/// The fold loop compiled for AVX2 (32 bytes at a time).
///
/// # Safety
/// The CPU must support AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn fold_avx2(dst: &mut [u8], src: &[u8]) {
    fold_slice(dst, src)
}

/// The code paths of the fold.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Simd {
    /// 32-byte vectors (x86-64 with AVX2).
    #[cfg(target_arch = "x86_64")]
    Avx2,
    /// 16-byte vectors with `pshufb` (x86-64 with SSSE3): Teddy; the fold
    /// of the last bytes as the baseline does it.
    #[cfg(target_arch = "x86_64")]
    Ssse3,
    /// What every CPU of the target has (SSE2, NEON).
    Baseline,
    /// One byte at a time.
    Scalar,
}

/// The fold's code path: the best the CPU has, unless `GRAIL_SIMD` says
/// otherwise (a path the CPU lacks falls back to the baseline).
fn simd() -> Simd {
    static CHOICE: std::sync::OnceLock<Simd> = std::sync::OnceLock::new();
    *CHOICE.get_or_init(|| {
        #[cfg(target_arch = "x86_64")]
        let (avx2, ssse3) = (
            std::is_x86_feature_detected!("avx2"),
            std::is_x86_feature_detected!("ssse3"),
        );
        #[cfg(not(target_arch = "x86_64"))]
        let (avx2, ssse3) = (false, false);
        let narrow = || {
            #[cfg(target_arch = "x86_64")]
            if ssse3 {
                return Simd::Ssse3;
            }
            Simd::Baseline
        };
        let best = || {
            #[cfg(target_arch = "x86_64")]
            if avx2 {
                return Simd::Avx2;
            }
            narrow()
        };
        match std::env::var("GRAIL_SIMD").as_deref() {
            Ok("scalar") => Simd::Scalar,
            Ok("sse2") | Ok("neon") | Ok("baseline") => Simd::Baseline,
            Ok("ssse3") => narrow(),
            _ => best(),
        }
    })
}

/// [`super::teddy::Teddy`]'s search on the vector path `simd()` chose;
/// `None` on a path without one.
#[cfg(target_arch = "x86_64")]
fn teddy_find(
    t: &super::teddy::Teddy,
    hay: &[u8],
    start: usize,
    end: usize,
) -> Option<(super::teddy::Found, Seen)> {
    match simd() {
        // SAFETY: `simd()` returns `Avx2` only when the CPU has AVX2.
        Simd::Avx2 => Some(unsafe { t.find_avx2(hay, start, end) }),
        // SAFETY: `simd()` returns `Ssse3` only when the CPU has SSSE3.
        Simd::Ssse3 => Some(unsafe { t.find_ssse3(hay, start, end) }),
        _ => None,
    }
}

impl Folded {
    /// The prefilter for the include patterns `hirs`, or `None` when they
    /// do not reduce to case-insensitive literals (see the module docs).
    pub fn new(hirs: &[Hir]) -> Option<Folded> {
        let mut lits: Vec<Vec<u8>> = Vec::new();
        let mut any_pair = false;
        for h in hirs {
            alternatives(h, &mut lits, &mut any_pair)?;
        }
        if !any_pair || lits.is_empty() || lits.iter().any(|l| l.len() < MIN_LEN) {
            return None;
        }
        Folded::of(&lits)
    }

    /// The prefilter for these (already lower-case) literals.
    pub fn of(lits: &[Vec<u8>]) -> Option<Folded> {
        let ac = AhoCorasick::builder()
            .match_kind(MatchKind::LeftmostFirst)
            .kind(Some(AhoCorasickKind::DFA))
            .build(lits)
            .or_else(|_| {
                AhoCorasick::builder()
                    .match_kind(MatchKind::LeftmostFirst)
                    .build(lits)
            })
            .ok()?;
        let longest = lits.iter().map(Vec::len).max()?;
        Some(Folded {
            ac,
            #[cfg(target_arch = "x86_64")]
            teddy: lits
                .iter()
                .all(|l| l.len() >= 3)
                .then(|| super::teddy::Teddy::new(lits, true)),
            overlap: longest.saturating_sub(1),
        })
    }

    /// Where in `hay[start..end]` one of the literals starts, matching
    /// ASCII letters in either case (the first such place). `cache` holds
    /// the block last folded from this same `hay`: one search of a region
    /// keeps one, so that the candidates of one block fold it once.
    pub fn find(
        &self,
        cache: &mut FoldCache,
        hay: &[u8],
        start: usize,
        end: usize,
    ) -> Option<usize> {
        self.find_seen(cache, hay, start, end).0
    }

    /// [`Folded::find`], saying what the vector path read of
    /// `hay[start..]` and whether it held a NUL byte (nothing read, where
    /// there is no vector path).
    pub fn find_seen(
        &self,
        cache: &mut FoldCache,
        hay: &[u8],
        start: usize,
        end: usize,
    ) -> (Option<usize>, Seen) {
        let mut pos = start;
        let mut seen = Seen {
            to: start,
            nul: false,
        };
        #[cfg(target_arch = "x86_64")]
        if let Some(t) = &self.teddy {
            match teddy_find(t, hay, start, end) {
                Some((Ok((p, _)), s)) => return (Some(p), s),
                // Only the last bytes are left to the fold below.
                Some((Err(p), s)) => (pos, seen) = (p, s),
                None => {}
            }
        }
        (self.find_folding(cache, hay, pos, end), seen)
    }

    /// The fold a block at a time and aho-corasick over it, from `pos`.
    fn find_folding(
        &self,
        cache: &mut FoldCache,
        hay: &[u8],
        mut pos: usize,
        end: usize,
    ) -> Option<usize> {
        while pos < end {
            let block_end = (pos + BLOCK).min(end);
            let fold_end = (block_end + self.overlap).min(end);
            // The cached fold serves when it holds [pos, fold_end).
            if !(cache.from <= pos && fold_end <= cache.from + cache.buf.len()) {
                fold_into(&mut cache.buf, &hay[pos..fold_end]);
                cache.from = pos;
            }
            let from = cache.from;
            let input = aho_corasick::Input::new(&cache.buf[..fold_end - from]).range(pos - from..);
            if let Some(m) = self.ac.find(input) {
                let at = from + m.start();
                if at < block_end {
                    return Some(at);
                }
            }
            pos = block_end;
        }
        None
    }
}

/// Include patterns that are nothing but literals, case-sensitive, with no
/// anchors or word edges (`-F -f names.txt`, `-E 'RuntimeError|KeyError'`),
/// on a CPU with AVX2 or SSSE3: a literal found by Teddy (`teddy.rs`) is a match, so no
/// automaton confirms each candidate, and the fingerprints are the
/// literals' rarest shared bytes (60 exception names share `Err`), where
/// regex-automata's prefilter takes their first bytes.
#[derive(Debug)]
pub struct Plain {
    #[cfg(target_arch = "x86_64")]
    teddy: super::teddy::Teddy,
}

impl Plain {
    /// `None` unless every include is an alternation of literals of 3 bytes
    /// or more ([`PLAIN_MIN`] to [`MAX_LITERALS`] of them) and the CPU has AVX2 or
    /// SSSE3 (not with `GRAIL_PREFILTER=off` or `GRAIL_SIMD=sse2|scalar`).
    pub fn new(hirs: &[Hir]) -> Option<Plain> {
        if std::env::var_os("GRAIL_PREFILTER").is_some_and(|v| v == "off") {
            return None;
        }
        fn bytes(h: &Hir, out: &mut Vec<u8>) -> Option<()> {
            match h.kind() {
                HirKind::Literal(l) => {
                    out.extend_from_slice(&l.0);
                    Some(())
                }
                HirKind::Capture(c) => bytes(&c.sub, out),
                HirKind::Concat(parts) => parts.iter().try_for_each(|p| bytes(p, out)),
                _ => None,
            }
        }
        fn alts(h: &Hir, lits: &mut Vec<Vec<u8>>) -> Option<()> {
            match h.kind() {
                HirKind::Alternation(a) => a.iter().try_for_each(|x| alts(x, lits)),
                HirKind::Capture(c) => alts(&c.sub, lits),
                _ => {
                    let mut l = Vec::new();
                    bytes(h, &mut l)?;
                    // A newline in a literal is never within one line.
                    (l.len() >= MIN_LEN && !l.contains(&b'\n')).then(|| lits.push(l))
                }
            }
        }
        let mut lits = Vec::new();
        for h in hirs {
            alts(h, &mut lits)?;
        }
        if lits.len() < PLAIN_MIN || lits.len() > MAX_LITERALS {
            return None;
        }
        Plain::of(&lits)
    }

    /// The prefilter for these literals (each at least 3 bytes long), of
    /// any number, where the CPU has AVX2.
    pub fn of(lits: &[Vec<u8>]) -> Option<Plain> {
        if lits.is_empty() || lits.iter().any(|l| l.len() < 3) {
            return None;
        }
        match simd() {
            #[cfg(target_arch = "x86_64")]
            Simd::Avx2 | Simd::Ssse3 => Some(Plain {
                teddy: super::teddy::Teddy::new(lits, false),
            }),
            _ => None,
        }
    }

    /// The first literal in `hay[start..end]`: `Ok(end)` of it, or
    /// `Err(p)`: none starts before `p` and the vector loop reached no
    /// further (the automaton searches the rest).
    pub fn find_end(&self, hay: &[u8], start: usize, end: usize) -> Result<usize, usize> {
        self.find_end_seen(hay, start, end).0
    }

    /// [`Plain::find_end`], saying what it read of `hay[start..]` and
    /// whether that held a NUL byte.
    pub fn find_end_seen(
        &self,
        hay: &[u8],
        start: usize,
        end: usize,
    ) -> (Result<usize, usize>, Seen) {
        #[cfg(target_arch = "x86_64")]
        {
            // A `Plain` exists only where `simd()` is AVX2 or SSSE3.
            let (r, seen) = teddy_find(&self.teddy, hay, start, end).expect("a vector path");
            (r.map(|(p, len)| p + len), seen)
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            let _ = (hay, end);
            (
                Err(start),
                Seen {
                    to: start,
                    nul: false,
                },
            )
        }
    }
}

/// Fewer literals than this are left to regex-automata's prefilter
/// (aho-corasick's Teddy, 4-byte fingerprints, one literal per bucket up to
/// 32). `-c -F -f` with the first N of the 60 names, 1 GiB, CPU time
/// (user + system), medians of 7, regex-automata / [`Plain`]: N=2 276/281
/// ms, 3 275/279, 5 260/265, 10 274/293, 16 281/283, 24 318/277; the seed
/// query's 5 literals 267/292. A single literal is memchr's `memmem`.
const PLAIN_MIN: usize = 25;

/// The block of one haystack a [`Folded`] search folded last: valid only
/// for that haystack (make a new one for another).
#[derive(Debug, Default)]
pub struct FoldCache {
    /// The offset in the haystack the block starts at.
    from: usize,
    buf: Vec<u8>,
}

/// Push the lower-case literals of each alternative of `h`; `None` when
/// one is not a literal.
fn alternatives(h: &Hir, lits: &mut Vec<Vec<u8>>, any_pair: &mut bool) -> Option<()> {
    match h.kind() {
        HirKind::Alternation(alts) => {
            for a in alts {
                alternatives(a, lits, any_pair)?;
            }
            Some(())
        }
        HirKind::Capture(c) => alternatives(&c.sub, lits, any_pair),
        _ => {
            let mut variants = vec![Vec::new()];
            literal(h, &mut variants, any_pair)?;
            lits.extend(variants);
            (lits.len() <= MAX_LITERALS).then_some(())
        }
    }
}

/// More literals than this (case variants of non-ASCII letters included)
/// are left to the automaton.
const MAX_LITERALS: usize = 256;

/// Extend each of `out` by what `h` matches, folded: one literal each,
/// except that a letter whose class holds a non-ASCII character too
/// (`[Iiı]` in a UTF-8 locale) makes a variant with its UTF-8 bytes
/// (zero-width assertions add nothing); `None` when `h` is not a literal
/// up to ASCII case and such variants.
fn literal(h: &Hir, out: &mut Vec<Vec<u8>>, any_pair: &mut bool) -> Option<()> {
    match h.kind() {
        HirKind::Literal(l) => {
            for v in out.iter_mut() {
                v.extend(l.0.iter().map(|&b| fold(b)));
            }
            Some(())
        }
        HirKind::Look(_) | HirKind::Empty => Some(()),
        HirKind::Capture(c) => literal(&c.sub, out, any_pair),
        HirKind::Concat(parts) => {
            for p in parts {
                literal(p, out, any_pair)?;
            }
            Some(())
        }
        HirKind::Class(c) => {
            // What each member is in folded text.
            let mut forms: Vec<Vec<u8>> = Vec::new();
            let mut add = |f: Vec<u8>| {
                if !forms.contains(&f) {
                    forms.push(f);
                }
                forms.len() <= 3
            };
            let mut members = 0usize;
            match c {
                Class::Bytes(b) => {
                    for r in b.ranges() {
                        for x in r.start()..=r.end() {
                            members += 1;
                            if members > 4 || !add(vec![fold(x)]) {
                                return None;
                            }
                        }
                    }
                }
                Class::Unicode(u) => {
                    for r in u.ranges() {
                        for ch in r.start()..=r.end() {
                            members += 1;
                            let mut b = [0u8; 4];
                            let f = match u8::try_from(ch) {
                                Ok(a) if a < 0x80 => vec![fold(a)],
                                _ => ch.encode_utf8(&mut b).as_bytes().to_vec(),
                            };
                            if members > 4 || !add(f) {
                                return None;
                            }
                        }
                    }
                }
            }
            // A class of one letter's cases folds to one form; other
            // classes ([ab]) are not letters of a literal.
            let ascii_forms = forms.iter().filter(|f| f.len() == 1 && f[0] < 0x80).count();
            if ascii_forms != 1 && forms.len() != 1 {
                return None;
            }
            *any_pair |= members > 1;
            let mut next = Vec::with_capacity(out.len() * forms.len());
            for v in out.iter() {
                for f in &forms {
                    let mut w = v.clone();
                    w.extend_from_slice(f);
                    next.push(w);
                }
            }
            *out = next;
            (out.len() <= MAX_LITERALS).then_some(())
        }
        HirKind::Repetition(_) | HirKind::Alternation(_) => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn naive(lits: &[Vec<u8>], hay: &[u8], start: usize, end: usize) -> Option<usize> {
        (start..end).find(|&i| {
            lits.iter().any(|l| {
                i + l.len() <= end
                    && hay[i..i + l.len()]
                        .iter()
                        .map(|&b| fold(b))
                        .eq(l.iter().copied())
            })
        })
    }

    #[test]
    fn fold_is_ascii_lower_case_on_every_path() {
        for b in 0..=255u8 {
            assert_eq!(fold(b), b.to_ascii_lowercase(), "{b}");
        }
        // Every byte value at every position of a word, every length and
        // alignment up to 64.
        let src: Vec<u8> = (0..=255u8).cycle().take(256 * 3 + 63).collect();
        let want: Vec<u8> = src.iter().map(u8::to_ascii_lowercase).collect();
        for start in 0..64 {
            for len in [0, 1, 7, 8, 9, 31, 32, 33, 64, 300, src.len() - start] {
                let s = &src[start..start + len.min(src.len() - start)];
                let w = &want[start..start + s.len()];
                let mut d = vec![0u8; s.len()];
                fold_swar(&mut d, s);
                assert_eq!(d, w, "swar {start} {len}");
                fold_slice(&mut d, s);
                assert_eq!(d, w, "baseline {start} {len}");
                #[cfg(target_arch = "x86_64")]
                if std::is_x86_feature_detected!("avx2") {
                    // SAFETY: the CPU has AVX2 (checked just above).
                    unsafe { fold_avx2(&mut d, s) };
                    assert_eq!(d, w, "avx2 {start} {len}");
                }
            }
        }
    }

    #[test]
    fn never_misses_a_literal_at_any_alignment_or_block_edge() {
        let mut seed = 0x9E37_79B9_7F4A_7C15u64;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        let alphabet: Vec<u8> = (0..=255u8).collect();
        for round in 0..400 {
            let k = 1 + (next() % if round % 7 == 0 { 200 } else { 12 }) as usize;
            let lits: Vec<Vec<u8>> = (0..k)
                .map(|_| {
                    // Half the sets have a Teddy fingerprint (3 bytes or
                    // more each), half leave the fold path.
                    let n = if round % 2 == 0 {
                        3 + (next() % 6) as usize
                    } else {
                        1 + (next() % 6) as usize
                    };
                    (0..n)
                        .map(|_| fold(b"aeZr\x80\xff0_"[(next() % 8) as usize]))
                        .collect()
                })
                .collect();
            let f = Folded::of(&lits).unwrap();
            let mut cache = FoldCache::default();
            let len = if round % 10 == 0 {
                BLOCK * 2 + (next() % 300) as usize
            } else {
                (next() % 300) as usize
            };
            let mut hay: Vec<u8> = (0..len)
                .map(|_| alphabet[(next() % 256) as usize])
                .collect();
            // Plant literals in random case, some across block edges.
            for _ in 0..(next() % 5) {
                let l = &lits[(next() % k as u64) as usize];
                let at = if len > BLOCK && next() % 2 == 0 {
                    BLOCK - (next() % l.len() as u64) as usize
                } else {
                    (next() % (len as u64 + 1)) as usize
                };
                for (j, &b) in l.iter().enumerate() {
                    if at + j < len {
                        hay[at + j] = if next() % 2 == 0 {
                            b.to_ascii_uppercase()
                        } else {
                            b
                        };
                    }
                }
            }
            for _ in 0..8 {
                let start = (next() % (len as u64 + 1)) as usize;
                let end = start + (next() % ((len - start) as u64 + 1)) as usize;
                let want = naive(&lits, &hay, start, end);
                let got = f.find(&mut cache, &hay, start, end);
                assert_eq!(got, f.find(&mut FoldCache::default(), &hay, start, end));
                // The first place, with or without a block already folded.
                match (want, got) {
                    (None, None) => {}
                    (Some(w), Some(g)) => assert_eq!(g, w),
                    _ => panic!(
                        "round {round}: {lits:?} in {start}..{end}: want {want:?}, got {got:?}"
                    ),
                }
            }
        }
    }
}
