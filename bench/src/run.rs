//! Running one contender: spawn, drain stdout (hashing it), reap with
//! `wait4` for the wall time and the peak RSS of the process tree.

use std::hash::Hasher;
use std::io::Read;
use std::process::{Command, Stdio};
use std::time::Instant;

/// What one run produced.
#[derive(Debug, Clone)]
pub struct RunResult {
    /// Seconds from spawn until the process was reaped.
    pub wall: f64,
    /// Peak resident set size in KiB: `ru_maxrss` from `wait4`, which on
    /// Linux is the largest of the process and all the descendants it reaped
    /// (the largest single process of a pipeline, not the sum).
    pub maxrss_kib: u64,
    /// Exit code (128 + signal when killed).
    pub code: i32,
    /// Length and hash of stdout.
    pub out_len: u64,
    pub out_hash: u64,
    /// The whole stdout, when asked for.
    pub out: Option<Vec<u8>>,
    /// stderr (always kept; it is small).
    pub err: Vec<u8>,
}

/// Run `argv` with `LC_ALL=C`, stdout drained into a hash (and kept if
/// `keep`), stderr collected.
pub fn run(argv: &[String], keep: bool) -> std::io::Result<RunResult> {
    use std::os::unix::process::CommandExt;
    let mut cmd = Command::new(&argv[0]);
    // A `pre_exec` hook makes std fork() instead of posix_spawn()'s vfork:
    // a vfork child's `ru_maxrss` starts at this harness's *peak* RSS (the
    // shared mm's high-water mark is carried over at exec), a forked one's
    // only at the harness's *current* RSS, which `init` keeps small.
    // SAFETY: the hook does nothing, so it is async-signal-safe.
    unsafe {
        cmd.pre_exec(|| Ok(()));
    }
    cmd.args(&argv[1..])
        .env("LC_ALL", "C")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let t0 = Instant::now();
    let mut child = cmd.spawn()?;
    let pid = child.id() as libc::pid_t;
    let mut stdout = child.stdout.take().expect("piped stdout");
    let mut stderr = child.stderr.take().expect("piped stderr");
    let err_thread = std::thread::spawn(move || {
        let mut v = Vec::new();
        let _ = stderr.read_to_end(&mut v);
        v
    });
    let mut hasher = std::hash::DefaultHasher::new();
    let mut out_len = 0u64;
    let mut kept = if keep { Some(Vec::new()) } else { None };
    let mut buf = vec![0u8; 1 << 16];
    loop {
        match stdout.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => {
                hasher.write(&buf[..n]);
                out_len += n as u64;
                if let Some(k) = kept.as_mut() {
                    k.extend_from_slice(&buf[..n]);
                }
            }
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    let mut status: libc::c_int = 0;
    // SAFETY: rusage is plain data; wait4 fills it for our own child.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    let r = loop {
        // SAFETY: valid pointers to locals; pid is our unreaped child.
        let r = unsafe { libc::wait4(pid, &mut status, 0, &mut ru) };
        if r == -1 && std::io::Error::last_os_error().kind() == std::io::ErrorKind::Interrupted {
            continue;
        }
        break r;
    };
    let wall = t0.elapsed().as_secs_f64();
    if r == -1 {
        return Err(std::io::Error::last_os_error());
    }
    // The child is reaped; `Child` does not wait on drop.
    drop(child);
    let err = err_thread.join().unwrap_or_default();
    let code = if libc::WIFEXITED(status) {
        libc::WEXITSTATUS(status)
    } else if libc::WIFSIGNALED(status) {
        128 + libc::WTERMSIG(status)
    } else {
        -1
    };
    Ok(RunResult {
        wall,
        maxrss_kib: ru.ru_maxrss.max(0) as u64,
        code,
        out_len,
        out_hash: hasher.finish(),
        out: kept,
        err,
    })
}

/// Keep this process's resident set small, so that forked children do not
/// start with a large RSS: big buffers are mmapped and returned on free.
pub fn init() {
    // SAFETY: mallopt only tunes glibc's allocator; called before other threads exist.
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, 1 << 17);
        libc::mallopt(libc::M_TRIM_THRESHOLD, 1 << 20);
    }
}

/// This process's current resident set in KiB (Linux), for the report.
pub fn self_rss_kib() -> Option<u64> {
    let s = std::fs::read_to_string("/proc/self/status").ok()?;
    let l = s.lines().find(|l| l.starts_with("VmRSS:"))?;
    l.split_whitespace().nth(1)?.parse().ok()
}

/// Whether `name` is an executable on `PATH`.
pub fn on_path(name: &str) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::env::var_os("PATH").is_some_and(|p| {
        std::env::split_paths(&p).any(|d| {
            std::fs::metadata(d.join(name))
                .map(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
                .unwrap_or(false)
        })
    })
}

/// Median of a non-empty slice.
pub fn median(xs: &[f64]) -> f64 {
    let mut v = xs.to_vec();
    v.sort_by(|a, b| a.total_cmp(b));
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

/// The memory-bandwidth floor: count newlines of the mmapped file with
/// `memchr` on `threads` threads; returns (seconds, newlines).
pub fn floor_pass(map: &[u8], threads: usize) -> (f64, u64) {
    let t0 = Instant::now();
    let per = map.len().div_ceil(threads.max(1)).max(1);
    let n: u64 = std::thread::scope(|s| {
        let hs: Vec<_> = map
            .chunks(per)
            .map(|c| s.spawn(move || memchr::memchr_iter(b'\n', c).count() as u64))
            .collect();
        hs.into_iter().map(|h| h.join().unwrap()).sum()
    });
    (t0.elapsed().as_secs_f64(), n)
}

/// Drop `path` from the page cache (`POSIX_FADV_DONTNEED`, after flushing
/// it, since dirty pages stay), so that the next run reads it from disk.
pub fn evict(path: &std::path::Path) -> std::io::Result<()> {
    use std::os::unix::io::AsRawFd;
    let f = std::fs::File::open(path)?;
    f.sync_data()?;
    // SAFETY: fadvise on an open descriptor only changes page-cache state.
    let r = unsafe { libc::posix_fadvise(f.as_raw_fd(), 0, 0, libc::POSIX_FADV_DONTNEED) };
    if r != 0 {
        return Err(std::io::Error::from_raw_os_error(r));
    }
    Ok(())
}

/// How many of `path`'s pages are in the page cache, and how many it has
/// (`mincore` over a mapping of it).
pub fn residency(path: &std::path::Path) -> std::io::Result<(u64, u64)> {
    let f = std::fs::File::open(path)?;
    let len = f.metadata()?.len() as usize;
    if len == 0 {
        return Ok((0, 0));
    }
    // SAFETY: the benchmark's own data file, mapped read-only and only
    // passed to mincore, never read.
    let map = unsafe { memmap2::Mmap::map(&f)? };
    let page = 4096usize;
    let pages = len.div_ceil(page);
    let mut vec = vec![0u8; pages];
    // SAFETY: `map` is a live mapping of `len` bytes; `vec` has one byte
    // per page of it, as mincore requires.
    let r = unsafe { libc::mincore(map.as_ptr() as *mut libc::c_void, len, vec.as_mut_ptr()) };
    if r != 0 {
        return Err(std::io::Error::last_os_error());
    }
    let resident = vec.iter().filter(|&&b| b & 1 == 1).count() as u64;
    Ok((resident, pages as u64))
}
