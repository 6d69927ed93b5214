//! `-r`, `-R`, `-d`, `-D` and grep's file-selection options against GNU
//! grep on generated trees: nested directories, dotfiles, symbolic links to
//! files and directories (inside the tree and as operands), dangling links,
//! a link back up the tree, binary files, a FIFO and a directory large
//! enough for fts to sort it by inode. Same stdout, same exit status and the
//! same stderr (grep's name swapped); `-t N` against `grep -r … | tail`.

mod common;

use common::{Rng, GRAIL};
use std::os::unix::fs::symlink;
use std::path::Path;
use std::process::Output;

/// What grep says, with grail's name: the messages must be the same.
fn as_grail(stderr: &[u8]) -> String {
    String::from_utf8_lossy(stderr)
        .lines()
        .map(|l| match l.strip_prefix("grep:") {
            Some(rest) => format!("grail:{rest}\n"),
            None => format!("{l}\n"),
        })
        .collect()
}

/// `None` when grail and grep agree on `args` in `dir`.
fn differs(dir: &Path, args: &[String]) -> Option<String> {
    let want = common::run("grep", args, dir, Some(b"stdin Error\n"));
    let got = common::run(GRAIL, args, dir, Some(b"stdin Error\n"));
    let same = |w: &Output, g: &Output| {
        w.stdout == g.stdout
            && w.status.code() == g.status.code()
            && as_grail(&w.stderr) == String::from_utf8_lossy(&g.stderr)
    };
    (!same(&want, &got)).then(|| {
        format!(
            "grail {}\n  grep: status {:?}\n{}{}  grail: status {:?}\n{}{}",
            shell_words::join(args),
            want.status.code(),
            String::from_utf8_lossy(&want.stdout),
            as_grail(&want.stderr),
            got.status.code(),
            String::from_utf8_lossy(&got.stdout),
            String::from_utf8_lossy(&got.stderr),
        )
    })
}

fn report(fails: &[String], checked: usize) {
    assert!(
        fails.is_empty(),
        "{} of {checked} command lines differ from grep:\n{}",
        fails.len(),
        fails.iter().take(8).cloned().collect::<Vec<_>>().join("\n")
    );
}

const NAMES: &[&str] = &[
    "a.log",
    "b.log",
    "c.txt",
    "app.log.1",
    "x",
    "y.err",
    ".hid",
    "sub",
    "logs",
    ".git",
    "deep",
    "a b.log",
    "dir.log",
];

/// A random tree under `root`, `depth` levels deep at most.
fn tree(rng: &mut Rng, root: &Path, depth: usize) {
    std::fs::create_dir_all(root).unwrap();
    for _ in 0..rng.below(7) {
        let name = NAMES[rng.below(NAMES.len())];
        let p = root.join(name);
        if p.symlink_metadata().is_ok() {
            continue;
        }
        match rng.below(100) {
            0..=64 => {
                let mut text = Vec::new();
                if rng.chance(8) {
                    text.extend_from_slice(b"bin\0ary Error\n");
                }
                for i in 0..rng.below(5) {
                    let line = match rng.below(4) {
                        0 => format!("Error {name} {i}\n"),
                        1 => format!("ok {i}\n"),
                        2 => format!("warning: Error in {i}\n"),
                        _ => format!("error lower {i}\n"),
                    };
                    text.extend_from_slice(line.as_bytes());
                }
                if rng.chance(20) {
                    text.extend_from_slice(b"Error no newline");
                }
                std::fs::write(&p, text).unwrap();
            }
            65..=84 if depth > 0 => tree(rng, &p, depth - 1),
            85..=90 => symlink("a.log", &p).unwrap(),
            91..=94 => symlink("..", &p).unwrap(),
            95..=96 => symlink("nowhere", &p).unwrap(),
            _ => symlink("../d", &p).unwrap(),
        }
    }
}

#[test]
fn random_trees_and_file_selection_match_grep() {
    let recursion = [
        "-r",
        "-R",
        "-r",
        "--directories=recurse",
        "-d rec",
        "-r -d skip",
        "-R -d read",
        "",
    ];
    let operands = [
        "", "", ".", "d", "d/", "./d", "d//", "d/sub", "lnk", "d/a.log", "nosuch", "-", "d e",
    ];
    let outputs = [
        "-c", "-l", "-L", "-h", "-H", "-n", "-s", "-q", "-m1", "-o", "-i", "-v", "-Z", "-T", "-nb",
    ];
    let globs = [
        "--include=*.log",
        "--include=*.txt",
        "--exclude=*.log",
        "--exclude=a*",
        "--exclude-dir=sub",
        "--exclude-dir=.git",
        "--exclude-dir=d*",
        "--exclude-dir=sub/",
        "--include=[ab]*",
        "--exclude=*",
        "--exclude-dir=*",
        "--include=x",
        "--exclude=d/a.log",
        "--exclude=.*",
        "--exclude-from=excludes",
        "--include=a\\*",
    ];
    let patterns = ["Error", "rror [0-9]$", "^ok", "nomatch"];
    let (mut checked, mut fails) = (0, Vec::new());
    for seed in 1..=12u64 {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15 ^ seed.wrapping_mul(0x2545_f491_4f6c_dd1d));
        tree(&mut rng, &root.join("d"), 3);
        tree(&mut rng, &root.join("e"), 2);
        symlink("d", root.join("lnk")).unwrap();
        std::fs::write(root.join("excludes"), "*.txt  \n\nsub\n").unwrap();
        for _ in 0..50 {
            let mut args: Vec<String> = Vec::new();
            for w in recursion[rng.below(recursion.len())].split_whitespace() {
                args.push(w.into());
            }
            args.extend(rng.pick(&outputs, 2).into_iter().map(String::from));
            args.extend(rng.pick(&globs, 3).into_iter().map(String::from));
            args.push(patterns[rng.below(patterns.len())].into());
            for w in operands[rng.below(operands.len())].split_whitespace() {
                args.push(w.into());
            }
            checked += 1;
            // Under -R a link up the tree is a loop grep warns about; under
            // -r it is skipped. Both walk the same tree here.
            if let Some(f) = differs(root, &args) {
                fails.push(format!("seed {seed}: {f}"));
            }
        }
    }
    eprintln!("recursive: {checked} command lines against grep");
    report(&fails, checked);
}

#[test]
fn tail_of_a_tree_is_the_end_of_grep_r_piped_to_tail() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let mut rng = Rng(0x51f1_5eed);
    tree(&mut rng, &root.join("d"), 3);
    tree(&mut rng, &root.join("e"), 2);
    let mut fails = Vec::new();
    let mut checked = 0;
    for (opts, exclude) in [
        ("-r", None),
        ("-rn", Some("log")),
        ("-R", None),
        ("-rh", Some("2")),
        ("-r --include=*.log", None),
        ("-r --exclude-dir=sub", Some("warning")),
    ] {
        for n in [1, 3, 10, 1000] {
            for ops in ["d", "d e", ""] {
                checked += 1;
                let minus_v = exclude.map_or(String::new(), |x| format!(" | grep -v {x}"));
                let want = common::bash(
                    root,
                    &format!("grep {opts} Error {ops} 2>/dev/null{minus_v} | tail -n {n}"),
                );
                let mut args: Vec<String> = opts.split_whitespace().map(String::from).collect();
                args.extend(["-t".into(), n.to_string()]);
                if let Some(x) = exclude {
                    args.extend(["-N".into(), x.into()]);
                }
                args.push("Error".into());
                args.extend(ops.split_whitespace().map(String::from));
                let got = common::run(GRAIL, &args, root, None);
                if got.stdout != want.stdout {
                    fails.push(format!(
                        "grail {}\n  pipeline:\n{}  grail:\n{}",
                        shell_words::join(&args),
                        String::from_utf8_lossy(&want.stdout),
                        String::from_utf8_lossy(&got.stdout)
                    ));
                }
            }
        }
    }
    report(&fails, checked);
}

#[test]
fn special_files_and_a_large_directory_match_grep() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let d = root.join("d");
    std::fs::create_dir_all(d.join("big")).unwrap();
    // More than fts's 10,000 entries: grep sorts them by inode number
    // (except on tmpfs, NFS and CIFS); created in a shuffled order so that
    // neither name nor creation order gives the answer.
    let mut rng = Rng(0xb16_d1e);
    let mut names: Vec<usize> = (0..10_001).collect();
    for i in (1..names.len()).rev() {
        names.swap(i, rng.below(i + 1));
    }
    for n in &names {
        std::fs::write(
            d.join("big").join(format!("f{n:05}")),
            format!("Error {n}\n"),
        )
        .unwrap();
    }
    std::fs::write(d.join("plain"), "Error plain\n").unwrap();
    let fifo = std::ffi::CString::new(d.join("fifo").as_os_str().as_encoded_bytes()).unwrap();
    // SAFETY: mkfifo with a valid NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(fifo.as_ptr(), 0o644) }, 0);
    symlink("/dev/null", d.join("null")).unwrap();
    let mut fails = Vec::new();
    let cases: &[&[&str]] = &[
        &["-r", "-l", "Error", "d"],
        &["-r", "-c", "Error", "d/big"],
        &["-r", "Error", "d/plain", "d/null"],
        &["-r", "-D", "skip", "Error", "d"],
        &["-R", "-D", "skip", "-l", "Error", "d"],
        &["-D", "skip", "Error", "/dev/null", "d/plain"],
        &["-r", "--exclude-dir=big", "Error", "d"],
        &[
            "-R",
            "--exclude-dir=big",
            "--exclude=fifo",
            "-c",
            "Error",
            "d",
        ],
    ];
    for args in cases {
        let args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
        if let Some(f) = differs(root, &args) {
            fails.push(f);
        }
    }
    report(&fails, cases.len());
}

#[test]
fn option_errors_are_greps() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::create_dir(root.join("d")).unwrap();
    let mut fails = Vec::new();
    let cases: &[&[&str]] = &[
        &["-d", "foo", "x", "d"],
        &["-d", "re", "x", "d"],
        &["-d", "", "x", "d"],
        &["-d", "s", "x", "d"],
        &["-D", "foo", "x", "d"],
        &["-D", "sk", "x", "d"],
        &["--exclude-from=nosuch", "x", "d"],
        &["-d", "read", "x", "d"],
        &["-d", "skip", "x", "d"],
        &["--exclude-dir=d", "x", "d"],
        &["-r", "--exclude-dir=d", "x", "d"],
        &["--include=*.c", "x", "d"],
    ];
    for args in cases {
        let args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
        // grep's usage lines name grep; grail's name grail.
        let want = common::run("grep", &args, root, None);
        let got = common::run(GRAIL, &args, root, None);
        let want_err = as_grail(&want.stderr)
            .replace("grep --help", "grail --help")
            .replace("Usage: grep", "Usage: grail");
        if want.stdout != got.stdout
            || want.status.code() != got.status.code()
            || want_err != String::from_utf8_lossy(&got.stderr)
        {
            fails.push(format!(
                "grail {}: grep {:?} {want_err:?}, grail {:?} {:?}",
                shell_words::join(&args),
                want.status.code(),
                got.status.code(),
                String::from_utf8_lossy(&got.stderr)
            ));
        }
    }
    report(&fails, cases.len());
}
