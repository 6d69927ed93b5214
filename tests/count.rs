//! `-c` checks for NUL bytes during the scan, chunk by chunk, instead of in a
//! pass of its own. Where the first NUL falls decides where grep stops
//! counting text lines (one read buffer before it, or more with long lines):
//! NULs at and around grep's buffer boundaries, lines of many lengths, every
//! chunk size, against `grep -c`.

use std::process::Command;

fn count(prog: &str, args: &[&str], file: &std::path::Path) -> (String, Option<i32>, String) {
    let o = Command::new(prog)
        .args(args)
        .arg(file)
        .env("LC_ALL", "C")
        .output()
        .unwrap();
    (
        String::from_utf8_lossy(&o.stdout).into_owned(),
        o.status.code(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
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
            std::fs::write(&f, &v).unwrap();
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
