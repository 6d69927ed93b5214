//! Following a growing log file, like `tail -F`.
//!
//! After the initial search, `grail --follow` keeps reading the file as it
//! grows and hands each batch of new lines to the matcher. [`Follower`] is the
//! reading and watching half of that: it follows a *name* (a path), survives
//! every usual way of rotating a log, and never busy-polls.
//!
//! # What the caller gets
//!
//! [`Follower::next`] blocks until something happens and returns one
//! [`Event`]. The rules:
//!
//! * **Whole lines only.** [`Event::Lines`] carries one or more complete
//!   lines, each ending in `\n`, in file order, never empty, with no byte
//!   delivered twice and none skipped. A trailing unterminated line is held
//!   back until its newline arrives, however the writer splits its writes.
//! * **Partial lines are released only when the writer is gone.** The held
//!   back bytes come out as [`Event::Partial`] (treat them as one last line,
//!   as grep treats an unterminated final line) right before
//!   [`Event::Reopened`] (the file was rotated away), [`Event::Truncated`]
//!   (its content is gone), [`Event::PidExited`] (the writer process died),
//!   when a deleted file is closed (before [`Event::Missing`]), and when the
//!   caller asks with [`Follower::take_partial`] (e.g. when stopping on a
//!   timeout). A line longer than [`FollowOptions::max_line`] without a
//!   newline is also released as `Partial` and its rest starts the next
//!   event, so memory stays bounded (the line is then split in two).
//! * **Bounded reads.** At most [`FollowOptions::read_chunk`] bytes (1 MiB)
//!   are read per read; a burst arrives as several `Lines` events.
//! * **Start point.** Reading starts at the `offset` given to
//!   [`Follower::new`], which should be the start of a line (the end of the
//!   last complete line the caller already searched). [`Follower::offset`]
//!   is the resume point: the byte after the last delivered byte, in the file
//!   being read now.
//! * **Data first.** `next` returns [`Event::TimedOut`] only when nothing is
//!   ready when the deadline has passed; a writer that never pauses keeps
//!   producing `Lines`, so a caller with a hard stop should also check the
//!   clock between events.
//!
//! # Rotation, truncation, deletion
//!
//! The follower keeps the open descriptor of the file it reads (starting
//! with the one the caller searched, so a rename between the search and the
//! follow is caught) and compares it (device and inode) with what the path
//! names whenever it has read everything:
//!
//! * **Rename rotation** (`mv log log.1`, then a new `log`): while the path is
//!   missing, the old descriptor is still followed (writers usually keep
//!   writing to it until they reopen), after one [`Event::Missing`]. When a
//!   new file appears at the path, the old descriptor is read to its end
//!   (`tail -F`'s approach), its unterminated rest is released as `Partial`,
//!   then [`Event::Reopened`] and reading goes on from byte 0 of the new
//!   file. Bytes written to the old file after that switch are not read
//!   (same as `tail -F`).
//! * **Truncation** (`: > log`, logrotate's `copytruncate`): the size drops
//!   below the read position → [`Event::Truncated`] and reading restarts at
//!   byte 0 of the same file (as `tail -F`, which prints "file truncated").
//!   A file truncated and then regrown *past* the old position before the
//!   follower looks has no size drop to see; grail also keeps the first and
//!   the last 64 bytes it has read and compares them with the file before
//!   reading on, so such a rewrite is detected (reported as `Truncated`)
//!   unless the new content has exactly the same bytes at both places.
//!   **Limitations:** a rewrite that reproduces those 128 bytes (e.g. a log
//!   of identical lines whose new content reaches past the old position) is
//!   not detected, and its bytes before the old position are missed; a
//!   rewrite that happens between the check and the read is noticed only at
//!   the next read, after some of its bytes were delivered as if appended.
//!   Conversely, a writer that rewrites bytes in place (not an append-only
//!   log) is taken for a truncation, and the file is read again from 0.
//! * **Deletion**: the path is gone and the open file has no links left. It
//!   is read to its end, its partial rest released, closed (so its disk
//!   space can be freed; writes to the deleted file are then lost, as with
//!   `tail -F`), and [`Event::Missing`] is reported once.
//! * **Recreation**: when a file appears at the path again, [`Event::Reopened`]
//!   and reading from byte 0 of it. Delete-then-create in quick succession
//!   may skip the `Missing` event; it is never reported twice in a row.
//! * A path that names something other than a regular file, or cannot be
//!   stat'ed or opened (permissions), counts as missing. If the same file
//!   comes back under the path (renamed back), following simply continues.
//!
//! # Waiting without spinning
//!
//! The follower blocks in `poll(2)` on an inotify descriptor watching the
//! open file (writes, attribute/link changes, moves) and its directory
//! (creates, deletes, renames), plus a pidfd for `--pid`. An idle follower
//! wakes only on a change, or once per [`FollowOptions::max_interval`] (1 s)
//! for a cheap safety recheck (`fstat`, two 64-byte reads, one `stat`) that
//! covers what inotify cannot see (network filesystems, a replaced parent
//! directory, a symlinked path rotated elsewhere). If inotify is unavailable
//! or its limits are exhausted (or [`FollowOptions::inotify`] is false), it
//! polls instead, starting at [`FollowOptions::min_interval`] (50 ms) and
//! doubling while idle up to `max_interval`; any new data resets it.
//!
//! # `--pid`
//!
//! With [`FollowOptions::pid`], the process is watched through a pidfd
//! (`pidfd_open`, Linux 5.3+), which wakes the follower the moment it exits.
//! Without pidfd support, it checks `kill(pid, 0)` (and `/proc` for a zombie)
//! at least every 100 ms. Once the exit is seen, the file is drained to its
//! end (including a rotation that already happened), the partial rest is
//! released as `Partial`, then [`Event::PidExited`] is returned, once; like
//! `tail --pid`, this waits for a moment with no new data, so other writers
//! that never pause delay it. A process that has already exited (or does
//! not exist) when the follower starts gives `PidExited` after the first
//! drain. After `PidExited` the follower keeps following without a pid.

use std::collections::VecDeque;
use std::fs::{File, OpenOptions};
use std::io;
use std::mem;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::os::unix::fs::{FileExt, MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use inotify::{Inotify, WatchDescriptor, WatchMask};

/// Bytes kept from the start and from the end of what was read, to notice a
/// file rewritten past the read position.
const SIG: usize = 64;

/// How often a pid is checked when there is no pidfd.
const PID_POLL: Duration = Duration::from_millis(100);

/// How to follow a file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FollowOptions {
    /// Report [`Event::PidExited`] once this process has exited (`tail
    /// --pid`). Must be positive.
    pub pid: Option<i32>,
    /// Use inotify to wake up on changes (default `true`). `false` forces
    /// polling with backoff, for filesystems where inotify sees nothing
    /// (NFS and other network filesystems).
    pub inotify: bool,
    /// First polling interval without inotify (default 50 ms, at least 1 ms).
    pub min_interval: Duration,
    /// Longest polling interval without inotify, and the period of the
    /// safety recheck with inotify (default 1 s).
    pub max_interval: Duration,
    /// Most bytes read from the file at once (default 1 MiB, at least 1).
    pub read_chunk: usize,
    /// Longest unterminated line held back; longer ones are released as
    /// [`Event::Partial`] (default 64 MiB, at least 1).
    pub max_line: usize,
}

impl Default for FollowOptions {
    fn default() -> Self {
        FollowOptions {
            pid: None,
            inotify: true,
            min_interval: Duration::from_millis(50),
            max_interval: Duration::from_secs(1),
            read_chunk: 1 << 20,
            max_line: 64 << 20,
        }
    }
}

/// What happened to the followed file. See the [module docs](self).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Event {
    /// One or more complete lines, each ending in `\n`, appended since the
    /// previous event. Never empty.
    Lines(Vec<u8>),
    /// The unterminated last bytes of a file whose writer is gone (before
    /// [`Event::Reopened`], [`Event::Truncated`], [`Event::PidExited`],
    /// [`Event::Missing`] of a deleted file), or of a line longer than
    /// [`FollowOptions::max_line`]. Never empty, never contains `\n`.
    Partial(Vec<u8>),
    /// The file shrank below the read position (or was rewritten past it):
    /// reading restarts at byte 0 of the same file.
    Truncated,
    /// The path names a different file now (rotated, or deleted and
    /// recreated). Everything of the old file was delivered first; reading
    /// continues at byte 0 of the new file.
    Reopened,
    /// The path does not name a readable regular file any more. Reported
    /// once per disappearance; a still-linked old file keeps being followed
    /// meanwhile.
    Missing,
    /// The [`FollowOptions::pid`] process exited; everything written before
    /// was delivered first. Reported once.
    PidExited,
    /// The deadline passed with nothing to report.
    TimedOut,
}

/// How a `--pid` process is watched.
#[derive(Debug)]
enum PidWatch {
    /// A pidfd: readable once the process has exited.
    Fd(OwnedFd),
    /// `kill(pid, 0)`, at most every [`PID_POLL`].
    Kill { pid: i32, last: Option<Instant> },
}

/// The inotify instance and its watches.
#[derive(Debug)]
struct Notify {
    inotify: Inotify,
    /// Watch on the open file, if it could be added.
    file_wd: Option<WatchDescriptor>,
    /// Whether the directory watch could be added.
    dir_ok: bool,
}

/// Follows a file by name, like `tail -F`. See the [module docs](self).
#[derive(Debug)]
pub struct Follower {
    path: PathBuf,
    /// The file being read; `None` after a deleted file was closed.
    file: Option<File>,
    /// Device and inode of `file`.
    id: Option<(u64, u64)>,
    /// A new file found at the path, switched to once `file` is drained.
    next_file: Option<(File, (u64, u64))>,
    /// Bytes of `file` read so far.
    read_pos: u64,
    /// Read but undelivered bytes (an unterminated line).
    pending: Vec<u8>,
    /// The first `min(SIG, read_pos)` bytes of `file`.
    head: Vec<u8>,
    /// The last `min(SIG, read_pos)` bytes before `read_pos`.
    tail: Vec<u8>,
    queue: VecDeque<Event>,
    missing_reported: bool,
    opts: FollowOptions,
    /// Current polling interval (without inotify).
    interval: Duration,
    notify: Option<Notify>,
    pid: Option<PidWatch>,
    /// The pid was seen dead; report once the file is drained.
    pid_exited: bool,
}

impl Follower {
    /// Starts following `path` at byte `offset` of `file`, the already open
    /// file the caller searched up to `offset` (so that a rotation between
    /// that search and now is caught). `file` must be a regular file;
    /// `opts.pid`, if any, must be positive. Nothing is read yet.
    pub fn new(path: &Path, file: File, offset: u64, opts: FollowOptions) -> io::Result<Follower> {
        let meta = file.metadata()?;
        if !meta.is_file() {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                "can only follow a regular file",
            ));
        }
        let opts = normalize(opts);
        let pid = match opts.pid {
            None => None,
            Some(p) if p <= 0 => {
                return Err(io::Error::new(
                    io::ErrorKind::InvalidInput,
                    "pid must be positive",
                ))
            }
            Some(p) => Some(open_pid(p)),
        };
        let (pid, pid_exited) = match pid {
            Some(Ok(w)) => (Some(w), false),
            Some(Err(_)) => (None, true),
            None => (None, false),
        };
        let sig_len = offset.min(SIG as u64) as usize;
        let mut head = vec![0; sig_len];
        let n = read_at_retry(&file, &mut head, 0)?;
        head.truncate(n);
        let mut tail = vec![0; sig_len];
        let n = read_at_retry(&file, &mut tail, offset - sig_len as u64)?;
        tail.truncate(n);
        let mut f = Follower {
            path: path.to_path_buf(),
            id: Some((meta.dev(), meta.ino())),
            file: Some(file),
            next_file: None,
            read_pos: offset,
            pending: Vec::new(),
            head,
            tail,
            queue: VecDeque::new(),
            missing_reported: false,
            interval: opts.min_interval,
            opts,
            notify: None,
            pid,
            pid_exited,
        };
        if f.opts.inotify {
            f.start_inotify();
        }
        Ok(f)
    }

    /// Blocks until there is something to report or `deadline` passes
    /// ([`Event::TimedOut`]; `None` waits for ever). Ready data is reported
    /// even after the deadline. I/O errors reading the open file are
    /// returned; the follower may be called again after one.
    pub fn next(&mut self, deadline: Option<Instant>) -> io::Result<Event> {
        loop {
            if let Some(ev) = self.queue.pop_front() {
                return Ok(ev);
            }
            let exit_known = self.pid_exited;
            self.step()?;
            if !self.queue.is_empty() {
                self.interval = self.opts.min_interval;
                continue;
            }
            if exit_known {
                self.flush_partial();
                self.queue.push_back(Event::PidExited);
                self.pid = None;
                self.pid_exited = false;
                continue;
            }
            if self.pid_dead_now() {
                self.pid_exited = true;
                continue;
            }
            let now = Instant::now();
            let timeout = match deadline {
                Some(d) if d <= now => return Ok(Event::TimedOut),
                Some(d) => Some(d - now),
                None => None,
            };
            self.wait(timeout)?;
        }
    }

    /// The resume point: the byte after the last delivered byte, in the
    /// file being read now (0 right after [`Event::Reopened`] or
    /// [`Event::Truncated`]). Held-back partial bytes are not counted.
    pub fn offset(&self) -> u64 {
        self.read_pos.saturating_sub(self.pending.len() as u64)
    }

    /// Hands over the held-back unterminated bytes, if any (e.g. when the
    /// caller stops following); [`Follower::offset`] moves past them.
    pub fn take_partial(&mut self) -> Option<Vec<u8>> {
        if self.pending.is_empty() {
            None
        } else {
            Some(mem::take(&mut self.pending))
        }
    }

    /// Whether inotify currently covers both the file and its directory
    /// (otherwise the follower polls).
    pub fn uses_inotify(&self) -> bool {
        match &self.notify {
            Some(n) => n.dir_ok && (self.file.is_none() || n.file_wd.is_some()),
            None => false,
        }
    }

    fn start_inotify(&mut self) {
        let Ok(inotify) = Inotify::init() else {
            return;
        };
        let dir = match self.path.parent() {
            Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
            _ => PathBuf::from("."),
        };
        let dir_ok = inotify
            .watches()
            .add(
                &dir,
                WatchMask::CREATE
                    | WatchMask::MOVED_TO
                    | WatchMask::MOVED_FROM
                    | WatchMask::DELETE
                    | WatchMask::DELETE_SELF
                    | WatchMask::MOVE_SELF,
            )
            .is_ok();
        self.notify = Some(Notify {
            inotify,
            file_wd: None,
            dir_ok,
        });
        self.watch_file();
    }

    /// Points the file watch at the open file (by descriptor, so it is the
    /// same inode even if the path changed meanwhile).
    fn watch_file(&mut self) {
        let Some(n) = self.notify.as_mut() else {
            return;
        };
        if let Some(wd) = n.file_wd.take() {
            // Fails harmlessly if the inode is gone already.
            let _ = n.inotify.watches().remove(wd);
        }
        let Some(file) = &self.file else {
            return;
        };
        let mask =
            WatchMask::MODIFY | WatchMask::ATTRIB | WatchMask::MOVE_SELF | WatchMask::DELETE_SELF;
        let by_fd = format!("/proc/self/fd/{}", file.as_raw_fd());
        n.file_wd = match n.inotify.watches().add(&by_fd, mask) {
            Ok(wd) => Some(wd),
            Err(_) => n.inotify.watches().add(&self.path, mask).ok(),
        };
    }

    /// Reads what is there and checks the path; queues what it finds.
    fn step(&mut self) -> io::Result<()> {
        self.read_current()?;
        if !self.queue.is_empty() {
            return Ok(());
        }
        if let Some((file, id)) = self.next_file.take() {
            self.switch_to(file, id);
            return Ok(());
        }
        self.check_name()
    }

    /// Queues at most one data event (or a truncation) from the open file.
    fn read_current(&mut self) -> io::Result<()> {
        let Some(file) = &self.file else {
            return Ok(());
        };
        let size = file.metadata()?.len();
        if size < self.read_pos || !signature_matches(file, &self.head, &self.tail, self.read_pos)?
        {
            self.flush_partial();
            self.read_pos = 0;
            self.head.clear();
            self.tail.clear();
            self.queue.push_back(Event::Truncated);
            return Ok(());
        }
        while self.read_pos < size {
            let want = (size - self.read_pos).min(self.opts.read_chunk as u64) as usize;
            let old = self.pending.len();
            self.pending.resize(old + want, 0);
            let got = read_at_retry(file, &mut self.pending[old..], self.read_pos);
            let n = match got {
                Ok(n) => n,
                Err(e) => {
                    self.pending.truncate(old);
                    return Err(e);
                }
            };
            self.pending.truncate(old + n);
            if n == 0 {
                // Shrank since the fstat: the next step sees it.
                break;
            }
            let new = &self.pending[old..];
            if self.head.len() < SIG {
                let take = (SIG - self.head.len()).min(new.len());
                self.head.extend_from_slice(&new[..take]);
            }
            if new.len() >= SIG {
                self.tail.clear();
                self.tail.extend_from_slice(&new[new.len() - SIG..]);
            } else {
                self.tail.extend_from_slice(new);
                let excess = self.tail.len().saturating_sub(SIG);
                self.tail.drain(..excess);
            }
            self.read_pos += n as u64;
            if let Some(i) = memchr::memrchr(b'\n', new) {
                let rest = self.pending.split_off(old + i + 1);
                let lines = mem::replace(&mut self.pending, rest);
                self.queue.push_back(Event::Lines(lines));
                return Ok(());
            }
            if self.pending.len() >= self.opts.max_line {
                self.flush_partial();
                return Ok(());
            }
        }
        Ok(())
    }

    /// With the open file read to its end: compares it with what the path
    /// names now.
    fn check_name(&mut self) -> io::Result<()> {
        let now = match std::fs::metadata(&self.path) {
            Ok(m) if m.is_file() => Some((m.dev(), m.ino())),
            _ => None,
        };
        match now {
            Some(id) if Some(id) == self.id => self.missing_reported = false,
            Some(_) => match open_regular(&self.path) {
                Ok((_, id)) if Some(id) == self.id => self.missing_reported = false,
                Ok((file, id)) => {
                    // Drain the old file once more: its writer may have
                    // written since our read. Switch when it is at its end.
                    self.read_current()?;
                    if self.queue.is_empty() {
                        self.switch_to(file, id);
                    } else {
                        self.next_file = Some((file, id));
                    }
                }
                Err(_) => self.report_missing(),
            },
            None => {
                let deleted = match &self.file {
                    Some(f) => f.metadata()?.nlink() == 0,
                    None => false,
                };
                if deleted {
                    self.flush_partial();
                    self.file = None;
                    self.id = None;
                    self.read_pos = 0;
                    self.head.clear();
                    self.tail.clear();
                    self.watch_file();
                }
                self.report_missing();
            }
        }
        Ok(())
    }

    fn switch_to(&mut self, file: File, id: (u64, u64)) {
        self.flush_partial();
        self.queue.push_back(Event::Reopened);
        self.file = Some(file);
        self.id = Some(id);
        self.read_pos = 0;
        self.head.clear();
        self.tail.clear();
        self.missing_reported = false;
        self.watch_file();
    }

    fn report_missing(&mut self) {
        if !self.missing_reported {
            self.missing_reported = true;
            self.queue.push_back(Event::Missing);
        }
    }

    fn flush_partial(&mut self) {
        if let Some(p) = self.take_partial() {
            self.queue.push_back(Event::Partial(p));
        }
    }

    /// Non-blocking check of the `--pid` process.
    fn pid_dead_now(&mut self) -> bool {
        match &mut self.pid {
            None => false,
            Some(PidWatch::Fd(fd)) => poll_ready(fd.as_raw_fd()),
            Some(PidWatch::Kill { pid, last }) => {
                let due = last.is_none_or(|t| t.elapsed() >= PID_POLL);
                if due {
                    *last = Some(Instant::now());
                    !process_alive(*pid)
                } else {
                    false
                }
            }
        }
    }

    /// Sleeps in poll(2) until inotify or the pidfd fires, or the polling
    /// interval or `timeout` ends.
    fn wait(&mut self, timeout: Option<Duration>) -> io::Result<()> {
        let mut interval = if self.uses_inotify() {
            self.opts.max_interval
        } else {
            let i = self.interval;
            self.interval = (i * 2).min(self.opts.max_interval);
            i
        };
        if matches!(self.pid, Some(PidWatch::Kill { .. })) {
            interval = interval.min(PID_POLL);
        }
        let t = timeout.map_or(interval, |t| t.min(interval));
        let ms = t.as_micros().div_ceil(1000).min(i32::MAX as u128) as i32;
        let mut fds = [libc::pollfd {
            fd: -1,
            events: libc::POLLIN,
            revents: 0,
        }; 2];
        if let Some(n) = &self.notify {
            fds[0].fd = n.inotify.as_raw_fd();
        }
        if let Some(PidWatch::Fd(fd)) = &self.pid {
            fds[1].fd = fd.as_raw_fd();
        }
        // SAFETY: `fds` is a valid array of 2 pollfd structs that outlives
        // the call; negative fds are ignored by poll(2).
        let rc = unsafe { libc::poll(fds.as_mut_ptr(), 2, ms) };
        if rc < 0 {
            let e = io::Error::last_os_error();
            return if e.kind() == io::ErrorKind::Interrupted {
                Ok(())
            } else {
                Err(e)
            };
        }
        if fds[1].fd >= 0 && fds[1].revents != 0 {
            self.pid_exited = true;
        }
        if fds[0].fd >= 0 && fds[0].revents != 0 {
            if fds[0].revents & libc::POLLIN != 0 {
                self.drain_inotify();
            } else {
                // POLLERR/POLLNVAL: fall back to polling rather than spin.
                self.notify = None;
            }
        }
        Ok(())
    }

    /// Discards queued inotify events: they only mean "look again".
    fn drain_inotify(&mut self) {
        let Some(n) = self.notify.as_mut() else {
            return;
        };
        let mut buf = [0u8; 4096];
        for _ in 0..64 {
            match n.inotify.read_events(&mut buf) {
                Ok(_) => {}
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => return,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(_) => {
                    self.notify = None;
                    return;
                }
            }
        }
    }
}

fn normalize(mut o: FollowOptions) -> FollowOptions {
    o.min_interval = o.min_interval.max(Duration::from_millis(1));
    o.max_interval = o.max_interval.max(o.min_interval);
    o.read_chunk = o.read_chunk.max(1);
    o.max_line = o.max_line.max(1);
    o
}

/// `pread` that retries on EINTR and returns the bytes read (short at EOF).
fn read_at_retry(file: &File, buf: &mut [u8], pos: u64) -> io::Result<usize> {
    loop {
        match file.read_at(buf, pos) {
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            r => return r,
        }
    }
}

/// Reads `buf.len()` bytes at `pos` or fewer at EOF.
fn read_exact_at(file: &File, buf: &mut [u8], mut pos: u64) -> io::Result<usize> {
    let mut done = 0;
    while done < buf.len() {
        let n = read_at_retry(file, &mut buf[done..], pos)?;
        if n == 0 {
            break;
        }
        done += n;
        pos += n as u64;
    }
    Ok(done)
}

/// Whether the file still has the bytes we read at its start and right
/// before `pos`.
fn signature_matches(file: &File, head: &[u8], tail: &[u8], pos: u64) -> io::Result<bool> {
    let mut buf = [0u8; SIG];
    let h = &mut buf[..head.len()];
    if read_exact_at(file, h, 0)? != head.len() || h != head {
        return Ok(false);
    }
    let start = pos.saturating_sub(tail.len() as u64);
    let t = &mut buf[..tail.len()];
    Ok(read_exact_at(file, t, start)? == tail.len() && t == tail)
}

/// Opens `path` without blocking (a FIFO swapped in must not hang us) and
/// returns it if it is a regular file.
fn open_regular(path: &Path) -> io::Result<(File, (u64, u64))> {
    let file = OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(path)?;
    let m = file.metadata()?;
    if !m.is_file() {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "not a regular file",
        ));
    }
    Ok((file, (m.dev(), m.ino())))
}

/// Watches `pid`: a pidfd if the kernel has them, else `kill(pid, 0)`.
/// `Err` means the process does not exist.
fn open_pid(pid: i32) -> Result<PidWatch, ()> {
    // SAFETY: pidfd_open takes a pid and flags and returns a new fd or -1;
    // no memory is passed.
    let fd = unsafe { libc::syscall(libc::SYS_pidfd_open, pid, 0) };
    if fd >= 0 {
        // SAFETY: the syscall returned a new descriptor that nothing else
        // owns; OwnedFd takes over closing it.
        return Ok(PidWatch::Fd(unsafe { OwnedFd::from_raw_fd(fd as RawFd) }));
    }
    if io::Error::last_os_error().raw_os_error() == Some(libc::ESRCH) {
        return Err(());
    }
    if process_alive(pid) {
        Ok(PidWatch::Kill { pid, last: None })
    } else {
        Err(())
    }
}

/// Whether `fd` is readable right now.
fn poll_ready(fd: RawFd) -> bool {
    let mut p = libc::pollfd {
        fd,
        events: libc::POLLIN,
        revents: 0,
    };
    // SAFETY: `p` is one valid pollfd for the duration of the call.
    let rc = unsafe { libc::poll(&mut p, 1, 0) };
    rc > 0 && p.revents != 0
}

/// `kill(pid, 0)` succeeds (or is refused: it exists) and it is no zombie.
pub(crate) fn process_alive(pid: i32) -> bool {
    if pid <= 0 {
        return false;
    }
    // SAFETY: signal 0 only checks that the process exists; nothing is sent.
    let rc = unsafe { libc::kill(pid, 0) };
    if rc != 0 && io::Error::last_os_error().raw_os_error() != Some(libc::EPERM) {
        return false;
    }
    // A zombie (an exited child nobody waited for yet) still answers kill.
    match std::fs::read(format!("/proc/{pid}/stat")) {
        Ok(stat) => {
            let after = memchr::memrchr(b')', &stat).map_or(&stat[..0], |i| &stat[i + 1..]);
            !matches!(after.iter().find(|b| **b != b' '), Some(b'Z' | b'X'))
        }
        Err(_) => true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn follower(dir: &Path, content: &[u8], opts: FollowOptions) -> (PathBuf, Follower) {
        let p = dir.join("log");
        std::fs::write(&p, content).unwrap();
        let f = File::open(&p).unwrap();
        let fol = Follower::new(&p, f, content.len() as u64, opts).unwrap();
        (p, fol)
    }

    fn soon() -> Option<Instant> {
        Some(Instant::now() + Duration::from_secs(5))
    }

    #[test]
    fn follow_kill_fallback_sees_exit_and_zombie() {
        let d = tempfile::tempdir().unwrap();
        let (p, mut fol) = follower(d.path(), b"a\n", FollowOptions::default());
        let mut child = std::process::Command::new("sleep")
            .arg("0.2")
            .spawn()
            .unwrap();
        let pid = child.id() as i32;
        assert!(process_alive(pid));
        fol.pid = Some(PidWatch::Kill { pid, last: None });
        let mut w = std::fs::OpenOptions::new().append(true).open(&p).unwrap();
        w.write_all(b"b\nc").unwrap();
        assert_eq!(fol.next(soon()).unwrap(), Event::Lines(b"b\n".to_vec()));
        let t = Instant::now();
        // The child is never waited for here: it stays a zombie.
        assert_eq!(fol.next(soon()).unwrap(), Event::Partial(b"c".to_vec()));
        assert_eq!(fol.next(soon()).unwrap(), Event::PidExited);
        assert!(t.elapsed() < Duration::from_secs(2));
        assert!(!process_alive(pid));
        child.wait().unwrap();
        assert!(!process_alive(pid));
        assert_eq!(
            fol.next(Some(Instant::now() + Duration::from_millis(50)))
                .unwrap(),
            Event::TimedOut
        );
    }

    #[test]
    fn follow_signature_catches_regrown_file() {
        let d = tempfile::tempdir().unwrap();
        let (p, mut fol) = follower(
            d.path(),
            b"old line 1\nold line 2\n",
            FollowOptions::default(),
        );
        std::fs::write(&p, b"new content that is longer than before\nand more\n").unwrap();
        assert_eq!(fol.next(soon()).unwrap(), Event::Truncated);
        assert_eq!(
            fol.next(soon()).unwrap(),
            Event::Lines(b"new content that is longer than before\nand more\n".to_vec())
        );
    }

    #[test]
    fn follow_long_line_is_released_when_over_max() {
        let d = tempfile::tempdir().unwrap();
        let opts = FollowOptions {
            read_chunk: 4,
            max_line: 10,
            ..FollowOptions::default()
        };
        let (p, mut fol) = follower(d.path(), b"", opts);
        std::fs::write(&p, b"abcdefghijklmno\nxy\n").unwrap();
        let mut all = Vec::new();
        loop {
            match fol
                .next(Some(Instant::now() + Duration::from_millis(100)))
                .unwrap()
            {
                Event::Lines(l) => {
                    assert!(l.len() <= 14 && l.ends_with(b"\n"));
                    all.extend(l);
                }
                Event::Partial(l) => {
                    assert_eq!(l, b"abcdefghijkl");
                    all.extend(l);
                }
                Event::TimedOut => break,
                e => panic!("{e:?}"),
            }
        }
        assert_eq!(all, b"abcdefghijklmno\nxy\n");
        assert_eq!(fol.offset(), 19);
    }

    #[test]
    fn follow_rejects_bad_input() {
        let d = tempfile::tempdir().unwrap();
        let f = File::open(d.path()).unwrap();
        assert!(Follower::new(d.path(), f, 0, FollowOptions::default()).is_err());
        let p = d.path().join("x");
        std::fs::write(&p, b"").unwrap();
        let opts = FollowOptions {
            pid: Some(0),
            ..FollowOptions::default()
        };
        assert!(Follower::new(&p, File::open(&p).unwrap(), 0, opts).is_err());
        // An offset past the end is a truncation.
        let mut fol =
            Follower::new(&p, File::open(&p).unwrap(), 100, FollowOptions::default()).unwrap();
        assert_eq!(fol.next(soon()).unwrap(), Event::Truncated);
    }
}
