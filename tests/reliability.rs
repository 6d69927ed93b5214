//! Reliability: files that change under grail, bad paths, hostile content
//! and patterns, failing output. Each case pins the behaviour chosen; where
//! GNU grep defines it, grail is compared with grep.

mod common;

use grail::search::{self, Line, Mode, Outcome, SearchError, SearchOptions, Selected};
use grail::source::{open_path, Bytes, Input};
use grail::{Query, QueryBuilder, ScanConfig, Syntax};
use std::io::Write;
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

/// Run `program` with `args` in `dir`, C locale, no stdin.
fn run(program: &str, args: &[&str], dir: &Path) -> Output {
    common::run(program, args, dir, None)
}

fn grail(args: &[&str], dir: &Path) -> Output {
    run(env!("CARGO_BIN_EXE_grail"), args, dir)
}

fn grep(args: &[&str], dir: &Path) -> Output {
    run("grep", args, dir)
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn big_log(path: &Path, lines: usize) {
    let mut f = std::io::BufWriter::new(std::fs::File::create(path).unwrap());
    for i in 0..lines {
        writeln!(
            f,
            "2026-11-29 22:33:{:02} INFO worker {i} step ok Error-free",
            i % 60
        )
        .unwrap();
    }
    f.flush().unwrap();
}

fn whole(path: &Path) -> Bytes {
    match open_path(path).unwrap() {
        Input::Whole(bytes) => bytes,
        Input::Stream(_) => panic!("expected a regular file"),
    }
}

/// Every selected line of a whole file, through `search::run`, to `emit`
/// until it returns false.
fn search_forward(
    q: &Query,
    bytes: &Bytes,
    opts: &SearchOptions,
    emit: &mut dyn FnMut(&Line) -> bool,
) -> Result<Outcome, SearchError> {
    let mut sink = |buf: &[u8], l: &Selected| emit(&Line::of(buf, l));
    let input = search::Input::Bytes(bytes.haystack());
    search::run(q, input, opts, Mode::Lines, &mut sink)
}

/// The last `n` selected lines of a whole file, through `search::run`.
fn search_tail(
    q: &Query,
    bytes: &Bytes,
    n: usize,
    opts: &SearchOptions,
) -> Result<(Vec<Line>, Outcome), SearchError> {
    let mut lines = Vec::new();
    let mut sink = |buf: &[u8], l: &Selected| {
        lines.push(Line::of(buf, l));
        true
    };
    let mode = Mode::Tail {
        records: n,
        weight: &|_| 1,
    };
    let o = search::run(
        q,
        search::Input::Bytes(bytes.haystack()),
        opts,
        mode,
        &mut sink,
    )?;
    Ok((lines, o))
}

// ---------------------------------------------------------------- files that change

/// logrotate's copytruncate, deterministically: the file is truncated while
/// the scan is between chunks. A plain mmap scanner dies of SIGBUS here.
#[test]
fn truncated_during_search_reports_shrank_and_prints_nothing_after() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("rotating.log");
    big_log(&path, 400_000); // ~24 MB
    let bytes = whole(&path);
    assert!(bytes.is_mapped());
    let q = QueryBuilder::new().include("INFO").build().unwrap();
    let opts = SearchOptions {
        scan: ScanConfig {
            chunk_size: 64 << 10,
            tail_start: 64 << 10,
            parallel: false,
        },
        binary: grail::BinaryMode::Text,
        ..SearchOptions::default()
    };
    let mut printed = 0u64;
    let file = std::fs::OpenOptions::new().write(true).open(&path).unwrap();
    let r = search_forward(&q, &bytes, &opts, &mut |line| {
        printed += 1;
        assert!(
            line.bytes.starts_with(b"2026-11-29"),
            "garbage line printed: {:?}",
            &line.bytes[..20.min(line.bytes.len())]
        );
        if printed == 10 {
            file.set_len(4096).unwrap();
        }
        true
    });
    assert!(matches!(r, Err(SearchError::Shrank)), "got {r:?}");
    // Lines printed before the truncation was seen are exact; the first
    // chunk's lines come from the untruncated file.
    assert!(printed >= 10);
}

#[test]
fn truncated_during_tail_reports_shrank() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("rotating.log");
    big_log(&path, 200_000);
    let bytes = whole(&path);
    std::fs::OpenOptions::new()
        .write(true)
        .open(&path)
        .unwrap()
        .set_len(0)
        .unwrap();
    let q = QueryBuilder::new().include("INFO").build().unwrap();
    // Default binary mode reads the whole file (NUL check): every page faults.
    let opts = SearchOptions::default();
    let r = search_tail(&q, &bytes, 10, &opts);
    assert!(
        matches!(r, Err(SearchError::Shrank)),
        "got {:?}",
        r.map(|x| x.0.len())
    );
}

/// The real race, through the binary: a second process truncates the file
/// while grail scans it, many times. grail must never die of a signal; it
/// either finished first (0) or reports the shrink (2).
#[test]
fn truncation_race_never_kills_grail() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("race.log");
    let mut shrank = 0;
    for round in 0..12 {
        big_log(&path, 1_500_000); // ~90 MB
        let child = Command::new(env!("CARGO_BIN_EXE_grail"))
            .args(["-c", "-E", "worker [0-9]*7 step", "--threads", "2"])
            .arg(&path)
            .env("LC_ALL", "C")
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        std::thread::sleep(Duration::from_millis(5 + 7 * round));
        std::fs::OpenOptions::new()
            .write(true)
            .open(&path)
            .unwrap()
            .set_len(1000)
            .unwrap();
        let out = child.wait_with_output().unwrap();
        let code = out.status.code();
        assert!(
            code.is_some(),
            "grail was killed by a signal: {:?}",
            out.status
        );
        match code {
            Some(0) => {}
            Some(2) => {
                assert!(
                    stderr(&out).contains("file shrank during search"),
                    "{}",
                    stderr(&out)
                );
                shrank += 1;
            }
            other => panic!("unexpected status {other:?}: {}", stderr(&out)),
        }
    }
    eprintln!("truncation race: {shrank} of 12 rounds hit the race");
}

/// A file that grows during the search is answered for the length it had
/// when grail opened it; its last line is never torn.
#[test]
fn growing_file_answers_for_the_length_at_open() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("growing.log");
    std::fs::write(&path, b"one Error\ntwo Error\n").unwrap();
    let bytes = whole(&path);
    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .open(&path)
        .unwrap();
    f.write_all(b"three Error\nfour Err").unwrap();
    let q = QueryBuilder::new().include("Err").build().unwrap();
    let mut lines = Vec::new();
    search_forward(&q, &bytes, &SearchOptions::default(), &mut |l| {
        lines.push(l.bytes.clone());
        true
    })
    .unwrap();
    assert_eq!(lines, vec![b"one Error".to_vec(), b"two Error".to_vec()]);
}

/// Renamed and recreated during the search: grail keeps reading what it opened.
#[test]
fn replaced_file_keeps_reading_the_opened_one() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("app.log");
    std::fs::write(&path, b"old Error 1\nold Error 2\n").unwrap();
    let bytes = whole(&path);
    std::fs::rename(&path, dir.path().join("app.log.1")).unwrap();
    std::fs::write(&path, b"new Error\n").unwrap();
    let q = QueryBuilder::new().include("Error").build().unwrap();
    let (lines, _) = search_tail(&q, &bytes, 1, &SearchOptions::default()).unwrap();
    assert_eq!(lines[0].bytes, b"old Error 2");
}

// ---------------------------------------------------------------- bad paths

#[test]
fn bad_paths_give_greps_messages_and_status_and_other_files_are_searched() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("ok.log"), b"hello Error\n").unwrap();
    std::fs::write(d.join("empty.log"), b"").unwrap();
    std::fs::create_dir(d.join("adir")).unwrap();
    std::os::unix::fs::symlink("loop2", d.join("loop1")).unwrap();
    std::os::unix::fs::symlink("loop1", d.join("loop2")).unwrap();
    let cases: &[&[&str]] = &[
        &["Error", "nosuch.log", "ok.log"],
        &["Error", "adir", "ok.log"],
        &["Error", "loop1", "ok.log"],
        &["Error", "empty.log", "ok.log"],
        &["Error", "/dev/null", "ok.log"],
        &["Error", "empty.log"],
        &["-s", "Error", "nosuch.log", "ok.log"],
        &["-q", "Error", "nosuch.log", "ok.log"],
        &["-c", "Error", "adir", "ok.log"],
        &["-l", "Error", "loop1", "ok.log", "empty.log"],
    ];
    for args in cases {
        let (g, r) = (grep(args, d), grail(args, d));
        assert_eq!(
            (&r.stdout, r.status.code()),
            (&g.stdout, g.status.code()),
            "{args:?}: {}",
            stderr(&r)
        );
        // Same message text, with the program name swapped.
        assert_eq!(
            stderr(&r).replace("grail:", "grep:"),
            stderr(&g),
            "{args:?}"
        );
    }
}

#[test]
fn fifo_and_dev_stdin_are_read_as_streams() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("fifo");
    assert!(Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap()
        .success());
    let writer = {
        let fifo = fifo.clone();
        std::thread::spawn(move || {
            let mut f = std::fs::OpenOptions::new().write(true).open(fifo).unwrap();
            f.write_all(b"a\nb Error\nc\n").unwrap();
        })
    };
    let out = grail(&["-n", "Error", fifo.to_str().unwrap()], dir.path());
    writer.join().unwrap();
    assert_eq!(out.stdout, b"2:b Error\n");
    let mut child = Command::new(env!("CARGO_BIN_EXE_grail"))
        .args(["Error", "/dev/stdin"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(b"x Error\ny\n")
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.stdout, b"x Error\n");
}

#[test]
fn permission_denied_is_reported_like_grep() {
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } == 0 {
        // root reads every file: compare on a path root cannot open instead.
        let d = std::env::temp_dir();
        let args = ["x", "/proc/self/mem"];
        let (g, r) = (grep(&args, &d), grail(&args, &d));
        assert_eq!(r.status.code(), g.status.code(), "{}", stderr(&r));
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("secret.log");
    std::fs::write(&p, b"x\n").unwrap();
    std::fs::set_permissions(&p, std::os::unix::fs::PermissionsExt::from_mode(0o000)).unwrap();
    let (g, r) = (
        grep(&["x", "secret.log"], dir.path()),
        grail(&["x", "secret.log"], dir.path()),
    );
    assert_eq!(r.status.code(), g.status.code());
    assert_eq!(stderr(&r).replace("grail:", "grep:"), stderr(&g));
}

// ---------------------------------------------------------------- hostile content

fn same_as_grep(dir: &Path, args: &[&str]) {
    let (g, r) = (grep(args, dir), grail(args, dir));
    assert_eq!(
        (String::from_utf8_lossy(&r.stdout), r.status.code()),
        (String::from_utf8_lossy(&g.stdout), g.status.code()),
        "{args:?}: {}",
        stderr(&r)
    );
}

#[test]
fn hostile_files_match_grep() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // A 256 MiB single line (the 1 GiB case behaves the same; this keeps CI
    // fast): memory stays bounded because the file is mapped, not read.
    let mut line = vec![b'a'; 256 << 20];
    line[200 << 20] = b'E';
    line.extend_from_slice(b"rror\n");
    std::fs::write(d.join("oneline.log"), &line).unwrap();
    drop(line);
    std::fs::write(d.join("newlines.log"), vec![b'\n'; 1 << 20]).unwrap();
    std::fs::write(d.join("nuls.log"), vec![0u8; 1 << 20]).unwrap();
    std::fs::write(
        d.join("utf8.log"),
        b"caf\xc3\xa9 Error\n\xff\xfe Error\n\x80\n",
    )
    .unwrap();
    std::fs::write(d.join("cr.log"), b"a Error\rb\rc Error\r").unwrap();
    for args in [
        &["-c", "Error", "oneline.log"][..],
        &["-b", "-o", "Error", "oneline.log"],
        &["-c", "^$", "newlines.log"],
        &["-n", "x", "newlines.log"],
        &["-c", "", "nuls.log"],
        &["x", "nuls.log"],
        &["-a", "-c", "", "nuls.log"],
        &["-n", "Error", "utf8.log"],
        &["-c", "[^a-z]", "utf8.log"],
        &["-o", ".", "utf8.log"],
        &["-c", "Error", "cr.log"],
        &["-x", "c Error", "cr.log"],
    ] {
        same_as_grep(d, args);
    }
}

#[test]
fn hostile_patterns_work_or_are_refused_within_bounds() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let mut log = Vec::new();
    for i in 0..20_000 {
        log.extend_from_slice(
            format!("line {i} word{}_abc ab{}ba\n", i * 7, "ab".repeat(i % 13)).as_bytes(),
        );
    }
    std::fs::write(d.join("log"), &log).unwrap();
    // 100,000 patterns from -f.
    let pats: String = (0..100_000)
        .map(|i| format!("word{}_abc\n", i * 3))
        .collect();
    std::fs::write(d.join("pats"), pats).unwrap();
    // A 1 MB pattern.
    std::fs::write(d.join("huge"), "ab".repeat(500_000)).unwrap();
    let t = Instant::now();
    for args in [
        &["-c", "-f", "pats", "log"][..],
        &["-c", "-F", "-f", "pats", "log"],
        &["-c", "-w", "-f", "pats", "log"],
        &["-c", "-E", "(a|b)*a(a|b){20}", "log"],
        &["-c", "", "log"],
        &["-c", "-e", "line 1\nword7_", "log"],
        &["-c", "-e", "line 1\n", "log"],
    ] {
        same_as_grep(d, args);
    }
    // Each of the above finishes in seconds, not minutes (generous bound:
    // this is a hang check, not a benchmark).
    assert!(t.elapsed() < Duration::from_secs(120), "{:?}", t.elapsed());
    // A 1 MB pattern: GNU grep takes many minutes on it (its regex compile
    // is superlinear), so grail is checked on its own: a correct count, fast.
    let r = grail(&["-c", "-f", "huge", "log"], d);
    assert_eq!(
        (r.stdout.as_slice(), r.status.code()),
        (&b"0\n"[..], Some(1)),
        "{}",
        stderr(&r)
    );
    let r = grail(&["-c", "-F", "-f", "huge", "log"], d);
    assert_eq!(r.status.code(), Some(1), "{}", stderr(&r));
    // Past the automaton size limit: refused with exit 2, never an OOM.
    let r = grail(&["-c", "-E", "((a{1000}){1000}){100}", "log"], d);
    assert_eq!(r.status.code(), Some(2), "{}", stderr(&r));
    assert!(stderr(&r).contains("too large"), "{}", stderr(&r));
}

// ---------------------------------------------------------------- output that fails

#[test]
fn closed_pipe_ends_quietly_and_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("many.log");
    big_log(&path, 2_000_000);
    let t = Instant::now();
    let out = Command::new("bash")
        .arg("-c")
        .arg(format!(
            "{} INFO {} | head -1",
            env!("CARGO_BIN_EXE_grail"),
            path.display()
        ))
        .output()
        .unwrap();
    assert_eq!(out.stdout.iter().filter(|&&b| b == b'\n').count(), 1);
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(t.elapsed() < Duration::from_secs(20));
}

/// A closed pipe ends grail as it ends grep: killed by SIGPIPE, silently,
/// 141 under pipefail.
#[test]
fn closed_pipe_kills_as_it_kills_grep() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("many.log");
    big_log(&path, 200_000); // ~12 MB of selected lines: far more than a pipe holds
    let f = path.display().to_string();
    let grail = env!("CARGO_BIN_EXE_grail");
    let cases = [
        format!("grep INFO {f}"),
        format!("grep -n INFO {f}"),
        format!("{grail} INFO {f}"),
        format!("{grail} -n INFO {f}"),
        format!("{grail} -t 100000 INFO {f}"),
        format!("{grail} --sh 'grep INFO {f}'"),
    ];
    for cmd in cases {
        let out = Command::new("bash")
            .arg("-c")
            .arg(format!("set -o pipefail; {cmd} | head -n 1"))
            .env("LC_ALL", "C")
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(141), "{cmd}: {}", stderr(&out));
        assert!(out.stderr.is_empty(), "{cmd}: {}", stderr(&out));
        assert_eq!(out.stdout.iter().filter(|&&b| b == b'\n').count(), 1);
    }
}

#[test]
fn full_device_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a.log"), b"x Error\n").unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_grail"))
        .args(["Error", "a.log"])
        .current_dir(dir.path())
        .stdout(
            std::fs::OpenOptions::new()
                .write(true)
                .open("/dev/full")
                .unwrap(),
        )
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("No space left on device"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn ambiguous_binary_boundary_is_refused_not_guessed() {
    // A NUL after lines longer than grep's buffer: grep's own buffer layout
    // decides where its output stops, so grail must be exact or refuse.
    let dir = tempfile::tempdir().unwrap();
    let mut data = Vec::new();
    for _ in 0..3 {
        data.extend(std::iter::repeat_n(b'x', 150_000));
        data.extend_from_slice(b" Error\n");
    }
    data.extend_from_slice(b"\0\n");
    std::fs::write(dir.path().join("b.log"), &data).unwrap();
    let r = grail(&["--binary-files=binary", "Error", "b.log"], dir.path());
    let g = grep(&["Error", "b.log"], dir.path());
    if r.status.code() == Some(2) {
        assert!(stderr(&r).contains("-a"), "{}", stderr(&r));
        assert!(r.stdout.is_empty());
    } else {
        assert_eq!((r.stdout, r.status.code()), (g.stdout, g.status.code()));
    }
    let _ = Syntax::Basic;
}

/// Line numbers of a tail on a file larger than the NUL check's 8 MiB
/// pieces: the check's per-piece newline counts must add up exactly.
#[test]
fn tail_line_numbers_on_a_multi_piece_file_match_grep() {
    let dir = tempfile::tempdir().unwrap();
    big_log(&dir.path().join("big.log"), 500_000); // ~30 MB, 4 pieces
    for n in ["1", "10", "300000"] {
        let want = Command::new("bash")
            .arg("-c")
            .arg(format!("grep -n 'worker [0-9]*99 ' big.log | tail -n {n}"))
            .current_dir(dir.path())
            .env("LC_ALL", "C")
            .output()
            .unwrap();
        for extra in [&[][..], &["-a"][..], &["--threads", "1"][..]] {
            let mut args = vec!["-n", "-t", n];
            args.extend_from_slice(extra);
            args.extend_from_slice(&["worker [0-9]*99 ", "big.log"]);
            let got = grail(&args, dir.path());
            assert!(got.stdout == want.stdout, "-n -t {n} {extra:?}");
        }
    }
}

// ---------------------------------------------------------------- crashes

fn nested(open: &str, close: &str, n: usize) -> String {
    format!("{}a{}", open.repeat(n), close.repeat(n))
}

/// grep recurses over a pattern and says "stack overflow" (exit 2) for a
/// million nested groups; grail refuses past its nesting limit with a
/// message naming the pattern, and answers as grep does below it.
#[test]
fn deeply_nested_patterns_are_refused_or_answered_never_crash() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("a.log"), b"x\na\nbab\n").unwrap();
    let cases: [(&str, &str, &str, usize); 6] = [
        ("-E", "(", ")", 1_000_000),
        ("-G", "\\(", "\\)", 1_000_000),
        ("-E", "(", ")*", 1_000_000),
        ("-E", "(", "", 50_000), // unclosed: grep also says stack overflow
        ("-E", "(", ")", 1_000),
        ("-G", "\\(", "\\)", 2_000),
    ];
    for (syntax, open, close, n) in cases {
        std::fs::write(d.join("p"), nested(open, close, n)).unwrap();
        let g = grep(&[syntax, "-f", "p", "a.log"], d);
        let ours = grail(&[syntax, "-f", "p", "a.log"], d);
        let what = format!("{syntax} {open}…{close} x{n}");
        assert_eq!(
            ours.status.code(),
            g.status.code(),
            "{what}: {}",
            stderr(&ours)
        );
        assert_eq!(ours.stdout, g.stdout, "{what}");
        if g.status.code() == Some(2) {
            assert!(
                stderr(&g).contains("stack overflow"),
                "{what}: grep said {}",
                stderr(&g)
            );
            assert!(
                stderr(&ours).contains("stack overflow"),
                "{what}: {}",
                stderr(&ours)
            );
            assert!(
                stderr(&ours).len() < 400,
                "{what}: the message names the pattern briefly"
            );
        }
        // -o builds a second automaton, lazily, possibly on a worker thread.
        let o = grail(&["-o", syntax, "-f", "p", "a.log"], d);
        let go = grep(&["-o", syntax, "-f", "p", "a.log"], d);
        assert_eq!(
            (o.status.code(), o.stdout),
            (go.status.code(), go.stdout),
            "-o {what}"
        );
    }
    // A run of repetition operators does not nest: grep and grail accept
    // 300 of them (grep takes minutes for 10,000); a million overflow its
    // 8 MiB stack, and grail
    // (which folds the run into one operator) still answers.
    std::fs::write(d.join("p"), format!("a{}", "*".repeat(300))).unwrap();
    let g = grep(&["-f", "p", "a.log"], d);
    assert_eq!(g.status.code(), Some(0));
    let ours = grail(&["-f", "p", "a.log"], d);
    assert_eq!(
        (ours.status.code(), &ours.stdout),
        (g.status.code(), &g.stdout)
    );
    std::fs::write(d.join("p"), format!("a{}", "*".repeat(1_000_000))).unwrap();
    let many = grail(&["-f", "p", "a.log"], d);
    assert_eq!((many.status.code(), many.stdout), (Some(0), g.stdout));
    // Chained intervals nest without groups.
    std::fs::write(d.join("p"), format!("a{}", "{1,2}".repeat(100_000))).unwrap();
    let ours = grail(&["-E", "-f", "p", "a.log"], d);
    assert_eq!(ours.status.code(), Some(2), "{}", stderr(&ours));
    assert!(stderr(&ours).contains("stack overflow"));
    // Excludes: one argument is at most 128 KiB on Linux, so the command
    // line gets 30,000 levels; the library gets a million.
    let deep_bre = nested("\\(", "\\)", 30_000);
    let deep_ere = nested("(", ")", 30_000);
    for args in [
        vec!["a", "-N", deep_bre.as_str(), "a.log"],
        vec!["a", "--not-E", deep_ere.as_str(), "a.log"],
    ] {
        let ours = grail(&args, d);
        assert_eq!(ours.status.code(), Some(2), "{}", stderr(&ours));
        assert!(
            stderr(&ours).contains("stack overflow"),
            "{}",
            stderr(&ours)
        );
        assert!(ours.stdout.is_empty());
    }
    for (syntax, open, close) in [(Syntax::Basic, "\\(", "\\)"), (Syntax::Extended, "(", ")")] {
        let deep = nested(open, close, 1_000_000);
        let e = QueryBuilder::new()
            .include("a")
            .exclude_with(syntax, &deep)
            .build()
            .unwrap_err();
        assert!(e.message.contains("stack overflow"), "{e}");
        let ok = nested(open, close, 5_000);
        let q = QueryBuilder::new()
            .include("a")
            .exclude_with(syntax, &ok)
            .build()
            .unwrap();
        assert!(!q.is_selected(b"bab") && q.is_selected(b"x a") == q.is_selected(b"x a"));
    }
}

/// Every answer written to a full disk is grep's "write error", exit 2,
/// never a panic: --help, --version, --sh --explain, counts, lines.
#[test]
fn every_write_to_a_full_disk_is_an_error_not_a_panic() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("a.log"), b"x Error\n").unwrap();
    let full = || {
        std::fs::OpenOptions::new()
            .write(true)
            .open("/dev/full")
            .unwrap()
    };
    let cases: [&[&str]; 6] = [
        &["--help"],
        &["--version"],
        &["--sh", "grep Error a.log | tail -1", "--explain"],
        &["--sh", "grep Error a.log | wc -l"],
        &["-c", "Error", "a.log"],
        &["-t", "1", "Error", "a.log"],
    ];
    for args in cases {
        let out = Command::new(env!("CARGO_BIN_EXE_grail"))
            .args(args)
            .current_dir(d)
            .stdout(full())
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr(&out));
        assert!(
            stderr(&out).contains("write error: No space left on device"),
            "{args:?}: {}",
            stderr(&out)
        );
    }
    // A full stderr is ignored, as grep ignores it: the status still says
    // what happened.
    let out = Command::new(env!("CARGO_BIN_EXE_grail"))
        .args(["Error", "missing.log", "a.log"])
        .current_dir(d)
        .stderr(full())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(out.stdout, b"a.log:x Error\n");
}

/// `grail x log >> log` would read what it writes: grep refuses that file
/// ("input file is also the output", exit 2, other files still searched)
/// unless it writes no lines (`-q -l -L -c`) or stops after one (`-m 1`).
#[test]
fn input_that_is_also_the_output_is_refused_as_grep_refuses_it() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("other.log"), b"abc other\n").unwrap();
    let grail = env!("CARGO_BIN_EXE_grail");
    for args in [
        "abc log other.log",
        "-c abc log",
        "-l abc log",
        "-q abc log",
        "-L abc log",
        "-m1 abc log",
        "-m2 abc log",
        "-v zzz log",
        "-n -o abc log",
        "-C1 abc log",
        "abc - < log",
    ] {
        let mut results = Vec::new();
        for prog in ["grep", grail] {
            std::fs::write(d.join("log"), b"abc\nx\n").unwrap();
            let out = Command::new("bash")
                .arg("-c")
                .arg(format!("{prog} {args} >> log"))
                .current_dir(d)
                .env("LC_ALL", "C")
                .output()
                .unwrap();
            let after = std::fs::read(d.join("log")).unwrap();
            let err = stderr(&out).replace("grep:", "P:").replace("grail:", "P:");
            results.push((out.status.code(), after, err));
        }
        assert_eq!(results[1], results[0], "{args}");
    }
    // A tail of it too: the pipeline's first grep refuses the file.
    std::fs::write(d.join("log"), b"abc\nx\n").unwrap();
    let out = Command::new("bash")
        .arg("-c")
        .arg(format!("{grail} -t 1 abc log >> log"))
        .current_dir(d)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("log: input file is also the output"));
    assert_eq!(std::fs::read(d.join("log")).unwrap(), b"abc\nx\n");
}
