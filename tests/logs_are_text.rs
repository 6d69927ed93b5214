//! Logs are text: an input is binary only when grep's first read (96 KiB)
//! holds a NUL byte; later NUL bytes are ordinary bytes, as with `-a`, and
//! grail says where they are. Checked against the `grep -a … | grep -a -v
//! … | tail` pipeline on NUL shapes real logs have (a power-loss tail, a
//! restart after a NUL block, scattered NULs, CRLF), in every mode, chunk
//! size and thread count, from files and pipes; binary files (a NUL in the
//! first read, an ELF file, a leading hole) against plain grep.

mod common;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

const GRAIL: &str = env!("CARGO_BIN_EXE_grail");
const FIRST_READ: usize = 96 * 1024;

/// About `size` bytes of log lines (`\n` or `\r\n` ends); every 13th line
/// has an ERROR, every 39th also a FutureWarning.
fn log_lines(size: usize, crlf: bool, seed: usize) -> Vec<u8> {
    let mut v = Vec::with_capacity(size + 200);
    let mut i = seed;
    while v.len() < size {
        let body = match i % 39 {
            0 => format!("{i} ERROR RuntimeError retry FutureWarning"),
            k if k % 13 == 0 => format!("{i} ERROR ValueError: bad shape {}", "x".repeat(i % 50)),
            _ => format!("{i} INFO step ok {}", "y".repeat(i % 70)),
        };
        v.extend_from_slice(body.as_bytes());
        v.extend_from_slice(if crlf { b"\r\n" } else { b"\n" });
        i += 1;
    }
    v
}

/// The NUL shapes, by name.
fn shapes() -> Vec<(&'static str, Vec<u8>)> {
    let crash = b"RuntimeError: CUDA error: out of memory\n";
    let mut out = Vec::new();
    // A power-loss tail: the crash line, then blocks never written.
    let mut v = log_lines(700_000, false, 0);
    v.extend_from_slice(crash);
    v.extend(std::iter::repeat_n(0u8, 8192));
    out.push(("power_loss", v.clone()));
    v.push(b'\n');
    out.push(("power_loss_newline", v));
    // A NUL block in the middle, then the restarted server's log.
    let mut v = log_lines(400_000, false, 0);
    v.extend(std::iter::repeat_n(0u8, 4096));
    v.extend_from_slice(&log_lines(300_000, false, 5000));
    out.push(("restart", v));
    // Scattered NULs, some inside selected lines.
    let mut v = log_lines(900_000, false, 0);
    for k in 0..40 {
        let at = FIRST_READ + 1 + k * 20_011;
        v[at] = 0;
    }
    out.push(("scattered", v));
    // CRLF with NULs.
    let mut v = log_lines(500_000, true, 0);
    for at in [200_000, 200_001, 333_333, 480_000] {
        v[at] = 0;
    }
    out.push(("crlf", v));
    // The first NUL just before, at and after the end of grep's first read.
    for (name, at) in [
        ("first_read_minus_1", FIRST_READ - 1),
        ("first_read_exact", FIRST_READ),
        ("first_read_plus_1", FIRST_READ + 1),
    ] {
        let mut v = log_lines(300_000, false, 0);
        v[at] = 0;
        out.push((name, v));
    }
    out
}

fn binary_by_log_rule(v: &[u8]) -> bool {
    v[..v.len().min(FIRST_READ)].contains(&0)
}

/// What grail is asked, beside the pipeline it replaces (`F` is the file).
const MODES: &[(&str, &str)] = &[
    ("-t 10 ERROR", "grep ERROR @F@ | tail -n 10"),
    ("-t 1 Error", "grep Error @F@ | tail -n 1"),
    ("-t 1000 -n ERROR", "grep -n ERROR @F@ | tail -n 1000"),
    (
        "-E 'RuntimeError|ValueError' -N FutureWarning -t 5",
        "grep -E 'RuntimeError|ValueError' @F@ | grep -v FutureWarning | tail -n 5",
    ),
    ("--head 5 ERROR", "grep ERROR @F@ | head -n 5"),
    ("ERROR", "grep ERROR @F@"),
    ("-n -b CUDA", "grep -n -b CUDA @F@"),
    ("-c ERROR", "grep -c ERROR @F@"),
    ("-c -v INFO", "grep -c -v INFO @F@"),
    (
        "-c ERROR -N Future",
        "grep ERROR @F@ | grep -v Future | grep -c ''",
    ),
    ("-l ERROR", "grep -l ERROR @F@"),
    ("-L nomatch", "grep -L nomatch @F@"),
    ("-o -b 'Error: [A-Z]*'", "grep -o -b 'Error: [A-Z]*' @F@"),
    ("-m 3 -n ERROR", "grep -m 3 -n ERROR @F@"),
    ("-C2 -n RuntimeError", "grep -C2 -n RuntimeError @F@"),
    ("-t 3 -n -v INFO", "grep -n -v INFO @F@ | tail -n 3"),
    ("-v -c ERROR", "grep -v -c ERROR @F@"),
];

const VARIANTS: &[&[&str]] = &[
    &[],
    &["--chunk-size", "1"],
    &["--chunk-size", "7"],
    &["--chunk-size", "4096"],
    &["--threads", "1"],
    &["--threads", "3", "--chunk-size", "65536"],
];

fn bash(script: &str, dir: &Path, stdin: Option<&Path>) -> Output {
    let mut c = Command::new("bash");
    c.arg("-c")
        .arg(format!("set -o pipefail; {script}"))
        .current_dir(dir)
        .env("LC_ALL", "C");
    match stdin {
        Some(p) => c.stdin(std::fs::File::open(p).unwrap()),
        None => c.stdin(Stdio::null()),
    };
    c.output().unwrap()
}

fn grail(args: &[String], dir: &Path, stdin: Option<&[u8]>) -> Output {
    common::run(GRAIL, args, dir, stdin)
}

fn words(s: &str) -> Vec<String> {
    shell_words::split(s).unwrap()
}

/// The pipeline with `-a` on every grep stage.
fn as_text(pipe: &str) -> String {
    pipe.replace("grep ", "grep -a ")
}

/// grail's stdout and status beside the pipeline's. `head` closing the
/// pipe makes grep die of SIGPIPE (141 under pipefail) or not, by timing;
/// grail stops reading and exits 0 (see issue "Drop-in").
fn same(want: &Output, got: &Output) -> bool {
    let status = match want.status.code() {
        Some(141) => Some(0),
        s => s,
    };
    (&got.stdout, got.status.code()) == (&want.stdout, status)
}

fn show(o: &Output) -> String {
    format!(
        "exit {:?}, {} bytes: {:?}…",
        o.status.code(),
        o.stdout.len(),
        String::from_utf8_lossy(&o.stdout[..o.stdout.len().min(300)])
    )
}

fn write_shapes(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    shapes()
        .into_iter()
        .map(|(name, v)| {
            let p = dir.join(name);
            std::fs::write(&p, &v).unwrap();
            (p, v)
        })
        .collect()
}

/// Every mode, chunk size and thread count on every NUL shape: the
/// `grep -a` pipeline's stdout and exit status (plain grep's for the file
/// that is binary by the log rule).
#[test]
fn every_mode_on_every_nul_shape_is_the_grep_a_pipeline() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let mut checked = 0;
    let mut fails = Vec::new();
    for (path, bytes) in write_shapes(d) {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let binary = binary_by_log_rule(&bytes);
        for (ours, pipe) in MODES {
            assert!(pipe.contains("@F@"), "{pipe}");
            let pipe = pipe.replace("@F@", &name);
            let oracle = if binary { pipe.clone() } else { as_text(&pipe) };
            let want = bash(&oracle, d, None);
            for v in VARIANTS {
                let mut args: Vec<String> = v.iter().map(|s| s.to_string()).collect();
                args.extend(words(ours));
                args.push(name.clone());
                let got = grail(&args, d, None);
                checked += 1;
                if !same(&want, &got) {
                    fails.push(format!(
                        "grail {}\n  vs {oracle}\n  want {}\n  got  {}\n  stderr {}",
                        args.join(" "),
                        show(&want),
                        show(&got),
                        String::from_utf8_lossy(&got.stderr)
                    ));
                }
            }
        }
    }
    eprintln!("{checked} runs, {} differ", fails.len());
    assert!(
        fails.is_empty(),
        "{}",
        fails[..fails.len().min(6)].join("\n")
    );
}

/// The same through a pipe: grail's first read of a pipe is what decides,
/// and none of these shapes has a NUL within a pipe's first read.
#[test]
fn pipes_follow_the_same_rule() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let mut fails = Vec::new();
    for (path, bytes) in write_shapes(d) {
        if bytes[..FIRST_READ + 1].contains(&0) {
            continue; // a NUL near the first read: pipe timing decides for grep
        }
        for (ours, pipe) in MODES.iter().step_by(2) {
            let pipe = pipe.replace(" @F@", "");
            let want = bash(&as_text(&pipe), d, Some(&path));
            for chunk in ["4194304", "7"] {
                let mut args = vec!["--chunk-size".to_string(), chunk.to_string()];
                args.extend(words(ours));
                let got = grail(&args, d, Some(&bytes));
                if !same(&want, &got) {
                    fails.push(format!(
                        "{} | grail {}\n  want {}\n  got  {}",
                        path.display(),
                        args.join(" "),
                        show(&want),
                        show(&got)
                    ));
                }
            }
        }
    }
    assert!(
        fails.is_empty(),
        "{}",
        fails[..fails.len().min(6)].join("\n")
    );
}

/// One stderr line per file says how many NUL bytes were searched as text
/// and where the first is; `--json` and `--stats` report them too.
#[test]
fn nul_bytes_are_reported_once_per_file_with_offset_and_count() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    for (path, bytes) in write_shapes(d) {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let first = bytes.iter().position(|&b| b == 0).unwrap();
        let count = bytes.iter().filter(|&&b| b == 0).count();
        let what = format!(
            "{count} NUL byte{} from offset {first}",
            if count == 1 { "" } else { "s" }
        );
        for mode in ["ERROR", "-c ERROR", "-n -C1 Error"] {
            let mut args = words(mode);
            args.push(name.clone());
            let got = grail(&args, d, None);
            let err = String::from_utf8_lossy(&got.stderr);
            if binary_by_log_rule(&bytes) {
                assert!(!err.contains("NUL byte"), "{name} {mode}: {err}");
                continue;
            }
            let line = format!("grail: {name}: {what} (GNU grep would stop printing there)\n");
            assert_eq!(err.matches("NUL byte").count(), 1, "{name} {mode}: {err}");
            assert!(err.contains(&line), "{name} {mode}: {err}\nwant {line}");
        }
        if binary_by_log_rule(&bytes) {
            continue;
        }
        // --json: the summary's "nul" object.
        let got = grail(&words(&format!("--json CUDA {name}")), d, None);
        let text = String::from_utf8_lossy(&got.stdout);
        let s: serde_json::Value = serde_json::from_str(text.lines().last().unwrap()).unwrap();
        let nul = &s["files"][0]["nul"];
        assert_eq!(nul["first"].as_u64(), Some(first as u64), "{name}: {s}");
        assert_eq!(nul["count"].as_u64(), Some(count as u64), "{name}: {s}");
        // -a: grep's own meaning, nothing to say.
        let got = grail(&words(&format!("-a -c ERROR {name}")), d, None);
        assert!(!String::from_utf8_lossy(&got.stderr).contains("NUL"));
    }
    // A tail reads only the end: it reports the NULs it read.
    let got = grail(&words("-t 1 RuntimeError power_loss"), d, None);
    let err = String::from_utf8_lossy(&got.stderr);
    assert!(err.contains("8192 NUL bytes from offset"), "{err}");
    assert_eq!(got.stdout, b"RuntimeError: CUDA error: out of memory\n");
    // --stats: a last "line" of NUL bytes is not a line cut off mid-write.
    let got = grail(&words("--stats -c ERROR power_loss"), d, None);
    let err = String::from_utf8_lossy(&got.stderr);
    assert!(
        err.contains("ends with 8192 NUL bytes after its last newline"),
        "{err}"
    );
    assert!(!err.contains("cut off mid-write"), "{err}");
}

/// Inputs binary by the log rule are grep's business: plain grep's stdout
/// and status, and a hint when a leading hole is followed by text.
#[test]
fn binary_files_are_treated_as_grep_treats_them() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // An ELF file: this test program.
    let elf = std::env::current_exe().unwrap();
    std::fs::copy(&elf, d.join("prog")).unwrap();
    // A log truncated under its writer: a hole, then text.
    let f = std::fs::File::create(d.join("truncated.log")).unwrap();
    f.set_len(1 << 20).unwrap();
    drop(f);
    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .open(d.join("truncated.log"))
        .unwrap();
    f.write_all(&log_lines(200_000, false, 0)).unwrap();
    drop(f);
    // A small file with a NUL near its start.
    std::fs::write(d.join("small.bin"), b"a ERROR\n\0b ERROR\nc\n").unwrap();
    for name in ["prog", "truncated.log", "small.bin"] {
        for mode in [
            "ERROR",
            "-c ERROR",
            "-t 3 ERROR",
            "-l ERROR",
            "-o ERROR",
            "-I -c ERROR",
            "-v -c ERROR",
            "ERROR -N xyz",
        ] {
            let mut args = words(mode);
            args.push(name.to_string());
            let got = grail(&args, d, None);
            let want = Command::new("grep")
                .args(&args)
                .current_dir(d)
                .env("LC_ALL", "C")
                .output()
                .unwrap();
            let want = if mode.ends_with("-N xyz") {
                bash(&format!("grep ERROR {name} | grep -v xyz"), d, None)
            } else if mode.starts_with("-t 3") {
                bash(&format!("grep ERROR {name} | tail -n 3"), d, None)
            } else {
                want
            };
            assert_eq!(
                (&got.stdout, got.status.code()),
                (&want.stdout, want.status.code()),
                "{name} {mode}: {}",
                String::from_utf8_lossy(&got.stderr)
            );
        }
    }
    let got = grail(&words("ERROR truncated.log"), d, None);
    let err = String::from_utf8_lossy(&got.stderr);
    assert!(
        err.contains("truncated.log: starts with 1048576 NUL bytes, then text: a log truncated under its writer? -a searches it"),
        "{err}"
    );
    assert!(err.contains("binary file matches"), "{err}");
    let got = grail(&words("ERROR prog"), d, None);
    assert!(!String::from_utf8_lossy(&got.stderr).contains("truncated"));
}

/// The library: the default follows the log rule, `BinaryMode::Grep` is
/// grep's exact behaviour, and a tail reads the end and grep's first read
/// only.
#[test]
fn library_modes_and_bytes_read() {
    use grail::search::{self, Input, Mode, SearchOptions, Selected};
    use grail::source::Haystack;
    use grail::{BinaryMode, QueryBuilder, Searcher};
    let mut log = log_lines(400_000, false, 0);
    let z = 120_000;
    log[z] = 0;
    let q = QueryBuilder::new().include("ERROR").build().unwrap();
    let all = Searcher::new(&q).all(&log).unwrap().lines;
    let text = Searcher::new(&q)
        .binary(BinaryMode::Text)
        .all(&log)
        .unwrap()
        .lines;
    assert_eq!(all, text);
    let exact = Searcher::new(&q)
        .binary(BinaryMode::Grep)
        .all(&log)
        .unwrap()
        .lines;
    assert!(exact.len() < all.len());
    let mut n = 0;
    let mut sink = |_: &[u8], _: &Selected| {
        n += 1;
        true
    };
    let input = Input::Bytes(Haystack::new(&log));
    let o = search::run(&q, input, &SearchOptions::default(), Mode::Lines, &mut sink).unwrap();
    assert_eq!(o.nuls.map(|n| (n.first, n.count)), Some((z, 1)));
    assert_eq!(n, all.len());
    // A tail of a 20 MB log reads its end and the first 96 KiB.
    let big: Vec<u8> = log_lines(20_000_000, false, 0);
    let found = Searcher::new(&q).tail(&big, 10).unwrap();
    let (lines, o) = (found.lines, found.outcome);
    assert_eq!(lines.len(), 10);
    assert!(o.scanned < 1 << 20, "read {} bytes", o.scanned);
    assert!(o.scanned as usize >= FIRST_READ);
}
