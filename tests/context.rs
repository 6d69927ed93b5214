//! Context (`-A/-B/-C/-NUM`, group separators) and `--color` against GNU
//! grep: random option combinations on small edge-case logs, on a log long
//! enough for many chunks and several stream reads, from files and from a
//! pipe, at several chunk sizes. `--tail` with context is checked against
//! the end of grep's own output, and excludes with context against a line
//! model that is itself checked against grep.

mod common;

use std::path::Path;
use std::process::{Command, Output};

fn run_env(
    program: &str,
    args: &[String],
    dir: &Path,
    input: &[u8],
    env: &[(&str, &str)],
) -> Output {
    common::run_env(program, args, dir, Some(input), env)
}

use common::Rng;

/// A log with runs of matches and gaps of every length, long lines, a CRLF
/// line and no final newline: about 600 KiB, so several 96 KiB stream reads
/// and many scan chunks.
fn long_log() -> Vec<u8> {
    let mut v = Vec::new();
    let mut rng = Rng(0x1234_5678_9abc_def1);
    let mut i = 0;
    while v.len() < 600_000 {
        let kind = rng.below(20);
        let line = match kind {
            0 => format!("{i} ERROR disk full"),
            1 => format!("{i} Error: retry FutureWarning"),
            2 => format!("{i} ValueError x{}", "y".repeat(rng.below(3000))),
            3 => String::new(),
            4 => format!("{i} error\r"),
            _ => format!("{i} INFO ok {}", "z".repeat(rng.below(80))),
        };
        v.extend_from_slice(line.as_bytes());
        v.push(b'\n');
        i += 1;
    }
    v.extend_from_slice(b"last Error no newline");
    v
}

/// Text, then a NUL well past grep's first 96 KiB read, with matches close
/// before it (trailing context would run into the binary part).
fn late_binary() -> Vec<u8> {
    let mut v = Vec::new();
    for i in 0..8000 {
        // From line 7000 on every line matches, so the last text line is
        // selected wherever grep's reads put the start of the binary part.
        let word = if i % 97 == 0 || i > 7000 {
            "Error"
        } else {
            "ok"
        };
        v.extend_from_slice(format!("{i} line {word}\n").as_bytes());
    }
    v.extend_from_slice(b"Error near the end\nok\n\0binary Error\nmore\n");
    v
}

fn write_fixtures(d: &Path) {
    common::write_small_logs(d);
    std::fs::write(d.join("long"), long_log()).unwrap();
    std::fs::write(d.join("latebin"), late_binary()).unwrap();
    std::fs::write(d.join("ctx"), b"a\nb\nc\nd\ne\na\nf\ng\nh\ni\nj\na\n").unwrap();
}

fn differs(g: &Output, r: &Output) -> bool {
    (&g.stdout, g.status.code()) != (&r.stdout, r.status.code())
}

fn refused(r: &Output) -> bool {
    r.status.code() == Some(2) && {
        let e = String::from_utf8_lossy(&r.stderr);
        e.contains("not supported") || e.contains("use -a (--text)")
    }
}

#[test]
fn random_context_and_color_combinations_match_grep() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write_fixtures(d);
    let files = [
        "ctx", "v1", "v2", "t1", "empty", "bin1", "long", "latebin", "-",
    ];
    let ctx_opts = [
        "-A1", "-A3", "-B1", "-B2", "-C1", "-C4", "-2", "-0", "-A0", "-B0", "-12",
    ];
    let opts = [
        "-n",
        "-b",
        "-H",
        "-h",
        "-o",
        "-v",
        "-i",
        "-w",
        "-x",
        "-a",
        "-m1",
        "-m3",
        "-c",
        "-l",
        "-Z",
        "-T",
        "-z",
        "--no-group-separator",
        "--group-separator=::sep::",
        "--color=always",
        "--color=always",
        "-E",
    ];
    let pats = [
        "Error", "a", "e", "", "^E", "r$", "[0-9]+", "x|z", "ok", "E.*r", "^$",
    ];
    let colors = [
        None,
        Some("ms=04;32:fn=:se=33"),
        Some("sl=1:cx=2"),
        Some("sl=1:cx=2:rv"),
        Some("mt=7:ne"),
        Some("ms=1;x:ln=35"),
    ];
    // GRAIL_SEED / GRAIL_CASES run other or more combinations (soak runs).
    let seed = std::env::var("GRAIL_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(0xdead_beef_cafe_f00d);
    let cases: usize = std::env::var("GRAIL_CASES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(1200);
    let mut rng = Rng(seed);
    let stdin = long_log();
    let (mut checked, mut refusals, mut fails) = (0, 0, Vec::new());
    for _ in 0..cases {
        let mut args: Vec<String> = rng
            .pick(&ctx_opts, 2)
            .into_iter()
            .chain(rng.pick(&opts, 4))
            .map(String::from)
            .collect();
        if !args.iter().any(|a| {
            a.starts_with("-A")
                || a.starts_with("-B")
                || a.starts_with("-C")
                || a.as_bytes()[1].is_ascii_digit()
        }) {
            args.push("-C1".into());
        }
        args.extend(["-e".to_string(), pats[rng.below(pats.len())].to_string()]);
        let mut fs = rng.pick(&files, 2);
        if fs.is_empty() {
            fs.push("ctx");
        }
        // `latebin` has a NUL after grep's first read: text under the log
        // rule (the oracle is `grep -a`); `bin1` is binary by that rule.
        let late = fs.contains(&"latebin");
        let log_oracle = !(late && fs.contains(&"bin1"));
        args.extend(fs.into_iter().map(String::from));
        let env: Vec<(&str, &str)> = colors[rng.below(colors.len())]
            .map(|c| vec![("GREP_COLORS", c)])
            .unwrap_or_default();
        let g = run_env("grep", &args, d, &stdin, &env);
        let g_text = if late {
            let mut a = vec!["-a".to_string()];
            a.extend(args.iter().cloned());
            run_env("grep", &a, d, &stdin, &env)
        } else {
            g.clone()
        };
        // Under the log rule (default), and grep's exact rule on request.
        let runs = [
            (None, true),
            (Some("1"), false),
            (Some("7"), false),
            (None, false),
        ];
        for (chunk, log) in runs {
            if log && !log_oracle {
                continue;
            }
            let mut a = args.clone();
            if let Some(c) = chunk {
                a.splice(0..0, ["--chunk-size".to_string(), c.to_string()]);
            }
            if !log {
                a.insert(0, "--binary-files=binary".to_string());
            }
            let g = if log { &g_text } else { &g };
            let r = run_env(env!("CARGO_BIN_EXE_grail"), &a, d, &stdin, &env);
            checked += 1;
            if !differs(g, &r) {
                continue;
            }
            if refused(&r) {
                refusals += 1;
                continue;
            }
            fails.push(format!(
                "GREP_COLORS={env:?} grail {}\n  grep:  {:?} {:?}\n  grail: {:?} {:?} {}",
                a.join(" "),
                String::from_utf8_lossy(&g.stdout[..g.stdout.len().min(600)]),
                g.status.code(),
                String::from_utf8_lossy(&r.stdout[..r.stdout.len().min(600)]),
                r.status.code(),
                String::from_utf8_lossy(&r.stderr)
            ));
            break;
        }
    }
    eprintln!(
        "context: {checked} runs, {refusals} refused explicitly, {} differ",
        fails.len()
    );
    assert!(refusals * 10 < checked, "too many refusals: {refusals}");
    assert!(
        fails.is_empty(),
        "{}",
        fails[..fails.len().min(8)].join("\n")
    );
}

/// Output lines of `grep -n` (single file, no -o), each with the line
/// number it belongs to and whether it is selected; separators are `None`.
fn numbered(out: &[u8]) -> Vec<Option<(u64, bool)>> {
    out.split_inclusive(|&b| b == b'\n')
        .map(|l| {
            let digits = l.iter().take_while(|b| b.is_ascii_digit()).count();
            if digits == 0 {
                return None;
            }
            let n = std::str::from_utf8(&l[..digits]).unwrap().parse().unwrap();
            Some((n, l[digits] == b':'))
        })
        .collect()
}

/// `-t N` with context is the end of grep's own output, from the first
/// leading-context line of the Nth selected line from the end.
#[test]
fn tail_with_context_is_the_end_of_greps_output() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write_fixtures(d);
    let files = ["ctx", "v1", "v2", "t1", "long", "empty"];
    let ctx_opts = ["-A1", "-A4", "-B1", "-B3", "-C1", "-C2", "-0", "-A0"];
    let opts = [
        "-b",
        "-v",
        "-i",
        "-m2",
        "-m40",
        "--no-group-separator",
        "--color=always",
    ];
    let pats = ["Error", "a", "e", "", "^E", "[0-9]+7 ", "ok", "^$"];
    let mut rng = Rng(0x0123_4567_89ab_cdef);
    let mut fails = Vec::new();
    let n = 500;
    for _ in 0..n {
        let mut args: Vec<String> = vec![ctx_opts[rng.below(ctx_opts.len())].to_string()];
        args.extend(rng.pick(&opts, 3).into_iter().map(String::from));
        args.extend(["-e".to_string(), pats[rng.below(pats.len())].to_string()]);
        let f = files[rng.below(files.len())].to_string();
        let t = [0usize, 1, 2, 3, 5, 50][rng.below(6)];
        let before = args
            .iter()
            .find_map(|a| {
                a.strip_prefix("-B")
                    .or(a.strip_prefix("-C"))
                    .or(a.strip_prefix("-"))
                    .and_then(|v| v.parse::<u64>().ok())
            })
            .unwrap_or(0);
        let mut gargs = args.clone();
        gargs.push(f.clone());
        let g = run_env("grep", &gargs, d, b"", &[]);
        let mut nargs = gargs.clone();
        nargs.insert(0, "-n".into());
        nargs.retain(|a| a != "--color=always");
        let gn = run_env("grep", &nargs, d, b"", &[]);
        let marks = numbered(&gn.stdout);
        let lines: Vec<&[u8]> = g.stdout.split_inclusive(|&b| b == b'\n').collect();
        assert_eq!(
            marks.len(),
            lines.len(),
            "grep -n has the same lines: {nargs:?}"
        );
        let sel: Vec<u64> = marks
            .iter()
            .flatten()
            .filter(|m| m.1)
            .map(|m| m.0)
            .collect();
        let want: Vec<u8> = if t == 0 || sel.is_empty() {
            Vec::new()
        } else {
            let s = sel[sel.len().saturating_sub(t)];
            let from = s.saturating_sub(before).max(1);
            let i = marks
                .iter()
                .position(|m| m.is_some_and(|(n, _)| n >= from))
                .unwrap();
            lines[i..].concat()
        };
        let mut rargs = args.clone();
        rargs.extend(["-t".to_string(), t.to_string(), f.clone()]);
        let r = run_env(env!("CARGO_BIN_EXE_grail"), &rargs, d, b"", &[]);
        let want_status = if sel.is_empty() { 1 } else { 0 };
        // The same through a pipe: the whole output is produced and its end kept.
        let mut pargs = args.clone();
        pargs.extend(["-t".to_string(), t.to_string()]);
        let data = std::fs::read(d.join(&f)).unwrap();
        let p = run_env(env!("CARGO_BIN_EXE_grail"), &pargs, d, &data, &[]);
        if p.stdout != want || p.status.code() != Some(want_status) {
            fails.push(format!(
                "(stdin) grail {}\n  want {:?}\n  got  {:?} {:?} {}",
                pargs.join(" "),
                String::from_utf8_lossy(&want[..want.len().min(400)]),
                String::from_utf8_lossy(&p.stdout[..p.stdout.len().min(400)]),
                p.status.code(),
                String::from_utf8_lossy(&p.stderr)
            ));
        }
        if r.stdout != want || r.status.code() != Some(want_status) {
            fails.push(format!(
                "grail {}\n  want {:?}\n  got  {:?} {:?} {}",
                rargs.join(" "),
                String::from_utf8_lossy(&want[..want.len().min(400)]),
                String::from_utf8_lossy(&r.stdout[..r.stdout.len().min(400)]),
                r.status.code(),
                String::from_utf8_lossy(&r.stderr)
            ));
        }
    }
    eprintln!("tail with context: {n} cases, {} differ", fails.len());
    assert!(
        fails.is_empty(),
        "{}",
        fails[..fails.len().min(6)].join("\n")
    );
}

/// grep's context rules on a line model: `sel[i]` says whether line i is
/// selected; prints `N:line` / `N-line` and `--` like `grep -n`.
fn model(lines: &[&[u8]], sel: &[bool], before: usize, after: usize) -> Vec<u8> {
    let mut out = Vec::new();
    let mut last: Option<usize> = None; // index after the last printed line
    let mut pending = 0usize;
    let mut used = false;
    for i in 0..lines.len() {
        if !sel[i] {
            continue;
        }
        let mut p = last.unwrap_or(0);
        if pending > 0 {
            while pending > 0 && p < i {
                out.extend_from_slice(format!("{}-", p + 1).as_bytes());
                out.extend_from_slice(lines[p]);
                out.push(b'\n');
                p += 1;
                pending -= 1;
            }
            last = Some(p);
        }
        let floor = last.unwrap_or(0);
        let start = i.saturating_sub(before).max(floor);
        if used && Some(start) != last {
            out.extend_from_slice(b"--\n");
        }
        for (j, l) in lines.iter().enumerate().take(i).skip(start) {
            out.extend_from_slice(format!("{}-", j + 1).as_bytes());
            out.extend_from_slice(l);
            out.push(b'\n');
        }
        out.extend_from_slice(format!("{}:", i + 1).as_bytes());
        out.extend_from_slice(lines[i]);
        out.push(b'\n');
        last = Some(i + 1);
        pending = after;
        used = true;
    }
    if let Some(mut p) = last {
        while pending > 0 && p < lines.len() {
            out.extend_from_slice(format!("{}-", p + 1).as_bytes());
            out.extend_from_slice(lines[p]);
            out.push(b'\n');
            p += 1;
            pending -= 1;
        }
    }
    out
}

/// Excludes never select a line, but an excluded line may be printed as
/// context. Checked against the line model, which is first checked against
/// grep itself on the same inputs without excludes.
#[test]
fn excluded_lines_appear_only_as_context() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write_fixtures(d);
    let text = std::fs::read(d.join("long")).unwrap();
    let lines: Vec<&[u8]> = text.split(|&b| b == b'\n').collect();
    let include = |l: &[u8]| l.windows(5).any(|w| w == b"Error" || w == b"ERROR");
    let exclude = |l: &[u8]| l.windows(6).any(|w| w == b"Future");
    for (b, a) in [(0, 0), (1, 0), (0, 2), (2, 2), (5, 1)] {
        let ctx = [format!("-B{b}"), format!("-A{a}")];
        // The model agrees with grep without excludes.
        let sel: Vec<bool> = lines.iter().map(|l| include(l)).collect();
        let mut gargs = vec!["-n".to_string()];
        gargs.extend(ctx.iter().cloned());
        gargs.extend(["-E".into(), "Error|ERROR".into(), "long".into()]);
        let g = run_env("grep", &gargs, d, b"", &[]);
        assert_eq!(
            String::from_utf8_lossy(&model(&lines, &sel, b, a)),
            String::from_utf8_lossy(&g.stdout),
            "model vs grep {gargs:?}"
        );
        // grail with an exclude agrees with the model.
        let sel: Vec<bool> = lines.iter().map(|l| include(l) && !exclude(l)).collect();
        let mut rargs = gargs.clone();
        rargs.splice(0..0, ["-N".to_string(), "Future".to_string()]);
        for chunk in ["1000", "65536"] {
            let mut r2 = rargs.clone();
            r2.extend(["--chunk-size".into(), chunk.into()]);
            let r = run_env(env!("CARGO_BIN_EXE_grail"), &r2, d, b"", &[]);
            assert_eq!(
                String::from_utf8_lossy(&model(&lines, &sel, b, a)),
                String::from_utf8_lossy(&r.stdout),
                "grail {r2:?}"
            );
        }
        // An excluded line next to a selected one is printed as context.
        if a > 0 || b > 0 {
            let r = run_env(env!("CARGO_BIN_EXE_grail"), &rargs, d, b"", &[]);
            let hidden_as_context = String::from_utf8_lossy(&r.stdout).lines().any(|l| {
                l.contains("FutureWarning")
                    && l.split_once('-')
                        .is_some_and(|(n, _)| n.parse::<u64>().is_ok())
            });
            assert!(hidden_as_context, "some excluded line shows as context");
        }
    }
}

#[test]
fn context_on_a_pipe_streams_with_bounded_lookback() {
    // The long log through a real pipe, where grail reads 96 KiB at a time
    // and must keep leading-context lines across reads.
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let data = long_log();
    for args in [
        vec!["-n", "-C3", "ERROR"],
        vec!["-B5", "-b", "Value"],
        vec!["-A2", "-v", "INFO"],
        vec!["-m5", "-A7", "ERROR"],
        vec!["-C1", "--color=always", "-n", "Error"],
    ] {
        let args: Vec<String> = args.into_iter().map(String::from).collect();
        let g = run_env("grep", &args, d, &data, &[]);
        let r = run_env(env!("CARGO_BIN_EXE_grail"), &args, d, &data, &[]);
        assert!(
            !differs(&g, &r),
            "stdin {args:?}: {}",
            String::from_utf8_lossy(&r.stderr)
        );
    }
}

#[test]
fn context_running_into_binary_data_is_refused_not_guessed() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write_fixtures(d);
    let args: Vec<String> = ["--binary-files=binary", "-A5", "Error", "latebin"]
        .map(String::from)
        .to_vec();
    let r = run_env(env!("CARGO_BIN_EXE_grail"), &args, d, b"", &[]);
    assert_eq!(r.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&r.stderr).contains("use -a"));
    // Under the default log rule the NUL is text: grep -a's answer.
    let args: Vec<String> = ["-A5", "Error", "latebin"].map(String::from).to_vec();
    let r = run_env(env!("CARGO_BIN_EXE_grail"), &args, d, b"", &[]);
    let mut ga = vec!["-a".to_string()];
    ga.extend(args.iter().cloned());
    let g = run_env("grep", &ga, d, b"", &[]);
    assert!(!differs(&g, &r));
    assert!(String::from_utf8_lossy(&r.stderr).contains("1 NUL byte from offset"));
    // With -a there is nothing to guess.
    let args: Vec<String> = ["-a", "-A5", "Error", "latebin"].map(String::from).to_vec();
    let g = run_env("grep", &args, d, b"", &[]);
    let r = run_env(env!("CARGO_BIN_EXE_grail"), &args, d, b"", &[]);
    assert!(!differs(&g, &r));
    // Leading context only: exact.
    let args: Vec<String> = ["--binary-files=binary", "-B5", "Error", "latebin"]
        .map(String::from)
        .to_vec();
    let g = run_env("grep", &args, d, b"", &[]);
    let r = run_env(env!("CARGO_BIN_EXE_grail"), &args, d, b"", &[]);
    assert!(!differs(&g, &r));
}

#[test]
fn color_auto_colours_a_terminal_only() {
    // `script` runs the command on a pseudo-terminal (util-linux's, in
    // Debian's bsdutils; `.ci/run` installs it). Missing, the test fails:
    // it never passes by skipping.
    assert!(
        Command::new("script").arg("--version").output().is_ok(),
        "script(1) is needed to check --color=auto on a terminal"
    );
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write_fixtures(d);
    let grail = env!("CARGO_BIN_EXE_grail");
    for term in ["xterm", "dumb"] {
        for cmd in [
            "--color=auto -n -C1 a ctx",
            "--color -c a ctx v1",
            "--color=auto Error v1",
        ] {
            let on_tty = |prog: &str| {
                Command::new("script")
                    .args(["-qec", &format!("{prog} {cmd}"), "/dev/null"])
                    .current_dir(d)
                    .env("LC_ALL", "C")
                    .env("TERM", term)
                    .env_remove("GREP_COLORS")
                    .output()
                    .unwrap()
                    .stdout
            };
            let (g, r) = (on_tty("grep"), on_tty(grail));
            assert_eq!(
                String::from_utf8_lossy(&g),
                String::from_utf8_lossy(&r),
                "TERM={term} {cmd}"
            );
            assert_eq!(
                term == "xterm",
                g.contains(&0x1b),
                "grep colours only a real terminal"
            );
        }
    }
    // Not a terminal: no colour under auto.
    let args: Vec<String> = ["--color=auto", "a", "ctx"].map(String::from).to_vec();
    let r = run_env(grail, &args, d, b"", &[("TERM", "xterm")]);
    assert!(!r.stdout.contains(&0x1b));
}

#[test]
fn head_with_context_is_the_first_selected_lines_with_their_context() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write_fixtures(d);
    for (h, ctx) in [("1", "-C1"), ("2", "-A2"), ("3", "-B3"), ("5", "-C2")] {
        // One file: the same as grep -m.
        let args: Vec<String> = ["--head", h, ctx, "-n", "ERROR", "long"]
            .map(String::from)
            .to_vec();
        let gargs: Vec<String> = ["-m", h, ctx, "-n", "ERROR", "long"]
            .map(String::from)
            .to_vec();
        let g = run_env("grep", &gargs, d, b"", &[]);
        let r = run_env(env!("CARGO_BIN_EXE_grail"), &args, d, b"", &[]);
        assert!(!differs(&g, &r), "{args:?}");
    }
    // Across files: the count goes on into the next file.
    let args: Vec<String> = ["--head", "4", "-C1", "a", "ctx", "ctx"]
        .map(String::from)
        .to_vec();
    let r = run_env(env!("CARGO_BIN_EXE_grail"), &args, d, b"", &[]);
    let g1 = run_env(
        "grep",
        &["-H".into(), "-C1".into(), "a".into(), "ctx".into()],
        d,
        b"",
        &[],
    );
    let g2 = run_env(
        "grep",
        &[
            "-H".into(),
            "-m1".into(),
            "-C1".into(),
            "a".into(),
            "ctx".into(),
        ],
        d,
        b"",
        &[],
    );
    let mut want = g1.stdout.clone();
    want.extend_from_slice(b"--\n");
    want.extend_from_slice(&g2.stdout);
    assert_eq!(
        String::from_utf8_lossy(&r.stdout),
        String::from_utf8_lossy(&want)
    );
}
