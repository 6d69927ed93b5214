//! The AVX2 path of the literal prefilters: Teddy (as in Hyperscan and
//! aho-corasick), case-sensitive or on text folded to lower case inside the
//! vector registers, so the text is read once and never copied.
//!
//! Each literal has a fingerprint: three of its consecutive bytes, chosen
//! where they are rare in logs (a byte-frequency table of real logs) and
//! shared with other literals (`RuntimeError`, `ValueError` and `KeyError`
//! share `Err`), so that few distinct fingerprints cover the set. They are
//! spread over 8 buckets, one bit each. For 32 bytes at a time, two
//! 16-entry tables per fingerprint byte (indexed by the low and the high
//! nibble) give the buckets whose k-th byte could be there; the three
//! results, shifted into line, are ANDed: a bit left at byte `j` says a
//! fingerprint of that bucket may end at `j`. The literals of that bucket
//! are then compared whole, each placed by its fingerprint's offset in it
//! (those whose fingerprint is not at their start only when the byte before
//! the fingerprint is theirs). A literal found is the leftmost once every
//! fingerprint that could belong to an earlier one has been seen. What the
//! vector loop cannot reach (the last bytes) is left to the caller.

use super::literals::fold;
#[cfg(target_arch = "x86_64")]
use std::arch::x86_64::*;

/// How surprising each byte is in logs: -log2 of its frequency in the
/// loghub and vLLM logs of `../shared/testdata` (4.6 MB), capped at 23.
#[rustfmt::skip]
const RARITY: [u8; 256] = [
    23, 23, 23, 23, 23, 23, 23, 23, 23, 21,  7, 23, 23,  7, 23, 23,
    23, 23, 23, 23, 23, 23, 23, 23, 23, 23, 23, 12, 23, 23, 23, 23,
     3, 15, 10, 10, 11, 15, 17, 12,  9,  9, 10, 14,  8,  6,  5,  7,
     4,  4,  5,  5,  6,  5,  6,  6,  6,  6,  5, 11, 12,  8, 13, 16,
    10,  8,  9,  8,  8,  8,  8, 11, 10,  8,  9, 10,  9,  8,  7,  8,
     9, 11,  8,  7,  8,  9, 10,  9, 13, 14, 11,  8, 14,  8, 11,  7,
    14,  5,  7,  5,  5,  4,  7,  7,  7,  5, 11,  7,  6,  6,  5,  5,
     6, 10,  5,  5,  5,  6,  7,  8,  8,  8, 11, 13,  9, 13, 11, 23,
    23, 23, 23, 23, 23, 23, 23, 23, 17, 20, 20, 19, 20, 19, 20, 19,
    23, 23, 23, 20, 23, 23, 16, 23, 23, 23, 23, 23, 23, 23, 20, 23,
    23, 20, 23, 23, 23, 23, 23, 23, 20, 23, 23, 23, 23, 23, 23, 23,
    23, 23, 23, 23, 23, 23, 23, 23, 23, 23, 20, 23, 23, 23, 23, 23,
    23, 23, 23, 23, 23, 23, 23, 23, 23, 23, 23, 23, 23, 23, 23, 23,
    23, 23, 23, 23, 23, 23, 23, 23, 23, 23, 23, 23, 23, 23, 23, 23,
    23, 23, 16, 23, 23, 19, 20, 23, 23, 23, 23, 23, 23, 23, 23, 23,
    23, 23, 23, 23, 23, 23, 23, 23, 23, 23, 23, 23, 23, 23, 23, 23,
];

/// How rare a fingerprint is (bits): in folded text a letter stands for
/// both cases.
fn rarity(print: &[u8], folded: bool) -> f64 {
    print
        .iter()
        .map(|&b| {
            let r = f64::from(RARITY[usize::from(b)]);
            if folded && b.is_ascii_lowercase() {
                // p(b) + p(B): one bit less rare at most.
                let u = f64::from(RARITY[usize::from(b.to_ascii_uppercase())]);
                -((-r).exp2() + (-u).exp2()).log2()
            } else {
                r
            }
        })
        .sum()
}

/// Each literal's fingerprint offset: a greedy set cover, taking next the
/// 3-byte window with the smallest expected hits (2^-rarity) per literal
/// it newly covers.
fn fingerprints(lits: &[Vec<u8>], folded: bool) -> Vec<usize> {
    // Each window, the literals holding it (once each), and its hits.
    let mut windows: Vec<(&[u8], Vec<usize>, f64)> = Vec::new();
    let mut index: std::collections::HashMap<&[u8], usize> = std::collections::HashMap::new();
    for (i, l) in lits.iter().enumerate() {
        for w in l.windows(3) {
            let k = *index.entry(w).or_insert_with(|| {
                windows.push((w, Vec::new(), (-rarity(w, folded)).exp2()));
                windows.len() - 1
            });
            if windows[k].1.last() != Some(&i) {
                windows[k].1.push(i);
            }
        }
    }
    let mut off = vec![usize::MAX; lits.len()];
    let mut left = lits.len();
    while left > 0 {
        let mut best: Option<(f64, usize)> = None;
        for (k, (_, holders, hits)) in windows.iter().enumerate() {
            let covers = holders.iter().filter(|&&i| off[i] == usize::MAX).count();
            if covers == 0 {
                continue;
            }
            let cost = hits / covers as f64;
            if best.is_none_or(|(c, _)| cost < c) {
                best = Some((cost, k));
            }
        }
        let (_, k) = best.expect("a literal of 3 bytes or more is left");
        let (w, holders, _) = &windows[k];
        for &i in holders {
            if off[i] == usize::MAX {
                off[i] = lits[i].windows(3).position(|x| x == *w).expect("held");
                left -= 1;
            }
        }
    }
    off
}

/// One literal of a bucket, placed by its fingerprint.
#[derive(Debug)]
struct Entry {
    lit: Vec<u8>,
    /// Where its fingerprint starts in it.
    off: usize,
}

/// The literals of one bucket: those whose fingerprint starts them, and
/// the others by the byte before their fingerprint.
#[derive(Debug, Default)]
struct Bucket {
    at_start: Vec<Entry>,
    by_prev: Vec<(u8, Entry)>,
}

/// The tables and the literals of each bucket.
#[derive(Debug)]
pub struct Teddy {
    /// For fingerprint byte k: the low-nibble table then the high-nibble
    /// one, each repeated in both 128-bit lanes.
    masks: [[[u8; 32]; 2]; 3],
    buckets: [Bucket; 8],
    /// The literals are lower case and the text is folded.
    folded: bool,
    /// The largest fingerprint offset.
    max_off: usize,
}

impl Teddy {
    /// Tables for these literals (each at least 3 bytes long; lower case
    /// when `folded`: the text is then folded as it is searched).
    pub fn new(lits: &[Vec<u8>], folded: bool) -> Teddy {
        let mut t = Teddy {
            masks: [[[0; 32]; 2]; 3],
            buckets: Default::default(),
            folded,
            max_off: 0,
        };
        let offs = fingerprints(lits, folded);
        // Distinct fingerprints, rarest last, each to the bucket with the
        // fewest expected hits so far.
        let mut prints: Vec<Vec<u8>> = Vec::new();
        for (l, &o) in lits.iter().zip(&offs) {
            let fp = l[o..o + 3].to_vec();
            if !prints.contains(&fp) {
                prints.push(fp);
            }
        }
        prints.sort_by(|a, b| rarity(a, folded).total_cmp(&rarity(b, folded)));
        let mut load = [0f64; 8];
        let mut bucket_of: Vec<usize> = Vec::new();
        for p in &prints {
            let b = (0..8)
                .min_by(|&x, &y| load[x].total_cmp(&load[y]))
                .expect("8 buckets");
            load[b] += (-rarity(p, folded)).exp2();
            bucket_of.push(b);
            for (k, &byte) in p.iter().enumerate() {
                for lane in [0, 16] {
                    t.masks[k][0][lane + usize::from(byte & 0xf)] |= 1 << b;
                    t.masks[k][1][lane + usize::from(byte >> 4)] |= 1 << b;
                }
            }
        }
        for (l, &o) in lits.iter().zip(&offs) {
            let fp = &l[o..o + 3];
            let b = bucket_of[prints.iter().position(|p| p == fp).expect("a print")];
            let e = Entry {
                lit: l.clone(),
                off: o,
            };
            t.max_off = t.max_off.max(o);
            if o == 0 {
                t.buckets[b].at_start.push(e);
            } else {
                t.buckets[b].by_prev.push((l[o - 1], e));
            }
        }
        for b in &mut t.buckets {
            b.by_prev.sort_by_key(|(p, _)| *p);
        }
        t
    }

    /// Whether `lit` is at `hay[p..]`, within `end`.
    #[inline]
    fn is_at(&self, lit: &[u8], hay: &[u8], p: usize, end: usize) -> bool {
        p + lit.len() <= end
            && if self.folded {
                hay[p..p + lit.len()]
                    .iter()
                    .zip(lit)
                    .all(|(&h, &n)| fold(h) == n)
            } else {
                &hay[p..p + lit.len()] == lit
            }
    }

    /// The leftmost start of a literal of the buckets in `bits` whose
    /// fingerprint starts at `fp`, within `[start, end)`, and its length.
    #[inline]
    fn verify(
        &self,
        bits: u8,
        hay: &[u8],
        fp: usize,
        (start, end): (usize, usize),
    ) -> Option<(usize, usize)> {
        let mut best: Option<(usize, usize)> = None;
        let mut keep = |p: usize, len: usize| {
            if best.is_none_or(|(b, _)| p < b) {
                best = Some((p, len));
            }
        };
        let mut bits = bits;
        while bits != 0 {
            let b = &self.buckets[bits.trailing_zeros() as usize];
            bits &= bits - 1;
            for e in &b.at_start {
                if fp >= start && self.is_at(&e.lit, hay, fp, end) {
                    keep(fp, e.lit.len());
                }
            }
            if fp == 0 || b.by_prev.is_empty() {
                continue;
            }
            let prev = if self.folded {
                fold(hay[fp - 1])
            } else {
                hay[fp - 1]
            };
            let from = b.by_prev.partition_point(|(p, _)| *p < prev);
            for (_, e) in b.by_prev[from..].iter().take_while(|(p, _)| *p == prev) {
                if let Some(p) = fp.checked_sub(e.off).filter(|&p| p >= start) {
                    if self.is_at(&e.lit, hay, p, end) {
                        keep(p, e.lit.len());
                    }
                }
            }
        }
        best
    }

    /// The first place in `hay[start..end]` where a literal starts, and
    /// its length, among the places the vector loop covers; `Err(p)`: none
    /// starts before `p`, from where the caller searches the rest
    /// (`p >= start`).
    ///
    /// # Safety
    /// The CPU must support AVX2.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    pub unsafe fn find(
        &self,
        hay: &[u8],
        start: usize,
        end: usize,
    ) -> Result<(usize, usize), usize> {
        // SAFETY: the caller promises AVX2.
        unsafe {
            if self.folded {
                self.find_in::<true>(hay, start, end)
            } else {
                self.find_in::<false>(hay, start, end)
            }
        }
    }

    /// [`Teddy::find`], the fold decided at compile time.
    ///
    /// # Safety
    /// The CPU must support AVX2.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    unsafe fn find_in<const FOLD: bool>(
        &self,
        hay: &[u8],
        start: usize,
        end: usize,
    ) -> Result<(usize, usize), usize> {
        let end = end.min(hay.len());
        if end < start + 32 {
            return Err(start);
        }
        // The register arithmetic below is AVX2, which the caller promises.
        let m = &self.masks;
        // SAFETY: each table is a 32-byte array; unaligned loads.
        let (lo0, hi0, lo1, hi1, lo2, hi2) = unsafe {
            (
                _mm256_loadu_si256(m[0][0].as_ptr().cast()),
                _mm256_loadu_si256(m[0][1].as_ptr().cast()),
                _mm256_loadu_si256(m[1][0].as_ptr().cast()),
                _mm256_loadu_si256(m[1][1].as_ptr().cast()),
                _mm256_loadu_si256(m[2][0].as_ptr().cast()),
                _mm256_loadu_si256(m[2][1].as_ptr().cast()),
            )
        };
        let nib = _mm256_set1_epi8(0x0f);
        let a = _mm256_set1_epi8(b'A' as i8);
        let z25 = _mm256_set1_epi8(25);
        let case = _mm256_set1_epi8(0x20);
        let zero = _mm256_setzero_si256();
        let mut prev0 = zero;
        let mut prev1 = zero;
        let mut best: Option<(usize, usize)> = None;
        let mut i = start;
        while i + 32 <= end {
            // SAFETY: `i + 32 <= end <= hay.len()`: 32 bytes of `hay`.
            let v = unsafe { _mm256_loadu_si256(hay.as_ptr().add(i).cast()) };
            let f = if FOLD {
                // Fold: bytes A..=Z get 0x20.
                let t = _mm256_sub_epi8(v, a);
                let upper = _mm256_cmpeq_epi8(_mm256_min_epu8(t, z25), t);
                _mm256_or_si256(v, _mm256_and_si256(upper, case))
            } else {
                v
            };
            let lo = _mm256_and_si256(f, nib);
            let hi = _mm256_and_si256(_mm256_srli_epi16(f, 4), nib);
            let r0 = _mm256_and_si256(_mm256_shuffle_epi8(lo0, lo), _mm256_shuffle_epi8(hi0, hi));
            let r1 = _mm256_and_si256(_mm256_shuffle_epi8(lo1, lo), _mm256_shuffle_epi8(hi1, hi));
            let r2 = _mm256_and_si256(_mm256_shuffle_epi8(lo2, lo), _mm256_shuffle_epi8(hi2, hi));
            // r0 two bytes later and r1 one byte later, the previous
            // block's last bytes shifted in.
            let s0 = _mm256_alignr_epi8(r0, _mm256_permute2x128_si256(prev0, r0, 0x21), 14);
            let s1 = _mm256_alignr_epi8(r1, _mm256_permute2x128_si256(prev1, r1, 0x21), 15);
            let res = _mm256_and_si256(_mm256_and_si256(s0, s1), r2);
            let mut hits = !(_mm256_movemask_epi8(_mm256_cmpeq_epi8(res, zero)) as u32);
            if hits != 0 {
                let mut bytes = [0u8; 32];
                // SAFETY: `bytes` is 32 bytes; an unaligned store.
                unsafe { _mm256_storeu_si256(bytes.as_mut_ptr().cast(), res) };
                while hits != 0 {
                    let j = hits.trailing_zeros() as usize;
                    hits &= hits - 1;
                    // A fingerprint ending at i + j starts at i + j - 2.
                    if let Some(fp) = (i + j).checked_sub(2) {
                        if let Some((p, len)) = self.verify(bytes[j], hay, fp, (start, end)) {
                            if best.is_none_or(|(b, _)| p < b) {
                                best = Some((p, len));
                            }
                        }
                    }
                }
            }
            prev0 = r0;
            prev1 = r1;
            i += 32;
            // Every fingerprint ending before `i` has been seen, so every
            // literal starting before `i - 2 - max_off`.
            if let Some((b, len)) = best {
                if b + 2 + self.max_off <= i {
                    return Ok((b, len));
                }
            }
        }
        Err(i.saturating_sub(2 + self.max_off).max(start))
    }
}
