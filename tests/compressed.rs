//! Compressed files against `zcat`/`zstdcat`/`xzcat`/`bzcat` piped into
//! GNU grep (`lz4cat` when the machine has it, else grep on the text that
//! was compressed): every output mode, several files at once, multi-member
//! gzip, archives cut short and corrupt ones, `--no-decompress`, the
//! `--stats`/`--json` reports, and `--sh` pipelines that decompress.

mod common;

use common::GRAIL;
use std::path::Path;
use std::process::Output;

/// (extension, compress command writing `$1.EXT`, decompress-to-stdout tool)
const FORMATS: [(&str, &str, &str); 5] = [
    ("gz", "gzip -1 -c \"$1\" > \"$1.gz\"", "zcat"),
    ("zst", "zstd -q -c \"$1\" > \"$1.zst\"", "zstdcat"),
    ("xz", "xz -c \"$1\" > \"$1.xz\"", "xzcat"),
    ("bz2", "bzip2 -c \"$1\" > \"$1.bz2\"", "bzcat"),
    ("lz4", "", "lz4cat"),
];

/// The text the tests compress: real logs, one without a final newline,
/// CRLF lines (NUL bytes: [`nul_bytes_follow_the_log_rule`]).
fn text() -> Vec<u8> {
    let lh = common::shared("testdata/loghub");
    let mut t = Vec::new();
    for f in [
        "Apache_2k.log",
        "Linux_2k.log",
        "Hadoop_2k.log",
        "OpenSSH_2k.log",
    ] {
        t.extend(std::fs::read(lh.join(f)).unwrap());
    }
    t.extend_from_slice(b"\nRuntimeError: the last but one\nlast line without newline Error");
    t
}

#[test]
fn nul_bytes_follow_the_log_rule() {
    // A NUL well after grep's first read hides nothing (said on stderr), as
    // in an uncompressed file; one in the first read makes the file binary.
    let d = tempfile::tempdir().unwrap();
    let mut late = text();
    late.extend_from_slice(b"\nRuntimeError: after a NUL \0 byte\nError after it\n");
    compress_all(d.path(), "late.log", &late);
    let mut early = b"Error a\0b\n".to_vec();
    early.extend(text());
    compress_all(d.path(), "early.log", &early);
    for (ext, _, _) in FORMATS {
        for (name, args) in [
            ("late.log", ["-n", "Error"]),
            ("early.log", ["-c", "Error"]),
        ] {
            let f = format!("{name}.{ext}");
            let got = common::run(GRAIL, &[args[0], args[1], &f], d.path(), None);
            let want = common::run(GRAIL, &[args[0], args[1], name], d.path(), None);
            assert_eq!(got.stdout, want.stdout, "{f}");
            assert_eq!(got.status.code(), want.status.code(), "{f}");
            let err = String::from_utf8_lossy(&got.stderr).replace(&f, name);
            let (note, err) = err.split_once('\n').unwrap();
            assert!(note.contains("compressed: searching its text"), "{note}");
            assert_eq!(err, String::from_utf8_lossy(&want.stderr), "{f}");
        }
        let got = common::run(
            GRAIL,
            &["-n", "after it", &format!("late.log.{ext}")],
            d.path(),
            None,
        );
        let want = common::run(
            "grep",
            &["-a", "-n", "after it", "late.log"],
            d.path(),
            None,
        );
        assert_eq!(got.stdout, want.stdout, "{ext}");
        assert!(String::from_utf8_lossy(&got.stderr).contains("1 NUL byte from offset"));
        let got = common::run(
            GRAIL,
            &["Error", &format!("early.log.{ext}")],
            d.path(),
            None,
        );
        let err = String::from_utf8_lossy(&got.stderr);
        assert!(
            got.stdout.is_empty() && err.contains("binary file matches"),
            "{ext}: {err}"
        );
    }
}

/// Write `name` and its compressed copies into `dir`.
fn compress_all(dir: &Path, name: &str, data: &[u8]) {
    std::fs::write(dir.join(name), data).unwrap();
    for (ext, cmd, _) in FORMATS {
        if ext == "lz4" {
            // As the lz4 tool writes it: with a checksum of the content.
            let info = lz4_flex::frame::FrameInfo::new().content_checksum(true);
            let mut e = lz4_flex::frame::FrameEncoder::with_frame_info(info, Vec::new());
            std::io::Write::write_all(&mut e, data).unwrap();
            std::fs::write(dir.join(format!("{name}.lz4")), e.finish().unwrap()).unwrap();
            continue;
        }
        let o = common::run("bash", &["-c", cmd, "sh", name], dir, None);
        assert!(
            o.status.success(),
            "{cmd}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
    }
}

fn has(tool: &str) -> bool {
    common::bash(Path::new("."), &format!("command -v {tool}"))
        .status
        .success()
}

/// The oracle's command that writes the text of `file` (compressed as
/// `ext`) to stdout.
fn cat_cmd(ext: &str, tool: &str, plain: &str) -> String {
    if ext == "lz4" && !has(tool) {
        // No lz4cat here: the text that was compressed is the oracle.
        format!("cat {}", shell_words::quote(plain))
    } else {
        tool.to_string()
    }
}

fn show(o: &Output) -> String {
    format!(
        "status {:?}\n{}{}",
        o.status.code(),
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

/// The output modes compared, each as grail's words; the pipeline gets the
/// same words, `--label` and the window.
const MODES: &[&[&str]] = &[
    &["Error"],
    &["-c", "Error"],
    &["-n", "-i", "error"],
    &["-b", "Error"],
    &["-o", "-i", "r[a-z]*error"],
    &["-v", "-c", "e"],
    &["-H", "-w", "error"],
    &["-l", "Error"],
    &["-L", "nothing-matches-this"],
    &["-C", "2", "-n", "RuntimeError"],
    &["-m", "3", "-n", "Error"],
    &["-T", "-n", "Error"],
    &["-x", "-c", ""],
    &["--binary-files=text", "-c", "NUL"],
];

#[test]
fn every_mode_matches_the_decompressor_piped_into_grep() {
    let d = tempfile::tempdir().unwrap();
    compress_all(d.path(), "app.log", &text());
    let mut fails = Vec::new();
    let mut checked = 0;
    for (ext, _, tool) in FORMATS {
        let file = format!("app.log.{ext}");
        let cat = cat_cmd(ext, tool, "app.log");
        for mode in MODES {
            for tail in [None, Some(1), Some(10)] {
                if tail.is_some() && mode.iter().any(|m| ["-c", "-l", "-L", "-C"].contains(m)) {
                    continue;
                }
                let mut args: Vec<String> = mode.iter().map(|s| s.to_string()).collect();
                let words = shell_words::join(&args);
                let oracle = match tail {
                    None => format!("{cat} {file} | grep --label={file} {words}"),
                    Some(n) => format!("{cat} {file} | grep --label={file} {words} | tail -n {n}"),
                };
                if let Some(n) = tail {
                    args.extend(["-t".into(), n.to_string()]);
                }
                args.push(file.clone());
                let want = common::bash(d.path(), &oracle);
                let got = common::run(GRAIL, &args, d.path(), None);
                checked += 1;
                if want.stdout != got.stdout || want.status.code() != got.status.code() {
                    fails.push(format!(
                        "{oracle}\n  want {}\n  got {}",
                        show(&want),
                        show(&got)
                    ));
                }
            }
        }
    }
    assert!(
        fails.is_empty(),
        "{} of {checked} differ:\n{}",
        fails.len(),
        fails[..fails.len().min(5)].join("\n")
    );
}

#[test]
fn several_files_compressed_or_not_and_multi_member_gzip() {
    let d = tempfile::tempdir().unwrap();
    let t = text();
    compress_all(d.path(), "a.log", &t[..t.len() / 2]);
    compress_all(d.path(), "b.log", &t[t.len() / 2..]);
    // Two gzip members in one file, as `cat a.gz b.gz` makes.
    let o = common::bash(d.path(), "cat a.log.gz b.log.gz > ab.log.gz");
    assert!(o.status.success());
    let files = [
        "a.log.zst",
        "b.log.xz",
        "ab.log.gz",
        "a.log",
        "b.log.bz2",
        "a.log.lz4",
    ];
    for mode in [
        &["-c", "Error"][..],
        &["-n", "-i", "fail"],
        &["-l", "Invalid"],
    ] {
        let mut args: Vec<&str> = mode.to_vec();
        args.extend(files);
        let got = common::run(GRAIL, &args, d.path(), None);
        let mut oracle = String::new();
        for f in files {
            let ext = f.rsplit('.').next().unwrap();
            let plain = match FORMATS.iter().find(|x| x.0 == ext) {
                Some((_, _, tool)) if ext == "lz4" && !has(tool) => format!("cat {}", &f[..5]),
                Some((_, _, tool)) => format!("{tool} {f}"),
                None => format!("cat {f}"),
            };
            oracle += &format!(
                "{plain} | grep -H --label={f} {};",
                shell_words::join(mode.iter().copied())
            );
        }
        let want = common::bash(d.path(), &oracle);
        assert_eq!(
            String::from_utf8_lossy(&got.stdout),
            String::from_utf8_lossy(&want.stdout),
            "{oracle}"
        );
        assert_eq!(got.status.code(), Some(0), "{}", show(&got));
    }
}

#[test]
fn an_archive_cut_short_prints_the_lines_before_it_and_exits_2() {
    let d = tempfile::tempdir().unwrap();
    compress_all(d.path(), "app.log", &text());
    for (ext, _, tool) in FORMATS {
        let whole = std::fs::read(d.path().join(format!("app.log.{ext}"))).unwrap();
        let cut = format!("cut.{ext}");
        std::fs::write(d.path().join(&cut), &whole[..whole.len() * 2 / 3]).unwrap();
        let cat = cat_cmd(ext, tool, "/dev/null");
        if ext != "lz4" || has(tool) {
            // The decompressor writes what it decoded: the same text.
            let want = common::bash(d.path(), &format!("{cat} {cut} 2>/dev/null | grep -n e"));
            let got = common::run(GRAIL, &["-n", "e", &cut], d.path(), None);
            assert_eq!(
                String::from_utf8_lossy(&got.stdout),
                String::from_utf8_lossy(&want.stdout),
                "{ext}"
            );
        }
        // The other files are still searched; the error names the file and
        // the byte.
        let got = common::run(GRAIL, &["-c", "Error", &cut, "app.log"], d.path(), None);
        assert_eq!(got.status.code(), Some(2), "{ext}: {}", show(&got));
        let err = String::from_utf8_lossy(&got.stderr);
        assert!(
            err.contains(&format!("grail: {cut}: "))
                && err.contains(&format!("byte {}", whole.len() * 2 / 3)),
            "{ext}: {err}"
        );
        let out = String::from_utf8_lossy(&got.stdout);
        assert!(out.lines().nth(1).unwrap().starts_with("app.log:"), "{out}");
    }
}

#[test]
fn a_corrupt_archive_is_an_error_naming_the_offset() {
    let d = tempfile::tempdir().unwrap();
    compress_all(d.path(), "app.log", &text());
    for (ext, _, _) in FORMATS {
        let mut bytes = std::fs::read(d.path().join(format!("app.log.{ext}"))).unwrap();
        let mid = bytes.len() / 2;
        for b in &mut bytes[mid..mid + 64] {
            *b = !*b;
        }
        let bad = format!("bad.{ext}");
        std::fs::write(d.path().join(&bad), &bytes).unwrap();
        // The text decoded before the damage was found is searched (what
        // it holds depends on where the format checks its data); the
        // other files still are.
        let got = common::run(GRAIL, &["-c", "e", &bad, "app.log"], d.path(), None);
        assert_eq!(got.status.code(), Some(2), "{ext}: {}", show(&got));
        let err = String::from_utf8_lossy(&got.stderr);
        assert!(
            err.contains(&format!(
                "grail: {bad}: {} data corrupt at byte ",
                name(ext)
            )),
            "{ext}: {err}"
        );
        let out = String::from_utf8_lossy(&got.stdout);
        assert!(out.lines().nth(1).unwrap().starts_with("app.log:"), "{out}");
    }
}

fn name(ext: &str) -> &'static str {
    match ext {
        "gz" => "gzip",
        "zst" => "zstd",
        "xz" => "xz",
        "bz2" => "bzip2",
        _ => "lz4",
    }
}

#[test]
fn no_decompress_searches_the_bytes_as_grep_does() {
    let d = tempfile::tempdir().unwrap();
    compress_all(d.path(), "app.log", &text());
    for (ext, _, _) in FORMATS {
        let f = format!("app.log.{ext}");
        for args in [vec!["-c", "a"], vec!["-a", "-c", "a"], vec!["a"]] {
            let mut g = vec!["--no-decompress"];
            g.extend(&args);
            g.push(&f);
            let got = common::run(GRAIL, &g, d.path(), None);
            let mut w = args.clone();
            w.push(&f);
            let want = common::run("grep", &w, d.path(), None);
            assert_eq!(got.stdout, want.stdout, "{ext} {args:?}");
            assert_eq!(got.status.code(), want.status.code(), "{ext} {args:?}");
        }
    }
}

#[test]
fn follow_refuses_compressed_files_and_sets() {
    let d = tempfile::tempdir().unwrap();
    compress_all(d.path(), "app.log", &text());
    for args in [
        vec!["--follow", "--timeout", "1s", "Error", "app.log.gz"],
        vec![
            "--follow",
            "--timeout",
            "1s",
            "Error",
            "--rotated",
            "app.log",
        ],
        vec!["--follow", "--timeout", "1s", "--merge", "Error", "app.log"],
    ] {
        let got = common::run(GRAIL, &args, d.path(), None);
        assert_eq!(got.status.code(), Some(2), "{args:?}: {}", show(&got));
        assert!(got.stdout.is_empty(), "{args:?}");
    }
}

#[test]
fn reports_give_compressed_and_text_bytes() {
    let d = tempfile::tempdir().unwrap();
    let t = text();
    compress_all(d.path(), "app.log", &t);
    let got = common::run(GRAIL, &["--json", "Error", "app.log.zst"], d.path(), None);
    let last = String::from_utf8_lossy(&got.stdout)
        .lines()
        .last()
        .unwrap()
        .to_string();
    let v: serde_json::Value = serde_json::from_str(&last).unwrap();
    let c = &v["files"][0]["compressed"];
    let size = std::fs::metadata(d.path().join("app.log.zst"))
        .unwrap()
        .len();
    assert_eq!(c["format"], "zstd", "{last}");
    assert_eq!(c["size"].as_u64(), Some(size), "{last}");
    assert_eq!(c["read"].as_u64(), Some(size), "{last}");
    assert_eq!(c["text"].as_u64(), Some(t.len() as u64), "{last}");
    assert_eq!(v["files"][0]["scanned"].as_u64(), Some(t.len() as u64));
    let got = common::run(
        GRAIL,
        &["--stats", "-c", "Error", "app.log.gz"],
        d.path(),
        None,
    );
    let err = String::from_utf8_lossy(&got.stderr);
    assert!(err.contains("app.log.gz: gzip compressed"), "{err}");
}

#[test]
fn sh_runs_decompressing_pipelines_exactly() {
    let d = tempfile::tempdir().unwrap();
    let t = text();
    compress_all(d.path(), "app.log", &t[..t.len() - 60]);
    compress_all(d.path(), "old.log", &t[..t.len() / 3]);
    let lines = [
        "zcat app.log.gz | grep -i error | grep -v mod_jk | tail -5",
        "gzip -dc old.log.gz app.log.gz | grep -c Error",
        "zcat -f app.log old.log.gz | grep -n sshd | tail -3",
        "zcat app.log missing.gz old.log.gz | grep -c Error",
        "zstdcat app.log.zst | grep -n -i fail | head -4",
        "zstd -dc old.log.zst | grep -o 'pam_[a-z]*' | tail -2",
        "xzcat app.log.xz | grep -vc e",
        "bzcat old.log.bz2 | grep Invalid | wc -l",
        "zgrep -c Error app.log.gz old.log.gz app.log",
        "zgrep -n -i error old.log.gz | tail -2",
        "zegrep 'Error|error' app.log.gz | grep -v jk | tail -n 3",
        "zgrep -c e app.log.zst",
    ];
    for line in lines {
        let want = common::bash(d.path(), line);
        let got = common::run(GRAIL, &["--sh", line], d.path(), None);
        assert_eq!(
            String::from_utf8_lossy(&got.stdout),
            String::from_utf8_lossy(&want.stdout),
            "{line}\n{}",
            String::from_utf8_lossy(&got.stderr)
        );
        assert_eq!(got.status.code(), want.status.code(), "{line}");
    }
    for refused in [
        "zcat | grep x",
        "zcat -l app.log.gz | grep x",
        "gzip -c app.log | grep x",
        "cat app.log | zgrep x",
        "zgrep -r x .",
    ] {
        let got = common::run(GRAIL, &["--sh", refused], d.path(), None);
        assert_eq!(got.status.code(), Some(2), "{refused}: {}", show(&got));
        assert!(
            String::from_utf8_lossy(&got.stderr).contains("cannot run exactly"),
            "{refused}"
        );
    }
}
