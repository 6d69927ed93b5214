//! What the integration tests share: the data beside the checkout, one
//! process runner, one random generator, fixtures. Each test file uses part
//! of it.
#![allow(dead_code)]

use std::ffi::OsStr;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

/// The grail binary under test.
pub const GRAIL: &str = env!("CARGO_BIN_EXE_grail");

/// `../shared/SUB` beside the checkout (CI lays it there too). A test that
/// needs it fails when it is missing: it never passes by skipping.
pub fn shared(sub: &str) -> PathBuf {
    let p = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../shared")
        .join(sub);
    assert!(
        p.is_dir(),
        "{} is missing: these tests need the shared test data (not skipping)",
        p.display()
    );
    p
}

/// Run `program` with `args` in `dir` under `LC_ALL=C` (and `env`; grep's
/// colour variables removed), with `stdin` as its standard input (none:
/// `/dev/null`).
pub fn run_env<S: AsRef<OsStr>>(
    program: &str,
    args: &[S],
    dir: &Path,
    stdin: Option<&[u8]>,
    env: &[(&str, &str)],
) -> Output {
    let mut cmd = Command::new(program);
    cmd.args(args)
        .current_dir(dir)
        .env("LC_ALL", "C")
        .env_remove("GREP_COLORS")
        .env_remove("GREP_COLOR")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd.stdin(if stdin.is_some() {
        Stdio::piped()
    } else {
        Stdio::null()
    });
    let mut child = cmd
        .spawn()
        .unwrap_or_else(|e| panic!("cannot run {program}: {e}"));
    if let Some(data) = stdin {
        let mut w = child.stdin.take().expect("piped stdin");
        let data = data.to_vec();
        // A writer thread: the child may exit (or fill its stdout) first.
        std::thread::spawn(move || {
            let _ = w.write_all(&data);
        });
    }
    child.wait_with_output().expect("wait for the child")
}

/// [`run_env`] without extra environment.
pub fn run<S: AsRef<OsStr>>(program: &str, args: &[S], dir: &Path, stdin: Option<&[u8]>) -> Output {
    run_env(program, args, dir, stdin, &[])
}

/// `bash -c SCRIPT` in `dir` under `LC_ALL=C`.
pub fn bash(dir: &Path, script: &str) -> Output {
    run("bash", &["-c", script], dir, None)
}

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

/// A small deterministic random generator (xorshift), so that a failing
/// randomized case replays from its seed.
pub struct Rng(pub u64);

impl Rng {
    /// The next number.
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    /// A number below `n`.
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    /// True `percent` times in a hundred.
    pub fn chance(&mut self, percent: usize) -> bool {
        self.below(100) < percent
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
