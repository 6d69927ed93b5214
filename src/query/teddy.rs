//! The vector path of the literal prefilters: Teddy (as in Hyperscan and
//! aho-corasick), case-sensitive or on text folded to lower case inside the
//! vector registers, so the text is read once and never copied. One
//! algorithm over a small [`Vector`] trait, as memchr is built: 32 bytes at
//! a time with AVX2, 16 with SSSE3 (`pshufb`), chosen at run time by the
//! caller. (AVX-512BW and NEON would be two more impls; neither can run on
//! the machines this is tested on, so neither is written.)
//!
//! Each literal has a fingerprint: three of its consecutive bytes, chosen
//! where they are rare in logs (a byte-frequency table of real logs) and
//! shared with other literals (`RuntimeError`, `ValueError` and `KeyError`
//! share `Err`), so that few distinct fingerprints cover the set. They are
//! spread over 8 buckets, one bit each. For the vectors at `i`, `i + 1`
//! and `i + 2` (three loads: shifting one vector's results into line
//! costs shuffles, and the shuffles are what bound the loop), two 16-entry
//! tables per fingerprint byte (indexed by the low and the high nibble)
//! give the buckets whose k-th byte could be there; the three results are
//! ANDed: a bit left at byte `j` says a fingerprint of that bucket may
//! start at `i + j`. The loop also notes whether a NUL byte went by (see
//! [`Seen`]), so the log rule's check need not read the text again. The literals of that bucket
//! are then compared whole, each placed by its fingerprint's offset in it
//! (those whose fingerprint is not at their start only when the byte before
//! the fingerprint is theirs). A literal found is the leftmost once every
//! fingerprint that could belong to an earlier one has been seen. What the
//! vector loop cannot reach (the last bytes) is left to the caller.

use super::literals::{fold, Seen};
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
/// 3-byte window with the smallest expected hits (2^-rarity, plus
/// [`RISK`]) per literal it newly covers; then each literal holding a window chosen for another
/// takes the rarest such (sharing costs no hits: `ValueError` and
/// `RuntimeError` take `Error`'s `Err` rather than `Val` and `Run`), and
/// windows no longer used are dropped.
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
            let cost = (hits + RISK) / covers as f64;
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
    // Drop a window (the most hit first) while every literal using it
    // holds another chosen window, which it takes (its rarest): each
    // round the set shrinks, and the expected hits with it.
    loop {
        let window = |i: usize| &lits[i][off[i]..off[i] + 3];
        let mut chosen: Vec<&[u8]> = (0..lits.len()).map(window).collect();
        chosen.sort_unstable();
        chosen.dedup();
        chosen.sort_by(|a, b| rarity(a, folded).total_cmp(&rarity(b, folded)));
        // For a literal using `w`: its rarest other chosen window.
        let other = |i: usize, w: &[u8]| {
            lits[i]
                .windows(3)
                .enumerate()
                .filter(|&(_, x)| x != w && chosen.contains(&x))
                .max_by(|a, b| rarity(a.1, folded).total_cmp(&rarity(b.1, folded)))
                .map(|(k, _)| k)
        };
        let drop = chosen.iter().find_map(|&w| {
            let users: Vec<usize> = (0..lits.len()).filter(|&i| window(i) == w).collect();
            let to: Option<Vec<usize>> = users.iter().map(|&i| other(i, w)).collect();
            Some(users.into_iter().zip(to?).collect::<Vec<_>>())
        });
        match drop {
            Some(moves) => moves.into_iter().for_each(|(i, k)| off[i] = k),
            None => break off,
        }
    }
}

/// What the byte table cannot see, added to each distinct window's expected
/// hits (per byte): a word of the log at hand (`Run` of vLLM's `Running:`
/// lines is 2^-19 by the table and 2^-9.6 in them). It makes the cover
/// prefer windows shared by several literals.
const RISK: f64 = 1.0 / (1u64 << 18) as f64;

/// A search's answer: the first literal's start and length, or `Err(p)`:
/// none starts before `p`, and the caller searches on from there.
pub type Found = Result<(usize, usize), usize>;

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
    /// (`p >= start`). 32 bytes at a time. [`Seen`] says what the vector
    /// loop read, and whether a NUL byte was there.
    ///
    /// # Safety
    /// The CPU must support AVX2.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    pub unsafe fn find_avx2(&self, hay: &[u8], start: usize, end: usize) -> (Found, Seen) {
        // SAFETY: the caller promises AVX2, which `__m256i`'s operations need.
        unsafe {
            if self.folded {
                self.find_in::<__m256i, true>(hay, start, end)
            } else {
                self.find_in::<__m256i, false>(hay, start, end)
            }
        }
    }

    /// [`Teddy::find_avx2`], 16 bytes at a time.
    ///
    /// # Safety
    /// The CPU must support SSSE3 (`pshufb`).
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "ssse3")]
    pub unsafe fn find_ssse3(&self, hay: &[u8], start: usize, end: usize) -> (Found, Seen) {
        // SAFETY: the caller promises SSSE3, which `__m128i`'s operations need.
        unsafe {
            if self.folded {
                self.find_in::<__m128i, true>(hay, start, end)
            } else {
                self.find_in::<__m128i, false>(hay, start, end)
            }
        }
    }

    /// The search, one vector of `V::BYTES` bytes at a time, the fold
    /// decided at compile time. Inlined into each path's entry, which
    /// enables the CPU features `V` needs.
    ///
    /// # Safety
    /// The CPU must support what `V`'s operations use.
    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    unsafe fn find_in<V: Vector, const FOLD: bool>(
        &self,
        hay: &[u8],
        start: usize,
        end: usize,
    ) -> (Found, Seen) {
        let end = end.min(hay.len());
        if end < start + V::BYTES + 2 {
            let seen = Seen {
                to: start,
                nul: false,
            };
            return (Err(start), seen);
        }
        let m = &self.masks;
        // SAFETY (all the vector operations below): the caller promises
        // the CPU features; every load reads `V::BYTES` bytes inside `hay`
        // or a 32-byte table.
        unsafe {
            let (lo0, hi0) = (V::table(&m[0][0]), V::table(&m[0][1]));
            let (lo1, hi1) = (V::table(&m[1][0]), V::table(&m[1][1]));
            let (lo2, hi2) = (V::table(&m[2][0]), V::table(&m[2][1]));
            let mut best: Option<(usize, usize)> = None;
            // NUL bytes of the vectors read (the log rule's check, fused:
            // the bytes are read once).
            let mut nuls = V::zero();
            let mut i = start;
            while i + V::BYTES + 2 <= end {
                // Three loads, one byte apart (`i + 2 + V::BYTES <= end <=
                // hay.len()`), instead of shifting results across
                // registers: loads are cheap, shuffles are the bound.
                let p = hay.as_ptr().add(i);
                let v = V::load(p);
                nuls = nuls.or(v.zero_bytes());
                let res = lookup::<V, FOLD>(v, lo0, hi0)
                    .and(lookup::<V, FOLD>(V::load(p.add(1)), lo1, hi1))
                    .and(lookup::<V, FOLD>(V::load(p.add(2)), lo2, hi2));
                let mut hits = res.nonzero_bytes();
                if hits != 0 {
                    let mut bytes = [0u8; 32];
                    res.store(&mut bytes);
                    while hits != 0 {
                        let j = hits.trailing_zeros() as usize;
                        hits &= hits - 1;
                        // A fingerprint starts at i + j.
                        if let Some((p, len)) = self.verify(bytes[j], hay, i + j, (start, end)) {
                            if best.is_none_or(|(b, _)| p < b) {
                                best = Some((p, len));
                            }
                        }
                    }
                }
                i += V::BYTES;
                // Every fingerprint starting before `i` has been seen, so
                // every literal starting before `i - max_off`.
                if let Some((b, len)) = best {
                    if b + self.max_off < i {
                        return (Ok((b, len)), seen(i, nuls));
                    }
                }
            }
            (
                Err(i.saturating_sub(self.max_off).max(start)),
                seen(i, nuls),
            )
        }
    }
}

/// What a vector loop that reached `to` with the NUL accumulator `nuls` saw.
///
/// # Safety
/// As for [`Vector`]'s methods.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
unsafe fn seen<V: Vector>(to: usize, nuls: V) -> Seen {
    Seen {
        to,
        // SAFETY: the caller's promise.
        nul: unsafe { nuls.nonzero_bytes() } != 0,
    }
}

/// The buckets whose fingerprint byte (the one `lo` and `hi` are the nibble
/// tables of) may be each byte of `v`, folded first if `FOLD`.
///
/// # Safety
/// As for [`Vector`]'s methods.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
unsafe fn lookup<V: Vector, const FOLD: bool>(v: V, lo: V, hi: V) -> V {
    // SAFETY: the caller's promises.
    unsafe {
        let v = if FOLD { v.fold() } else { v };
        lo.shuffle(v.low_nibbles())
            .and(hi.shuffle(v.high_nibbles()))
    }
}

/// The vector operations Teddy needs, for each register width (as memchr
/// does it: one algorithm, a small trait). Every method is unsafe: the
/// CPU must have the width's features (AVX2 for `__m256i`, SSSE3 for
/// `__m128i`).
#[cfg(target_arch = "x86_64")]
trait Vector: Copy {
    /// Bytes per vector.
    const BYTES: usize;
    /// `BYTES` bytes from `p` (unaligned).
    unsafe fn load(p: *const u8) -> Self;
    /// A nibble table: the first `BYTES` of its 32 (16 entries, repeated).
    unsafe fn table(t: &[u8; 32]) -> Self;
    /// Bytes A-Z to a-z.
    unsafe fn fold(self) -> Self;
    unsafe fn low_nibbles(self) -> Self;
    unsafe fn high_nibbles(self) -> Self;
    /// Each 16-byte lane of `self` (a table) looked up by `idx`'s bytes.
    unsafe fn shuffle(self, idx: Self) -> Self;
    unsafe fn and(self, o: Self) -> Self;
    /// All zero.
    unsafe fn zero() -> Self;
    unsafe fn or(self, o: Self) -> Self;
    /// 0xff where a byte is 0, else 0.
    unsafe fn zero_bytes(self) -> Self;
    /// Bit j set where byte j is not zero.
    unsafe fn nonzero_bytes(self) -> u32;
    /// The bytes into the first `BYTES` of `out`.
    unsafe fn store(self, out: &mut [u8; 32]);
}

#[cfg(target_arch = "x86_64")]
impl Vector for __m256i {
    const BYTES: usize = 32;
    #[inline(always)]
    unsafe fn load(p: *const u8) -> Self {
        // SAFETY: the caller gives 32 readable bytes.
        unsafe { _mm256_loadu_si256(p.cast()) }
    }
    #[inline(always)]
    unsafe fn table(t: &[u8; 32]) -> Self {
        // SAFETY: `t` is 32 bytes.
        unsafe { _mm256_loadu_si256(t.as_ptr().cast()) }
    }
    #[inline(always)]
    unsafe fn fold(self) -> Self {
        let t = _mm256_sub_epi8(self, _mm256_set1_epi8(b'A' as i8));
        let upper = _mm256_cmpeq_epi8(_mm256_min_epu8(t, _mm256_set1_epi8(25)), t);
        _mm256_or_si256(self, _mm256_and_si256(upper, _mm256_set1_epi8(0x20)))
    }
    #[inline(always)]
    unsafe fn low_nibbles(self) -> Self {
        _mm256_and_si256(self, _mm256_set1_epi8(0x0f))
    }
    #[inline(always)]
    unsafe fn high_nibbles(self) -> Self {
        _mm256_and_si256(_mm256_srli_epi16(self, 4), _mm256_set1_epi8(0x0f))
    }
    #[inline(always)]
    unsafe fn shuffle(self, idx: Self) -> Self {
        _mm256_shuffle_epi8(self, idx)
    }
    #[inline(always)]
    unsafe fn and(self, o: Self) -> Self {
        _mm256_and_si256(self, o)
    }
    #[inline(always)]
    unsafe fn or(self, o: Self) -> Self {
        _mm256_or_si256(self, o)
    }
    #[inline(always)]
    unsafe fn zero_bytes(self) -> Self {
        _mm256_cmpeq_epi8(self, _mm256_setzero_si256())
    }
    #[inline(always)]
    unsafe fn zero() -> Self {
        _mm256_setzero_si256()
    }
    #[inline(always)]
    unsafe fn nonzero_bytes(self) -> u32 {
        !(_mm256_movemask_epi8(_mm256_cmpeq_epi8(self, _mm256_setzero_si256())) as u32)
    }
    #[inline(always)]
    unsafe fn store(self, out: &mut [u8; 32]) {
        // SAFETY: `out` is 32 bytes.
        unsafe { _mm256_storeu_si256(out.as_mut_ptr().cast(), self) }
    }
}

#[cfg(target_arch = "x86_64")]
impl Vector for __m128i {
    const BYTES: usize = 16;
    #[inline(always)]
    unsafe fn load(p: *const u8) -> Self {
        // SAFETY: the caller gives 16 readable bytes.
        unsafe { _mm_loadu_si128(p.cast()) }
    }
    #[inline(always)]
    unsafe fn table(t: &[u8; 32]) -> Self {
        // SAFETY: `t` is 32 bytes; the first 16 are read.
        unsafe { _mm_loadu_si128(t.as_ptr().cast()) }
    }
    #[inline(always)]
    unsafe fn fold(self) -> Self {
        let t = _mm_sub_epi8(self, _mm_set1_epi8(b'A' as i8));
        let upper = _mm_cmpeq_epi8(_mm_min_epu8(t, _mm_set1_epi8(25)), t);
        _mm_or_si128(self, _mm_and_si128(upper, _mm_set1_epi8(0x20)))
    }
    #[inline(always)]
    unsafe fn low_nibbles(self) -> Self {
        _mm_and_si128(self, _mm_set1_epi8(0x0f))
    }
    #[inline(always)]
    unsafe fn high_nibbles(self) -> Self {
        _mm_and_si128(_mm_srli_epi16(self, 4), _mm_set1_epi8(0x0f))
    }
    #[inline(always)]
    unsafe fn shuffle(self, idx: Self) -> Self {
        _mm_shuffle_epi8(self, idx)
    }
    #[inline(always)]
    unsafe fn and(self, o: Self) -> Self {
        _mm_and_si128(self, o)
    }
    #[inline(always)]
    unsafe fn or(self, o: Self) -> Self {
        _mm_or_si128(self, o)
    }
    #[inline(always)]
    unsafe fn zero_bytes(self) -> Self {
        _mm_cmpeq_epi8(self, _mm_setzero_si128())
    }
    #[inline(always)]
    unsafe fn zero() -> Self {
        _mm_setzero_si128()
    }
    #[inline(always)]
    unsafe fn nonzero_bytes(self) -> u32 {
        !(_mm_movemask_epi8(_mm_cmpeq_epi8(self, _mm_setzero_si128())) as u32) & 0xffff
    }
    #[inline(always)]
    unsafe fn store(self, out: &mut [u8; 32]) {
        // SAFETY: `out` is 32 bytes; the first 16 are written.
        unsafe { _mm_storeu_si128(out.as_mut_ptr().cast(), self) }
    }
}

#[cfg(all(test, target_arch = "x86_64"))]
mod tests {
    use super::*;

    /// Both widths, folded or not: `Ok` is exactly the first literal (its
    /// start and length), `Err(p)` means none starts before `p`; sets of
    /// 1-200 literals, every start alignment 0-63, every byte value.
    #[test]
    fn each_width_finds_the_first_literal_or_says_how_far_it_looked() {
        let mut seed = 0x0bad_5eed_1234_5678u64;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        let rounds = std::env::var("GRAIL_PROPTEST_ROUNDS")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(300);
        let widths: [(bool, &str); 2] = [
            (std::is_x86_feature_detected!("avx2"), "avx2"),
            (std::is_x86_feature_detected!("ssse3"), "ssse3"),
        ];
        assert!(widths[1].0, "an x86-64 CPU without SSSE3");
        for round in 0..rounds {
            let folded = round % 2 == 1;
            let k = 1 + (next() % if round % 5 == 0 { 200 } else { 30 }) as usize;
            let lits: Vec<Vec<u8>> = (0..k)
                .map(|_| {
                    (0..3 + (next() % 10) as usize)
                        .map(|_| b"aEerR\x80\xff0_ x"[(next() % 11) as usize])
                        .map(|b| if folded { fold(b) } else { b })
                        .collect()
                })
                .collect();
            let t = Teddy::new(&lits, folded);
            let len = (next() % if round % 9 == 0 { 5000 } else { 300 }) as usize;
            let mut hay: Vec<u8> = (0..len).map(|_| (next() % 256) as u8).collect();
            if round % 3 == 0 {
                // NUL-free, but for at most one NUL byte somewhere.
                hay.iter_mut().filter(|b| **b == 0).for_each(|b| *b = 1);
                if len > 0 && next() % 2 == 0 {
                    hay[(next() % len as u64) as usize] = 0;
                }
            }
            for _ in 0..(next() % 6) {
                let l = &lits[(next() % k as u64) as usize];
                let at = (next() % (len as u64 + 1)) as usize;
                for (j, &b) in l.iter().enumerate() {
                    if at + j < len {
                        hay[at + j] = if folded && next() % 2 == 0 {
                            b.to_ascii_uppercase()
                        } else {
                            b
                        };
                    }
                }
            }
            let eq = |h: u8, n: u8| if folded { fold(h) == n } else { h == n };
            let at = |i: usize, e: usize| {
                lits.iter()
                    .filter(|l| {
                        i + l.len() <= e
                            && hay[i..i + l.len()]
                                .iter()
                                .zip(l.iter())
                                .all(|(&h, &n)| eq(h, n))
                    })
                    .map(|l| l.len())
                    .collect::<Vec<_>>()
            };
            for align in [0, 1, 2, 15, 16, 17, 31, 32, 33, 63, (next() % 64) as usize] {
                let start = align.min(len);
                let end = if next() % 2 == 0 {
                    len
                } else {
                    start + (next() % ((len - start) as u64 + 1)) as usize
                };
                let want = (start..end).find(|&i| !at(i, end).is_empty());
                // The case-sensitive prefilter on top: the end of the first
                // literal, or how far it looked.
                if !folded {
                    if let Some(p) = super::super::literals::Plain::of(&lits) {
                        match p.find_end(&hay, start, end) {
                            Ok(e) => assert!(want.is_some_and(|w| at(w, end).contains(&(e - w)))),
                            Err(q) => assert!(q >= start && want.is_none_or(|w| w >= q)),
                        }
                    }
                }
                for (have, name) in widths {
                    if !have {
                        continue;
                    }
                    // SAFETY: the CPU has the width's feature (checked).
                    let got = unsafe {
                        if name == "avx2" {
                            t.find_avx2(&hay, start, end)
                        } else {
                            t.find_ssse3(&hay, start, end)
                        }
                    };
                    let (got, seen) = got;
                    // What it says it read, and whether a NUL byte is there.
                    assert!(
                        (start..=end).contains(&seen.to)
                            && seen.nul == hay[start..seen.to].contains(&0),
                        "{name} round {round}: {start}..{end}: {seen:?}"
                    );
                    match got {
                        Ok((p, l)) => assert!(
                            want == Some(p) && at(p, end).contains(&l),
                            "{name} round {round}: {lits:?} in {start}..{end}: got {p}+{l}, want {want:?}"
                        ),
                        Err(q) => assert!(
                            q >= start && want.is_none_or(|w| w >= q),
                            "{name} round {round}: {lits:?} in {start}..{end}: none before {q}, want {want:?}"
                        ),
                    }
                }
            }
        }
    }
}
