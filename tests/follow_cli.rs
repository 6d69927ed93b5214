//! `grail --follow` end to end, with real writer processes: a shell script
//! appends lines, writes a line in two pieces, rotates the log by rename,
//! truncates it and recreates it while grail follows; `--until`, `--pid`
//! and `--timeout` end the follow with their exit statuses.

use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

fn grail(dir: &std::path::Path, args: &[&str]) -> std::process::Child {
    Command::new(env!("CARGO_BIN_EXE_grail"))
        .args(args)
        .current_dir(dir)
        .env("LC_ALL", "C")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

/// Wait for `child`, killing it after `limit` (a hung follow fails the test
/// instead of hanging it).
fn finish(mut child: std::process::Child, limit: Duration) -> Output {
    let start = Instant::now();
    loop {
        if child.try_wait().unwrap().is_some() {
            return child.wait_with_output().unwrap();
        }
        if start.elapsed() > limit {
            let _ = child.kill();
            let out = child.wait_with_output().unwrap();
            panic!(
                "grail --follow did not finish within {limit:?}; stdout so far: {:?} stderr: {:?}",
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            );
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn writer(dir: &std::path::Path, script: &str) -> std::process::Child {
    Command::new("sh")
        .arg("-c")
        .arg(script)
        .current_dir(dir)
        .spawn()
        .unwrap()
}

#[test]
fn follow_survives_partial_writes_rotation_and_truncation_until_ready() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(
        d.join("app.log"),
        "boot ok\nERROR old 1\nmid ok\nERROR old 2\n",
    )
    .unwrap();
    let g = grail(
        d,
        &[
            "--follow",
            "-t",
            "1",
            "-n",
            "--until",
            "startup complete",
            "-e",
            "ERROR",
            "-e",
            "startup",
            "app.log",
        ],
    );
    // The writer waits for grail to start, then does everything a log
    // rotation can do, pausing so that each step is seen on its own.
    let mut w = writer(
        d,
        "sleep 0.5; \
         echo 'ERROR new 1' >> app.log; echo 'fine' >> app.log; \
         printf 'ERROR half' >> app.log; sleep 0.3; printf ' and half\\n' >> app.log; sleep 0.3; \
         mv app.log app.log.1; echo 'ERROR in new file' > app.log; sleep 0.5; \
         : > app.log; sleep 0.5; echo 'ERROR after truncate' >> app.log; sleep 0.3; \
         rm app.log; sleep 0.3; echo 'ERROR recreated' > app.log; sleep 0.3; \
         echo 'Application startup complete' >> app.log; echo 'ERROR too late' >> app.log",
    );
    let out = finish(g, Duration::from_secs(30));
    let _ = w.wait();
    let stdout = String::from_utf8_lossy(&out.stdout);
    // -n counts the followed lines as one stream across rotations.
    assert_eq!(
        stdout,
        "4:ERROR old 2\n5:ERROR new 1\n7:ERROR half and half\n8:ERROR in new file\n\
         9:ERROR after truncate\n10:ERROR recreated\n11:Application startup complete\n",
        "stderr: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(out.status.code(), Some(0), "--until matched: exit 0");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("file replaced"), "{err}");
    assert!(err.contains("file truncated"), "{err}");
}

#[test]
fn timeout_exits_124_after_printing_new_lines() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("a.log"), "ERROR before\n").unwrap();
    let g = grail(
        d,
        &[
            "--follow",
            "-t",
            "0",
            "--timeout",
            "1.5s",
            "--until",
            "never",
            "ERROR",
            "a.log",
        ],
    );
    let mut w = writer(
        d,
        "sleep 0.4; echo 'ERROR during' >> a.log; echo 'ok' >> a.log",
    );
    let start = Instant::now();
    let out = finish(g, Duration::from_secs(20));
    let _ = w.wait();
    assert_eq!(String::from_utf8_lossy(&out.stdout), "ERROR during\n");
    assert_eq!(out.status.code(), Some(124));
    assert!(start.elapsed() >= Duration::from_millis(1400));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--timeout"));
}

#[test]
fn pid_exit_ends_the_follow_with_a_summary() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("w.log"), "INFO start\nERROR one\n").unwrap();
    // The writer is the watched process; it dies mid-line.
    let mut w = writer(
        d,
        "sleep 0.4; echo 'ERROR two' >> w.log; printf 'ERROR cut off' >> w.log; sleep 0.2",
    );
    let pid = w.id().to_string();
    let g = grail(d, &["--follow", "--pid", &pid, "-t", "2", "ERROR", "w.log"]);
    let _ = w.wait();
    let out = finish(g, Duration::from_secs(20));
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "ERROR one\nERROR two\nERROR cut off\n"
    );
    assert_eq!(out.status.code(), Some(0));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains(&format!("process {pid} exited")), "{err}");
    assert!(err.contains("cut off mid-write"), "{err}");
    assert!(
        err.contains("the last 2 selected lines:\nERROR two\nERROR cut off\n"),
        "{err}"
    );
}

#[test]
fn pid_exit_with_nothing_selected_exits_1() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("q.log"), "INFO quiet\n").unwrap();
    let mut w = writer(d, "sleep 0.3; echo 'INFO still quiet' >> q.log");
    let pid = w.id().to_string();
    let g = grail(d, &["--follow", "--pid", &pid, "ERROR", "q.log"]);
    let _ = w.wait();
    let out = finish(g, Duration::from_secs(20));
    assert_eq!(out.stdout, b"");
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("log ends with a complete line"));
}

#[test]
fn follow_refuses_what_it_cannot_follow() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("a"), "x\n").unwrap();
    std::fs::write(d.join("b"), "x\n").unwrap();
    for args in [
        vec!["--follow", "x"],
        vec!["--follow", "-c", "x", "a"],
        vec!["--follow", "-r", "x", "a"],
        vec!["--follow", "-z", "x", "a"],
        vec!["--until", "y", "x", "-"],
        vec!["--timeout", "1s", "x", "a"],
    ] {
        let out = finish(grail(d, &args), Duration::from_secs(10));
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(!out.stderr.is_empty(), "{args:?} says why");
    }
}

#[test]
fn follow_several_files_with_prefixes_and_one_until() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("api.log"), "ERROR api old\nok\n").unwrap();
    std::fs::write(d.join("worker.log"), "ok\nERROR worker old\n").unwrap();
    let g = grail(
        d,
        &[
            "--follow",
            "-t",
            "2",
            "--until",
            "ready",
            "-e",
            "ERROR",
            "-e",
            "ready",
            "api.log",
            "worker.log",
        ],
    );
    let mut w = writer(
        d,
        "sleep 0.5; echo 'ERROR api new' >> api.log; sleep 0.3; \
         echo 'ERROR worker new' >> worker.log; sleep 0.3; \
         echo 'worker ready' >> worker.log; sleep 0.3; echo 'ERROR api late' >> api.log",
    );
    let out = finish(g, Duration::from_secs(20));
    let _ = w.wait();
    // The initial part is the last 2 selected lines of both files in file
    // order; then lines as they come, each with its file's prefix.
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "api.log:ERROR api old\nworker.log:ERROR worker old\napi.log:ERROR api new\n\
         worker.log:ERROR worker new\nworker.log:worker ready\n",
        "stderr: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(out.status.code(), Some(0), "--until on one file stops all");
}

#[test]
fn json_follow_ends_with_one_summary_of_both_parts() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("j.log"), "ERROR before\n").unwrap();
    let g = grail(
        d,
        &[
            "--json", "--follow", "--until", "done", "-e", "ERROR", "-e", "done", "j.log",
        ],
    );
    let mut w = writer(
        d,
        "sleep 0.4; echo 'ERROR after' >> j.log; echo 'done' >> j.log",
    );
    let out = finish(g, Duration::from_secs(20));
    let _ = w.wait();
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let objs: Vec<serde_json::Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let kinds: Vec<&str> = objs.iter().map(|o| o["type"].as_str().unwrap()).collect();
    assert_eq!(kinds, ["match", "match", "match", "summary"], "{text}");
    let s = objs.last().unwrap();
    assert_eq!(s["selected"], 3);
    assert_eq!(s["files"][0]["selected"], 1);
    assert_eq!(s["followed"][0]["stream"], true);
    assert_eq!(s["followed"][0]["selected"], 2);
    assert!(text
        .lines()
        .last()
        .unwrap()
        .starts_with("{\"type\":\"summary\""));
}

#[test]
fn follow_waits_for_a_file_that_is_not_there_yet() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let g = grail(
        d,
        &[
            "--follow",
            "--until",
            "ready",
            "ERROR|ready",
            "-E",
            "later.log",
        ],
    );
    std::thread::sleep(Duration::from_millis(300));
    let mut w = writer(
        d,
        "printf 'boot\\nERROR first\\n' > later.log; sleep 0.3; printf 'ERROR second\\nready\\n' >> later.log",
    );
    let out = finish(g, Duration::from_secs(20));
    w.wait().unwrap();
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "ERROR first\nERROR second\nready\n"
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        err.matches("waiting for it to appear").count(),
        1,
        "said once: {err}"
    );
    // --timeout ends the wait.
    let g = grail(d, &["--follow", "--timeout", "200ms", "x", "never.log"]);
    let out = finish(g, Duration::from_secs(20));
    assert_eq!(out.status.code(), Some(124), "{out:?}");
}
