//! `--follow` machinery against real writers: other processes and threads
//! appending, rotating, truncating and deleting the followed file.

mod common;

use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use grail::follow::{Event, FollowOptions, Follower};

/// How long "eventually" may take on a loaded machine.
const PATIENCE: Duration = Duration::from_secs(20);

fn polling() -> FollowOptions {
    FollowOptions {
        inotify: false,
        min_interval: Duration::from_millis(5),
        max_interval: Duration::from_millis(100),
        ..FollowOptions::default()
    }
}

/// Creates `dir/log` with `content` and follows it from its end.
fn start(dir: &Path, content: &[u8], opts: FollowOptions) -> (PathBuf, Follower) {
    let p = dir.join("log");
    std::fs::write(&p, content).unwrap();
    let f = File::open(&p).unwrap();
    let fol = Follower::new(&p, f, content.len() as u64, opts).unwrap();
    (p, fol)
}

fn sh(script: &str, dir: &Path) -> std::process::Child {
    Command::new("sh")
        .arg("-c")
        .arg(script)
        .current_dir(dir)
        .spawn()
        .unwrap()
}

/// What a follower reported: every event but `TimedOut`, and the bytes of
/// all `Lines` and `Partial` events.
#[derive(Default)]
struct Got {
    events: Vec<Event>,
    data: Vec<u8>,
}

impl Got {
    fn count(&self, e: &Event) -> usize {
        self.events.iter().filter(|x| *x == e).count()
    }
    /// The events other than `Lines`, in order.
    fn marks(&self) -> Vec<Event> {
        self.events
            .iter()
            .filter(|e| !matches!(e, Event::Lines(_)))
            .cloned()
            .collect()
    }
}

/// Calls `next` until `done` holds, checking the `Lines` contract on the
/// way; panics after [`PATIENCE`].
fn collect(fol: &mut Follower, got: &mut Got, done: impl Fn(&Got) -> bool) {
    collect_waiting(fol, got, done, Duration::from_millis(100));
}

/// [`collect`], with deadlines `wait` ahead for each call.
fn collect_waiting(fol: &mut Follower, got: &mut Got, done: impl Fn(&Got) -> bool, wait: Duration) {
    let start = Instant::now();
    while !done(got) {
        assert!(
            start.elapsed() < PATIENCE,
            "gave up; events so far: {:?}\ndata: {:?}",
            got.marks(),
            String::from_utf8_lossy(&got.data)
        );
        let ev = fol.next(Some(Instant::now() + wait)).unwrap();
        match &ev {
            Event::TimedOut => continue,
            Event::Lines(l) => {
                assert!(!l.is_empty() && l.ends_with(b"\n"), "bad Lines {l:?}");
                got.data.extend_from_slice(l);
            }
            Event::Partial(l) => {
                assert!(!l.is_empty() && !l.contains(&b'\n'), "bad Partial {l:?}");
                got.data.extend_from_slice(l);
            }
            _ => {}
        }
        got.events.push(ev);
    }
}

fn numbered(prefix: &str, range: std::ops::RangeInclusive<u32>) -> Vec<u8> {
    range
        .map(|i| format!("{prefix} {i}\n"))
        .collect::<String>()
        .into_bytes()
}

fn append(p: &Path, data: &[u8]) {
    let mut f = OpenOptions::new().append(true).open(p).unwrap();
    f.write_all(data).unwrap();
}

#[test]
fn process_writer_lines_arrive_exactly() {
    for opts in [FollowOptions::default(), polling()] {
        let d = tempfile::tempdir().unwrap();
        let (_, mut fol) = start(d.path(), b"already searched\n", opts);
        let mut child = sh(
            "for i in $(seq 1 500); do echo line $i >> log; \
             if [ $((i % 25)) = 0 ]; then sleep 0.01; fi; done",
            d.path(),
        );
        let want = numbered("line", 1..=500);
        let mut got = Got::default();
        collect(&mut fol, &mut got, |g| g.data.len() >= want.len());
        assert!(child.wait().unwrap().success());
        assert_eq!(got.data, want);
        assert!(got.marks().is_empty(), "{:?}", got.marks());
        assert_eq!(fol.offset(), 17 + want.len() as u64);
    }
}

use common::Rng;

#[test]
fn thread_writer_random_fragments_in_order() {
    for (seed, opts) in [(7, FollowOptions::default()), (11, polling())] {
        let d = tempfile::tempdir().unwrap();
        let (p, mut fol) = start(d.path(), b"", opts);
        let mut want = Vec::new();
        for i in 0..3000u32 {
            want.extend_from_slice(format!("{i} {}\n", "x".repeat(i as usize % 97)).as_bytes());
        }
        let data = want.clone();
        let writer = std::thread::spawn(move || {
            let mut rng = Rng(seed);
            let mut f = OpenOptions::new().append(true).open(&p).unwrap();
            let mut at = 0;
            while at < data.len() {
                let n = (1 + rng.below(300)).min(data.len() - at);
                f.write_all(&data[at..at + n]).unwrap();
                at += n;
                if rng.below(8) == 0 {
                    std::thread::sleep(Duration::from_micros(rng.below(3000) as u64));
                }
            }
        });
        let mut got = Got::default();
        collect(&mut fol, &mut got, |g| g.data.len() >= want.len());
        writer.join().unwrap();
        assert_eq!(got.data, want);
        assert!(got.marks().is_empty(), "{:?}", got.marks());
    }
}

#[test]
fn partial_line_is_held_until_its_newline() {
    let d = tempfile::tempdir().unwrap();
    let (p, mut fol) = start(d.path(), b"a\n", FollowOptions::default());
    append(&p, b"first half, ");
    let t = Instant::now() + Duration::from_millis(300);
    assert_eq!(fol.next(Some(t)).unwrap(), Event::TimedOut);
    assert_eq!(fol.offset(), 2);
    let mut child = sh("sleep 0.2; printf 'second half\\nnext' >> log", d.path());
    let soon = Some(Instant::now() + PATIENCE);
    assert_eq!(
        fol.next(soon).unwrap(),
        Event::Lines(b"first half, second half\n".to_vec())
    );
    assert!(child.wait().unwrap().success());
    assert_eq!(fol.offset(), 26);
    assert_eq!(fol.take_partial(), Some(b"next".to_vec()));
    assert_eq!(fol.offset(), 30);
    assert_eq!(fol.take_partial(), None);
}

fn rename_rotation(opts: FollowOptions) {
    let d = tempfile::tempdir().unwrap();
    let (_, mut fol) = start(d.path(), b"", opts);
    // The writer keeps its descriptor to the old file across the rename and
    // writes once more to it before it creates the new file.
    let script = "pause() { if [ $(($1 % 20)) = 0 ]; then sleep 0.01; fi; }; \
                  exec 3>>log; for i in $(seq 1 100); do echo old $i >&3; pause $i; done; \
                  mv log log.1; printf 'late old\\nunterminated' >&3; sleep 0.05; \
                  exec 3>>log; for i in $(seq 1 100); do echo new $i >&3; pause $i; done";
    let mut child = sh(script, d.path());
    let mut want = numbered("old", 1..=100);
    want.extend_from_slice(b"late old\nunterminated");
    let old_len = want.len();
    want.extend_from_slice(&numbered("new", 1..=100));
    let mut got = Got::default();
    collect(&mut fol, &mut got, |g| g.data.len() >= want.len());
    assert!(child.wait().unwrap().success());
    assert_eq!(got.data, want);
    assert_eq!(got.count(&Event::Reopened), 1);
    let marks = got.marks();
    assert!(
        marks == [Event::Partial(b"unterminated".to_vec()), Event::Reopened]
            || marks
                == [
                    Event::Missing,
                    Event::Partial(b"unterminated".to_vec()),
                    Event::Reopened
                ],
        "{marks:?}"
    );
    // Everything of the old file came before Reopened.
    let mut before = 0;
    for e in &got.events {
        match e {
            Event::Lines(l) | Event::Partial(l) => before += l.len(),
            Event::Reopened => break,
            _ => {}
        }
    }
    assert_eq!(before, old_len);
}

#[test]
fn rename_rotation_while_writing() {
    rename_rotation(FollowOptions::default());
}

#[test]
fn rename_rotation_while_writing_polling() {
    rename_rotation(polling());
}

#[test]
fn rename_between_search_and_follow_is_caught() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path().join("log");
    std::fs::write(&p, b"searched\n").unwrap();
    let searched = File::open(&p).unwrap();
    std::fs::rename(&p, d.path().join("log.1")).unwrap();
    append(&d.path().join("log.1"), b"after search\n");
    std::fs::write(&p, b"new file\n").unwrap();
    let mut fol = Follower::new(&p, searched, 9, FollowOptions::default()).unwrap();
    let mut got = Got::default();
    collect(&mut fol, &mut got, |g| g.count(&Event::Reopened) == 1);
    collect(&mut fol, &mut got, |g| g.data.len() >= 22);
    assert_eq!(got.data, b"after search\nnew file\n");
    assert_eq!(got.marks(), [Event::Reopened]);
}

#[test]
fn writes_wake_the_follower_at_once_even_after_a_rename_away() {
    let d = tempfile::tempdir().unwrap();
    let opts = FollowOptions {
        // A prompt wake-up can only come from inotify.
        max_interval: Duration::from_secs(10),
        ..FollowOptions::default()
    };
    let (p, mut fol) = start(d.path(), b"", opts);
    assert!(fol.uses_inotify());
    let far = tempfile::tempdir().unwrap();
    let moved = far.path().join("moved");
    let writer = {
        let (p, moved) = (p.clone(), moved.clone());
        std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(100));
            append(&p, b"one\n");
            std::thread::sleep(Duration::from_millis(300));
            // Out of the watched directory: only the file watch sees this.
            std::fs::rename(&p, &moved).unwrap();
            std::thread::sleep(Duration::from_millis(300));
            append(&moved, b"two\n");
        })
    };
    let t = Instant::now();
    let long = Some(t + PATIENCE);
    assert_eq!(fol.next(long).unwrap(), Event::Lines(b"one\n".to_vec()));
    assert_eq!(fol.next(long).unwrap(), Event::Missing);
    assert_eq!(fol.next(long).unwrap(), Event::Lines(b"two\n".to_vec()));
    let took = t.elapsed();
    writer.join().unwrap();
    assert!(took < Duration::from_secs(5), "{took:?}");
}

#[test]
fn truncation_restarts_at_zero() {
    for opts in [FollowOptions::default(), polling()] {
        let d = tempfile::tempdir().unwrap();
        let (p, mut fol) = start(d.path(), b"", opts);
        append(&p, b"a fairly long first line\nand a second one\npart");
        let mut got = Got::default();
        collect(&mut fol, &mut got, |g| g.data.len() >= 42);
        assert!(sh(": > log; echo short >> log", d.path())
            .wait()
            .unwrap()
            .success());
        collect(&mut fol, &mut got, |g| g.data.len() >= 52);
        assert_eq!(
            got.data,
            b"a fairly long first line\nand a second one\npartshort\n"
        );
        assert_eq!(
            got.marks(),
            [Event::Partial(b"part".to_vec()), Event::Truncated]
        );
        assert_eq!(fol.offset(), 6);
    }
}

#[test]
fn truncation_regrown_past_offset_is_detected() {
    let d = tempfile::tempdir().unwrap();
    let (p, mut fol) = start(d.path(), b"", FollowOptions::default());
    append(&p, b"2024-01-01 old 1\n2024-01-01 old 2\n");
    let mut got = Got::default();
    collect(&mut fol, &mut got, |g| g.data.len() >= 34);
    // copytruncate, then the writer quickly writes more than before, all
    // before the follower looks again.
    let script = ": > log; for i in 1 2 3 4 5; do echo 2024-01-02 new $i >> log; done";
    assert!(sh(script, d.path()).wait().unwrap().success());
    let new = numbered("2024-01-02 new", 1..=5);
    collect(&mut fol, &mut got, |g| g.data.len() >= 34 + new.len());
    assert_eq!(got.marks(), [Event::Truncated]);
    assert_eq!(&got.data[34..], &new[..]);
}

#[test]
fn delete_and_recreate() {
    for opts in [FollowOptions::default(), polling()] {
        let d = tempfile::tempdir().unwrap();
        let (p, mut fol) = start(d.path(), b"", opts);
        append(&p, b"one\ntwo");
        let mut got = Got::default();
        collect(&mut fol, &mut got, |g| g.data.len() >= 4);
        std::fs::remove_file(&p).unwrap();
        collect(&mut fol, &mut got, |g| g.count(&Event::Missing) == 1);
        // Nothing more while it stays missing.
        let t = Some(Instant::now() + Duration::from_millis(200));
        assert_eq!(fol.next(t).unwrap(), Event::TimedOut);
        assert!(sh("echo three > log; echo four >> log", d.path())
            .wait()
            .unwrap()
            .success());
        collect(&mut fol, &mut got, |g| g.data.len() >= 18);
        assert_eq!(got.data, b"one\ntwothree\nfour\n");
        assert_eq!(
            got.marks(),
            [
                Event::Partial(b"two".to_vec()),
                Event::Missing,
                Event::Reopened
            ]
        );
        assert_eq!(fol.offset(), 11);
    }
}

#[test]
fn pid_exit_is_reported_promptly_after_final_lines() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path().join("log");
    std::fs::write(&p, b"").unwrap();
    let mut child = sh(
        "sleep 0.3; echo last >> log; printf partial >> log",
        d.path(),
    );
    let opts = FollowOptions {
        pid: Some(child.id() as i32),
        // A long polling interval: a prompt report must come from the pidfd.
        max_interval: Duration::from_secs(10),
        ..FollowOptions::default()
    };
    let mut fol = Follower::new(&p, File::open(&p).unwrap(), 0, opts).unwrap();
    let waiter = std::thread::spawn(move || {
        child.wait().unwrap();
        Instant::now()
    });
    let mut got = Got::default();
    // Long deadlines too: nothing but the pidfd can wake it in time.
    collect_waiting(
        &mut fol,
        &mut got,
        |g| g.count(&Event::PidExited) == 1,
        PATIENCE,
    );
    let seen = Instant::now();
    let exited = waiter.join().unwrap();
    assert_eq!(got.data, b"last\npartial");
    assert_eq!(
        got.marks(),
        [Event::Partial(b"partial".to_vec()), Event::PidExited]
    );
    let late = seen.saturating_duration_since(exited);
    assert!(late < Duration::from_secs(1), "PidExited {late:?} late");
    // Following goes on without the pid.
    append(&p, b"more\n");
    collect(&mut fol, &mut got, |g| g.data.len() >= 17);
    assert_eq!(got.count(&Event::PidExited), 1);
}

#[test]
fn pid_already_gone_reports_after_drain() {
    let d = tempfile::tempdir().unwrap();
    let mut child = Command::new("true").spawn().unwrap();
    let pid = child.id() as i32;
    child.wait().unwrap();
    let opts = FollowOptions {
        pid: Some(pid),
        ..FollowOptions::default()
    };
    let (p, mut fol) = start(d.path(), b"x\n", opts);
    append(&p, b"y\n");
    let soon = Some(Instant::now() + PATIENCE);
    assert_eq!(fol.next(soon).unwrap(), Event::Lines(b"y\n".to_vec()));
    assert_eq!(fol.next(soon).unwrap(), Event::PidExited);
}

#[test]
fn big_burst_comes_in_bounded_events() {
    let d = tempfile::tempdir().unwrap();
    let (p, mut fol) = start(d.path(), b"", FollowOptions::default());
    let mut want = Vec::new();
    let mut i = 0u32;
    while want.len() < 5 << 20 {
        want.extend_from_slice(format!("burst line {i} {}\n", "y".repeat(50)).as_bytes());
        i += 1;
    }
    append(&p, &want);
    let mut got = Got::default();
    collect(&mut fol, &mut got, |g| g.data.len() >= want.len());
    assert_eq!(got.data, want);
    assert!(got.events.len() >= 5);
    for e in &got.events {
        match e {
            // A chunk plus the partial line held from the previous one.
            Event::Lines(l) => assert!(l.len() <= (1 << 20) + 100, "{}", l.len()),
            e => panic!("{e:?}"),
        }
    }
}

/// CPU time of the calling thread.
fn thread_cpu() -> Duration {
    // SAFETY: all-zero bytes are a valid `rusage` (plain integers).
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: `ru` is a valid, writable rusage for the call.
    let rc = unsafe { libc::getrusage(libc::RUSAGE_THREAD, &mut ru) };
    assert_eq!(rc, 0);
    let tv = |t: libc::timeval| {
        Duration::from_secs(t.tv_sec as u64) + Duration::from_micros(t.tv_usec as u64)
    };
    tv(ru.ru_utime) + tv(ru.ru_stime)
}

#[test]
fn deadline_times_out_and_idle_wait_does_not_spin() {
    let modes = [
        (true, FollowOptions::default()),
        (
            false,
            FollowOptions {
                inotify: false,
                ..FollowOptions::default()
            },
        ),
    ];
    let runs: Vec<_> = modes
        .into_iter()
        .map(|(inotify, opts)| {
            std::thread::spawn(move || {
                let d = tempfile::tempdir().unwrap();
                let (_, mut fol) = start(d.path(), b"quiet\n", opts);
                assert_eq!(fol.uses_inotify(), inotify);
                let cpu = thread_cpu();
                let t0 = Instant::now();
                let deadline = t0 + Duration::from_secs(1);
                assert_eq!(fol.next(Some(deadline)).unwrap(), Event::TimedOut);
                let woke = Instant::now();
                let cpu = thread_cpu() - cpu;
                assert!(woke >= deadline);
                assert!(woke - t0 < Duration::from_secs(5), "{:?}", woke - t0);
                assert!(
                    cpu < Duration::from_millis(50),
                    "idle wait used {cpu:?} CPU"
                );
                // A deadline already past returns at once.
                assert_eq!(fol.next(Some(t0)).unwrap(), Event::TimedOut);
            })
        })
        .collect();
    for r in runs {
        r.join().unwrap();
    }
}
