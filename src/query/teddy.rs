//! The AVX2 path of the case-insensitive literal prefilter: Teddy (as in
//! Hyperscan and aho-corasick) on text folded to lower case inside the
//! vector registers, so the text is read once and never copied.
//!
//! Each literal's first three (folded) bytes are its fingerprint; literals
//! are spread over 8 buckets, one bit each. For 32 bytes at a time, two
//! 16-entry tables per fingerprint byte (indexed by the low and the high
//! nibble) give the buckets whose k-th byte could be there; the three
//! results, shifted into line, are ANDed: a bit left at byte `j` says a
//! literal of that bucket may start at `j - 2`. Each such place is then
//! compared with the bucket's literals (folded, whole). What the vector
//! loop cannot reach (the last bytes, fewer than 32) is left to the caller.

use super::literals::fold;
#[cfg(target_arch = "x86_64")]
use std::arch::x86_64::*;

/// The tables and the literals of each bucket.
#[derive(Debug)]
pub struct Teddy {
    /// For fingerprint byte k: the low-nibble table then the high-nibble
    /// one, each repeated in both 128-bit lanes.
    masks: [[[u8; 32]; 2]; 3],
    /// The literals of each bucket (folded).
    buckets: [Vec<Vec<u8>>; 8],
}

impl Teddy {
    /// Tables for these folded literals, each at least 3 bytes long.
    pub fn new(lits: &[Vec<u8>]) -> Teddy {
        let mut t = Teddy {
            masks: [[[0; 32]; 2]; 3],
            buckets: Default::default(),
        };
        // Literals sharing a fingerprint share a bucket; fingerprints are
        // dealt round-robin.
        let mut prints: Vec<&[u8]> = Vec::new();
        for l in lits {
            let fp = &l[..3];
            let i = match prints.iter().position(|p| *p == fp) {
                Some(i) => i,
                None => {
                    prints.push(fp);
                    prints.len() - 1
                }
            };
            let b = i % 8;
            t.buckets[b].push(l.clone());
            for (k, &byte) in fp.iter().enumerate() {
                for lane in [0, 16] {
                    t.masks[k][0][lane + usize::from(byte & 0xf)] |= 1 << b;
                    t.masks[k][1][lane + usize::from(byte >> 4)] |= 1 << b;
                }
            }
        }
        t
    }

    /// Whether bucket `b` has a literal at `hay[p..]` (within `end`).
    #[inline]
    fn verify(&self, bits: u8, hay: &[u8], p: usize, end: usize) -> bool {
        let mut bits = bits;
        while bits != 0 {
            let b = bits.trailing_zeros() as usize;
            bits &= bits - 1;
            for l in &self.buckets[b] {
                if p + l.len() <= end
                    && hay[p..p + l.len()]
                        .iter()
                        .zip(l)
                        .all(|(&h, &n)| fold(h) == n)
                {
                    return true;
                }
            }
        }
        false
    }

    /// The first place in `hay[start..end]` where a literal starts, among
    /// the places the vector loop covers; `Err(p)`: none up to `p`, from
    /// where the caller searches the rest (`p >= start`).
    ///
    /// # Safety
    /// The CPU must support AVX2.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    pub unsafe fn find(&self, hay: &[u8], start: usize, end: usize) -> Result<usize, usize> {
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
        let mut i = start;
        while i + 32 <= end {
            // SAFETY: `i + 32 <= end <= hay.len()`: 32 bytes of `hay`.
            let v = unsafe { _mm256_loadu_si256(hay.as_ptr().add(i).cast()) };
            // Fold: bytes A..=Z get 0x20.
            let t = _mm256_sub_epi8(v, a);
            let upper = _mm256_cmpeq_epi8(_mm256_min_epu8(t, z25), t);
            let f = _mm256_or_si256(v, _mm256_and_si256(upper, case));
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
                    if let Some(p) = (i + j).checked_sub(2).filter(|&p| p >= start) {
                        if self.verify(bytes[j], hay, p, end) {
                            return Ok(p);
                        }
                    }
                }
            }
            prev0 = r0;
            prev1 = r1;
            i += 32;
        }
        // Literals starting in the last two bytes covered end past them.
        Err(i.saturating_sub(2).max(start))
    }
}
