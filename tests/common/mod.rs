//! Fixtures shared by the integration tests.

use std::path::Path;

/// Small logs that exercise the edges: CRLF, no final newline, an empty
/// file, a NUL byte, an empty pattern file.
pub fn write_small_logs(d: &Path) {
    let files: [(&str, &[u8]); 7] = [
        (
            "v1",
            b"Error one\nINFO Error repo_utils\nWARN x\nError two FutureWarning\n\nError three\r\n",
        ),
        ("v2", b"ValueError a\nb\nRuntimeError c"),
        ("t1", b"x Error\r\ny error\nz\n"),
        ("t2", b"Error only\n"),
        ("empty", b""),
        ("nopats", b""),
        ("bin1", b"a Error\nb\nError c\0d\n"),
    ];
    for (name, data) in files {
        std::fs::write(d.join(name), data).unwrap();
    }
}

/// A small deterministic random generator (xorshift) for the randomized
/// differential tests.
#[allow(dead_code)]
pub struct Rng(pub u64);

#[allow(dead_code)]
impl Rng {
    /// A number below `n`.
    pub fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % n as u64) as usize
    }

    /// Up to `max` distinct items of `from`, in random order.
    pub fn pick<'a>(&mut self, from: &[&'a str], max: usize) -> Vec<&'a str> {
        let mut v: Vec<&str> = from.to_vec();
        let k = self.below(max + 1).min(v.len());
        let mut out = Vec::new();
        for _ in 0..k {
            out.push(v.remove(self.below(v.len())));
        }
        out
    }
}
