//! The case-insensitive literal prefilter (`src/query/literals.rs`, with
//! the AVX2 Teddy of `src/query/teddy.rs` where the CPU has it) never
//! misses: from every start offset it returns exactly the first place where
//! one of the literals occurs up to ASCII case, as a naive search finds it.
//! Run it once per path: `GRAIL_SIMD=avx2|sse2|scalar cargo fuzz run prefilter`.
//!
//! Input: byte 0 is the number of literals (1..=64), then each literal as
//! a length byte (3..=18) and its bytes; byte after them: bit 0 maps the
//! haystack onto a small alphabet (so literals occur often); the rest (at
//! most 8 KiB) is the haystack, searched from a few start offsets with the
//! fold cache kept between them, as one region's search keeps it.
#![no_main]

use grail::query::prefilter::{FoldCache, Folded};
use libfuzzer_sys::fuzz_target;

fn lower(b: u8) -> u8 {
    b.to_ascii_lowercase()
}

fn naive(lits: &[Vec<u8>], hay: &[u8], start: usize, end: usize) -> Option<usize> {
    (start..end).find(|&i| {
        lits.iter().any(|l| {
            i + l.len() <= end && hay[i..i + l.len()].iter().zip(l).all(|(&h, &c)| lower(h) == c)
        })
    })
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
        lits.push(r[..len].iter().map(|&b| lower(b)).collect());
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
        hay.iter().take(8192).map(|&b| alpha[usize::from(b) % alpha.len()]).collect()
    } else {
        hay.iter().take(8192).copied().collect()
    };
    let Some(f) = Folded::of(&lits) else {
        return;
    };
    let mut cache = FoldCache::default();
    let len = hay.len();
    for start in [0, 1, 7, 31, 32, 33, len / 2, len.saturating_sub(20)] {
        let start = start.min(len);
        for end in [len, len.saturating_sub(3).max(start)] {
            let got = f.find(&mut cache, &hay, start, end);
            let want = naive(&lits, &hay, start, end);
            assert_eq!(got, want, "literals {lits:?}, start {start}, end {end}");
        }
    }
});
