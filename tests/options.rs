//! Random combinations of grep's own options (and several files, stdin,
//! a missing file, a binary file) against GNU grep: same stdout, same status.
//! Pins option precedence (-q over -l/-L over -c, the later of -l/-L),
//! grep's early exits (-m 0, `-v ''`, `-f /dev/null`) and conflicting matchers.

mod common;

use std::process::{Command, Output};

fn run(program: &str, args: &[String], dir: &std::path::Path, input: &[u8]) -> Output {
    // The command may exit before reading its input (-q, -m 0).
    common::run(program, args, dir, Some(input))
}

use common::Rng;

#[test]
fn random_option_combinations_match_grep() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    common::write_small_logs(d);
    let files = ["t1", "t2", "empty", "bin1", "nosuch", "-"];
    let opts = [
        "-c",
        "-l",
        "-L",
        "-q",
        "-s",
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
        "-I",
        "-m1",
        "-m2",
        "-m0",
        "-Z",
        "-T",
        "-z",
        "--label=LBL",
        "-F",
        "-E",
        "-G",
        "-y",
    ];
    let pats = [
        "Error", "error", "", "z", "^E", "r$", "[a-z]", "a|b", "E.*r",
    ];
    let mut rng = Rng(0x2545_f491_4f6c_dd1d);
    let input = b"stdin Error\nline\n";
    let (mut checked, mut refused, mut fails) = (0, 0, Vec::new());
    for _ in 0..1500 {
        let mut args: Vec<String> = rng.pick(&opts, 5).into_iter().map(String::from).collect();
        if rng.below(10) == 0 {
            args.extend(["-f".to_string(), "nopats".to_string()]);
        } else {
            for p in rng
                .pick(&pats, 2)
                .into_iter()
                .chain(std::iter::once("Error"))
                .take(2)
            {
                args.extend(["-e".to_string(), p.to_string()]);
            }
        }
        let mut fs = rng.pick(&files, 3);
        if fs.is_empty() {
            fs.push("t1");
        }
        args.extend(fs.into_iter().map(String::from));
        let g = run("grep", &args, d, input);
        let r = run(env!("CARGO_BIN_EXE_grail"), &args, d, input);
        checked += 1;
        if (&g.stdout, g.status.code()) == (&r.stdout, r.status.code()) {
            continue;
        }
        if r.status.code() == Some(2)
            && String::from_utf8_lossy(&r.stderr).contains("not supported")
        {
            refused += 1;
            continue;
        }
        fails.push(format!(
            "grail {}\n  grep: {:?} {:?}\n  grail: {:?} {:?} {}",
            args.join(" "),
            String::from_utf8_lossy(&g.stdout),
            g.status.code(),
            String::from_utf8_lossy(&r.stdout),
            r.status.code(),
            String::from_utf8_lossy(&r.stderr)
        ));
    }
    eprintln!(
        "options: {checked} combinations, {refused} refused explicitly, {} differ",
        fails.len()
    );
    assert!(refused * 10 < checked, "too many refusals: {refused}");
    assert!(
        fails.is_empty(),
        "{}",
        fails[..fails.len().min(10)].join("\n")
    );
}

fn quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', r"'\''"))
}

/// grail's own options (-N, -t, --head) mixed with grep's, against the
/// pipeline they replace: `grep OPTS | grep -v [-i -w -x -a] X … | tail/head`.
/// `-i`, `-w`, `-x` and `-a` apply to the exclude stages too.
#[test]
fn random_exclude_and_window_combinations_match_the_pipeline() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    common::write_small_logs(d);
    let files = ["v1", "v2", "t1", "empty", "bin1"];
    let opts = ["-i", "-w", "-x", "-v", "-a", "-h", "-F", "-E"];
    let pats = [
        "Error",
        "error",
        "",
        "^E",
        "r$",
        "[a-z]",
        "E.*r",
        "Value|Runtime",
        "x",
    ];
    let excl = ["repo_utils", "Future", "^W", "o$", r"x\|y", ""];
    let windows: [Option<(&str, &str, u32)>; 6] = [
        Some(("-t", "tail -n", 0)),
        Some(("-t", "tail -n", 1)),
        Some(("-t", "tail -n", 3)),
        Some(("-t", "tail -n", 100)),
        Some(("--head", "head -n", 2)),
        None,
    ];
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut fails = Vec::new();
    let n = 800;
    for _ in 0..n {
        let mut o = rng.pick(&opts, 3);
        if o.contains(&"-F") && o.contains(&"-E") {
            o.retain(|&x| x != "-F");
        }
        let mut fs = rng.pick(&files, 3);
        if fs.is_empty() {
            fs.push("v1");
        }
        if fs.len() > 1 && !o.contains(&"-h") {
            o.push("-h"); // excludes test the line, never a file-name prefix
        }
        let p = pats[rng.below(pats.len())];
        let mut ex = rng.pick(&excl, 2);
        if ex.is_empty() {
            ex.push("Future");
        }
        let win = windows[rng.below(windows.len())];
        let mut args: Vec<String> = o.iter().map(|s| s.to_string()).collect();
        args.extend(["-e".into(), p.into()]);
        for x in &ex {
            args.extend(["-N".into(), x.to_string()]);
        }
        let mut pipe = format!("set -o pipefail; grep {} -e {}", o.join(" "), quote(p));
        for f in &fs {
            pipe += &format!(" {f}");
        }
        let stage_flags: String = ["-i", "-w", "-x", "-a"]
            .iter()
            .filter(|f| o.contains(f))
            .map(|f| format!("{f} "))
            .collect();
        for x in &ex {
            pipe += &format!(" | grep -v {stage_flags}{}", quote(x));
        }
        if let Some((flag, cmd, k)) = win {
            args.extend([flag.to_string(), k.to_string()]);
            // Read all input so the status never depends on SIGPIPE timing.
            pipe += &format!(" | {{ {cmd} {k}; cat >/dev/null; }}");
        }
        args.extend(fs.iter().map(|s| s.to_string()));
        let want = Command::new("bash")
            .arg("-c")
            .arg(&pipe)
            .current_dir(d)
            .env("LC_ALL", "C")
            .output()
            .unwrap();
        let got = run(env!("CARGO_BIN_EXE_grail"), &args, d, b"");
        if (&want.stdout, want.status.code()) != (&got.stdout, got.status.code()) {
            fails.push(format!(
                "grail {}\n  pipeline: {pipe}\n  want {:?} {:?}\n  got  {:?} {:?} {}",
                args.join(" "),
                String::from_utf8_lossy(&want.stdout),
                want.status.code(),
                String::from_utf8_lossy(&got.stdout),
                got.status.code(),
                String::from_utf8_lossy(&got.stderr)
            ));
        }
    }
    eprintln!("excludes/windows: {n} combinations, {} differ", fails.len());
    assert!(
        fails.is_empty(),
        "{}",
        fails[..fails.len().min(10)].join("\n")
    );
}

/// Usage errors in grep's words (getopt's), with its two usage lines, exit 2;
/// `--help` names every option grail has.
#[test]
fn usage_errors_are_greps() {
    let run = |prog: &str, args: &[&str]| {
        let o = std::process::Command::new(prog)
            .args(args)
            .env("LC_ALL", "C")
            .stdin(std::process::Stdio::null())
            .output()
            .unwrap();
        (
            o.status.code(),
            String::from_utf8_lossy(&o.stderr).into_owned(),
            o.stdout.is_empty(),
        )
    };
    for args in [
        &["--bogus", "x"][..],
        &["-k", "x"],
        &[],
        &["-e"],
        &["--regexp"],
        &["-A"],
        &["--count=3", "x"],
    ] {
        let (gc, gerr, gout) = run("grep", args);
        let (c, err, out) = run(env!("CARGO_BIN_EXE_grail"), args);
        assert_eq!(
            (c, err, out),
            (gc, gerr.replace("grep", "grail"), gout),
            "{args:?}"
        );
    }
    let help = run(env!("CARGO_BIN_EXE_grail"), &["--help"]);
    let text = String::from_utf8_lossy(
        &std::process::Command::new(env!("CARGO_BIN_EXE_grail"))
            .arg("--help")
            .output()
            .unwrap()
            .stdout,
    )
    .into_owned();
    assert_eq!(help.0, Some(0));
    for opt in [
        "--sh-fallback",
        "--version",
        "--help",
        "--explain",
        "--chunk-size",
        "--binary-files",
    ] {
        assert!(text.contains(opt), "--help lacks {opt}");
    }
    // Every long option GNU grep's --help names is in grail's.
    let grep_help = std::process::Command::new("grep")
        .arg("--help")
        .env("LC_ALL", "C")
        .output()
        .unwrap()
        .stdout;
    let grep_help = String::from_utf8_lossy(&grep_help);
    let mut named = 0;
    for word in grep_help.split(|c: char| !(c.is_ascii_alphanumeric() || c == '-')) {
        if word.starts_with("--") && word.len() > 2 {
            named += 1;
            assert!(text.contains(word), "--help lacks grep's {word}");
        }
    }
    assert!(named > 40, "grep's --help named only {named} options");
}

/// `-N` reads its pattern as `grep -v` does (a basic regex) whatever `-E`
/// says; with `-E`/`-F` and an unescaped `|+?({` in it, one stderr line says
/// so. stdout stays the pipeline's.
#[test]
fn exclude_written_as_ere_gets_a_hint() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("h.log"), b"a Warning\nb RuntimeError\nc ok\n").unwrap();
    let hint = "-N reads PATTERN as grep -v does (basic regex); use --not-E for an extended one";
    for (args, pipe, hinted) in [
        (
            &["-E", "Warning|Error", "-N", "Warning|RuntimeError", "h.log"][..],
            "grep -E 'Warning|Error' h.log | grep -v 'Warning|RuntimeError'",
            true,
        ),
        (
            &["-F", "-e", "Warning", "-e", "Error", "-N", "(x)", "h.log"],
            "grep -F -e Warning -e Error h.log | grep -v '(x)'",
            true,
        ),
        (
            &[
                "-E",
                "Warning|Error",
                "-N",
                "Warning\\|RuntimeError",
                "h.log",
            ],
            "grep -E 'Warning|Error' h.log | grep -v 'Warning\\|RuntimeError'",
            false,
        ),
        (
            &["Warning\\|Error", "-N", "Warning|RuntimeError", "h.log"],
            "grep 'Warning\\|Error' h.log | grep -v 'Warning|RuntimeError'",
            false,
        ),
    ] {
        let got = std::process::Command::new(env!("CARGO_BIN_EXE_grail"))
            .args(args)
            .current_dir(d)
            .env("LC_ALL", "C")
            .output()
            .unwrap();
        let want = std::process::Command::new("bash")
            .arg("-c")
            .arg(format!("set -o pipefail; {pipe}"))
            .current_dir(d)
            .env("LC_ALL", "C")
            .output()
            .unwrap();
        assert_eq!(
            (&got.stdout, got.status.code()),
            (&want.stdout, want.status.code()),
            "{args:?}"
        );
        let err = String::from_utf8_lossy(&got.stderr);
        assert_eq!(
            err.matches(hint).count(),
            usize::from(hinted),
            "{args:?}: {err}"
        );
    }
}

/// Long options abbreviated as getopt_long allows (any unambiguous prefix,
/// `--opt=value` included), and the errors for ambiguous, unknown and
/// argument-less ones, against GNU grep: same stdout, status and message
/// (grep's name for the program replaced by grail's).
#[test]
fn abbreviated_long_options_are_read_as_grep_reads_them() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("f"), b"a 1\nb 2\nA 3\nc\n\na b\n").unwrap();
    let cases: &[&[&str]] = &[
        &["--colo=always", "a", "f"],
        &["--col=never", "a", "f"],
        &["--no-gr", "-C1", "b", "f"],
        &["--group=XYZ", "-A0", "a", "f"],
        &["--line-n", "a", "f"],
        &["--ignore", "a", "f"],
        &["--no-ig", "-i", "a", "f"],
        &["--fix", "a 1", "f"],
        &["--fixed-r", "a", "f"],
        &["--ext", "a|b", "f"],
        &["--bas", "a\\|b", "f"],
        &["--bef=1", "b", "f"],
        &["--aft", "1", "b", "f"],
        &["--cont=1", "2", "f"],
        &["--coun", "a", "f"],
        &["--ma=1", "a", "f"],
        &["--inv", "a", "f"],
        &["--word", "a", "f"],
        &["--with", "a", "f"],
        &["--files-with", "a", "f"],
        &["--files-witho", "zzz", "f"],
        &["--reg=b", "f"],
        &["--lab=L", "-H", "a", "-"],
        &["--only", "[0-9]", "f"],
        &["--q", "a", "f"],
        &["--s", "a", "nosuch", "f"],
        &["--te", "a", "f"],
        &["--byte", "a", "f"],
        &["--null", "-l", "a", "f"],
        // Errors: ambiguous prefixes, unknown names, an argument where none goes.
        &["--no", "a", "f"],
        &["--line", "a", "f"],
        &["--c", "a", "f"],
        &["--nu", "a", "f"],
        &["--xyz", "a", "f"],
        &["--count=", "a", "f"],
        &["--coun=3", "a", "f"],
        &["--inv=1", "a", "f"],
    ];
    for args in cases {
        let g = run(
            "grep",
            &args.iter().map(|s| s.to_string()).collect::<Vec<_>>(),
            d,
            b"a x\n",
        );
        let r = run(
            common::GRAIL,
            &args.iter().map(|s| s.to_string()).collect::<Vec<_>>(),
            d,
            b"a x\n",
        );
        assert_eq!(
            (&r.stdout, r.status.code()),
            (&g.stdout, g.status.code()),
            "{args:?}: grail stderr {}",
            String::from_utf8_lossy(&r.stderr)
        );
        let gerr = String::from_utf8_lossy(&g.stderr).replace("grep", "grail");
        assert_eq!(String::from_utf8_lossy(&r.stderr), gerr, "{args:?}");
    }
}

/// Messages are named after the program as invoked: installed (linked) as
/// `grep`, grail says `grep: …`, and its usage lines say `grep` too.
#[test]
fn messages_name_the_program_as_invoked() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::os::unix::fs::symlink(common::GRAIL, d.join("grep")).unwrap();
    let linked = d.join("grep").display().to_string();
    for args in [
        &["--xyz", "a"][..],
        &["-k", "a"],
        &["a", "nosuch.log"],
        &[],
        &["-E", "a{1,2", "nosuch"],
    ] {
        let args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
        let g = run("grep", &args, d, b"");
        let r = run(&linked, &args, d, b"");
        assert_eq!(r.status.code(), g.status.code(), "{args:?}");
        let (gerr, rerr) = (
            String::from_utf8_lossy(&g.stderr),
            String::from_utf8_lossy(&r.stderr),
        );
        // grep names itself by its path in some messages; grail by its name.
        let gerr = gerr.replace("/usr/bin/grep", "grep");
        assert!(
            rerr.starts_with("grep: ") || rerr.starts_with("Usage: grep "),
            "{args:?}: {rerr}"
        );
        for (gl, rl) in gerr.lines().zip(rerr.lines()) {
            // The first words name the program; grail may say more after them.
            assert_eq!(
                gl.split(':').next(),
                rl.split(':').next(),
                "{args:?}: grep said {gl:?}, grail said {rl:?}"
            );
        }
        assert!(!rerr.contains("grail"), "{args:?}: {rerr}");
    }
}

/// `-z`: NUL-terminated records holding newlines, against grep -z (and
/// `grep -z | grep -zv | tail -z` for `-N` and `-t`).
#[test]
fn null_data_records_match_grep() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let mut rng = Rng(0x2e20_0da7a);
    let words = [
        "Error", "ok", "a b", "x\ny", "\n", "Error\r", " ", "tab\tbed", "é", "err",
    ];
    let mut recs = Vec::new();
    for _ in 0..400 {
        let mut r = String::new();
        for _ in 0..rng.below(4) {
            r.push_str(words[rng.below(words.len())]);
        }
        recs.push(r);
    }
    let mut data = recs.join("\0").into_bytes();
    std::fs::write(d.join("z1"), &data).unwrap();
    data.push(0);
    std::fs::write(d.join("z2"), &data).unwrap();
    let pats = [
        "Error",
        "^ok",
        "y$",
        "x.y",
        "[[:space:]]",
        "\\s",
        "x[^a]y",
        "^$",
        "r\\>",
        "",
    ];
    let opts = [
        "-c", "-n", "-b", "-o", "-w", "-x", "-i", "-v", "-H", "-l", "-A1", "-T",
    ];
    let mut fails = Vec::new();
    let mut checked = 0;
    for _ in 0..300 {
        let mut args = vec!["-z".to_string()];
        args.extend(rng.pick(&opts, 3).into_iter().map(String::from));
        args.push(pats[rng.below(pats.len())].into());
        args.push(if rng.chance(50) { "z1" } else { "z2" }.into());
        checked += 1;
        let want = run("grep", &args, d, b"");
        let got = run(common::GRAIL, &args, d, b"");
        if want.stdout != got.stdout || want.status.code() != got.status.code() {
            fails.push(format!("grail {}", shell_words::join(&args)));
        }
    }
    for (n, exclude) in [(1, None), (5, Some("ok")), (50, Some("x")), (1000, None)] {
        for pat in ["Error", "."] {
            checked += 1;
            let minus_v = exclude.map_or(String::new(), |x| format!(" | grep -zv {x}"));
            let want = common::bash(d, &format!("grep -z {pat} z1{minus_v} | tail -z -n {n}"));
            let mut args = vec!["-z".to_string(), "-t".into(), n.to_string()];
            if let Some(x) = exclude {
                args.extend(["-N".into(), x.into()]);
            }
            args.extend([pat.to_string(), "z1".into()]);
            let got = run(common::GRAIL, &args, d, b"");
            if want.stdout != got.stdout {
                fails.push(format!("grail {}", shell_words::join(&args)));
            }
        }
    }
    assert!(
        fails.is_empty(),
        "{} of {checked} -z command lines differ from grep:\n{}",
        fails.len(),
        fails.join("\n")
    );
}

/// `-P` against grep -P (the same PCRE2 options: DOLLAR_ENDONLY, CASELESS,
/// MATCH_LINE, grep's -w wrapper) on real logs and the small edge files.
#[test]
fn perl_patterns_match_grep() {
    let loghub = common::shared("testdata/loghub");
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    common::write_small_logs(d);
    for f in ["Linux_2k.log", "OpenSSH_2k.log", "Apache_2k.log"] {
        std::fs::copy(loghub.join(f), d.join(f)).unwrap();
    }
    let pats = [
        r"\d{2}:\d{2}",
        r"(?<=user )\w+",
        r"fail(ed|ure)?",
        r"(?i)error",
        r"\bport \d+\b",
        r"^\w{3} +\d",
        r"(\w+) \1",
        r"a.*?b",
        r"(?>a+)b",
        r"\s$",
        r"",
        r"x*",
        r"[[:upper:]]{4,}",
        r"Error\r?$",
        r"(?!Error)E\w+",
    ];
    let opts = [
        "-o",
        "-w",
        "-x",
        "-i",
        "-v",
        "-c",
        "-n",
        "-b",
        "--color=always",
        "-h",
    ];
    let files = [
        "Linux_2k.log",
        "OpenSSH_2k.log",
        "Apache_2k.log",
        "v1",
        "t1",
        "bin1",
        "-",
    ];
    let mut rng = Rng(0x9e11_0f9c);
    let mut fails = Vec::new();
    let mut checked = 0;
    for _ in 0..250 {
        let mut args = vec!["-P".to_string()];
        args.extend(rng.pick(&opts, 3).into_iter().map(String::from));
        args.push("-e".into());
        args.push(pats[rng.below(pats.len())].into());
        args.extend(rng.pick(&files, 2).into_iter().map(String::from));
        checked += 1;
        let want = run("grep", &args, d, b"stdin Error\nfoo foo\n");
        let got = run(common::GRAIL, &args, d, b"stdin Error\nfoo foo\n");
        if want.stdout != got.stdout || want.status.code() != got.status.code() {
            fails.push(format!(
                "grail {}: grep {:?}, grail {:?} {}",
                shell_words::join(&args),
                want.status.code(),
                got.status.code(),
                String::from_utf8_lossy(&got.stderr)
            ));
        }
    }
    assert!(
        fails.is_empty(),
        "{} of {checked} -P command lines differ from grep:\n{}",
        fails.len(),
        fails.join("\n")
    );
}
