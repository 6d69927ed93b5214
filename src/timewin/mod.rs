//! Time windows (`--since TIME` / `--before TIME`) found without a full scan.
//!
//! Logs are written in time order, so the lines inside a time window form one
//! contiguous byte range. [`window`] finds that range by binary search over
//! line timestamps: on a memory-mapped log it reads O(log n) lines (a few
//! dozen on a 4 GiB file) plus a bounded stretch next to each boundary, never
//! the whole file. The caller then searches only `hay[start..end]`.
//!
//! ```
//! use grail::timewin::{window, Bound, TimeFormat};
//! use std::time::SystemTime;
//!
//! let log = b"2026-11-29 22:30:00 INFO start\n\
//!             2026-11-29 22:33:01 ERROR boom\n\
//!             Traceback (most recent call last):\n\
//!             2026-11-29 22:40:00 INFO done\n";
//! let fmt = TimeFormat::detect(log).unwrap();
//! assert_eq!(fmt.name(), "ISO-8601");
//! let since = Bound::parse("2026-11-29 22:33", SystemTime::now()).unwrap();
//! let before = Bound::parse("22:40", SystemTime::now()).unwrap(); // date of the log's last line
//! let w = window(log, &fmt, Some(&since), Some(&before)).unwrap();
//! // the continuation line belongs to the ERROR line before it
//! assert_eq!(&log[w.start..w.end], b"2026-11-29 22:33:01 ERROR boom\nTraceback (most recent call last):\n");
//! ```
//!
//! # The rule
//!
//! * A line's timestamp is the **first match of the log's format that starts
//!   within the line's first 256 bytes** (it must also end within the first 512).
//!   One format is used for the whole file: auto-detected from its first
//!   lines ([`TimeFormat::detect`]) or given explicitly ([`TimeFormat::parse`]).
//! * A line without a timestamp (stack trace, continuation line) **belongs to
//!   the timestamped line before it**. Lines before the first timestamped line
//!   belong to no time: they are in the window only when there is no `--since`.
//! * The window starts at the **first line, in file order, whose timestamp is
//!   `>= since`** (inclusive) and ends before the **first line at or after that
//!   one whose timestamp is `>= before`** (exclusive). No `--since`: it starts
//!   at byte 0; no `--before`: it ends at the end of the file. So
//!   `since >= before` gives an empty window, and a bound after every line
//!   gives an empty window at the end of the file.
//! * `start` and `end` are line starts (0, just after a `\n`, or `hay.len()`).
//!
//! # Order, and what is checked
//!
//! The binary search assumes the log is in time order. Real logs have small
//! local disorder (threads that write a few lines out of order, syslog
//! daemons that flush buffers late), so the assumption is only this: **two
//! lines whose starts are more than `slack_bytes` apart (64 KiB by default,
//! [`WindowOptions`]) are in time order**; lines closer together than that
//! may be in any order. Under that assumption the window is exact for the
//! rule above: after the binary search, the `slack_bytes` before each
//! boundary are read line by line and the first line `>= bound` among them
//! wins. Every line read (the probes, the first and last timestamped lines,
//! the lines near the boundaries) is checked against the others read: two of
//! them more than `slack_bytes` apart whose times go backwards give
//! [`WindowError::NotOrdered`], which names both byte offsets. **Disorder
//! between lines that were not read is not detected**: on a file that is not
//! time-ordered the result may be wrong without an error. Large-scale
//! disorder (concatenated or shuffled logs) is usually caught, since the
//! probes and the first and last lines span the whole file, but only between
//! lines more than `slack_bytes` apart, so small files are checked less (see
//! HPC below). In the loghub samples the largest real disorder is Linux's:
//! a line 5 s early relative to lines up to 6 KB before it.
//!
//! Cost: the first and last timestamped lines, about `log2(size / line)`
//! probes, and `slack_bytes` before each boundary: on a 32 MiB test log,
//! 134 KB / 2,089 lines and about 0.2 ms (release build) for both bounds;
//! with `slack_bytes: 0`, under 120 lines. The file size adds only probes.
//!
//! Lines without timestamps cost nothing special, but the search gives up
//! ([`WindowError::Sparse`]) when it finds no timestamped line within
//! `walk_limit` bytes (1 MiB by default) in both directions of a probe, or no
//! line start at all (a line longer than `walk_limit`).
//!
//! # Comparing times
//!
//! * Fractional seconds are kept (up to nanoseconds).
//! * **Timezones**: when a log line and the bound both carry a UTC offset,
//!   they are compared in UTC. When only one of them does, the wall-clock
//!   values are compared as written. Epoch seconds (in the log, `@EPOCH`,
//!   and relative times) are UTC instants, so a zone-less bound against an
//!   epoch log means UTC, and a relative time against a zone-less log
//!   compares the log's wall clock with UTC.
//! * **Logs without a year** (syslog, vLLM, Android, Proxifier): times are
//!   compared by month, day and time. The log is taken to start in some year
//!   and to cover less than a year: a line whose month/day/time is more than
//!   one day earlier than the first timestamped line's is in the following
//!   year, so a log that runs from `Dec 31` into `Jan 1` stays in order. A
//!   year in the user's bound is ignored; the bound's month/day is put in the
//!   year that places it inside the log's span (the latest such, if several),
//!   else nearest to it. `Feb 29` is accepted.
//! * A bound with a date but no year (`Nov 29`, `11-29 22:33:01`) against a
//!   log with years gets a year the same way: the latest one that puts it
//!   inside the log's span (first to last timestamp), else the nearest.
//! * A time of day alone (`22:33`) takes the date of the log's last
//!   timestamp ("today in the log"), as written in the log.
//!
//! # Bounds the user can give ([`Bound::parse`])
//!
//! `2026-11-29`, `2026-11-29 22:33`, `2026-11-29T22:33:01Z`,
//! `2026-11-29 22:33:01.5+01:00`, `Nov 29 22:33:01`, `Nov 29`,
//! `11-29 22:33:01`, `22:33`, `22:33:01.250`, `@1700000000`, `now`,
//! `10m ago`, `2h ago`, `-30s`, `-1d` (units `s`, `m`, `h`, `d`, `w`, also
//! spelt out: `90 minutes ago`). A missing time is midnight, missing seconds
//! are `:00`. Offsets: `Z`, `UTC`, `+01:00`, `+0100`, `+01`.
//!
//! # Formats
//!
//! Auto-detection samples the first 200 lines (at most 64 KiB), counts the
//! lines each known format matches, and picks the format with the most
//! matches; ties go to the earlier entry in this list (formats with a year
//! first). Epoch seconds must match at least half of the sampled lines.
//!
//! | name | looks like | year | zone |
//! |---|---|---|---|
//! | ISO-8601 | `2015-10-18 18:01:47,978`, `2026-11-29T22:33:01.123Z`, `2017-05-16 00:00:00.008 +02:00`, anywhere in the line | yes | optional |
//! | Apache access | `[29/Nov/2026:22:33:01 +0000]` | yes | yes |
//! | ctime | `Sun Dec 04 04:47:44 2005` (Apache error log) | yes | no |
//! | epoch seconds | a whitespace-separated token of exactly 10 digits, `.frac` allowed | yes | UTC |
//! | syslog | `Nov 29 22:33:01`, `Jul  1 09:00:55`, `Nov 9 12:01:01` | no | no |
//! | month-day | `11-29 22:33:01`, `03-17 16:13:38.811` (vLLM, Android) | no | no |
//!
//! The ISO date must be followed by `T` or a space and a full `HH:MM:SS`, so
//! `nova-api.log.1.2017-05-16_13:53:08 2017-05-16 00:00:00.008` reads the
//! second one. Month-day is not taken inside a longer date (`2025-11-05`).
//!
//! Formats that would be ambiguous to guess (`17/06/09` is yy/mm/dd in Spark
//! but dd/mm/yy or mm/dd/yy elsewhere; `10.30` is month.day in Proxifier) are
//! read only with an explicit format. [`TimeFormat::parse`] takes a
//! strftime-like spec: `%Y` (4 digits), `%y` (2 digits, 69-99 = 19xx),
//! `%m`, `%d`, `%H`, `%I`, `%M`, `%S` (1 or 2 digits), `%e` (day, space
//! padded), `%b`/`%h`/`%B` (month name), `%a`/`%A` (weekday name, ignored),
//! `%p` (AM/PM), `%f` (fraction digits: `.5` is 500 ms), `%L` (milliseconds
//! as a number of 1-3 digits: `:11` is 11 ms), `%z` (`Z`, `+0100`,
//! `+01:00`), `%s` (epoch seconds, 9 or 10 digits), `%T` = `%H:%M:%S`,
//! `%F` = `%Y-%m-%d`, `%D` = `%m/%d/%y`, `%R` = `%H:%M`, `%%`. A space
//! matches one or more spaces or tabs; other characters match themselves. A
//! spec needs a month and a day, or `%s`; without a year the log is year-less.
//! A match is not taken inside a longer number.
//!
//! The 16 [loghub](https://github.com/logpai/loghub) 2k samples
//! (`tests/timewin.rs` checks every one against a line-by-line reference):
//!
//! | file | format | order (default slack) |
//! |---|---|---|
//! | Android | auto: month-day | ordered |
//! | Apache | auto: ctime | out of order by up to 2 s between neighbours: exact |
//! | BGL | auto: epoch seconds | ordered |
//! | HDFS | explicit `%y%m%d %H%M%S` | ordered |
//! | HPC | auto: epoch seconds | shuffled: of 80 test windows 49 `NotOrdered`, 22 right, 9 wrong without an error (the file is only 150 KB, 2.3 slacks, so few probe pairs are compared) |
//! | Hadoop | auto: ISO-8601 | ordered |
//! | HealthApp | explicit `%Y%m%d-%H:%M:%S:%L` | ordered |
//! | Linux | auto: syslog | 5 s of disorder between neighbours: exact |
//! | Mac | auto: syslog | one line 13 minutes early, near its neighbours: exact |
//! | OpenSSH | auto: syslog | ordered |
//! | OpenStack | auto: ISO-8601 | ordered |
//! | Proxifier | explicit `[%m.%d %H:%M:%S]` | ordered (Oct 30, then Jul 26 of the next year) |
//! | Spark | explicit `%y/%m/%d %H:%M:%S` | ordered |
//! | Thunderbird | auto: epoch seconds (its syslog time ties, epoch has the year) | ordered |
//! | Windows | auto: ISO-8601 | ordered |
//! | Zookeeper | auto: ISO-8601 | several runs concatenated: of 80 test windows 72 `NotOrdered`, 8 right |

mod bound;
mod calendar;
mod format;
#[cfg(test)]
mod tests;

pub use bound::{Bound, Cutoff};
pub use calendar::Stamp;
use calendar::*;
pub use format::TimeFormat;
use format::*;
use memchr::{memchr, memchr_iter, memrchr};
use std::fmt;
use std::time::{SystemTime, UNIX_EPOCH};

const DAY: i64 = 86_400;
/// Seconds added to a year-less stamp that is in the log's following year.
const YEAR: i64 = 366 * DAY;
/// The (leap) year year-less stamps are computed in.
const YEARLESS_BASE: i64 = 2000;
/// A timestamp must start within this many bytes of the line start.
const REACH: usize = 256;
/// ... and end within this many.
const LOOK: usize = 512;

// ---------------------------------------------------------------------------
// Window
// ---------------------------------------------------------------------------

/// Tuning for [`window_with`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WindowOptions {
    /// Lines whose starts are at most this many bytes apart may be out of
    /// time order; farther apart they must be in order (default 64 KiB).
    /// This much is read before each boundary. 0 means strictly ordered.
    pub slack_bytes: usize,
    /// How far (bytes) a probe walks over lines without a timestamp, in each
    /// direction, before giving up with [`WindowError::Sparse`] (default 1 MiB).
    pub walk_limit: usize,
}

impl Default for WindowOptions {
    fn default() -> Self {
        WindowOptions {
            slack_bytes: 64 * 1024,
            walk_limit: 1024 * 1024,
        }
    }
}

/// The lines of a log inside a time window: `hay[start..end]`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Window {
    /// Start of the first line in the window (a line start, or `hay.len()`).
    pub start: usize,
    /// End of the window: the start of the first line after it, or `hay.len()`.
    pub end: usize,
    /// Bytes the search read (probes, walks, the stretches before the
    /// boundaries), each byte counted once, for `--stats`. 0 when there was
    /// no bound.
    pub probed_bytes: u64,
    /// The byte ranges those reads covered (overlapping, unsorted).
    pub probed: Vec<(usize, usize)>,
    /// Lines whose timestamps the search read.
    pub probed_lines: u64,
    /// The first timestamp of the log (when a bound was given).
    pub first: Option<Stamp>,
    /// The last timestamp of the log (when a bound was given).
    pub last: Option<Stamp>,
    /// `--since` as resolved against this log.
    pub since: Option<Cutoff>,
    /// `--before` as resolved against this log.
    pub before: Option<Cutoff>,
}

/// Why no window could be found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum WindowError {
    /// No line of the log has a timestamp in the format.
    NoTimestamps,
    /// No timestamped line (or no line start) within `limit` bytes of
    /// `offset`, in both directions.
    Sparse {
        /// Where the search was looking.
        offset: usize,
        /// [`WindowOptions::walk_limit`].
        limit: usize,
    },
    /// Two lines that were read are out of time order (and farther apart
    /// than [`WindowOptions::slack_bytes`]).
    NotOrdered {
        /// Byte offset of the line that comes first in the file.
        earlier_at: usize,
        /// Its timestamp.
        earlier: Stamp,
        /// Byte offset of the line that comes later in the file, with an
        /// earlier time.
        later_at: usize,
        /// Its timestamp.
        later: Stamp,
    },
}

impl fmt::Display for WindowError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            WindowError::NoTimestamps => write!(
                f,
                "no line has a timestamp in this format; --since/--before need timestamped lines"
            ),
            WindowError::Sparse { offset, limit } => write!(
                f,
                "no timestamped line within {limit} bytes of byte {offset}; \
                 --since/--before need a timestamp at least every {limit} bytes"
            ),
            WindowError::NotOrdered {
                earlier_at,
                earlier,
                later_at,
                later,
            } => write!(
                f,
                "the log is not in time order: the line at byte {earlier_at} ({earlier}) \
                 comes before the line at byte {later_at} ({later}); \
                 --since/--before need a time-ordered log"
            ),
        }
    }
}

impl std::error::Error for WindowError {}

/// Where `s` falls on its log's timeline, as seconds and nanoseconds that
/// compare across logs (`--merge`): the UTC instant for a stamp with a UTC
/// offset, else the wall clock read as UTC. In a log without years (its
/// first stamp `first` has none) a stamp more than a day earlier than
/// `first` is in the following year, as for `--since`.
///
/// ```
/// use grail::timewin::{timeline_key, TimeFormat};
/// let f = TimeFormat::detect(b"Dec 31 23:59:00 a\n").unwrap();
/// let first = f.stamp(b"Dec 31 23:59:00 a").unwrap();
/// let next = f.stamp(b"Jan  1 00:00:01 b").unwrap();
/// assert!(timeline_key(&next, &first) > timeline_key(&first, &first));
/// ```
pub fn timeline_key(s: &Stamp, first: &Stamp) -> (i64, u32) {
    if first.yearless || s.yearless {
        (bound::unwrap(first.wall, s.wall), s.nanos)
    } else {
        (s.utc(), s.nanos)
    }
}

/// The lines of `hay` inside the time window, with the default
/// [`WindowOptions`]. Lines in `[start, end)` are those whose (effective)
/// timestamp `t` satisfies `since <= t < before`, by the rule in the
/// [module docs](super). With neither bound it is the whole of `hay`, read
/// without looking at a byte.
pub fn window(
    hay: &[u8],
    fmt: &TimeFormat,
    since: Option<&Bound>,
    before: Option<&Bound>,
) -> Result<Window, WindowError> {
    window_with(hay, fmt, since, before, &WindowOptions::default())
}

/// [`window`] with explicit options.
pub fn window_with(
    hay: &[u8],
    fmt: &TimeFormat,
    since: Option<&Bound>,
    before: Option<&Bound>,
    opts: &WindowOptions,
) -> Result<Window, WindowError> {
    let mut w = Window {
        start: 0,
        end: hay.len(),
        probed_bytes: 0,
        probed: Vec::new(),
        probed_lines: 0,
        first: None,
        last: None,
        since: None,
        before: None,
    };
    if since.is_none() && before.is_none() {
        return Ok(w);
    }
    let mut r = Reader {
        hay,
        fmt,
        limit: opts.walk_limit.max(1),
        slack: opts.slack_bytes,
        ranges: Vec::new(),
        lines: 0,
    };
    let res = (|| {
        let first = r.first_stamped()?;
        let last = r.last_stamped(first)?;
        w.first = Some(first.1);
        w.last = Some(last.1);
        w.since = since.map(|b| b.resolve(fmt, &first.1, &last.1));
        w.before = before.map(|b| b.resolve(fmt, &first.1, &last.1));
        if let Some(c) = &w.since {
            w.start = r.first_reaching(c, 0, first, last)?;
        }
        if let Some(c) = &w.before {
            w.end = if w.start >= hay.len() {
                hay.len()
            } else {
                r.first_reaching(c, w.start, first, last)?
            };
        }
        Ok(())
    })();
    w.probed_bytes = crate::scan::union_len(&r.ranges);
    w.probed = r.ranges;
    w.probed_lines = r.lines;
    res.map(|()| w)
}

/// A line read by the search: (start, stamp).
type Seen = (usize, Stamp);

enum Walk {
    /// A timestamped line.
    Found(Seen),
    /// Reached the stop position without one.
    Reached,
    /// Gave up at this line start, after `limit` bytes without one.
    Limit(usize),
}

struct Reader<'a> {
    hay: &'a [u8],
    fmt: &'a TimeFormat,
    limit: usize,
    slack: usize,
    /// What was read, range by range.
    ranges: Vec<(usize, usize)>,
    lines: u64,
}

/// Observed lines, checked pairwise: farther apart than the slack, their
/// times must not go backwards.
struct Order<'c> {
    cut: &'c Cutoff,
    slack: usize,
    seen: Vec<Seen>,
}

impl Order<'_> {
    fn check(&self, at: usize, st: &Stamp) -> Result<(), WindowError> {
        let k = self.cut.key(st);
        for &(p, ps) in &self.seen {
            let pk = self.cut.key(&ps);
            if p < at && at - p > self.slack && pk > k {
                return Err(not_ordered((p, ps), (at, *st)));
            }
            if at < p && p - at > self.slack && k > pk {
                return Err(not_ordered((at, *st), (p, ps)));
            }
        }
        Ok(())
    }
    fn see(&mut self, s: Seen) -> Result<(), WindowError> {
        self.check(s.0, &s.1)?;
        self.seen.push(s);
        Ok(())
    }
}

fn not_ordered(a: Seen, b: Seen) -> WindowError {
    WindowError::NotOrdered {
        earlier_at: a.0,
        earlier: a.1,
        later_at: b.0,
        later: b.1,
    }
}

impl Reader<'_> {
    /// The stamp of the line starting at `start` (reads at most its first
    /// 512 bytes).
    fn stamp_at(&mut self, start: usize) -> Option<Stamp> {
        let cap = self.hay.len().min(start + LOOK);
        let seg = &self.hay[start..cap];
        let end = memchr(b'\n', seg).unwrap_or(seg.len());
        self.ranges
            .push((start, (start + end + 1).min(self.hay.len())));
        self.lines += 1;
        self.fmt.stamp(&seg[..end])
    }

    /// The start of the line after the one at `start`, or `hay.len()`;
    /// `None` if no `\n` within `cap` (exclusive end of the look).
    fn next_start(&mut self, start: usize, cap: usize) -> Option<usize> {
        let len = self.hay.len();
        let cap = cap.min(len);
        if start >= cap {
            return (cap >= len).then_some(len);
        }
        match memchr(b'\n', &self.hay[start..cap]) {
            Some(p) => {
                self.ranges.push((start + LOOK.min(p), start + p));
                Some(start + p + 1)
            }
            None if cap >= len => Some(len),
            None => None,
        }
    }

    /// Walks forward from line start `x` to the first timestamped line
    /// before `stop`.
    fn forward(&mut self, x: usize, stop: usize) -> Walk {
        let mut p = x;
        while p < stop {
            if let Some(st) = self.stamp_at(p) {
                return Walk::Found((p, st));
            }
            if p - x > self.limit {
                return Walk::Limit(p);
            }
            match self.next_start(p, x.saturating_add(self.limit).saturating_add(1).max(p + 1)) {
                Some(n) => p = n,
                None => return Walk::Limit(p),
            }
        }
        Walk::Reached
    }

    /// The start of the line that ends just before line start `p` (> `stop`),
    /// or `stop`; `None` if that line is longer than the walk limit.
    fn prev_start(&mut self, p: usize, stop: usize, floor: usize) -> Option<usize> {
        let lo = stop.max(floor);
        let hi = p - 1; // the '\n' ending the previous line (or the last byte)
        if lo > hi {
            return None;
        }
        match memrchr(b'\n', &self.hay[lo..hi]) {
            Some(q) => {
                self.ranges.push((lo + q, hi));
                Some(lo + q + 1)
            }
            None if lo == stop => {
                self.ranges.push((lo, hi));
                Some(stop)
            }
            None => None,
        }
    }

    /// Walks backward from line start `x` to the last timestamped line at or
    /// after `stop` (a line start).
    fn backward(&mut self, x: usize, stop: usize) -> Walk {
        let floor = x.saturating_sub(self.limit);
        let mut p = x;
        while p > stop {
            let Some(q) = self.prev_start(p, stop, floor) else {
                return Walk::Limit(p);
            };
            if let Some(st) = self.stamp_at(q) {
                return Walk::Found((q, st));
            }
            p = q;
        }
        Walk::Reached
    }

    fn first_stamped(&mut self) -> Result<Seen, WindowError> {
        match self.forward(0, self.hay.len()) {
            Walk::Found(s) => Ok(s),
            Walk::Reached => Err(WindowError::NoTimestamps),
            Walk::Limit(_) => Err(WindowError::Sparse {
                offset: 0,
                limit: self.limit,
            }),
        }
    }

    fn last_stamped(&mut self, first: Seen) -> Result<Seen, WindowError> {
        match self.backward(self.hay.len(), first.0) {
            Walk::Found(s) => Ok(s),
            Walk::Reached => Ok(first),
            Walk::Limit(p) => Err(WindowError::Sparse {
                offset: p,
                limit: self.limit,
            }),
        }
    }

    /// A line start in `[left, right)` near `mid` (`left <= mid < right`).
    fn start_near(&mut self, mid: usize, left: usize, right: usize) -> Result<usize, WindowError> {
        if mid == left {
            return Ok(left);
        }
        let lo = left.max(mid.saturating_sub(self.limit));
        if let Some(q) = memrchr(b'\n', &self.hay[lo..mid]) {
            self.ranges.push((lo + q, mid));
            return Ok(lo + q + 1);
        }
        self.ranges.push((lo, mid));
        if lo == left {
            return Ok(left);
        }
        let hi = right.min(mid.saturating_add(self.limit));
        match memchr(b'\n', &self.hay[mid..hi]) {
            Some(q) if mid + q + 1 < right => {
                self.ranges.push((mid, mid + q + 1));
                Ok(mid + q + 1)
            }
            _ => Err(WindowError::Sparse {
                offset: mid,
                limit: self.limit,
            }),
        }
    }

    /// The first timestamped line at or after line start `from` whose stamp
    /// reaches the cutoff, or `hay.len()`.
    fn first_reaching(
        &mut self,
        cut: &Cutoff,
        from: usize,
        first: Seen,
        last: Seen,
    ) -> Result<usize, WindowError> {
        let len = self.hay.len();
        let t = (cut.secs, cut.nanos);
        let mut order = Order {
            cut,
            slack: self.slack,
            seen: Vec::with_capacity(80),
        };
        order.see(first)?;
        if last.0 != first.0 {
            order.see(last)?;
        }
        if from <= first.0 && cut.key(&first.1) >= t {
            return Ok(first.0);
        }
        let (mut left, mut right) = (from, len);
        let mut hi = len;
        let mut lo: Option<usize> = None;
        while left < right {
            let (was_left, was_right) = (left, right);
            let mid = left + (right - left) / 2;
            let x = self.start_near(mid, left, right)?;
            match self.forward(x, right) {
                Walk::Found(s) => {
                    order.see(s)?;
                    if cut.key(&s.1) >= t {
                        right = x;
                        hi = s.0;
                    } else {
                        lo = Some(s.0);
                        left = self.next_start(s.0, right).unwrap_or(right);
                    }
                }
                Walk::Reached => right = x,
                Walk::Limit(w) => match self.backward(x, left) {
                    Walk::Found(s) => {
                        order.see(s)?;
                        if cut.key(&s.1) >= t {
                            right = s.0;
                            hi = s.0;
                        } else {
                            lo = Some(s.0);
                            left = w;
                        }
                    }
                    Walk::Reached => left = w,
                    Walk::Limit(_) => {
                        return Err(WindowError::Sparse {
                            offset: x,
                            limit: self.limit,
                        })
                    }
                },
            }
            if (left, right) == (was_left, was_right) {
                // only a line longer than the walk limit without a stamp
                return Err(WindowError::Sparse {
                    offset: x,
                    limit: self.limit,
                });
            }
        }
        // Lines within the slack before the last line below the cutoff may
        // still reach it: the first of them wins.
        if let Some(l) = lo {
            if self.slack > 0 {
                let lower = from.max(l.saturating_sub(self.slack));
                let mut p = if lower == from || self.hay[lower - 1] == b'\n' {
                    lower
                } else {
                    self.next_start(lower, l).unwrap_or(l)
                };
                while p < l {
                    if let Some(st) = self.stamp_at(p) {
                        order.check(p, &st)?;
                        if cut.key(&st) >= t {
                            return Ok(p);
                        }
                    }
                    p = self.next_start(p, len).unwrap_or(len);
                }
            }
        }
        Ok(hi)
    }
}
