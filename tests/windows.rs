//! `--since`/`--before` on the real loghub logs (whose timestamp formats
//! differ) against an independent awk oracle that applies the same rule
//! (a line without a timestamp belongs to the stamped line before it);
//! `--from-byte` resuming a growing log; `--stats` and `--json` reports
//! checked against grep.

mod common;

use std::path::{Path, PathBuf};
use std::process::Output;

fn loghub() -> PathBuf {
    common::shared("testdata/loghub")
}

fn grail(dir: &Path, args: &[&str]) -> Output {
    common::run(common::GRAIL, args, dir, None)
}

fn sh(dir: &Path, script: &str) -> Output {
    common::bash(dir, script)
}

/// One loghub file: how awk reads a line's stamp as a string that sorts in
/// time order, how a stamp is turned into a `--since` value, and the
/// `--time-format` when it is not detected.
struct Case {
    file: &'static str,
    /// awk expression: the comparable stamp of a line, or "" when it has none.
    awk_stamp: &'static str,
    /// Turn that awk stamp into a grail TIME argument.
    to_arg: fn(&str) -> String,
    format: Option<&'static str>,
}

fn same(s: &str) -> String {
    s.to_string()
}

fn cases() -> Vec<Case> {
    vec![
        Case {
            file: "Hadoop_2k.log",
            awk_stamp: r#"(match($0, /^[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9] [0-9][0-9]:[0-9][0-9]:[0-9][0-9]/) ? substr($0, 1, 19) : "")"#,
            to_arg: same,
            format: None,
        },
        Case {
            file: "Windows_2k.log",
            awk_stamp: r#"(match($0, /^[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9] [0-9][0-9]:[0-9][0-9]:[0-9][0-9]/) ? substr($0, 1, 19) : "")"#,
            to_arg: same,
            format: None,
        },
        Case {
            file: "Android_2k.log",
            awk_stamp: r#"(match($0, /^[0-9][0-9]-[0-9][0-9] [0-9][0-9]:[0-9][0-9]:[0-9][0-9]/) ? substr($0, 1, 14) : "")"#,
            to_arg: same,
            format: None,
        },
        Case {
            file: "BGL_2k.log",
            awk_stamp: r#"($2 ~ /^[0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9]$/ ? $2 : "")"#,
            to_arg: |s| format!("@{s}"),
            format: None,
        },
        Case {
            file: "Thunderbird_2k.log",
            awk_stamp: r#"($2 ~ /^[0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9]$/ ? $2 : "")"#,
            to_arg: |s| format!("@{s}"),
            format: None,
        },
        Case {
            file: "HDFS_2k.log",
            awk_stamp: r#"(match($0, /^[0-9][0-9][0-9][0-9][0-9][0-9] [0-9][0-9][0-9][0-9][0-9][0-9]/) ? substr($0, 1, 13) : "")"#,
            // 081109 203615 -> 2008-11-09 20:36:15
            to_arg: |s| {
                format!(
                    "20{}-{}-{} {}:{}:{}",
                    &s[0..2],
                    &s[2..4],
                    &s[4..6],
                    &s[7..9],
                    &s[9..11],
                    &s[11..13]
                )
            },
            format: Some("%y%m%d %H%M%S"),
        },
        Case {
            file: "Spark_2k.log",
            awk_stamp: r#"(match($0, /^[0-9][0-9]\/[0-9][0-9]\/[0-9][0-9] [0-9][0-9]:[0-9][0-9]:[0-9][0-9]/) ? substr($0, 1, 17) : "")"#,
            // 17/06/09 20:10:40 -> 2017-06-09 20:10:40
            to_arg: |s| format!("20{}-{}-{} {}", &s[0..2], &s[3..5], &s[6..8], &s[9..17]),
            format: Some("%y/%m/%d %H:%M:%S"),
        },
    ]
}

#[test]
fn loghub_time_windows_match_an_awk_filter() {
    let dir = loghub();
    let (mut exact, mut refused, mut fails) = (0, 0, Vec::new());
    for c in cases() {
        // The distinct stamps of the file, in file order.
        let st = sh(
            &dir,
            &format!(
                "awk '{{ s = {}; if (s != \"\") print s }}' {}",
                c.awk_stamp, c.file
            ),
        );
        let stamps: Vec<String> = String::from_utf8_lossy(&st.stdout)
            .lines()
            .map(String::from)
            .collect();
        assert!(stamps.len() > 1000, "{}: awk found stamps", c.file);
        for (a, b) in [
            (0.1, 0.3),
            (0.25, 0.75),
            (0.5, 0.5),
            (0.0, 0.05),
            (0.9, 1.0),
            (0.6, 0.4),
        ] {
            let pick = |f: f64| stamps[((stamps.len() - 1) as f64 * f) as usize].clone();
            let (lo, hi) = (pick(a), pick(b));
            // The oracle: every line whose effective stamp is in [lo, hi).
            let want = sh(
                &dir,
                &format!(
                    "awk -v lo='{lo}' -v hi='{hi}' '{{ s = {}; if (s != \"\") cur = s; \
                     if (cur != \"\" && cur >= lo && cur < hi) print NR \":\" $0 }}' {}",
                    c.awk_stamp, c.file
                ),
            );
            let (since, before) = ((c.to_arg)(&lo), (c.to_arg)(&hi));
            let mut args = vec!["-n", "--since", &since, "--before", &before];
            if let Some(f) = c.format {
                args.extend(["--time-format", f]);
            }
            args.extend(["", c.file]);
            let got = grail(&dir, &args);
            if got.stdout == want.stdout
                && got.status.code() == Some(if want.stdout.is_empty() { 1 } else { 0 })
            {
                exact += 1;
            } else if got.status.code() == Some(2)
                && String::from_utf8_lossy(&got.stderr).contains("not in time order")
            {
                refused += 1;
            } else {
                fails.push(format!(
                    "{}: grail {args:?}: {} lines (status {:?}, {}) vs awk {} lines",
                    c.file,
                    got.stdout.iter().filter(|&&b| b == b'\n').count(),
                    got.status.code(),
                    String::from_utf8_lossy(&got.stderr).trim(),
                    want.stdout.iter().filter(|&&b| b == b'\n').count()
                ));
            }
        }
    }
    eprintln!(
        "time windows: {exact} exact, {refused} refused as out of order, {} wrong",
        fails.len()
    );
    assert!(fails.is_empty(), "{}", fails.join("\n"));
    assert!(exact >= 35, "most windows answered: {exact}");
}

#[test]
fn syslog_and_apache_windows_count_like_grep() {
    // Formats without an awk-sortable stamp: windows chosen on day
    // boundaries, where a grep for the days gives the same lines.
    let dir = loghub();
    let got = grail(
        &dir,
        &[
            "-c",
            "--since",
            "Jun 15",
            "--before",
            "Jun 17",
            "",
            "Linux_2k.log",
        ],
    );
    let want = sh(&dir, "grep -c -E '^Jun (15|16) ' Linux_2k.log");
    assert_eq!(got.stdout, want.stdout);
    let got = grail(
        &dir,
        &[
            "-c",
            "--since",
            "2005-12-05",
            "--before",
            "2005-12-06",
            "",
            "Apache_2k.log",
        ],
    );
    let want = sh(&dir, "grep -c '^\\[Mon Dec 05 ' Apache_2k.log");
    assert_eq!(got.stdout, want.stdout);
}

#[test]
fn unknown_format_and_bad_times_are_errors() {
    let dir = loghub();
    let out = grail(&dir, &["--since", "2017-06-09", "x", "HealthApp_2k.log"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--time-format"));
    let out = grail(&dir, &["--since", "yesterday-ish", "x", "Hadoop_2k.log"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--since"));
    // grep's `--before` would be `--before-context`: a number is not a time.
    let out = grail(&dir, &["--before", "3", "x", "Hadoop_2k.log"]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn from_byte_resumes_a_growing_log_exactly() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let f = d.join("g.log");
    std::fs::write(&f, "ERROR 1\nok\nERROR 2\npartial ERR").unwrap();
    let first = grail(d, &["--json", "ERROR", "g.log"]);
    let text = String::from_utf8_lossy(&first.stdout);
    let summary: serde_json::Value = serde_json::from_str(text.lines().last().unwrap()).unwrap();
    let end = summary["files"][0]["end_offset"].as_u64().unwrap();
    assert_eq!(end, 19, "resume point is after the last complete line");
    assert_eq!(summary["files"][0]["trailing_newline"], false);
    // The writer finishes its line and adds more.
    std::fs::OpenOptions::new()
        .append(true)
        .open(&f)
        .and_then(|mut h| std::io::Write::write_all(&mut h, b"OR 3\nok\nERROR 4\n"))
        .unwrap();
    let second = grail(
        d,
        &[
            "-n",
            "-b",
            "--from-byte",
            &end.to_string(),
            "ERROR",
            "g.log",
        ],
    );
    // Line numbers and offsets are the whole file's, as grep gives them.
    let want = sh(d, "grep -n -b ERROR g.log | tail -n 2");
    assert_eq!(second.stdout, want.stdout);
    // An offset past the end (the log was truncated or replaced) searches
    // from the start, with a warning.
    let out = grail(d, &["--from-byte", "999999", "-c", "ERROR", "g.log"]);
    assert_eq!(String::from_utf8_lossy(&out.stdout), "4\n");
    assert!(String::from_utf8_lossy(&out.stderr).contains("shorter"));
}

#[test]
fn stats_report_what_the_filters_hid_and_what_was_read() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let mut log = String::new();
    for i in 0..20000 {
        log += &match i % 7 {
            0 => format!("{i} ERROR real\n"),
            1 | 2 => format!("{i} ERROR FutureWarning noise\n"),
            3 => format!("{i} ERROR repo_utils noise\n"),
            _ => format!("{i} INFO fine\n"),
        };
    }
    log += "ERROR cut";
    std::fs::write(d.join("s.log"), &log).unwrap();
    let out = grail(
        d,
        &[
            "--stats",
            "-c",
            "-N",
            "FutureWarning",
            "-N",
            "repo_utils",
            "ERROR",
            "s.log",
        ],
    );
    let err = String::from_utf8_lossy(&out.stderr);
    let count = |cmd: &str| {
        String::from_utf8_lossy(&sh(d, cmd).stdout)
            .trim()
            .to_string()
    };
    let fw = count("grep ERROR s.log | grep -c FutureWarning");
    let ru = count("grep ERROR s.log | grep -c repo_utils");
    assert!(
        err.contains(&format!("exclude 'FutureWarning' hid {fw} lines")),
        "{err}"
    );
    assert!(
        err.contains(&format!("exclude 'repo_utils' hid {ru} lines")),
        "{err}"
    );
    assert!(err.contains("NO NEWLINE"), "{err}");
    assert_eq!(
        String::from_utf8_lossy(&out.stdout).trim(),
        count("grep ERROR s.log | grep -v FutureWarning | grep -vc repo_utils")
    );
    // A tail with --json numbers its lines: the newlines before them are
    // counted, so the whole file is read (each byte counted once).
    let out = grail(d, &["--json", "-a", "-t", "1", "ERROR", "s.log"]);
    let text = String::from_utf8_lossy(&out.stdout);
    let s: serde_json::Value = serde_json::from_str(text.lines().last().unwrap()).unwrap();
    let f = &s["files"][0];
    assert_eq!(f["scanned"], f["size"], "{f}");
    // --no-line-number: the objects have none, and the tail reads only
    // the end of the file; the same line, at the same offset. A later -n
    // numbers them again.
    let out = grail(
        d,
        &[
            "--json",
            "--no-line-number",
            "-a",
            "-t",
            "1",
            "ERROR",
            "s.log",
        ],
    );
    let text = String::from_utf8_lossy(&out.stdout);
    let objs: Vec<serde_json::Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let m = &objs[0];
    assert!(m.get("line_number").is_none(), "{m}");
    let f = &objs[1]["files"][0];
    assert!(f["scanned"].as_u64() < f["size"].as_u64(), "{f}");
    let numbered = grail(d, &["--json", "-a", "-t", "1", "ERROR", "s.log"]);
    let n: serde_json::Value = serde_json::from_str(
        String::from_utf8_lossy(&numbered.stdout)
            .lines()
            .next()
            .unwrap(),
    )
    .unwrap();
    assert_eq!(m["byte_offset"], n["byte_offset"]);
    assert_eq!(m["text"], n["text"]);
    let out = grail(
        d,
        &[
            "--no-line-number",
            "-n",
            "--json",
            "-a",
            "-t",
            "1",
            "ERROR",
            "s.log",
        ],
    );
    let again: serde_json::Value =
        serde_json::from_str(String::from_utf8_lossy(&out.stdout).lines().next().unwrap()).unwrap();
    assert_eq!(again["line_number"], n["line_number"]);
    // Without --json it is grep's output without -n.
    let plain = grail(
        d,
        &["-n", "--no-line-number", "-a", "-t", "3", "ERROR", "s.log"],
    );
    let want = sh(d, "grep -a ERROR s.log | tail -n 3");
    assert_eq!(plain.stdout, want.stdout);
}

#[test]
fn json_lines_agree_with_grep() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(
        d.join("j.log"),
        b"a Error\nb\nValueError \xff bad\n\"quoted\" Error\n",
    )
    .unwrap();
    let out = grail(d, &["--json", "-E", "-e", "Value", "-e", "Error", "j.log"]);
    let lines: Vec<serde_json::Value> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let want = String::from_utf8_lossy(&sh(d, "grep -n -b -E -e Value -e Error j.log").stdout)
        .into_owned();
    let matches: Vec<&serde_json::Value> = lines.iter().filter(|v| v["type"] == "match").collect();
    assert_eq!(matches.len(), want.lines().count());
    for (m, w) in matches.iter().zip(want.lines()) {
        let mut parts = w.splitn(3, ':');
        assert_eq!(m["line_number"].to_string(), parts.next().unwrap());
        assert_eq!(m["byte_offset"].to_string(), parts.next().unwrap());
    }
    assert_eq!(matches[0]["text"], "a Error");
    assert_eq!(matches[0]["patterns"], serde_json::json!([1]));
    assert_eq!(matches[1]["bytes_base64"], "VmFsdWVFcnJvciD/IGJhZA==");
    assert_eq!(matches[1]["patterns"], serde_json::json!([0, 1]));
    assert_eq!(matches[2]["text"], "\"quoted\" Error");
    let summary = lines.last().unwrap();
    assert_eq!(summary["type"], "summary");
    assert_eq!(summary["selected"], 3);
}

#[test]
fn json_context_objects_are_greps_context_lines() {
    let dir = loghub();
    for args in [
        vec!["-C2", "-E", "error|fail", "Linux_2k.log"],
        vec!["-B1", "-A3", "-v", "INFO", "Hadoop_2k.log"],
        vec!["-C1", "-t", "3", "-i", "warn", "Hadoop_2k.log"],
    ] {
        let mut j = vec!["--json"];
        j.extend(&args);
        let got = grail(&dir, &j);
        let kinds: Vec<String> = String::from_utf8_lossy(&got.stdout)
            .lines()
            .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
            .filter(|v| v["type"] != "summary")
            .map(|v| {
                let sep = if v["type"] == "match" { ':' } else { '-' };
                format!("{}{sep}", v["line_number"])
            })
            .collect();
        let mut n = vec!["-n"];
        n.extend(&args);
        let text = String::from_utf8_lossy(&grail(&dir, &n).stdout).into_owned();
        let want: Vec<String> = text
            .lines()
            .filter(|l| *l != "--")
            .map(|l| {
                let d = l.find(|c: char| !c.is_ascii_digit()).unwrap();
                l[..=d].to_string()
            })
            .collect();
        assert_eq!(kinds, want, "{args:?}");
        // And the -n output itself is grep's (without -t, which grep lacks).
        if !args.contains(&"-t") {
            let g = sh(
                &dir,
                &format!(
                    "grep -n {}",
                    args.iter()
                        .map(|a| format!("'{a}'"))
                        .collect::<Vec<_>>()
                        .join(" ")
                ),
            );
            assert_eq!(g.stdout, text.as_bytes());
        }
    }
}

/// `--stats` counts each byte read once: the window's probes overlap each
/// other and the scan of the window, so a small log is read at most whole.
#[test]
fn stats_count_each_byte_read_once() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(
        d.join("s4.log"),
        b"2026-01-01 10:00:00 a Error\n2026-01-01 10:00:01 b\n2026-01-01 10:00:02 c Error\n2026-01-01 10:00:03 d\n",
    )
    .unwrap();
    for args in [
        &[
            "--stats",
            "--since",
            "2026-01-01 10:00:01",
            "Error",
            "s4.log",
        ][..],
        &[
            "--stats",
            "-n",
            "--since",
            "2026-01-01 10:00:01",
            "Error",
            "s4.log",
        ],
        &[
            "--stats",
            "-t",
            "1",
            "--since",
            "2026-01-01 10:00:01",
            "Error",
            "s4.log",
        ],
        &["--stats", "-c", "Error", "s4.log"],
    ] {
        let out = grail(d, args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains("scanned 100 B of 100 B (100.000%)"),
            "{args:?}: {err}"
        );
    }
}
