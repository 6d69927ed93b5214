//! `--rotated FILE` against its set decompressed oldest first and piped
//! into GNU grep (or grep over each file, for per-file prefixes and
//! counts): numbered sets (`FILE.N[.gz|.zst|.xz|.bz2]`) and dateext sets
//! (`FILE-YYYYMMDD[.gz]`), tails that span files, and which files a tail
//! left unread.

mod common;

use common::GRAIL;
use std::path::Path;

/// Write `name` with `lines` lines of `tag`, compressed by its extension.
fn write(dir: &Path, name: &str, tag: &str, lines: usize) {
    let lh =
        std::fs::read_to_string(common::shared("testdata/loghub").join("OpenSSH_2k.log")).unwrap();
    let mut text = String::new();
    for (i, l) in lh.lines().cycle().take(lines).enumerate() {
        text += &format!("{tag} {i} {l}\n");
    }
    let plain = match name.rsplit_once('.') {
        Some((p, "gz" | "zst" | "xz" | "bz2")) => p.to_string(),
        _ => name.to_string(),
    };
    std::fs::write(dir.join(&plain), text).unwrap();
    let cmd = match name.rsplit('.').next() {
        Some("gz") => "gzip",
        Some("zst") => "zstd -q --rm",
        Some("xz") => "xz",
        Some("bz2") => "bzip2",
        _ => return,
    };
    let o = common::bash(dir, &format!("{cmd} {}", shell_words::quote(&plain)));
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
}

/// The command that writes `f`'s text to stdout.
fn cat(f: &str) -> String {
    let tool = match f.rsplit('.').next() {
        Some("gz") => "zcat",
        Some("zst") => "zstdcat",
        Some("xz") => "xzcat",
        Some("bz2") => "bzcat",
        _ => "cat",
    };
    format!("{tool} {}", shell_words::quote(f))
}

/// Compare grail over `--rotated file` with the set `oldest_first`.
fn check(dir: &Path, file: &str, oldest_first: &[&str]) {
    let all: Vec<String> = oldest_first.iter().map(|f| cat(f)).collect();
    let all = format!("{{ {}; }}", all.join("; "));
    for pat in [
        "Failed password",
        "Invalid user",
        "rotated-tag-0 ",
        "zzz-none",
    ] {
        let q = shell_words::quote(pat);
        let mut cases: Vec<(Vec<String>, String)> =
            vec![(vec!["-h".into(), pat.into()], format!("{all} | grep {q}"))];
        for n in [1, 10, 1000, 5000] {
            cases.push((
                vec!["-h".into(), "-t".into(), n.to_string(), pat.into()],
                format!("{all} | grep {q} | tail -n {n}"),
            ));
        }
        // Prefixes and counts per file, as grep prints them for the files
        // named in that order.
        for (flags, tail) in [("-n", ""), ("-c", ""), ("-n", " | tail -n 7")] {
            let per: Vec<String> = oldest_first
                .iter()
                .map(|f| {
                    let many = if oldest_first.len() > 1 { "-H" } else { "" };
                    format!(
                        "{} | grep {many} --label={} {flags} {q}",
                        cat(f),
                        shell_words::quote(f)
                    )
                })
                .collect();
            let mut args = vec![flags.to_string(), pat.to_string()];
            if !tail.is_empty() {
                args.extend(["-t".into(), "7".into()]);
            }
            cases.push((args, format!("{{ {}; }}{tail}", per.join("; "))));
        }
        for (mut args, oracle) in cases {
            args.extend(["--rotated".into(), file.into()]);
            let want = common::bash(dir, &oracle);
            let got = common::run(GRAIL, &args, dir, None);
            assert_eq!(
                String::from_utf8_lossy(&got.stdout),
                String::from_utf8_lossy(&want.stdout),
                "grail {} vs {oracle}\n{}",
                shell_words::join(&args),
                String::from_utf8_lossy(&got.stderr)
            );
            let status = if pat == "zzz-none" { 1 } else { 0 };
            assert_eq!(got.status.code(), Some(status), "{args:?}");
        }
    }
}

#[test]
fn numbered_sets_oldest_first() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path();
    std::fs::create_dir(p.join("logs")).unwrap();
    write(p, "logs/app.log", "rotated-tag-0", 900);
    write(p, "logs/app.log.1", "rotated-tag-1", 700);
    write(p, "logs/app.log.2.gz", "rotated-tag-2", 1200);
    write(p, "logs/app.log.3.zst", "rotated-tag-3", 500);
    write(p, "logs/app.log.10.xz", "rotated-tag-10", 300);
    write(p, "logs/app.log.4.bz2", "rotated-tag-4", 200);
    // Not members of the set.
    write(p, "logs/app.log.bak", "noise", 50);
    write(p, "logs/app.logx.1", "noise", 50);
    write(p, "logs/app.log.0", "noise", 50);
    write(p, "logs/other.log.1", "noise", 50);
    check(
        p,
        "logs/app.log",
        &[
            "logs/app.log.10.xz",
            "logs/app.log.4.bz2",
            "logs/app.log.3.zst",
            "logs/app.log.2.gz",
            "logs/app.log.1",
            "logs/app.log",
        ],
    );
}

#[test]
fn dateext_sets_oldest_date_first() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path();
    write(p, "app.log", "rotated-tag-0", 600);
    write(p, "app.log-20261130", "rotated-tag-1", 400);
    write(p, "app.log-20261128.gz", "rotated-tag-3", 800);
    write(p, "app.log-20261129.gz", "rotated-tag-2", 300);
    write(p, "app.log-notadate", "noise", 30);
    check(
        p,
        "app.log",
        &[
            "app.log-20261128.gz",
            "app.log-20261129.gz",
            "app.log-20261130",
            "app.log",
        ],
    );
    // A set of one: no file names, as grep with one file.
    let e = tempfile::tempdir().unwrap();
    write(e.path(), "solo.log", "rotated-tag-0", 100);
    check(e.path(), "solo.log", &["solo.log"]);
}

#[test]
fn a_tail_answered_by_the_newest_file_leaves_the_older_ones_unread() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path();
    write(p, "app.log", "rotated-tag-0", 600);
    write(p, "app.log.1.gz", "rotated-tag-1", 600);
    write(p, "app.log.2.gz", "rotated-tag-2", 600);
    let got = common::run(
        GRAIL,
        &["--json", "-t", "3", "Failed", "--rotated", "app.log"],
        p,
        None,
    );
    let (out, v) = summary(&got.stdout);
    let files = v["files"].as_array().unwrap();
    let read: Vec<(&str, bool)> = files
        .iter()
        .map(|f| {
            (
                f["path"].as_str().unwrap(),
                f["unread"].as_bool() != Some(true),
            )
        })
        .collect();
    assert_eq!(
        read,
        [
            ("app.log", true),
            ("app.log.1.gz", false),
            ("app.log.2.gz", false)
        ],
        "{out}"
    );
    // When the newest file is not enough, the next one is decompressed.
    let got = common::run(
        GRAIL,
        &[
            "--json",
            "-t",
            "3",
            "rotated-tag-1 ",
            "--rotated",
            "app.log",
        ],
        p,
        None,
    );
    let (out, v) = summary(&got.stdout);
    assert_eq!(v["files"][1]["compressed"]["format"], "gzip", "{out}");
    assert_eq!(v["files"][2]["unread"], true, "{out}");
}

/// The output as text, and its last line (the `--json` summary) parsed.
fn summary(stdout: &[u8]) -> (String, serde_json::Value) {
    let out = String::from_utf8_lossy(stdout).into_owned();
    let v = serde_json::from_str(out.lines().last().unwrap()).unwrap();
    (out, v)
}

#[test]
fn a_missing_file_is_an_error_and_the_set_is_still_searched() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path();
    write(p, "app.log.1", "rotated-tag-1", 100);
    let got = common::run(GRAIL, &["-c", "Failed", "--rotated", "app.log"], p, None);
    assert_eq!(got.status.code(), Some(0));
    assert_eq!(String::from_utf8_lossy(&got.stdout).lines().count(), 1);
    let got = common::run(GRAIL, &["-c", "Failed", "--rotated", "none.log"], p, None);
    assert_eq!(got.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&got.stderr).contains("none.log: No such file"));
}
