//! `--binary-files=binary`: GNU grep's binary-file behaviour, exactly or
//! refused. Where the first NUL falls decides where grep stops counting and
//! printing text lines (one read buffer before it, or more with long lines):
//! NULs at and around grep's buffer boundaries, lines of many lengths, every
//! chunk size, against plain `grep`. (The default, where logs are text, is
//! tested against `grep -a` in `tests/logs_are_text.rs`.)

use std::process::Command;

/// About 900 KB of `line_len`-byte lines, every third selected by `Error`,
/// with a NUL byte at `nul_at` (if inside).
fn log_with_nul(line_len: usize, nul_at: usize) -> Vec<u8> {
    let mut v = Vec::new();
    let mut i = 0;
    while v.len() < 900_000 {
        let word = if i % 3 == 0 { "Error" } else { "ok" };
        let body = format!("{i} {word} ");
        v.extend_from_slice(body.as_bytes());
        v.resize(v.len() + line_len.saturating_sub(body.len()), b'x');
        v.push(b'\n');
        i += 1;
    }
    if nul_at < v.len() {
        v[nul_at] = 0;
    }
    v
}

/// `out` with stdout as text.
fn count(prog: &str, args: &[&str], file: &std::path::Path) -> (String, Option<i32>, String) {
    let (o, c, e) = out(prog, args, file);
    (String::from_utf8_lossy(&o).into_owned(), c, e)
}

#[test]
fn count_with_a_nul_anywhere_matches_grep() {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("n.log");
    let mut checked = 0;
    let mut refused = 0;
    for line_len in [12usize, 90, 4000, 70_000, 150_000] {
        for nul_at in [
            0usize, 7, 98_303, 98_304, 98_305, 131_072, 196_608, 300_001, 700_000,
        ] {
            std::fs::write(&f, log_with_nul(line_len, nul_at)).unwrap();
            for args in [
                &["-c", "Error"][..],
                &["-c", "-v", "Error"],
                &["-c", "-N", "7", "Error"],
                &["-c", "x$"],
            ] {
                let grep_args: Vec<&str> = args
                    .iter()
                    .copied()
                    .filter(|a| *a != "-N" && *a != "7")
                    .collect();
                let want = if args.contains(&"-N") {
                    let o = Command::new("bash")
                        .arg("-c")
                        .arg(format!("grep Error {} | grep -vc 7", f.display()))
                        .env("LC_ALL", "C")
                        .output()
                        .unwrap();
                    (
                        String::from_utf8_lossy(&o.stdout).into_owned(),
                        o.status.code(),
                    )
                } else {
                    let (s, c, _) = count("grep", &grep_args, &f);
                    (s, c)
                };
                for chunk in ["1", "4096", "100000", "4194304"] {
                    let mut a = vec!["--chunk-size", chunk];
                    a.extend_from_slice(args);
                    let (s, c, e) = count(env!("CARGO_BIN_EXE_grail"), &a, &f);
                    checked += 1;
                    if c == Some(2) && e.contains("use -a") {
                        refused += 1;
                        continue;
                    }
                    assert_eq!(
                        (s, c),
                        want,
                        "line {line_len}, NUL at {nul_at}, grail {a:?}: {e}"
                    );
                }
            }
        }
    }
    eprintln!("-c with NULs: {checked} runs, {refused} refused as ambiguous");
    assert!(refused * 4 < checked);
}

/// Run `prog` on `file`; grail runs in `--binary-files=binary` mode.
fn out(prog: &str, args: &[&str], file: &std::path::Path) -> (Vec<u8>, Option<i32>, String) {
    let mut cmd = Command::new(prog);
    if prog == env!("CARGO_BIN_EXE_grail") {
        cmd.arg("--binary-files=binary");
    }
    let o = cmd
        .args(args)
        .arg(file)
        .env("LC_ALL", "C")
        .output()
        .unwrap();
    (
        o.stdout,
        o.status.code(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

#[test]
fn plain_output_with_a_nul_anywhere_matches_grep() {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("n.log");
    let (mut checked, mut refused) = (0, 0);
    for line_len in [12usize, 90, 4000, 70_000, 150_000] {
        for nul_at in [
            0usize,
            98_303,
            98_305,
            131_072,
            300_001,
            700_000,
            usize::MAX,
        ] {
            std::fs::write(&f, log_with_nul(line_len, nul_at)).unwrap();
            // Tails (the backward scan checks its chunks for NULs itself).
            for k in ["1", "5", "1000"] {
                let o = Command::new("bash")
                    .arg("-c")
                    .arg(format!("grep Error {} | tail -n {k}", f.display()))
                    .env("LC_ALL", "C")
                    .output()
                    .unwrap();
                for chunk in ["1", "4096", "4194304"] {
                    let a = ["--chunk-size", chunk, "-t", k, "Error"];
                    let got = out(env!("CARGO_BIN_EXE_grail"), &a, &f);
                    checked += 1;
                    if got.1 == Some(2) && got.2.contains("use -a") {
                        refused += 1;
                        continue;
                    }
                    assert!(
                        got.0 == o.stdout,
                        "line {line_len}, NUL at {nul_at}, grail {a:?}: {} vs {} bytes; {}",
                        got.0.len(),
                        o.stdout.len(),
                        got.2
                    );
                }
            }
            for args in [&["Error"][..], &["-n", "Error"], &["-v", "-b", "Error"]] {
                let want = out("grep", args, &f);
                for chunk in ["1", "4096", "100000", "4194304"] {
                    let mut a = vec!["--chunk-size", chunk];
                    a.extend_from_slice(args);
                    let got = out(env!("CARGO_BIN_EXE_grail"), &a, &f);
                    checked += 1;
                    if got.1 == Some(2) && got.2.contains("use -a") {
                        refused += 1;
                        assert!(got.0.is_empty(), "a refusal prints nothing first");
                        continue;
                    }
                    assert!(
                        (&got.0, got.1) == (&want.0, want.1),
                        "line {line_len}, NUL at {nul_at}, grail {a:?}: {} vs {} bytes; {}",
                        got.0.len(),
                        want.0.len(),
                        got.2
                    );
                }
            }
        }
    }
    eprintln!("plain output with NULs: {checked} runs, {refused} refused as ambiguous");
    assert!(refused * 4 < checked);
}

#[test]
fn output_beyond_the_hold_is_exact_too() {
    // 40 MB of selected lines (more than the 32 MiB grail holds back before
    // it checks the rest for NULs), then a NUL near the end, and without one.
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("big.log");
    let mut v = Vec::with_capacity(41 << 20);
    let mut i = 0u64;
    while v.len() < 40 << 20 {
        v.extend_from_slice(format!("{i} Error some text to make the line longer\n").as_bytes());
        i += 1;
    }
    // No NUL, and a NUL in grep's first read (nothing is text): exact.
    for nul in [None, Some(50_000)] {
        let mut w = v.clone();
        if let Some(z) = nul {
            w[z] = 0;
        }
        std::fs::write(&f, &w).unwrap();
        for args in [&["Error"][..], &["-n", "Error"]] {
            let want = out("grep", args, &f);
            let got = out(env!("CARGO_BIN_EXE_grail"), args, &f);
            assert!(
                (&got.0, got.1) == (&want.0, want.1),
                "NUL at {nul:?} {args:?}: {} vs {} bytes; {}",
                got.0.len(),
                want.0.len(),
                got.2
            );
        }
    }
    // A NUL 40 MB in: where grep's reads fall there depends on its buffer's
    // address, so grail refuses, and prints nothing before refusing even
    // though it had 32 MiB of output ready.
    let mut w = v.clone();
    let z = w.len() - 5000;
    w[z] = 0;
    std::fs::write(&f, &w).unwrap();
    let got = out(env!("CARGO_BIN_EXE_grail"), &["Error"], &f);
    assert_eq!(got.1, Some(2), "{}", got.2);
    assert!(got.0.is_empty());
    assert!(got.2.contains("use -a"));
}

#[test]
fn a_far_nul_is_exact_when_no_selected_line_is_near_the_uncertain_boundary() {
    // 2 MB of short lines with a NUL at 1.5 MB: grep's read boundaries there
    // depend on its buffer's address. A sparse pattern selects no line in
    // the uncertain stretch, so every boundary gives the same answer; a
    // dense one does not, and grail refuses.
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("far.log");
    let mut v = Vec::new();
    let mut i = 0;
    while v.len() < 2 << 20 {
        v.extend_from_slice(format!("{i} Error some text\n").as_bytes());
        i += 1;
    }
    v[1_500_000] = 0;
    std::fs::write(&f, &v).unwrap();
    for args in [&["-c", "9999"][..], &["-n", "999[0-9]"], &["-b", "x12345 "]] {
        let want = out("grep", args, &f);
        let got = out(env!("CARGO_BIN_EXE_grail"), args, &f);
        assert_eq!((&got.0, got.1), (&want.0, want.1), "{args:?}: {}", got.2);
    }
    let t = out(
        env!("CARGO_BIN_EXE_grail"),
        &["-t", "2", "99[0-9][0-9] "],
        &f,
    );
    let o = Command::new("bash")
        .arg("-c")
        .arg(format!("grep '99[0-9][0-9] ' {} | tail -n 2", f.display()))
        .env("LC_ALL", "C")
        .output()
        .unwrap();
    assert_eq!(t.0, o.stdout, "{}", t.2);
    let dense = out(env!("CARGO_BIN_EXE_grail"), &["-c", "Error"], &f);
    assert_eq!(dense.1, Some(2));
    assert!(dense.0.is_empty() && dense.2.contains("use -a"));
}
