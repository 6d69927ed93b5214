//! `--merge` against an independent oracle written here: each file's lines
//! get the time of the latest stamp at or above them (unstamped lines stay
//! with the stamped line above; none above: before every stamp), selected
//! lines are those GNU grep selects in each file (`grep -n`), and they are
//! sorted stably by (time, file order, line order). Generated per-rank logs
//! with tracebacks, ties and small disorder, at every chunk size; loghub
//! logs with different formats; compressed ranks; the errors.

mod common;

use common::{Rng, GRAIL};
use std::path::Path;

/// A stamp as the oracle reads it: the first `YYYY-MM-DD[ T]HH:MM:SS[.,frac]`
/// or ctime `Www Mmm DD HH:MM:SS YYYY` starting in the first 256 bytes, as
/// a sortable tuple (fraction in nanoseconds).
fn stamp(line: &[u8]) -> Option<(i64, i64, i64, i64, i64, i64, u64)> {
    let d = |b: &[u8], i: usize, n: usize| -> Option<i64> {
        let s = b.get(i..i + n)?;
        s.iter()
            .all(u8::is_ascii_digit)
            .then(|| std::str::from_utf8(s).unwrap().parse().unwrap())
    };
    const MONTHS: [&[u8]; 12] = [
        b"Jan", b"Feb", b"Mar", b"Apr", b"May", b"Jun", b"Jul", b"Aug", b"Sep", b"Oct", b"Nov",
        b"Dec",
    ];
    for i in 0..line.len().min(256) {
        let b = &line[i..];
        // ISO-8601
        if let (Some(y), Some(mo), Some(dd), Some(h), Some(mi), Some(s)) = (
            d(b, 0, 4),
            d(b, 5, 2),
            d(b, 8, 2),
            d(b, 11, 2),
            d(b, 14, 2),
            d(b, 17, 2),
        ) {
            if b[4] == b'-'
                && b[7] == b'-'
                && (b[10] == b' ' || b[10] == b'T')
                && b[13] == b':'
                && b[16] == b':'
            {
                let mut frac = 0u64;
                if matches!(b.get(19), Some(b'.' | b',')) {
                    let digits: Vec<u8> = b[20..]
                        .iter()
                        .take_while(|c| c.is_ascii_digit())
                        .copied()
                        .collect();
                    let mut s = String::from_utf8(digits).unwrap();
                    s.truncate(9);
                    while s.len() < 9 {
                        s.push('0');
                    }
                    frac = s.parse().unwrap();
                }
                return Some((y, mo, dd, h, mi, s, frac));
            }
        }
        // ctime: "Sun Dec 04 04:47:44 2005"
        if b.len() >= 24 && b[3] == b' ' && b[7] == b' ' && b[10] == b' ' && b[19] == b' ' {
            if let (Some(m), Some(dd), Some(h), Some(mi), Some(s), Some(y)) = (
                MONTHS.iter().position(|m| &b[4..7] == *m),
                d(b, 8, 2),
                d(b, 11, 2),
                d(b, 14, 2),
                d(b, 17, 2),
                d(b, 20, 4),
            ) {
                if b[13] == b':' && b[16] == b':' {
                    return Some((y, m as i64 + 1, dd, h, mi, s, 0));
                }
            }
        }
    }
    None
}

/// The oracle's merged output of `pattern` (a grep -E pattern) over `files`
/// (name as printed, path of its text), with `-n` when `numbers`.
fn oracle(dir: &Path, files: &[(&str, &str)], pattern: &str, numbers: bool) -> Vec<u8> {
    let mut all = Vec::new();
    for (fi, (name, text)) in files.iter().enumerate() {
        let sel = common::run("grep", &["-n", "-E", pattern, text], dir, None).stdout;
        let sel: std::collections::HashSet<usize> = sel
            .split(|&b| b == b'\n')
            .filter(|l| !l.is_empty())
            .map(|l| {
                let c = l.iter().position(|&b| b == b':').unwrap();
                std::str::from_utf8(&l[..c]).unwrap().parse().unwrap()
            })
            .collect();
        let data = std::fs::read(dir.join(text)).unwrap();
        let mut max = None;
        for (i, line) in data.split(|&b| b == b'\n').enumerate() {
            if let Some(s) = stamp(line) {
                max = max.max(Some(s));
            }
            if sel.contains(&(i + 1)) {
                let mut out = format!("{name}:").into_bytes();
                if numbers {
                    out.extend(format!("{}:", i + 1).bytes());
                }
                out.extend_from_slice(line);
                out.push(b'\n');
                all.push(((max, fi, i), out));
            }
        }
    }
    all.sort_by_key(|a| a.0);
    all.into_iter().flat_map(|x| x.1).collect()
}

fn last_lines(b: &[u8], n: usize) -> Vec<u8> {
    let lines: Vec<&[u8]> = b.split_inclusive(|&c| c == b'\n').collect();
    lines[lines.len().saturating_sub(n)..].concat()
}

fn first_lines(b: &[u8], n: usize) -> Vec<u8> {
    b.split_inclusive(|&c| c == b'\n')
        .take(n)
        .flatten()
        .copied()
        .collect()
}

/// Per-rank logs: ISO stamps with milliseconds, tracebacks (unstamped),
/// lines before the first stamp, stamps shared by two ranks, and stamps a
/// little out of order (within the 64 KiB `--merge` tolerates).
fn rank_logs(dir: &Path, ranks: usize, lines: usize, seed: u64) -> Vec<String> {
    let mut rng = Rng(seed);
    let mut names = Vec::new();
    for r in 0..ranks {
        let mut t: i64 = 1_700_000_000_000 + r as i64 * 7;
        let mut s = String::new();
        if r % 2 == 1 {
            s += "starting rank without a stamp\nRuntimeError: before any stamp\n";
        }
        for i in 0..lines {
            t += rng.below(900) as i64;
            let mut shown = t;
            if rng.chance(3) {
                shown -= rng.below(2000) as i64; // a little early
            }
            if rng.chance(2) {
                shown = shown / 1000 * 1000; // a tie with other ranks, likely
            }
            let secs = shown / 1000;
            let (h, m, sec) = ((secs / 3600) % 24, (secs / 60) % 60, secs % 60);
            let day = 14 + (secs - 1_700_000_000) / 86_400;
            let level = ["INFO", "INFO", "WARNING", "ERROR"][rng.below(4)];
            s += &format!(
                "2023-11-{day:02} {h:02}:{m:02}:{sec:02}.{:03} rank{r} {level} step {i}\n",
                shown % 1000
            );
            if level == "ERROR" && rng.chance(30) {
                s += "Traceback (most recent call last):\n  File \"worker.py\", line 7\n";
                s += "RuntimeError: CUDA error: out of memory\n";
            }
        }
        let name = format!("rank{r}.log");
        std::fs::write(dir.join(&name), s).unwrap();
        names.push(name);
    }
    names
}

#[test]
fn generated_ranks_at_every_chunk_size() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path();
    let names = rank_logs(p, 4, 6000, 7);
    let files: Vec<(&str, &str)> = names.iter().map(|n| (n.as_str(), n.as_str())).collect();
    for pattern in [
        "ERROR|RuntimeError",
        "step 1[0-9]*$",
        "Traceback|WARNING",
        "nothing-here",
    ] {
        for numbers in [false, true] {
            let want = oracle(p, &files, pattern, numbers);
            for chunk in [None, Some(64), Some(1000), Some(65536)] {
                let mut base = vec!["--merge".to_string(), "-E".into(), pattern.into()];
                if numbers {
                    base.push("-n".into());
                }
                if let Some(c) = chunk {
                    base.extend(["--chunk-size".into(), c.to_string()]);
                }
                base.extend(names.iter().cloned());
                let mut cases = vec![(base.clone(), want.clone())];
                for n in [1, 25, 300] {
                    let mut a = base.clone();
                    a.extend(["-t".into(), n.to_string()]);
                    cases.push((a, last_lines(&want, n)));
                }
                let mut a = base.clone();
                a.extend(["--head".into(), "7".into()]);
                cases.push((a, first_lines(&want, 7)));
                for (args, want) in cases {
                    let got = common::run(GRAIL, &args, p, None);
                    assert_eq!(
                        String::from_utf8_lossy(&got.stdout),
                        String::from_utf8_lossy(&want),
                        "grail {}\n{}",
                        shell_words::join(&args),
                        String::from_utf8_lossy(&got.stderr)
                    );
                    let status = if want.is_empty() { 1 } else { 0 };
                    assert_eq!(got.status.code(), Some(status), "{args:?}");
                }
            }
        }
    }
}

#[test]
fn since_and_before_apply_per_file() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path();
    let names = rank_logs(p, 3, 4000, 3);
    // Each file cut as --since/--before cut it: from its first line
    // stamped at or after SINCE, to before its first line (from there)
    // stamped at or after BEFORE; then merged by the oracle.
    let (since, before) = ("2023-11-14 22:40:00", "2023-11-14 22:50:00");
    let key = |s: &str| stamp(s.as_bytes()).unwrap();
    let mut cut = Vec::new();
    for n in &names {
        let text = std::fs::read_to_string(p.join(n)).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        let at = |from: usize, t: &str| {
            (from..lines.len())
                .find(|&i| stamp(lines[i].as_bytes()).is_some_and(|s| s >= key(t)))
                .unwrap_or(lines.len())
        };
        let a = at(0, since);
        let b = at(a, before);
        let mut part = lines[a..b].join("\n");
        part.push('\n');
        let name = format!("{n}.cut");
        std::fs::write(p.join(&name), part).unwrap();
        cut.push((n.as_str(), name));
    }
    let files: Vec<(&str, &str)> = cut.iter().map(|(n, c)| (*n, c.as_str())).collect();
    let want = oracle(p, &files, "ERROR|Traceback", false);
    assert!(!want.is_empty());
    for tail in [None, Some(9)] {
        let mut args = vec![
            "--merge",
            "--since",
            since,
            "--before",
            before,
            "-E",
            "ERROR|Traceback",
        ];
        args.extend(names.iter().map(|s| s.as_str()));
        check_tail(p, &args, tail, &want);
    }
}

/// grail `args` (with `-t N` when `tail`) prints `want` (its last N lines).
fn check_tail(p: &Path, args: &[&str], tail: Option<usize>, want: &[u8]) {
    let mut args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
    if let Some(t) = tail {
        args.extend(["-t".into(), t.to_string()]);
    }
    let got = common::run(GRAIL, &args, p, None);
    let want = tail.map_or(want.to_vec(), |t| last_lines(want, t));
    assert_eq!(
        String::from_utf8_lossy(&got.stdout),
        String::from_utf8_lossy(&want),
        "{args:?}\n{}",
        String::from_utf8_lossy(&got.stderr)
    );
}

#[test]
fn compressed_ranks_merge_as_their_text() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path();
    let names = rank_logs(p, 3, 3000, 11);
    let o = common::bash(p, "gzip -k rank1.log && zstd -q rank2.log");
    assert!(o.status.success());
    let files = [
        ("rank0.log", "rank0.log"),
        ("rank1.log.gz", "rank1.log"),
        ("rank2.log.zst", "rank2.log"),
    ];
    let want = oracle(p, &files, "ERROR", false);
    for tail in [None, Some(1), Some(40)] {
        let args = [
            "--merge",
            "ERROR",
            "rank0.log",
            "rank1.log.gz",
            "rank2.log.zst",
        ];
        check_tail(p, &args, tail, &want);
    }
    drop(names);
}

#[test]
fn loghub_logs_of_different_formats() {
    let lh = common::shared("testdata/loghub");
    let d = tempfile::tempdir().unwrap();
    let p = d.path();
    let picked = ["Hadoop_2k.log", "Apache_2k.log", "OpenStack_2k.log"];
    for f in picked {
        std::fs::copy(lh.join(f), p.join(f)).unwrap();
    }
    let files: Vec<(&str, &str)> = picked.iter().map(|f| (*f, *f)).collect();
    for pattern in ["(?i)error|ERROR", "INFO", "[0-9]{4}"] {
        let pattern = pattern.trim_start_matches("(?i)");
        let want = oracle(p, &files, pattern, true);
        assert!(!want.is_empty());
        let mut args = vec!["--merge", "-n", "-E", pattern];
        args.extend(picked);
        let got = common::run(GRAIL, &args, p, None);
        assert_eq!(
            String::from_utf8_lossy(&got.stdout),
            String::from_utf8_lossy(&want),
            "{pattern}\n{}",
            String::from_utf8_lossy(&got.stderr)
        );
        args.extend(["-t", "30"]);
        let got = common::run(GRAIL, &args, p, None);
        assert_eq!(
            String::from_utf8_lossy(&got.stdout),
            String::from_utf8_lossy(&last_lines(&want, 30)),
            "{pattern} -t 30"
        );
    }
}

#[test]
fn errors_and_refusals() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path();
    let names = rank_logs(p, 2, 3000, 5);
    // A log that goes back in time by more than the tolerance.
    let o = common::bash(p, "{ cat rank0.log; head -1000 rank0.log; } > back.log");
    assert!(o.status.success());
    for tail in [&[][..], &["-t", "5"]] {
        let mut args = vec!["--merge", "ERROR", "back.log", "rank1.log"];
        args.extend(tail);
        let got = common::run(GRAIL, &args, p, None);
        assert_eq!(got.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&got.stderr);
        assert!(
            err.contains("grail: back.log: not in time order: the line at byte "),
            "{err}"
        );
    }
    // Logs with and without years.
    std::fs::copy(
        common::shared("testdata/loghub").join("OpenSSH_2k.log"),
        p.join("ssh.log"),
    )
    .unwrap();
    let got = common::run(GRAIL, &["--merge", "e", "ssh.log", "rank0.log"], p, None);
    assert_eq!(got.status.code(), Some(2));
    assert!(got.stdout.is_empty());
    // A file without timestamps is named; the others are merged.
    std::fs::write(p.join("plain.txt"), "ERROR without a time\n").unwrap();
    let got = common::run(
        GRAIL,
        &["--merge", "ERROR", "plain.txt", "rank0.log"],
        p,
        None,
    );
    assert_eq!(got.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&got.stderr).contains("plain.txt: no timestamp"));
    assert!(!got.stdout.is_empty());
    // An empty file adds nothing and is no error.
    std::fs::write(p.join("empty.log"), "").unwrap();
    let with = common::run(
        GRAIL,
        &["--merge", "-t", "3", "ERROR", "empty.log", "rank0.log"],
        p,
        None,
    );
    let alone = common::run(
        GRAIL,
        &["--merge", "-t", "3", "ERROR", "rank0.log"],
        p,
        None,
    );
    assert_eq!((with.status.code(), &with.stdout), (Some(0), &alone.stdout));
    // Counts and names are per file, as without --merge.
    for flag in ["-c", "-l"] {
        let with = common::run(
            GRAIL,
            &["--merge", flag, "ERROR", &names[0], &names[1]],
            p,
            None,
        );
        let without = common::run(GRAIL, &[flag, "ERROR", &names[0], &names[1]], p, None);
        assert_eq!(with.stdout, without.stdout);
    }
    let got = common::run(GRAIL, &["--merge", "-C", "1", "ERROR", &names[0]], p, None);
    assert_eq!(got.status.code(), Some(2));
    // -h drops the names.
    let got = common::run(
        GRAIL,
        &["--merge", "-h", "-t", "2", "ERROR", &names[0], &names[1]],
        p,
        None,
    );
    let out = String::from_utf8_lossy(&got.stdout);
    assert!(
        out.lines().count() == 2 && out.lines().all(|l| l.starts_with("2023-")),
        "{out}"
    );
}

/// Days from 1970-01-01 to a civil date (proleptic Gregorian).
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let doy = (153 * (if m > 2 { m - 3 } else { m + 9 }) + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// `--merge --json` gives each record its time (what grail-ray merges the
/// nodes' answers by): the oracle's time of the line, and the records come
/// in (time, file, offset) order.
#[test]
fn json_records_carry_their_time() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path();
    let names = rank_logs(p, 3, 3000, 11);
    let paths: Vec<&str> = names.iter().map(|s| s.as_str()).collect();
    for tail in [None, Some("40")] {
        let mut args = vec!["--merge", "--json", "-E", "ERROR|RuntimeError"];
        if let Some(t) = tail {
            args.extend(["-t", t]);
        }
        args.extend(&paths);
        let out = common::run(GRAIL, &args, p, None);
        assert_eq!(out.status.code(), Some(0));
        let mut seen = Vec::new();
        for line in out.stdout.split(|&b| b == b'\n').filter(|l| !l.is_empty()) {
            let v: serde_json::Value = serde_json::from_slice(line).unwrap();
            if v["type"] != "match" {
                continue;
            }
            let file = names.iter().position(|n| v["path"] == n.as_str()).unwrap();
            let off = v["byte_offset"].as_u64().unwrap();
            let data = std::fs::read(p.join(&names[file])).unwrap();
            // The oracle's time: the latest stamp at or above the line.
            let end = data[off as usize..]
                .iter()
                .position(|&b| b == b'\n')
                .map_or(data.len(), |i| off as usize + i);
            let max = data[..end].split(|&b| b == b'\n').filter_map(stamp).max();
            let t = &v["time"];
            match max {
                None => assert!(t.is_null(), "{v}"),
                Some((y, mo, dd, h, mi, s, ns)) => {
                    let secs = days_from_civil(y, mo, dd) * 86_400 + h * 3600 + mi * 60 + s;
                    assert_eq!(t["s"].as_i64(), Some(secs), "{v}");
                    assert_eq!(t["ns"].as_u64(), Some(ns), "{v}");
                    assert_eq!(t["year"], true);
                }
            }
            let key = (max.is_some(), t["s"].as_i64(), t["ns"].as_u64(), file, off);
            seen.push(key);
        }
        assert!(seen.len() >= 40);
        assert!(seen.windows(2).all(|w| w[0] <= w[1]), "not in time order");
    }
}
