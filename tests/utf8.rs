//! UTF-8 locales as GNU grep reads them (`LC_ALL=C.UTF-8`): `.` and
//! bracket expressions match characters, classes and `-i` follow the C
//! library, `-o` and colour never split a character. Random queries against
//! `grep -a` (grail prints lines that are not valid UTF-8 as `-a` does, and
//! says so on stderr where grep says "binary file matches").

mod common;

use common::{Rng, GRAIL};
use std::path::Path;
use std::process::Output;

fn utf8_run(program: &str, args: &[String], dir: &Path) -> Output {
    common::run_env(program, args, dir, None, &[("LC_ALL", "C.UTF-8")])
}

/// Lines with accents, `ß`/`ẞ`, the Kelvin sign, long s and dotless i,
/// box drawing and block characters from progress bars, CJK, combining
/// marks, emoji, and bytes that are not UTF-8 (a stray `\xff`, a cut
/// sequence, an overlong form, a surrogate), some past 96 KiB.
fn write_data(d: &Path) {
    let words: &[&[u8]] = &[
        "échec".as_bytes(),
        "ÉCHEC".as_bytes(),
        "Straße".as_bytes(),
        "STRASSE".as_bytes(),
        "ẞ".as_bytes(),
        "\u{212A}elvin".as_bytes(),
        "kelvin".as_bytes(),
        "ſ".as_bytes(),
        "ı".as_bytes(),
        "İ".as_bytes(),
        "|▏▎▍▌█| 45%".as_bytes(),
        "错误".as_bytes(),
        "e\u{301}".as_bytes(),
        "🚀".as_bytes(),
        b"Error",
        b"a",
        b" ",
        b"x1",
        b"\xff",
        b"\xe2\x96",
        b"\xc0\xaf",
        b"\xed\xa0\x80",
    ];
    let mut rng = Rng(0x07f8_0001);
    let mut text = Vec::new();
    let mut n = 0;
    while text.len() < 140 << 10 {
        let k = 1 + rng.below(4);
        for _ in 0..k {
            let w = words[rng.below(words.len())];
            // Invalid bytes are rarer, so most lines stay valid.
            if std::str::from_utf8(w).is_err() && !rng.chance(15) {
                continue;
            }
            text.extend_from_slice(w);
            if rng.chance(50) {
                text.push(b' ');
            }
        }
        text.push(b'\n');
        n += 1;
    }
    assert!(n > 1000);
    std::fs::write(d.join("u1"), &text).unwrap();
    std::fs::write(d.join("u2"), &text[..4096]).unwrap();
    // Only the valid lines: where -o and colour are compared (on a line that
    // is not UTF-8, which grep without -a never prints, grep -a's match
    // bounds come from glibc's regex and its own reading of the bad bytes).
    let valid: Vec<&[u8]> = text
        .split_inclusive(|&b| b == b'\n')
        .filter(|l| std::str::from_utf8(l).is_ok())
        .collect();
    std::fs::write(d.join("u3"), valid.concat()).unwrap();
}

#[test]
fn random_queries_match_grep_in_a_utf8_locale() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write_data(d);
    let tokens = [
        "é",
        "É",
        ".",
        "[[:alpha:]]",
        "[[:upper:]]",
        "[[:punct:]]",
        "[^a]",
        "\\w",
        "\\W",
        "\\s",
        "a",
        "e",
        "ß",
        "▏",
        "*",
        "[éa]",
        "[a-z]",
        "k",
        "s",
        "i",
        "x",
        "错",
        "E",
        "r",
        "[^[:space:]]",
        "[▏█]",
        "%",
        "\\<",
        "\\>",
        "\\b",
    ];
    let flags = [
        "-i",
        "-v",
        "-o",
        "-c",
        "-n",
        "-E",
        "-x",
        "--color=always",
        "-b",
        "-w",
        "-P",
    ];
    let mut rng = Rng(0x07f8_0002);
    let (mut checked, mut refused, mut fails) = (0, 0, Vec::new());
    for _ in 0..600 {
        let mut args: Vec<String> = rng.pick(&flags, 3).into_iter().map(String::from).collect();
        let pat: String = (0..1 + rng.below(3))
            .map(|_| tokens[rng.below(tokens.len())])
            .collect();
        args.push("-e".into());
        args.push(pat);
        let bounds = args.iter().any(|a| a == "-o" || a.starts_with("--color"));
        args.push(
            match (bounds, rng.chance(50)) {
                (true, _) => "u3",
                (false, true) => "u1",
                (false, false) => "u2",
            }
            .into(),
        );
        checked += 1;
        let mut as_text = vec!["-a".to_string()];
        as_text.extend(args.iter().cloned());
        let want = utf8_run("grep", &as_text, d);
        let got = utf8_run(GRAIL, &args, d);
        let err = String::from_utf8_lossy(&got.stderr);
        if got.status.code() == Some(2)
            && want.status.code() != Some(2)
            && got.stdout.is_empty()
            && err.contains("not supported")
        {
            refused += 1;
            continue;
        }
        if want.stdout != got.stdout || want.status.code() != got.status.code() {
            fails.push(format!(
                "LC_ALL=C.UTF-8 grail {}: grep -a {:?} {} bytes, grail {:?} {} bytes {err}",
                shell_words::join(&args),
                want.status.code(),
                want.stdout.len(),
                got.status.code(),
                got.stdout.len()
            ));
            continue;
        }
        // Where grep (without -a) says "binary file matches" for a line
        // that is not UTF-8, grail says where it printed one.
        let plain = utf8_run("grep", &args, d);
        let grep_hid = String::from_utf8_lossy(&plain.stderr).contains("binary file matches");
        let noted = err.contains("is not valid UTF-8");
        if grep_hid != noted && !args.iter().any(|a| a == "-c") {
            fails.push(format!(
                "LC_ALL=C.UTF-8 grail {}: grep said binary: {grep_hid}, grail noted: {noted}",
                shell_words::join(&args)
            ));
        }
    }
    eprintln!(
        "utf8: {checked} queries, {refused} refused explicitly, {} differ",
        fails.len()
    );
    assert!(
        refused * 10 < checked,
        "too many refusals: {refused} of {checked}"
    );
    assert!(
        fails.is_empty(),
        "{} of {checked} differ from grep:\n{}",
        fails.len(),
        fails
            .iter()
            .take(10)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n")
    );
}

#[test]
fn word_rules_follow_the_locale() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(
        d.join("w"),
        b"\xc3\xa9abc\nabc \xc3\xa9\nabc\nxabc\n_abc\nabc\xff\n\xe2\x96\x8fabc\xe2\x96\x8f\n\xc3\x89CHEC \xc3\xa9chec\n",
    )
    .unwrap();
    let cases: &[&[&str]] = &[
        &["-w", "abc"],
        &["-wi", "ABC"],
        &["-w", "-E", "abc|é"],
        &["\\babc"],
        &["abc\\>"],
        &["\\<abc\\>"],
        &["-c", "\\Babc"],
        &["-wi", "échec"],
        &["-w", "\\(a\\)bc"],
    ];
    for case in cases {
        let mut args: Vec<String> = case.iter().map(|s| s.to_string()).collect();
        args.push("w".into());
        let mut as_text = vec!["-a".to_string()];
        as_text.extend(args.iter().cloned());
        let want = utf8_run("grep", &as_text, d);
        let got = utf8_run(GRAIL, &args, d);
        assert_eq!(
            (String::from_utf8_lossy(&want.stdout), want.status.code()),
            (String::from_utf8_lossy(&got.stdout), got.status.code()),
            "LC_ALL=C.UTF-8 grail {args:?}: {}",
            String::from_utf8_lossy(&got.stderr)
        );
    }
    // -o with them is refused, never approximated.
    let got = utf8_run(
        GRAIL,
        &["-o".into(), "-w".into(), "abc".into(), "w".into()],
        d,
    );
    assert_eq!(got.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&got.stderr).contains("not supported"));
}
