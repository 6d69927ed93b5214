//! The literal prefilters (`src/query/literals.rs`, with the AVX2 Teddy of
//! `src/query/teddy.rs` where the CPU has it) never miss. The
//! case-insensitive one returns, from every start offset, exactly the first
//! place where one of the literals occurs up to ASCII case, as a naive
//! search finds it; the case-sensitive one (flag bit 1, AVX2 or SSSE3) the end
//! of the first literal, or how far it looked with none before. Both say
//! rightly what their vector loop read and whether a NUL byte was there.
//! Run it once per path: `GRAIL_SIMD=avx2|ssse3|sse2|scalar cargo fuzz run prefilter`.
//!
//! Input: byte 0 is the number of literals (1..=64), then each literal as
//! a length byte (3..=18) and its bytes; byte after them: bit 0 maps the
//! haystack onto a small alphabet (so literals occur often), bit 1 picks
//! the case-sensitive prefilter; the rest (at
//! most 8 KiB) is the haystack, searched from a few start offsets with the
//! fold cache kept between them, as one region's search keeps it.
#![no_main]

use grail::query::prefilter::{FoldCache, Folded, Plain};
use libfuzzer_sys::fuzz_target;

fn lower(b: u8) -> u8 {
    b.to_ascii_lowercase()
}

/// For each offset of `hay`, the length of the shortest literal there
/// (`usize::MAX`: none), folding case when `fold`: the naive search, done
/// once per input.
fn shortest(lits: &[Vec<u8>], hay: &[u8], fold: bool) -> Vec<usize> {
    let eq = |a: u8, b: u8| if fold { lower(a) == b } else { a == b };
    (0..hay.len())
        .map(|i| {
            lits.iter()
                .filter(|l| {
                    i + l.len() <= hay.len()
                        && eq(hay[i], l[0])
                        && hay[i..i + l.len()]
                            .iter()
                            .zip(l.iter())
                            .all(|(&h, &c)| eq(h, c))
                })
                .map(|l| l.len())
                .min()
                .unwrap_or(usize::MAX)
        })
        .collect()
}

/// The first place in `[start, end)` where a literal starts and ends.
fn naive(short: &[usize], start: usize, end: usize) -> Option<usize> {
    (start..end).find(|&i| short[i] <= end - i)
}

fuzz_target!(|data: &[u8]| {
    let Some((&n, mut rest)) = data.split_first() else {
        return;
    };
    let n = usize::from(n % 64) + 1;
    let mut lits: Vec<Vec<u8>> = Vec::new();
    for _ in 0..n {
        let Some((&len, r)) = rest.split_first() else {
            return;
        };
        let len = usize::from(len % 16) + 3;
        if r.len() < len {
            return;
        }
        lits.push(r[..len].to_vec());
        rest = &r[len..];
    }
    let Some((&flags, hay)) = rest.split_first() else {
        return;
    };
    let hay: Vec<u8> = if flags & 1 == 1 {
        // A, a, b, B, \n, 0xff, and the first literal's own bytes.
        let alpha: Vec<u8> = [b'A', b'a', b'b', b'B', b'\n', 0xff]
            .into_iter()
            .chain(lits[0].iter().copied())
            .collect();
        hay.iter()
            .take(8192)
            .map(|&b| alpha[usize::from(b) % alpha.len()])
            .collect()
    } else {
        hay.iter().take(8192).copied().collect()
    };
    let len = hay.len();
    if flags & 2 == 2 {
        let Some(p) = Plain::of(&lits) else {
            return;
        };
        let short = shortest(&lits, &hay, false);
        for start in [0, 1, 7, 31, 32, 33, len / 2, len.saturating_sub(40)] {
            let start = start.min(len);
            let want = naive(&short, start, len);
            let (found, seen) = p.find_end_seen(&hay, start, len);
            assert!(seen.to >= start && seen.to <= len);
            assert_eq!(seen.nul, hay[start..seen.to].contains(&0), "{seen:?}");
            match found {
                Ok(e) => {
                    let w = want.expect("a literal where there is none");
                    assert!(lits.iter().any(|l| w + l.len() == e && hay[w..e] == l[..]));
                }
                Err(q) => assert!(q >= start && want.is_none_or(|w| w >= q), "missed {want:?}"),
            }
        }
        return;
    }
    let lits: Vec<Vec<u8>> = lits
        .iter()
        .map(|l| l.iter().map(|&b| lower(b)).collect())
        .collect();
    let Some(f) = Folded::of(&lits) else {
        return;
    };
    let mut cache = FoldCache::default();
    let short = shortest(&lits, &hay, true);
    for start in [0, 1, 7, 31, 32, 33, len / 2, len.saturating_sub(20)] {
        let start = start.min(len);
        for end in [len, len.saturating_sub(3).max(start)] {
            let (got, seen) = f.find_seen(&mut cache, &hay, start, end);
            assert!(seen.to >= start && seen.to <= end);
            assert_eq!(seen.nul, hay[start..seen.to].contains(&0), "{seen:?}");
            let want = naive(&short, start, end);
            assert_eq!(got, want, "literals {lits:?}, start {start}, end {end}");
        }
    }
});
