//! `grail --sh 'PIPELINE'` against `bash -c 'PIPELINE'`: same stdout bytes,
//! same exit status (LC_ALL=C), on the shared vLLM and loghub logs and on
//! edge-case files; and every refused construct exits 2 naming the part.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn shared() -> PathBuf {
    common::shared("testdata")
}

fn bash(dir: &Path, line: &str) -> Output {
    Command::new("bash")
        .arg("-c")
        .arg(line)
        .current_dir(dir)
        .env("LC_ALL", "C")
        .output()
        .unwrap()
}

fn grail_sh(dir: &Path, extra: &[&str], line: &str) -> Output {
    Command::new(env!("CARGO_BIN_EXE_grail"))
        .args(extra)
        .arg("--sh")
        .arg(line)
        .current_dir(dir)
        .env("LC_ALL", "C")
        .output()
        .unwrap()
}

fn same(dir: &Path, line: &str) {
    same_as(dir, line, line)
}

/// `line` under `--sh` prints what bash prints for `oracle`.
fn same_as(dir: &Path, line: &str, oracle: &str) {
    let want = bash(dir, oracle);
    for extra in [&[][..], &["--threads", "1"][..], &["--chunk-size", "7"][..]] {
        let got = grail_sh(dir, extra, line);
        assert_eq!(
            (String::from_utf8_lossy(&got.stdout), got.status.code()),
            (String::from_utf8_lossy(&want.stdout), want.status.code()),
            "pipeline: {line}\nextra args: {extra:?}\ngrail stderr: {}",
            String::from_utf8_lossy(&got.stderr)
        );
    }
}

const V1: &str = "001-vllm-v1-oom-profile-run-after-load.log";
const V2: &str = "002-vllm-v0-tp2-nccl-unhandled-system-error.log";
const V3: &str = "003-vllm-v0-kv-cache-too-small-valueerror.log";
const V4: &str = "004-vllm-v1-tp4-illegal-memory-access-cudagraph.log";
const V5: &str = "005-vllm-ray-pp2-oom-kubectl-timestamps.log";
const V8: &str = "008-vllm-v1-download-killed-no-trailing-newline.log";

fn vllm_pipelines() -> Vec<String> {
    let seed_inc = "'RuntimeError|ValueError|Error|not supported|incompatible'";
    let seed_exc = r"'repo_utils\|gpt_oss_triton\|FutureWarning'";
    let mut v: Vec<String> = vec![
        // The seed pipeline on every vLLM log, with several tails.
        format!("grep -E {seed_inc} {V1} | grep -v {seed_exc} | tail -10"),
        format!("grep -E {seed_inc} {V2} | grep -v {seed_exc} | tail -n 10"),
        format!("grep -E {seed_inc} {V3} | grep -v {seed_exc} | tail -n1"),
        format!("grep -E {seed_inc} {V4} | grep -v {seed_exc} | tail --lines=0"),
        format!("grep -E {seed_inc} {V5} | grep -v {seed_exc} | tail -n 1000"),
        format!("grep -E {seed_inc} {V8} | grep -v {seed_exc} | tail -3"),
        // Quoting styles.
        format!("grep -E \"RuntimeError|ValueError\" {V1} | grep -v \"repo_utils\\|FutureWarning\" | tail -5"),
        format!("grep -E RuntimeError\\|ValueError {V1} | tail -2"),
        format!("grep 'Error'\"s\"\\  {V1} | head -3"),
        format!("grep -e 'CUDA out' -e \"NCCL\" {V1} {V2} | tail -n 4"),
        format!("grep -e 'a\\|b' {V3} | wc -l"),
        format!("grep -F 'torch.OutOfMemoryError' {V1} | tail -1"),
        format!("fgrep -i 'error' {V2} | grep -v -F 'nccl' | tail -n 6"),
        format!("egrep '(Value|Runtime)Error' {V3} | tail -1"),
        // Context: group separators and context lines flow into the later
        // stages and the tail, as in the shell.
        format!("grep -C 2 -E {seed_inc} {V1} | grep -v {seed_exc} | tail -12"),
        format!("grep -n -A1 Error {V3} | grep -v -- -- | head -n 7"),
        format!("grep -B 3 -e Traceback {V4} {V2} | tail -n 9"),
        format!("grep -2 -v INFO {V5} | grep -c ''"),
        format!("grep --color=always -n Error {V1} | tail -3"),
        // Flags of the first stage.
        format!("grep -i 'error' {V4} | tail -n 3"),
        format!("grep -w 'Error' {V4} | tail -n 3"),
        format!("grep -x '' {V4} | wc -l"),
        format!("grep -v 'INFO' {V5} | tail -n 5"),
        format!("grep -n 'Error' {V1} | tail -n 2"),
        format!("grep -b 'Error' {V1} | head -n 2"),
        format!("grep -H 'Error' {V1} | tail -1"),
        format!("grep -h 'Error' {V1} {V2} | tail -n 4"),
        format!("grep -c 'Error' {V1}"),
        format!("grep -c 'Error' {V1} {V2} {V3}"),
        format!("grep -m 3 'Error' {V1}"),
        format!("grep -m 3 'Error' {V1} | grep -v Traceback | tail -1"),
        format!("grep -o 'Error[A-Za-z]*' {V4} | tail -n 4"),
        format!("grep -o -n 'CUDA [a-z]*' {V4} | head -n 3"),
        format!("grep -a 'Error' {V8} | tail -2"),
        format!("grep -ic 'cuda' {V4}"),
        format!("grep -l 'Error' {V1} {V2} {V3}"),
        format!("grep -L 'NCCL' {V1} {V2} {V3}"),
        // Later stages see the prefixes the first one printed.
        format!("grep -n 'Error' {V1} | grep -v '^1[0-9]:' | tail -n 3"),
        format!("grep -n 'Error' {V1} | grep ':[0-9]*:' | head -2"),
        format!("grep -c 'Error' {V1} {V2} {V3} | grep -v ':0$'"),
        format!("grep -H 'Error' {V1} {V2} | grep -v '^{V1}' | tail -n 2"),
        format!("grep -b Error {V1} | grep -v '^[0-9]*:INFO' | head -n 2"),
        // Several include stages AND, several -v stages AND NOT.
        format!("grep Error {V1} | grep CUDA | tail -2"),
        format!("grep Error {V1} | grep -i cuda | grep -v Traceback | tail -n 3"),
        format!("grep -E 'Error|error' {V2} | grep -v NCCL | grep -v -i warn | grep -vw ray"),
        format!("grep -E 'Error|error' {V2} | grep -iv 'nccl' | grep -Fv '[' | tail -n 2"),
        format!("grep -E 'Error|error' {V2} | grep -xv 'x' | tail -n 2"),
        format!("grep -E 'Error|error' {V2} | grep -c -v NCCL"),
        format!("grep -E 'Error|error' {V2} | grep -n NCCL | tail -n 2"),
        // Windows.
        format!("grep INFO {V5} | tail -n +5 | head -3"),
        format!("grep INFO {V5} | tail -n +1 | head -n 1"),
        format!("grep INFO {V5} | head -n -3 | tail -n 2"),
        format!("grep INFO {V5} | head -20 | tail -n 5"),
        format!("grep INFO {V5} | tail -20 | head -n 5"),
        format!("grep INFO {V5} | head -n 0"),
        format!("grep INFO {V5} | tail -n +100000"),
        format!("grep INFO {V5} | head -5 | wc -l"),
        format!("grep INFO {V5} | grep -v ray | wc -l"),
        format!("grep INFO {V5} | wc --lines"),
        // cat at the front.
        format!("cat {V2} | grep -i nccl | tail -n +5 | head -3"),
        format!("cat {V1} {V2} | grep -n Error | tail -n 2"),
        format!("cat {V1} | grep -c Error"),
        format!("cat {V3} | grep -H Error | head -1"),
        // No matches, missing files.
        format!("grep zzzz {V4}"),
        format!("grep zzzz {V4} | grep -v x"),
        format!("grep zzzz {V4} | tail -1"),
        format!("grep Error nosuch.log | tail -1"),
        format!("grep Error nosuch.log {V3}"),
        format!("grep Error nosuch.log {V3} | grep -v Traceback"),
        "grep Error nosuch.log".to_string(),
        format!("cat nosuch.log {V3} | grep Error | tail -n 2"),
        format!("grep -s Error nosuch.log {V3}"),
        format!("grep -q Error {V3}"),
        format!("grep -q zzzz {V3}"),
    ];
    v.dedup();
    v
}

#[test]
fn vllm_pipelines_match_bash() {
    let dir = shared().join("vllm");
    let ps = vllm_pipelines();
    assert!(ps.len() >= 60, "only {} pipelines", ps.len());
    for p in &ps {
        same(&dir, p);
    }
}

#[test]
fn loghub_pipelines_match_bash() {
    let dir = shared().join("loghub");
    for f in [
        "Linux_2k.log",
        "OpenSSH_2k.log",
        "HDFS_2k.log",
        "Apache_2k.log",
    ] {
        for p in [
            format!("grep -i 'fail' {f} | grep -v -i 'password' | tail -n 5"),
            format!("grep -E '(error|warn)' {f} | grep -vE 'session (opened|closed)' | head -n 4"),
            format!("grep -n -i error {f} | grep -v ':.*INFO' | tail -3"),
            format!("grep -c -w 'root' {f}"),
            format!("grep -v -e INFO -e info {f} | tail -n 2"),
        ] {
            same(&dir, &p);
        }
    }
    // The whole directory, in grep's order.
    for p in [
        "grep -r -c -i error .",
        "grep -rn fail . | grep -v -i password | tail -n 4",
        "grep -r --include='*SSH*' -h -i 'invalid user' | tail -n 3",
    ] {
        same(&dir, p);
    }
}

#[test]
fn edge_files_match_bash() {
    let t = tempfile::tempdir().unwrap();
    let d = t.path();
    std::fs::write(d.join("nonl.log"), b"a Error\nb\nc Error").unwrap();
    std::fs::write(d.join("crlf.log"), b"x Error\r\ny\r\nz Error\r\n").unwrap();
    std::fs::write(d.join("empty.log"), b"").unwrap();
    std::fs::write(d.join("blank.log"), b"\n\n\n").unwrap();
    let mut big = Vec::new();
    for i in 0..30000 {
        big.extend_from_slice(
            format!("line {i} {}\n", if i % 7 == 0 { "Error" } else { "ok" }).as_bytes(),
        );
    }
    std::fs::write(d.join("big.log"), &big).unwrap();
    let mut nul = big.clone();
    nul.extend_from_slice(b"bad\0Error\n");
    std::fs::write(d.join("nul.log"), &nul).unwrap();
    for p in [
        "grep Error nonl.log | tail -1",
        "grep -v Error nonl.log | tail -n 5",
        "grep Error crlf.log | grep -v 'z' | tail -n 1",
        "grep -x 'y' crlf.log | wc -l",
        "grep 'Error$' crlf.log",
        "grep Error empty.log | tail -1",
        "grep -c '' blank.log",
        "grep -n '^$' blank.log | tail -n 2",
        "grep Error big.log | grep -v 'line 1' | tail -n 7",
        "grep -n Error big.log | tail -n 3",
        "grep Error big.log | tail -n +4280 | head -n 3",
        "grep -a Error nul.log | tail -n 2",
        // grep's exact rule, on request.
        "grep --binary-files=binary Error nul.log | tail -n 2",
        "grep --binary-files=binary -c Error nul.log",
    ] {
        same(d, p);
    }
    // Logs are text: a NUL after grep's first read hides nothing, in every
    // stage, as if each grep had -a.
    for p in [
        "grep Error nul.log | tail -n 2",
        "grep -c Error nul.log",
        "grep Error nul.log | grep -v 'line 2' | tail -n 3",
        "cat nul.log | grep Error | grep -v ok | tail -2",
    ] {
        same_as(d, p, &p.replace("grep ", "grep -a "));
    }
}

/// Unquoted globs are expanded as bash expands them: sorted bytewise,
/// dotfiles only for a leading literal `.`, `.`/`..` never, brackets with
/// ranges, negation and classes, no match left as written, quoted and
/// escaped characters literal.
#[test]
fn globs_expand_as_bash_does() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::create_dir_all(d.join("sub")).unwrap();
    std::fs::create_dir_all(d.join("sub2")).unwrap();
    for f in [
        "a.log",
        "b.log",
        ".hidden.log",
        "c.txt",
        "x[1].log",
        "sp ace.log",
        "B.log",
        "Z.log",
        "_u.log",
        "sub/d.log",
        "sub/.e.log",
        "sub2/f.log",
    ] {
        std::fs::write(d.join(f), format!("Error in {f}\nok\n")).unwrap();
    }
    for p in [
        "grep Error *.log | tail -3",
        "grep -h Error *.log",
        "grep Error ?.log",
        "grep -h Error [ab].log",
        "grep Error [!a].log",
        "grep Error [^a-b].log",
        "grep Error sub/*.log",
        "grep Error */*.log",
        "grep Error */.*",
        "grep Error .*.log",
        "grep Error nomatch*.log",
        "grep Error *.LOG",
        "grep Error [[:upper:]].log",
        "grep -c Error *",
        "grep E\\* a.log",
        "grep 'Error' x[1].log",
        "grep Error x\\[1].log",
        "grep Error \"*\".log",
        "grep Error */",
        "grep -l Error s*/*",
        "cat *.txt | grep Error",
        "grep Err[o]r a.log",
        "grep -h Error [a-b].log | wc -l",
        "grep Error [",
        "grep Error a.log]",
        "grep Error []a].log",
        "grep -e E*r -h *.log | tail -n 2",
    ] {
        same(d, p);
    }
}

#[test]
fn refused_constructs_exit_2_and_name_the_part() {
    let dir = shared().join("vllm");
    for (line, names) in [
        ("grep Error $HOME/x.log", "'$'"),
        ("grep Error \"$F\"", "'$'"),
        ("grep Error f.log > out.txt", "'>'"),
        ("grep Error < f.log", "'<'"),
        ("grep Error f.log; ls", "';'"),
        ("grep Error f.log && ls", "'&'"),
        ("grep Error f.log || true", "'||'"),
        ("grep Error `ls`", "'`'"),
        ("grep Error $(ls)", "'$'"),
        ("(grep Error f.log)", "'('"),
        ("grep Error ~/f.log", "'~'"),
        ("grep Error f{1,2}.log", "brace"),
        ("sort f.log | grep x", "cat, grep"),
        ("grep x f.log | sort", "'sort'"),
        ("grep x f.log | tail -f", "tail -f"),
        ("grep x f.log | tail -c 10", "tail -c"),
        ("grep x f.log | wc -c", "wc -c"),
        ("grep x f.log | tail -n 3 | grep y", "after tail/head"),
        ("grep x f.log | grep -r -v y", "grep -r reading a pipe"),
        ("cat f.log | grep -r y", "grep -r reading a pipe"),
        ("grep -N x f.log", "grep does not have"),
        ("grep 'unterminated f.log", "quote"),
        ("grep x f.log |& tail", "'|&'"),
    ] {
        let got = grail_sh(&dir, &[], line);
        let err = String::from_utf8_lossy(&got.stderr);
        assert_eq!(got.status.code(), Some(2), "{line}: {err}");
        assert!(got.stdout.is_empty(), "{line}");
        assert!(
            err.contains(names),
            "{line}: message {err:?} should name {names}"
        );
    }
}

#[test]
fn explain_shows_the_plan_without_searching() {
    let dir = shared().join("vllm");
    let got = grail_sh(
        &dir,
        &["--explain"],
        "grep -E 'RuntimeError|ValueError' nosuch.log | grep -v 'repo_utils\\|FutureWarning' | tail -10",
    );
    let s = String::from_utf8_lossy(&got.stdout);
    assert_eq!(got.status.code(), Some(0));
    assert!(s.contains("include ERE"), "{s}");
    assert!(s.contains("exclude BRE"), "{s}");
    assert!(s.contains("scanning backwards"), "{s}");
}

/// Random pipelines assembled from first stages, middle greps and windows:
/// `grail --sh` must equal `bash -c` (or refuse explicitly).
#[test]
fn random_pipelines_match_bash() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    common::write_small_logs(d);
    let first = [
        "grep Error v1",
        "grep -n Error v1 v2",
        "grep -c Error v1 t1",
        "grep -h -i error v1 t1 v2",
        "grep -v x v1",
        "egrep 'Value|Runtime' v2",
        "fgrep -x '' v1",
        "grep -o 'E[a-z]*' v1",
        "grep -b r v2",
        "cat v1 | grep -n o",
        "cat v2 v1 | grep -i e",
        "grep -H Error v1",
        "grep -w Error v1 t1",
        "grep Error nosuch v1",
        "grep zzz v1",
        "grep -m 2 Error v1 v2",
        "grep -l Error v1 v2 t1",
        "grep -L Error v1 v2 empty",
    ];
    let mid = [
        "grep -v Future",
        "grep -vi warn",
        "grep -v '^1:'",
        "grep -n e",
        "grep -c o",
        "grep -vx ''",
        "grep -E 'one|two'",
        "grep -v -e x -e y",
        "grep -Fv '['",
        "grep -v ':0$'",
        "grep r",
    ];
    let post = [
        "tail -1",
        "tail -n 2",
        "tail -n +2",
        "head -1",
        "head -n 3",
        "head -n -1",
        "tail -3",
        "tail -n 0",
    ];
    let mut x: u64 = 0x853c_49e6_748f_ea9b;
    let mut below = |n: usize| {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        (x % n as u64) as usize
    };
    let mut fails = Vec::new();
    for _ in 0..400 {
        let mut stages = vec![first[below(first.len())]];
        for _ in 0..below(3) {
            stages.push(mid[below(mid.len())]);
        }
        for _ in 0..below(3) {
            stages.push(post[below(post.len())]);
        }
        if below(4) == 0 {
            stages.push("wc -l");
        }
        let line = stages.join(" | ");
        let want = bash(d, &line);
        let got = grail_sh(d, &[], &line);
        if (&want.stdout, want.status.code()) != (&got.stdout, got.status.code()) {
            fails.push(format!(
                "{line}\n  bash:  {:?} {:?}\n  grail: {:?} {:?} {}",
                String::from_utf8_lossy(&want.stdout),
                want.status.code(),
                String::from_utf8_lossy(&got.stdout),
                got.status.code(),
                String::from_utf8_lossy(&got.stderr)
            ));
        }
    }
    assert!(
        fails.is_empty(),
        "{} of 400 differ:\n{}",
        fails.len(),
        fails[..fails.len().min(8)].join("\n")
    );
}
