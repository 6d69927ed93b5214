//! The case-insensitive literal prefilter (`src/query/literals.rs`) against
//! GNU grep and against grail without it (`GRAIL_PREFILTER=off`), on every
//! fold path (`GRAIL_SIMD=avx2|ssse3|sse2|scalar`): random `-i` literal sets
//! (letters, digits, punctuation, bytes >= 0x80, the letters with
//! non-ASCII case partners in a UTF-8 locale), planted in random case in
//! random text, with `-c`, `-o`, colour, `-v`, `-w`, `-x`, tails, excludes
//! and tiny chunks that put literals across chunk edges.

mod common;

use common::{Rng, GRAIL};
use std::path::Path;

const PIECES: &[&str] = &[
    "error",
    "Error",
    "RuntimeError",
    "not supported",
    "incompatible",
    "kiss",
    "Ink",
    "siK",
    "a_b",
    "x-9",
    "fail",
    "OOM",
    "cuda",
    "NCCL",
    "\u{e9}t\u{e9}",
    "ı",
    "ſ",
    "\u{212a}elvin",
];

/// Random text with the pieces planted in random case (`raw`: with bytes
/// that are not UTF-8, which a UTF-8 locale's grep would hide as binary, a
/// deliberate difference).
fn text(rng: &mut Rng, raw: bool) -> Vec<u8> {
    let mut t = Vec::new();
    let lines = 50 + rng.below(400);
    for _ in 0..lines {
        let words = rng.below(9);
        for w in 0..words {
            if w > 0 {
                t.push(if rng.chance(20) { b'-' } else { b' ' });
            }
            if rng.chance(35) {
                let p = PIECES[rng.below(PIECES.len())];
                for ch in p.chars() {
                    let c = if rng.chance(50) {
                        ch.to_uppercase().next().unwrap()
                    } else {
                        ch
                    };
                    let mut b = [0u8; 4];
                    t.extend_from_slice(c.encode_utf8(&mut b).as_bytes());
                }
            } else {
                for _ in 0..1 + rng.below(8) {
                    let b = match rng.below(10) {
                        0 if raw => 0x80 + rng.below(0x80) as u8,
                        1 => b"_.:[]()0123456789"[rng.below(17)],
                        _ => b'a' + rng.below(26) as u8 - if rng.chance(30) { 32 } else { 0 },
                    };
                    t.push(b);
                }
            }
        }
        t.extend_from_slice(if rng.chance(10) { b"\r\n" } else { b"\n" });
    }
    t
}

/// Fail with the first of `fails`, if any, out of `checked` runs.
fn all_passed(fails: &[String], checked: usize) {
    assert!(
        fails.is_empty(),
        "{} of {checked} differ:\n{}",
        fails.len(),
        fails[..fails.len().min(8)].join("\n")
    );
}

/// A prefilter path: `GRAIL_SIMD`, `GRAIL_PREFILTER`, `--chunk-size`.
type Route = (&'static str, &'static str, Option<&'static str>);

/// grail with grep's arguments `grep` on each of `paths`, against grep
/// (stdout and status); a failure is described in `fails` and its input
/// kept as `failN.log`. The number of runs compared.
fn on_every_path(
    dir: &Path,
    locale: &str,
    grep: &[String],
    paths: &[Route],
    fails: &mut Vec<String>,
) -> usize {
    let want = common::run_env("grep", grep, dir, None, &[("LC_ALL", locale)]);
    for &(simd, prefilter, chunk) in paths {
        let mut args = grep.to_vec();
        if let Some(c) = chunk {
            args.extend(["--chunk-size".into(), c.into()]);
        }
        let env = [
            ("LC_ALL", locale),
            ("GRAIL_SIMD", simd),
            ("GRAIL_PREFILTER", prefilter),
        ];
        let got = common::run_env(GRAIL, &args, dir, None, &env);
        if got.stdout != want.stdout || got.status.code() != want.status.code() {
            fails.push(format!(
                "LC_ALL={locale} GRAIL_SIMD={simd} GRAIL_PREFILTER={prefilter} grail {}\n  grep: {:?} {}\n  grail: {:?} {}{}",
                shell_words::join(&args),
                want.status.code(),
                String::from_utf8_lossy(&want.stdout),
                got.status.code(),
                String::from_utf8_lossy(&got.stdout),
                String::from_utf8_lossy(&got.stderr)
            ));
            std::fs::copy(
                dir.join("t.log"),
                dir.join(format!("fail{}.log", fails.len())),
            )
            .unwrap();
        }
    }
    paths.len()
}

fn check(dir: &Path, locale: &str, rng: &mut Rng, fails: &mut Vec<String>) -> usize {
    let mut checked = 0;
    for case in 0..25 {
        std::fs::write(dir.join("t.log"), text(rng, locale == "C")).unwrap();
        let pats = rng.pick(PIECES, 4);
        if pats.is_empty() {
            continue;
        }
        let mut grep: Vec<String> = vec!["-i".into()];
        for p in &pats {
            grep.extend(["-e".into(), p.to_string()]);
        }
        let flag = ["", "-c", "-o", "-v", "-w", "-x", "--color=always", "-n"][case % 8];
        if !flag.is_empty() {
            grep.push(flag.into());
        }
        grep.push("t.log".into());
        let env = [("LC_ALL", locale)];
        let paths = [
            ("avx2", "on", None),
            ("ssse3", "on", Some("31")),
            ("sse2", "on", Some("97")),
            ("scalar", "on", Some("13")),
            ("avx2", "off", None),
        ];
        checked += on_every_path(dir, locale, &grep, &paths, fails);
        // A tail, with an exclude, against the pipeline.
        let pipeline = format!(
            "grep -i {} t.log | grep -iv {} | tail -n 7",
            shell_words::join(pats.iter().map(|p| format!("-e{p}"))),
            shell_words::quote(pats[0])
        );
        let want = common::run_env("bash", &["-c", &pipeline], dir, None, &env);
        let mut args: Vec<String> = vec!["-i".into()];
        for p in &pats {
            args.extend(["-e".into(), p.to_string()]);
        }
        args.extend([
            "-N".into(),
            pats[0].into(),
            "-t".into(),
            "7".into(),
            "t.log".into(),
        ]);
        let got = common::run_env(GRAIL, &args, dir, None, &env);
        checked += 1;
        if got.stdout != want.stdout {
            fails.push(format!("LC_ALL={locale} {pipeline}: grail {args:?}"));
        }
    }
    checked
}

#[test]
fn case_insensitive_literals_match_grep_on_every_path() {
    let d = tempfile::tempdir().unwrap();
    let mut fails = Vec::new();
    let mut checked = 0;
    let mut rng = Rng(0x5eed_1175);
    for locale in ["C", "C.UTF-8"] {
        checked += check(d.path(), locale, &mut rng, &mut fails);
    }
    all_passed(&fails, checked);
}

/// Large case-sensitive literal sets (`-F -f` with 25-120 names, where
/// the rarity-fingerprint Teddy of `Plain` applies), planted exactly and
/// with one letter's case changed, against grep and grail without the
/// prefilter, at tiny chunk sizes too.
#[test]
fn large_literal_sets_match_grep() {
    let d = tempfile::tempdir().unwrap();
    let dir = d.path();
    let mut rng = Rng(0x7ed_d7ed);
    let suffixes = ["Error", "Exception", "Failure", "error", "_FAILED", "Err"];
    let mut fails = Vec::new();
    let mut checked = 0;
    for case in 0..24 {
        // Names: a random stem and a shared suffix, as exception names are.
        let k = 25 + rng.below(96);
        let names: Vec<String> = (0..k)
            .map(|_| {
                let stem: String = (0..1 + rng.below(9))
                    .map(|i| {
                        let c = (b'a' + rng.below(26) as u8) as char;
                        if i == 0 || rng.chance(15) {
                            c.to_ascii_uppercase()
                        } else {
                            c
                        }
                    })
                    .collect();
                format!("{stem}{}", suffixes[rng.below(suffixes.len())])
            })
            .collect();
        std::fs::write(dir.join("names.txt"), names.join("\n") + "\n").unwrap();
        let mut t = Vec::new();
        for _ in 0..300 + rng.below(700) {
            for w in 0..rng.below(8) {
                if w > 0 {
                    t.push(b' ');
                }
                if rng.chance(12) {
                    let mut n = names[rng.below(k)].clone().into_bytes();
                    if rng.chance(40) {
                        let i = rng.below(n.len());
                        n[i] ^= 0x20 * u8::from(n[i].is_ascii_alphabetic());
                    }
                    t.extend_from_slice(&n);
                } else {
                    for _ in 0..1 + rng.below(10) {
                        t.push(b"aeioErrorxyzFail_0123 :"[rng.below(23)]);
                    }
                }
            }
            t.push(b'\n');
        }
        std::fs::write(dir.join("t.log"), &t).unwrap();
        let flag = ["", "-c", "-o", "-v", "-w", "-x", "--color=always", "-n"][case % 8];
        let mut grep: Vec<String> = vec!["-F".into(), "-f".into(), "names.txt".into()];
        if !flag.is_empty() {
            grep.push(flag.into());
        }
        grep.push("t.log".into());
        let paths = [
            ("avx2", "on", None),
            ("avx2", "on", Some("61")),
            ("ssse3", "on", None),
            ("ssse3", "on", Some("29")),
            ("sse2", "on", Some("13")),
            ("avx2", "off", None),
        ];
        let before = fails.len();
        checked += on_every_path(dir, "C", &grep, &paths, &mut fails);
        for f in &mut fails[before..] {
            f.push_str(&format!(" ({k} names)"));
        }
        // A tail with an exclude, against the pipeline.
        let pipeline = "grep -F -f names.txt t.log | grep -v Fail | tail -n 9";
        let want = common::run_env("bash", &["-c", pipeline], dir, None, &[("LC_ALL", "C")]);
        let args = ["-F", "-f", "names.txt", "-N", "Fail", "-t", "9", "t.log"];
        let got = common::run_env(GRAIL, &args, dir, None, &[("LC_ALL", "C")]);
        checked += 1;
        if got.stdout != want.stdout {
            fails.push(format!("{pipeline}: grail {args:?}"));
        }
    }
    all_passed(&fails, checked);
}

/// The log rule's NUL report (how many, where the first is) is exact on
/// every path, now that a vector search checks for NUL bytes as it reads
/// and only the bytes it skipped are checked apart: NUL bytes planted after
/// grep's first read, right after a literal (the rest of a matched line,
/// which the search skips), in a file's last bytes, in runs; the count's
/// stdout against `grep -a`.
#[test]
fn nul_reports_are_exact_on_every_path() {
    let d = tempfile::tempdir().unwrap();
    let dir = d.path();
    let mut rng = Rng(0x0_0bad_c0de);
    let names: Vec<String> = (0..30).map(|i| format!("Name{i:02}Error")).collect();
    std::fs::write(dir.join("names.txt"), names.join("\n") + "\n").unwrap();
    // Each query with its pipeline, with `-a`: NUL bytes after grep's
    // first read do not hide lines from grail.
    let queries: [(&[&str], &str); 6] = [
        (
            &["-c", "-F", "-f", "names.txt"],
            "grep -a -c -F -f names.txt t.log",
        ),
        (
            &["-c", "-i", "name07error"],
            "grep -a -c -i name07error t.log",
        ),
        (
            &["-c", "-E", "Name[0-9]+Err"],
            "grep -a -c -E 'Name[0-9]+Err' t.log",
        ),
        (&["-c", "-v", "Name1"], "grep -a -c -v Name1 t.log"),
        (
            &["-c", "-F", "-f", "names.txt", "--not", "Name2"],
            "grep -a -F -f names.txt t.log | grep -a -vc Name2",
        ),
        (
            &["-t", "3", "-F", "-f", "names.txt"],
            "grep -a -F -f names.txt t.log | tail -n 3",
        ),
    ];
    let mut fails = Vec::new();
    let mut checked = 0;
    for case in 0..12 {
        let mut t = Vec::new();
        while t.len() < 100 * 1024 + rng.below(60_000) {
            for w in 0..1 + rng.below(8) {
                if w > 0 {
                    t.push(b' ');
                }
                if rng.chance(15) {
                    t.extend_from_slice(names[rng.below(names.len())].as_bytes());
                } else {
                    for _ in 0..1 + rng.below(10) {
                        t.push(b"abcdeNamErr0123 :"[rng.below(17)]);
                    }
                }
            }
            t.push(b'\n');
        }
        // NUL bytes, all after grep's first read (96 KiB).
        let (lo, n) = (96 * 1024 + 1, t.len());
        let mut places = Vec::new();
        for _ in 0..case % 4 {
            places.push(lo + rng.below(n - lo));
        }
        if case % 3 == 0 {
            // Just after a literal, in the line the search skips.
            let hay = &t[lo..];
            if let Some(i) = (0..hay.len() - 12).find(|&i| hay[i..].starts_with(b"Error")) {
                places.push(lo + i + 5 + rng.below(3));
            }
        }
        if case % 4 == 1 {
            places.push(n - 1 - rng.below(40));
        }
        if case % 5 == 2 {
            let at = lo + rng.below(n - lo - 100);
            places.extend(at..at + 1 + rng.below(64));
        }
        for &p in &places {
            if t[p] != b'\n' {
                t[p] = 0;
            }
        }
        std::fs::write(dir.join("t.log"), &t).unwrap();
        let first = t.iter().position(|&b| b == 0);
        let count = t.iter().filter(|&&b| b == 0).count();
        for (q, pipeline) in queries {
            let want = common::bash(dir, pipeline).stdout;
            let tail = q[0] == "-t";
            let mut args: Vec<String> = q.iter().map(|s| s.to_string()).collect();
            args.push("t.log".into());
            for (simd, chunk) in [
                ("avx2", None),
                ("avx2", Some("4096")),
                ("ssse3", Some("777")),
                ("sse2", None),
            ] {
                let mut a = args.clone();
                if let Some(c) = chunk {
                    a.extend(["--chunk-size".into(), c.into()]);
                }
                let got = common::run_env(GRAIL, &a, dir, None, &[("GRAIL_SIMD", simd)]);
                let err = String::from_utf8_lossy(&got.stderr);
                checked += 1;
                let reported = match first {
                    None => !err.contains("NUL"),
                    // A tail reports the NUL bytes it read: never more, and
                    // its first is one.
                    Some(_) if tail => err.find(" NUL byte").is_none_or(|i| {
                        let num = |s: &str| s.trim().parse::<usize>().unwrap_or(usize::MAX);
                        let said = num(err[..i].rsplit(' ').next().unwrap());
                        let at = err[i..].split("offset ").nth(1).unwrap();
                        let at = num(at.split(' ').next().unwrap());
                        said <= count && t.get(at) == Some(&0)
                    }),
                    Some(f) => {
                        let line = format!(
                            "grail: t.log: {count} NUL byte{} from offset {f} (GNU grep",
                            if count == 1 { "" } else { "s" }
                        );
                        err.contains(&line) && err.matches("NUL byte").count() == 1
                    }
                };
                if !reported {
                    fails.push(format!(
                        "case {case} GRAIL_SIMD={simd} grail {}: stderr {err:?} ({count} from {first:?})",
                        shell_words::join(&a)
                    ));
                }
                if got.stdout != want {
                    fails.push(format!(
                        "case {case} GRAIL_SIMD={simd} grail {}: {:?}, {pipeline}: {:?}",
                        shell_words::join(&a),
                        String::from_utf8_lossy(&got.stdout),
                        String::from_utf8_lossy(&want)
                    ));
                }
            }
        }
    }
    all_passed(&fails, checked);
}
