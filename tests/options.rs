//! Random combinations of grep's own options (and several files, stdin,
//! a missing file, a binary file) against GNU grep: same stdout, same status.
//! Pins option precedence (-q over -l/-L over -c, the later of -l/-L),
//! grep's early exits (-m 0, `-v ''`, `-f /dev/null`) and conflicting matchers.

use std::io::Write;
use std::process::{Command, Output, Stdio};

fn run(program: &str, args: &[String], dir: &std::path::Path, input: &[u8]) -> Output {
    let mut child = Command::new(program)
        .args(args)
        .current_dir(dir)
        .env("LC_ALL", "C")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // The command may exit before reading its input (-q, -m 0).
    let _ = child.stdin.take().unwrap().write_all(input);
    child.wait_with_output().unwrap()
}

struct Rng(u64);

impl Rng {
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % n as u64) as usize
    }

    fn pick<'a>(&mut self, from: &[&'a str], max: usize) -> Vec<&'a str> {
        let mut v: Vec<&str> = from.to_vec();
        let k = self.below(max + 1).min(v.len());
        let mut out = Vec::new();
        for _ in 0..k {
            out.push(v.remove(self.below(v.len())));
        }
        out
    }
}

#[test]
fn random_option_combinations_match_grep() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("bin1"), b"a Error\nb\nError c\0d\n").unwrap();
    std::fs::write(d.join("t1"), b"x Error\r\ny error\nz\n").unwrap();
    std::fs::write(d.join("t2"), b"Error only\n").unwrap();
    std::fs::write(d.join("empty"), b"").unwrap();
    std::fs::write(d.join("nopats"), b"").unwrap();
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
