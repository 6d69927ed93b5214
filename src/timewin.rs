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
// Calendar
// ---------------------------------------------------------------------------

fn days_from_civil(y: i64, m: u32, d: u32) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = if y >= 0 { y } else { y - 399 } / 400;
    let yoe = y - era * 400;
    let mp = i64::from((m + 9) % 12);
    let doy = (153 * mp + 2) / 5 + i64::from(d) - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = if z >= 0 { z } else { z - 146_096 } / 146_097;
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400;
    (if m <= 2 { y + 1 } else { y }, m, d)
}

fn is_leap(y: i64) -> bool {
    (y % 4 == 0 && y % 100 != 0) || y % 400 == 0
}

fn days_in_month(y: i64, m: u32) -> u32 {
    match m {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if is_leap(y) => 29,
        2 => 28,
        _ => 0,
    }
}

/// Month and day valid (in year `y`, or in some leap year when there is none).
fn valid_date(y: Option<i64>, m: u32, d: u32) -> bool {
    (1..=12).contains(&m) && d >= 1 && d <= days_in_month(y.unwrap_or(YEARLESS_BASE), m)
}

fn valid_time(h: u32, mi: u32, s: u32) -> bool {
    h <= 23 && mi <= 59 && s <= 60
}

const MONTHS: [&str; 12] = [
    "jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec",
];
const MONTHS_FULL: [&str; 12] = [
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
];
const WEEKDAYS: [&str; 7] = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"];
const WEEKDAYS_FULL: [&str; 7] = [
    "monday",
    "tuesday",
    "wednesday",
    "thursday",
    "friday",
    "saturday",
    "sunday",
];

/// Exact-case three-letter month (`Jan`) at `b[i..]`.
fn month_abbr_exact(b: &[u8], i: usize) -> Option<u32> {
    let w = b.get(i..i + 3)?;
    if !w[0].is_ascii_uppercase() || !w[1].is_ascii_lowercase() || !w[2].is_ascii_lowercase() {
        return None;
    }
    MONTHS
        .iter()
        .position(|m| m.as_bytes().eq_ignore_ascii_case(w))
        .map(|p| p as u32 + 1)
}

fn weekday_abbr_exact(b: &[u8], i: usize) -> bool {
    match b.get(i..i + 3) {
        Some(w) if w[0].is_ascii_uppercase() && w[1].is_ascii_lowercase() => WEEKDAYS
            .iter()
            .any(|d| d.as_bytes().eq_ignore_ascii_case(w)),
        _ => false,
    }
}

// ---------------------------------------------------------------------------
// Stamp
// ---------------------------------------------------------------------------

/// A point in time as read from a log line. Comparable ([`Ord`]): stamps
/// with a UTC offset compare by their UTC instant, stamps without one by their
/// wall clock (as if it were UTC). Year-less stamps (syslog, vLLM) compare by
/// month, day and time only; [`window`] additionally puts year-less stamps
/// that are earlier than the log's first line into the following year.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Stamp {
    /// Seconds since 1970-01-01 of the wall clock as written (year 2000 when
    /// there is no year).
    wall: i64,
    nanos: u32,
    /// Seconds east of UTC.
    offset: Option<i32>,
    yearless: bool,
}

impl Stamp {
    fn civil(
        y: Option<i64>,
        mo: u32,
        d: u32,
        secs_of_day: i64,
        nanos: u32,
        off: Option<i32>,
    ) -> Stamp {
        Stamp {
            wall: days_from_civil(y.unwrap_or(YEARLESS_BASE), mo, d) * DAY + secs_of_day,
            nanos,
            offset: off,
            yearless: y.is_none(),
        }
    }

    fn instant(secs: i64, nanos: u32) -> Stamp {
        Stamp {
            wall: secs,
            nanos,
            offset: Some(0),
            yearless: false,
        }
    }

    fn utc(&self) -> i64 {
        self.wall - i64::from(self.offset.unwrap_or(0))
    }

    /// Whether the stamp carries a year (false for syslog, vLLM, Android...).
    pub fn has_year(&self) -> bool {
        !self.yearless
    }

    /// The UTC offset written in the log (seconds east of UTC); epoch
    /// seconds have offset 0.
    pub fn offset_seconds(&self) -> Option<i32> {
        self.offset
    }

    /// Seconds since the Unix epoch: the UTC instant when the stamp has an
    /// offset, else the wall clock read as UTC; `None` without a year.
    pub fn unix_seconds(&self) -> Option<i64> {
        (!self.yearless).then(|| self.utc())
    }

    /// Fractional part of the second, in nanoseconds.
    pub fn subsec_nanos(&self) -> u32 {
        self.nanos
    }
}

impl Ord for Stamp {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        (
            self.utc(),
            self.nanos,
            self.wall,
            self.offset,
            self.yearless,
        )
            .cmp(&(
                other.utc(),
                other.nanos,
                other.wall,
                other.offset,
                other.yearless,
            ))
    }
}

impl PartialOrd for Stamp {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

fn write_frac(f: &mut fmt::Formatter<'_>, nanos: u32) -> fmt::Result {
    if nanos == 0 {
        return Ok(());
    }
    let s = format!("{nanos:09}");
    write!(f, ".{}", s.trim_end_matches('0'))
}

fn write_offset(f: &mut fmt::Formatter<'_>, off: i32) -> fmt::Result {
    if off == 0 {
        return write!(f, "Z");
    }
    let sign = if off < 0 { '-' } else { '+' };
    let a = off.unsigned_abs();
    write!(f, "{sign}{:02}:{:02}", a / 3600, a / 60 % 60)
}

/// Writes `secs` (wall seconds) as `YYYY-MM-DD HH:MM:SS` or, year-less, `MM-DD HH:MM:SS`.
fn write_wall(f: &mut fmt::Formatter<'_>, secs: i64, nanos: u32, yearless: bool) -> fmt::Result {
    let (y, m, d) = civil_from_days(secs.div_euclid(DAY));
    let t = secs.rem_euclid(DAY);
    if yearless {
        write!(f, "{m:02}-{d:02} ")?;
    } else {
        write!(f, "{y:04}-{m:02}-{d:02} ")?;
    }
    write!(f, "{:02}:{:02}:{:02}", t / 3600, t / 60 % 60, t % 60)?;
    write_frac(f, nanos)
}

/// `2026-11-29 22:33:01.5+01:00`, `2005-06-03 22:42:50Z` (epoch seconds), or
/// `11-29 22:33:01` without a year; [`Bound::parse`] reads all of them back.
impl fmt::Display for Stamp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_wall(f, self.wall, self.nanos, self.yearless)?;
        match self.offset {
            Some(o) => write_offset(f, o),
            None => Ok(()),
        }
    }
}

// ---------------------------------------------------------------------------
// A small cursor for parsing
// ---------------------------------------------------------------------------

struct Cur<'a> {
    b: &'a [u8],
    i: usize,
}

impl<'a> Cur<'a> {
    fn new(b: &'a [u8], i: usize) -> Self {
        Cur { b, i }
    }
    fn peek(&self) -> Option<u8> {
        self.b.get(self.i).copied()
    }
    fn peek_at(&self, k: usize) -> Option<u8> {
        self.b.get(self.i + k).copied()
    }
    fn digit_at(&self, k: usize) -> bool {
        self.peek_at(k).is_some_and(|c| c.is_ascii_digit())
    }
    fn eat(&mut self, c: u8) -> bool {
        if self.peek() == Some(c) {
            self.i += 1;
            true
        } else {
            false
        }
    }
    fn lit(&mut self, c: u8) -> Option<()> {
        self.eat(c).then_some(())
    }
    fn at_end(&self) -> bool {
        self.i >= self.b.len()
    }
    /// Exactly `n` digits.
    fn fixed(&mut self, n: usize) -> Option<u32> {
        let w = self.b.get(self.i..self.i + n)?;
        let mut v = 0u32;
        for &c in w {
            if !c.is_ascii_digit() {
                return None;
            }
            v = v * 10 + u32::from(c - b'0');
        }
        self.i += n;
        Some(v)
    }
    /// 1 to `max` digits, greedy.
    fn upto(&mut self, max: usize) -> Option<u32> {
        let mut v = 0u32;
        let mut n = 0;
        while n < max && self.digit_at(0) {
            v = v * 10 + u32::from(self.b[self.i] - b'0');
            self.i += 1;
            n += 1;
        }
        (n > 0).then_some(v)
    }
    /// The whole run of digits (at least one), as (value, count); the value
    /// saturates.
    fn run(&mut self) -> Option<(u64, usize)> {
        let mut v = 0u64;
        let mut n = 0;
        while self.digit_at(0) {
            v = v
                .saturating_mul(10)
                .saturating_add(u64::from(self.b[self.i] - b'0'));
            self.i += 1;
            n += 1;
        }
        (n > 0).then_some((v, n))
    }
    /// Fraction digits (at least one) as nanoseconds; digits past the ninth
    /// are read and ignored.
    fn frac(&mut self) -> Option<u32> {
        let mut v = 0u32;
        let mut n = 0;
        while self.digit_at(0) {
            if n < 9 {
                v = v * 10 + u32::from(self.b[self.i] - b'0');
            }
            self.i += 1;
            n += 1;
        }
        if n == 0 {
            return None;
        }
        for _ in n..9 {
            v *= 10;
        }
        Some(v)
    }
    /// `[.,]digits` if present.
    fn opt_frac(&mut self) -> u32 {
        if matches!(self.peek(), Some(b'.' | b',')) && self.digit_at(1) {
            self.i += 1;
            self.frac().unwrap_or(0)
        } else {
            0
        }
    }
    /// `HH:MM:SS` with two-digit fields.
    fn hms2(&mut self) -> Option<(u32, u32, u32)> {
        let h = self.fixed(2)?;
        self.lit(b':')?;
        let m = self.fixed(2)?;
        self.lit(b':')?;
        let s = self.fixed(2)?;
        valid_time(h, m, s).then_some((h, m, s))
    }
    fn spaces(&mut self) -> usize {
        let s = self.i;
        while matches!(self.peek(), Some(b' ' | b'\t')) {
            self.i += 1;
        }
        self.i - s
    }
    /// A numeric UTC offset `±HH`, `±HHMM` or `±HH:MM`; `Z` when `z`.
    fn zone(&mut self, z: bool) -> Option<i32> {
        let save = self.i;
        if z && (self.eat(b'Z') || self.eat(b'z')) {
            return Some(0);
        }
        let sign = match self.peek() {
            Some(b'+') => 1,
            Some(b'-') => -1,
            _ => return None,
        };
        self.i += 1;
        let r = (|| {
            let h = self.fixed(2)?;
            let m = if self.digit_at(0) {
                self.fixed(2)?
            } else if self.peek() == Some(b':') && self.digit_at(1) {
                self.i += 1;
                self.fixed(2)?
            } else {
                0
            };
            if self.digit_at(0) || h > 23 || m > 59 {
                return None;
            }
            Some(sign * (h as i32 * 3600 + m as i32 * 60))
        })();
        if r.is_none() {
            self.i = save;
        }
        r
    }
    /// A month name (full or three letters, any case).
    fn month_name(&mut self) -> Option<u32> {
        let rest = self.b.get(self.i..)?;
        for (k, full) in MONTHS_FULL.iter().enumerate() {
            if rest.len() >= full.len() && rest[..full.len()].eq_ignore_ascii_case(full.as_bytes())
            {
                self.i += full.len();
                return Some(k as u32 + 1);
            }
        }
        let w = rest.get(..3)?;
        let k = MONTHS
            .iter()
            .position(|m| m.as_bytes().eq_ignore_ascii_case(w))?;
        self.i += 3;
        Some(k as u32 + 1)
    }
    fn weekday_name(&mut self) -> Option<()> {
        let rest = self.b.get(self.i..)?;
        for full in WEEKDAYS_FULL {
            if rest.len() >= full.len() && rest[..full.len()].eq_ignore_ascii_case(full.as_bytes())
            {
                self.i += full.len();
                return Some(());
            }
        }
        let w = rest.get(..3)?;
        WEEKDAYS
            .iter()
            .any(|d| d.as_bytes().eq_ignore_ascii_case(w))
            .then(|| self.i += 3)
    }
}

// ---------------------------------------------------------------------------
// Built-in formats
// ---------------------------------------------------------------------------

fn reach(line: &[u8], extra: usize) -> &[u8] {
    &line[..line.len().min(REACH + extra)]
}

fn hms_secs(h: u32, m: u32, s: u32) -> i64 {
    i64::from(h) * 3600 + i64::from(m) * 60 + i64::from(s)
}

/// `YYYY-MM-DD[T ]HH:MM:SS[.frac][Z|±HH:MM|±HHMM| ±HHMM]`
fn iso(line: &[u8]) -> Option<Stamp> {
    for i in memchr_iter(b'-', reach(line, 4)) {
        let Some(s) = i.checked_sub(4) else { continue };
        if s > 0 && line[s - 1].is_ascii_digit() {
            continue;
        }
        if let Some(st) = iso_at(line, s) {
            return Some(st);
        }
    }
    None
}

fn iso_at(line: &[u8], s: usize) -> Option<Stamp> {
    let mut c = Cur::new(line, s);
    let y = c.fixed(4)?;
    c.lit(b'-')?;
    let mo = c.fixed(2)?;
    c.lit(b'-')?;
    let d = c.fixed(2)?;
    if !(c.eat(b'T') || c.eat(b' ')) {
        return None;
    }
    let (h, mi, sec) = c.hms2()?;
    let nanos = c.opt_frac();
    if c.digit_at(0) {
        return None;
    }
    let mut off = c.zone(true);
    if off.is_none() && c.peek() == Some(b' ') && matches!(c.peek_at(1), Some(b'+' | b'-')) {
        let save = c.i;
        c.i += 1;
        off = c.zone(false);
        // a bare " -05" is too likely to be text
        if off.is_some() && c.i - save < 6 {
            off = None;
        }
        if off.is_some() && c.peek().is_some_and(|b| b.is_ascii_alphanumeric()) {
            off = None;
        }
    }
    let y = i64::from(y);
    if !valid_date(Some(y), mo, d) {
        return None;
    }
    Some(Stamp::civil(
        Some(y),
        mo,
        d,
        hms_secs(h, mi, sec),
        nanos,
        off,
    ))
}

/// `MM-DD HH:MM:SS[.frac]` (vLLM, Android), not inside a longer date.
fn month_day(line: &[u8]) -> Option<Stamp> {
    for i in memchr_iter(b'-', reach(line, 2)) {
        let Some(s) = i.checked_sub(2) else { continue };
        if s > 0 && matches!(line[s - 1], b'0'..=b'9' | b'-' | b':' | b'/' | b'.') {
            continue;
        }
        let mut c = Cur::new(line, s);
        let r = (|| {
            let mo = c.fixed(2)?;
            c.lit(b'-')?;
            let d = c.fixed(2)?;
            c.lit(b' ')?;
            yearless_time(&mut c, mo, d)
        })();
        if r.is_some() {
            return r;
        }
    }
    None
}

/// `HH:MM:SS[.frac]` after a year-less date, ending the stamp.
fn yearless_time(c: &mut Cur<'_>, mo: u32, d: u32) -> Option<Stamp> {
    let (h, mi, sec) = c.hms2()?;
    let nanos = c.opt_frac();
    if c.digit_at(0) || !valid_date(None, mo, d) {
        return None;
    }
    Some(Stamp::civil(None, mo, d, hms_secs(h, mi, sec), nanos, None))
}

/// Day of month after a month name: ` 1`, `01`, `1`, `12`.
fn syslog_day(c: &mut Cur<'_>) -> Option<u32> {
    if c.eat(b' ') {
        // "Jul  1"
        let d = c.fixed(1)?;
        return (!c.digit_at(0)).then_some(d);
    }
    c.upto(2)
}

/// `Mon D HH:MM:SS[.frac]` with the day space-padded or not.
fn syslog(line: &[u8]) -> Option<Stamp> {
    let r = reach(line, 0);
    for i in 0..r.len() {
        if !r[i].is_ascii_uppercase() || (i > 0 && line[i - 1].is_ascii_alphanumeric()) {
            continue;
        }
        let Some(mo) = month_abbr_exact(line, i) else {
            continue;
        };
        let mut c = Cur::new(line, i + 3);
        let st = (|| {
            c.lit(b' ')?;
            let d = syslog_day(&mut c)?;
            c.lit(b' ')?;
            yearless_time(&mut c, mo, d)
        })();
        if st.is_some() {
            return st;
        }
    }
    None
}

/// `Www Mon DD HH:MM:SS[.frac] YYYY` (C `ctime`, Apache error log).
fn ctime(line: &[u8]) -> Option<Stamp> {
    let r = reach(line, 0);
    for i in 0..r.len() {
        if !r[i].is_ascii_uppercase() || (i > 0 && line[i - 1].is_ascii_alphanumeric()) {
            continue;
        }
        if !weekday_abbr_exact(line, i) {
            continue;
        }
        let mut c = Cur::new(line, i + 3);
        let st = (|| {
            c.lit(b' ')?;
            let mo = month_abbr_exact(line, c.i)?;
            c.i += 3;
            c.lit(b' ')?;
            let d = syslog_day(&mut c)?;
            c.lit(b' ')?;
            let (h, mi, sec) = c.hms2()?;
            let nanos = c.opt_frac();
            c.lit(b' ')?;
            let y = i64::from(c.fixed(4)?);
            if c.digit_at(0) || !valid_date(Some(y), mo, d) {
                return None;
            }
            Some(Stamp::civil(
                Some(y),
                mo,
                d,
                hms_secs(h, mi, sec),
                nanos,
                None,
            ))
        })();
        if st.is_some() {
            return st;
        }
    }
    None
}

/// `DD/Mon/YYYY:HH:MM:SS[ ±HHMM]` (Apache/nginx access log).
fn apache_access(line: &[u8]) -> Option<Stamp> {
    for i in memchr_iter(b'/', reach(line, 2)) {
        let Some(s) = i.checked_sub(2) else { continue };
        if s > 0 && line[s - 1].is_ascii_digit() {
            continue;
        }
        let mut c = Cur::new(line, s);
        let st = (|| {
            let d = c.fixed(2)?;
            c.lit(b'/')?;
            let mo = month_abbr_exact(line, c.i)?;
            c.i += 3;
            c.lit(b'/')?;
            let y = i64::from(c.fixed(4)?);
            c.lit(b':')?;
            let (h, mi, sec) = c.hms2()?;
            let nanos = c.opt_frac();
            if c.digit_at(0) || !valid_date(Some(y), mo, d) {
                return None;
            }
            let off = if c.peek() == Some(b' ') {
                c.i += 1;
                c.zone(false)
            } else {
                None
            };
            Some(Stamp::civil(
                Some(y),
                mo,
                d,
                hms_secs(h, mi, sec),
                nanos,
                off,
            ))
        })();
        if st.is_some() {
            return st;
        }
    }
    None
}

fn is_blank(c: u8) -> bool {
    matches!(c, b' ' | b'\t' | b'\r')
}

/// A whitespace-separated token of exactly 10 digits, `.frac` allowed.
fn epoch(line: &[u8]) -> Option<Stamp> {
    let r = reach(line, 0);
    let mut i = 0;
    while i < r.len() {
        if !r[i].is_ascii_digit() || (i > 0 && !is_blank(line[i - 1])) {
            i += 1;
            continue;
        }
        let mut c = Cur::new(line, i);
        let (v, n) = c.run()?;
        let nanos = if c.peek() == Some(b'.') && c.digit_at(1) {
            c.i += 1;
            c.frac().unwrap_or(0)
        } else {
            0
        };
        if n == 10 && (c.at_end() || c.peek().is_some_and(is_blank)) {
            return Some(Stamp::instant(v as i64, nanos));
        }
        i = c.i.max(i + 1);
    }
    None
}

// ---------------------------------------------------------------------------
// Explicit formats
// ---------------------------------------------------------------------------

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Item {
    Lit(u8),
    Space,
    Year4,
    Year2,
    Month,
    MonthName,
    Day,
    DaySpace,
    Weekday,
    Hour,
    Hour12,
    AmPm,
    Minute,
    Second,
    Frac,
    Millis,
    Zone,
    Epoch,
}

impl Item {
    fn numeric(self) -> bool {
        !matches!(
            self,
            Item::Lit(_) | Item::Space | Item::MonthName | Item::Weekday | Item::AmPm | Item::Zone
        )
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
struct Spec {
    text: String,
    items: Vec<Item>,
    has_year: bool,
    epoch: bool,
}

impl Spec {
    fn parse(spec: &str) -> Result<Spec, String> {
        if spec.trim().is_empty() {
            return Err("empty time format".to_string());
        }
        let mut items = Vec::new();
        let b = spec.as_bytes();
        let mut i = 0;
        while i < b.len() {
            let c = b[i];
            i += 1;
            if c == b' ' || c == b'\t' {
                if items.last() != Some(&Item::Space) {
                    items.push(Item::Space);
                }
                continue;
            }
            if c != b'%' {
                items.push(Item::Lit(c));
                continue;
            }
            let Some(&d) = b.get(i) else {
                return Err(format!("time format '{spec}' ends with a lone '%'"));
            };
            i += 1;
            use Item::*;
            let add: &[Item] = match d {
                b'Y' => &[Year4],
                b'y' => &[Year2],
                b'm' => &[Month],
                b'b' | b'h' | b'B' => &[MonthName],
                b'd' => &[Day],
                b'e' => &[DaySpace],
                b'a' | b'A' => &[Weekday],
                b'H' => &[Hour],
                b'I' => &[Hour12],
                b'p' => &[AmPm],
                b'M' => &[Minute],
                b'S' => &[Second],
                b'f' => &[Frac],
                b'L' => &[Millis],
                b'z' => &[Zone],
                b's' => &[Epoch],
                b'T' => &[Hour, Lit(b':'), Minute, Lit(b':'), Second],
                b'R' => &[Hour, Lit(b':'), Minute],
                b'F' => &[Year4, Lit(b'-'), Month, Lit(b'-'), Day],
                b'D' => &[Month, Lit(b'/'), Day, Lit(b'/'), Year2],
                b'%' => &[Lit(b'%')],
                b'n' | b't' => &[Space],
                _ => {
                    let ch = spec[i - 1..].chars().next().unwrap_or('?');
                    return Err(format!(
                        "unsupported directive '%{ch}' in time format '{spec}' \
                         (supported: %Y %y %m %d %e %b %B %h %a %A %H %I %p %M %S %f %L %z %s %T %R %F %D %%)"
                    ));
                }
            };
            for &it in add {
                if it == Space && items.last() == Some(&Space) {
                    continue;
                }
                items.push(it);
            }
        }
        let has = |f: &dyn Fn(&Item) -> bool| items.iter().any(f);
        let epoch = has(&|i| *i == Item::Epoch);
        let month = has(&|i| matches!(i, Item::Month | Item::MonthName));
        let day = has(&|i| matches!(i, Item::Day | Item::DaySpace));
        if !(epoch || (month && day)) {
            return Err(format!(
                "time format '{spec}' needs a date: a month (%m or %b) and a day (%d or %e), or %s"
            ));
        }
        if has(&|i| *i == Item::Hour12) != has(&|i| *i == Item::AmPm) {
            return Err(format!("time format '{spec}': %I and %p go together"));
        }
        let has_year = has(&|i| matches!(i, Item::Year4 | Item::Year2));
        Ok(Spec {
            text: spec.to_string(),
            items,
            has_year,
            epoch,
        })
    }

    fn stamp(&self, line: &[u8]) -> Option<Stamp> {
        let first = *self.items.first()?;
        let r = reach(line, 0).len();
        for s in 0..r {
            match first {
                Item::Lit(c) if line[s] != c => continue,
                it if it.numeric() && s > 0 && line[s - 1].is_ascii_digit() => continue,
                _ => {}
            }
            if let Some(st) = self.stamp_at(line, s) {
                return Some(st);
            }
        }
        None
    }

    fn stamp_at(&self, line: &[u8], s: usize) -> Option<Stamp> {
        let mut c = Cur::new(line, s);
        let (mut y, mut mo, mut d) = (None, 1, 1);
        let (mut h, mut mi, mut sec, mut nanos) = (0, 0, 0, 0);
        let (mut pm, mut off, mut ep) = (None, None, None);
        for &it in &self.items {
            match it {
                Item::Lit(b) => c.lit(b)?,
                Item::Space => {
                    if c.spaces() == 0 {
                        return None;
                    }
                }
                Item::Year4 => y = Some(i64::from(c.fixed(4)?)),
                Item::Year2 => {
                    let v = i64::from(c.fixed(2)?);
                    y = Some(if v < 69 { 2000 + v } else { 1900 + v });
                }
                Item::Month => mo = c.upto(2)?,
                Item::MonthName => mo = c.month_name()?,
                Item::Day => d = c.upto(2)?,
                Item::DaySpace => {
                    if c.peek() == Some(b' ') && c.digit_at(1) {
                        c.i += 1;
                    }
                    d = c.upto(2)?;
                }
                Item::Weekday => c.weekday_name()?,
                Item::Hour | Item::Hour12 => h = c.upto(2)?,
                Item::AmPm => {
                    let w = c.b.get(c.i..c.i + 2)?;
                    pm = Some(if w.eq_ignore_ascii_case(b"pm") {
                        true
                    } else if w.eq_ignore_ascii_case(b"am") {
                        false
                    } else {
                        return None;
                    });
                    c.i += 2;
                }
                Item::Minute => mi = c.upto(2)?,
                Item::Second => sec = c.upto(2)?,
                Item::Frac => nanos = c.frac()?,
                Item::Millis => nanos = c.upto(3)? * 1_000_000,
                Item::Zone => off = Some(c.zone(true)?),
                Item::Epoch => {
                    let (v, n) = c.run()?;
                    if !(9..=10).contains(&n) {
                        return None;
                    }
                    ep = Some(v as i64);
                }
            }
        }
        if self.items.last().is_some_and(|i| i.numeric()) && c.digit_at(0) {
            return None;
        }
        if let Some(e) = ep {
            return Some(Stamp::instant(e, nanos));
        }
        if let Some(p) = pm {
            if !(1..=12).contains(&h) {
                return None;
            }
            h = h % 12 + if p { 12 } else { 0 };
        }
        if !valid_time(h, mi, sec) || !valid_date(y, mo, d) {
            return None;
        }
        Some(Stamp::civil(y, mo, d, hms_secs(h, mi, sec), nanos, off))
    }
}

// ---------------------------------------------------------------------------
// TimeFormat
// ---------------------------------------------------------------------------

#[derive(Clone, Debug, PartialEq, Eq)]
enum Kind {
    Iso,
    ApacheAccess,
    Ctime,
    Epoch,
    Syslog,
    MonthDay,
    Explicit(Spec),
}

/// The built-in formats in detection priority order.
const AUTO: [Kind; 6] = [
    Kind::Iso,
    Kind::ApacheAccess,
    Kind::Ctime,
    Kind::Epoch,
    Kind::Syslog,
    Kind::MonthDay,
];

/// A timestamp format: auto-detected ([`TimeFormat::detect`]) or explicit
/// ([`TimeFormat::parse`]). See the [module docs](self) for the formats.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TimeFormat {
    kind: Kind,
}

impl TimeFormat {
    /// An explicit strftime-like format given by the user (`--time-format`),
    /// e.g. `"%Y-%m-%d %H:%M:%S"`, `"%b %e %H:%M:%S"`,
    /// `"[%d/%b/%Y:%H:%M:%S %z]"`, `"%s"`. The directives are listed in the
    /// [module docs](self). The error is a message for the user.
    pub fn parse(spec: &str) -> Result<TimeFormat, String> {
        Ok(TimeFormat {
            kind: Kind::Explicit(Spec::parse(spec)?),
        })
    }

    /// Detects the format from the first lines of the log (up to 200 lines
    /// and 64 KiB): the built-in format that matches the most lines, ties
    /// going to formats with a year. `None` when no known format matches a
    /// line (or epoch seconds match fewer than half of them).
    pub fn detect(hay: &[u8]) -> Option<TimeFormat> {
        let sample = &hay[..hay.len().min(64 * 1024)];
        let mut counts = [0usize; AUTO.len()];
        let mut lines = 0usize;
        for line in sample.split(|&b| b == b'\n').take(200) {
            if line.iter().all(|&b| is_blank(b)) {
                continue;
            }
            lines += 1;
            for (k, kind) in AUTO.iter().enumerate() {
                if stamp_kind(kind, line).is_some() {
                    counts[k] += 1;
                }
            }
        }
        let mut best: Option<usize> = None;
        for k in 0..AUTO.len() {
            let n = counts[k];
            if n == 0 || (AUTO[k] == Kind::Epoch && n * 2 < lines) {
                continue;
            }
            if best.is_none_or(|b| n > counts[b]) {
                best = Some(k);
            }
        }
        best.map(|k| TimeFormat {
            kind: AUTO[k].clone(),
        })
    }

    /// Human name for messages and `--stats`: `ISO-8601`, `Apache access`,
    /// `ctime`, `epoch seconds`, `syslog (no year)`, `month-day (no year)`,
    /// `explicit '%y%m%d %H%M%S'`.
    pub fn name(&self) -> String {
        match &self.kind {
            Kind::Iso => "ISO-8601".to_string(),
            Kind::ApacheAccess => "Apache access".to_string(),
            Kind::Ctime => "ctime".to_string(),
            Kind::Epoch => "epoch seconds".to_string(),
            Kind::Syslog => "syslog (no year)".to_string(),
            Kind::MonthDay => "month-day (no year)".to_string(),
            Kind::Explicit(s) if s.has_year || s.epoch => format!("explicit '{}'", s.text),
            Kind::Explicit(s) => format!("explicit '{}' (no year)", s.text),
        }
    }

    /// Whether the format's stamps carry a year (epoch seconds do).
    pub fn has_year(&self) -> bool {
        match &self.kind {
            Kind::Syslog | Kind::MonthDay => false,
            Kind::Explicit(s) => s.has_year || s.epoch,
            _ => true,
        }
    }

    /// The timestamp of one line (without its `\n`): the first match that
    /// starts within the first 256 bytes; `None` if the line has none.
    pub fn stamp(&self, line: &[u8]) -> Option<Stamp> {
        stamp_kind(&self.kind, &line[..line.len().min(LOOK)])
    }
}

fn stamp_kind(kind: &Kind, line: &[u8]) -> Option<Stamp> {
    match kind {
        Kind::Iso => iso(line),
        Kind::ApacheAccess => apache_access(line),
        Kind::Ctime => ctime(line),
        Kind::Epoch => epoch(line),
        Kind::Syslog => syslog(line),
        Kind::MonthDay => month_day(line),
        Kind::Explicit(s) => s.stamp(line),
    }
}

// ---------------------------------------------------------------------------
// Bound
// ---------------------------------------------------------------------------

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum BoundKind {
    /// A UTC instant: `@EPOCH`, `now`, relative times.
    Instant { secs: i64, nanos: u32 },
    /// A wall-clock time, with or without a date, year and offset.
    Civil {
        /// (year, month, day); `None` for a time of day alone.
        date: Option<(Option<i64>, u32, u32)>,
        secs_of_day: i64,
        nanos: u32,
        offset: Option<i32>,
    },
}

/// A user-given bound, from the `--since`/`--before` argument. It is
/// resolved against a log ([`Bound::resolve`]) before it can be compared.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Bound {
    kind: BoundKind,
    text: String,
}

const EXPECTED: &str = "expected a date and time (2026-11-29, 2026-11-29 22:33, \
     2026-11-29T22:33:01Z, 2026-11-29 22:33:01.5+01:00, Nov 29, Nov 29 22:33:01, \
     11-29 22:33:01), a time of day (22:33, 22:33:01), @EPOCH (@1700000000), \
     or a relative time (10m ago, 2h ago, -30s, -1d)";

impl Bound {
    /// Parses the user's TIME (forms in the [module docs](self)). `now` is
    /// passed in so that relative times (`10m ago`, `-1d`) are deterministic
    /// in tests. The error reads `cannot read time 'xyz': expected ...`; the
    /// caller prefixes `grail: --since: `.
    pub fn parse(arg: &str, now: SystemTime) -> Result<Bound, String> {
        let s = arg.trim();
        let fail = |why: &str| format!("cannot read time '{arg}': {why}");
        let kind = if s.eq_ignore_ascii_case("now") {
            let (secs, nanos) = system_secs(now);
            BoundKind::Instant { secs, nanos }
        } else if let Some(e) = s.strip_prefix('@') {
            parse_epoch(e).ok_or_else(|| fail("expected @ and epoch seconds, e.g. @1700000000"))?
        } else if let Some(r) = parse_relative(s) {
            let secs_back = r.map_err(|e| fail(&e))?;
            let (secs, nanos) = system_secs(now);
            BoundKind::Instant {
                secs: secs
                    .checked_sub(secs_back)
                    .ok_or_else(|| fail("too far back"))?,
                nanos,
            }
        } else {
            parse_civil(s).map_err(|e| fail(e.as_deref().unwrap_or(EXPECTED)))?
        };
        Ok(Bound {
            kind,
            text: arg.to_string(),
        })
    }

    /// Whether the bound says which year it is in (a date with a year, an
    /// epoch or relative time). Against a log without years the year is
    /// ignored.
    pub fn has_year(&self) -> bool {
        match self.kind {
            BoundKind::Instant { .. } => true,
            BoundKind::Civil { date, .. } => matches!(date, Some((Some(_), _, _))),
        }
    }

    /// Resolves the bound against one log, given the log's format and its
    /// first and last timestamps (the rules are in the [module docs](self)).
    pub fn resolve(&self, fmt: &TimeFormat, first: &Stamp, last: &Stamp) -> Cutoff {
        if !fmt.has_year() || first.yearless {
            let anchor = first.wall;
            let lo = anchor;
            let hi = unwrap(anchor, last.wall).max(lo);
            let (base, nanos) = match self.kind {
                BoundKind::Instant { secs, nanos } => {
                    let (_, m, d) = civil_from_days(secs.div_euclid(DAY));
                    (
                        days_from_civil(YEARLESS_BASE, m, d) * DAY + secs.rem_euclid(DAY),
                        nanos,
                    )
                }
                BoundKind::Civil {
                    date: Some((_, m, d)),
                    secs_of_day,
                    nanos,
                    ..
                } => (
                    days_from_civil(YEARLESS_BASE, m, d) * DAY + secs_of_day,
                    nanos,
                ),
                BoundKind::Civil {
                    date: None,
                    secs_of_day,
                    nanos,
                    ..
                } => {
                    return Cutoff {
                        secs: hi.div_euclid(DAY) * DAY + secs_of_day,
                        nanos,
                        utc: false,
                        anchor: Some(anchor),
                    }
                }
            };
            let secs = place([base - YEAR, base, base + YEAR].into_iter(), lo, hi);
            return Cutoff {
                secs,
                nanos,
                utc: false,
                anchor: Some(anchor),
            };
        }
        match self.kind {
            BoundKind::Instant { secs, nanos } => Cutoff {
                secs,
                nanos,
                utc: true,
                anchor: None,
            },
            BoundKind::Civil {
                date,
                secs_of_day,
                nanos,
                offset,
            } => {
                let utc = offset.is_some();
                let off = i64::from(offset.unwrap_or(0));
                let key = |s: &Stamp| if utc { s.utc() } else { s.wall };
                let (lo, hi) = {
                    let (a, b) = (key(first), key(last));
                    (a.min(b), a.max(b))
                };
                let secs = match date {
                    Some((Some(y), m, d)) => days_from_civil(y, m, d) * DAY + secs_of_day - off,
                    Some((None, m, d)) => {
                        let year = |k: i64| civil_from_days(k.div_euclid(DAY)).0;
                        let y_hi = year(hi) + 1;
                        let y_lo = (year(lo) - 1).max(y_hi - 400);
                        let valid: Vec<i64> = (y_lo..=y_hi)
                            .filter(|&y| valid_date(Some(y), m, d))
                            .map(|y| days_from_civil(y, m, d) * DAY + secs_of_day - off)
                            .collect();
                        if valid.is_empty() {
                            days_from_civil(year(hi), m, d) * DAY + secs_of_day - off
                        } else {
                            place(valid.into_iter(), lo, hi)
                        }
                    }
                    None => last.wall.div_euclid(DAY) * DAY + secs_of_day - off,
                };
                Cutoff {
                    secs,
                    nanos,
                    utc,
                    anchor: None,
                }
            }
        }
    }
}

/// The user's text, as given.
impl fmt::Display for Bound {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

/// The latest candidate within `[lo, hi]`, else the nearest one (the later on
/// a tie).
fn place(cands: impl Iterator<Item = i64>, lo: i64, hi: i64) -> i64 {
    let mut best: Option<(i64, i64)> = None; // (distance, candidate)
    for c in cands {
        let dist = if c < lo {
            lo - c
        } else if c > hi {
            c - hi
        } else {
            0
        };
        let better = match best {
            None => true,
            Some((bd, bc)) => dist < bd || (dist == bd && c > bc),
        };
        if better {
            best = Some((dist, c));
        }
    }
    best.map_or(lo, |(_, c)| c)
}

/// A year-less wall time in the log's timeline: more than a day before the
/// first line means the following year.
fn unwrap(anchor: i64, wall: i64) -> i64 {
    if wall < anchor - DAY {
        wall + YEAR
    } else {
        wall
    }
}

fn system_secs(t: SystemTime) -> (i64, u32) {
    match t.duration_since(UNIX_EPOCH) {
        Ok(d) => (d.as_secs().min(i64::MAX as u64) as i64, d.subsec_nanos()),
        Err(e) => {
            let d = e.duration();
            let s = -(d.as_secs().min(i64::MAX as u64) as i64);
            if d.subsec_nanos() == 0 {
                (s, 0)
            } else {
                (s - 1, 1_000_000_000 - d.subsec_nanos())
            }
        }
    }
}

fn parse_epoch(e: &str) -> Option<BoundKind> {
    let mut c = Cur::new(e.as_bytes(), 0);
    let (v, n) = c.run()?;
    if n > 12 {
        return None;
    }
    let nanos = if c.eat(b'.') { c.frac()? } else { 0 };
    c.at_end().then_some(BoundKind::Instant {
        secs: v as i64,
        nanos,
    })
}

/// `10m ago`, `2 hours ago`, `-30s`, `-1d`: seconds back, `None` if the text
/// does not look relative at all.
fn parse_relative(s: &str) -> Option<Result<i64, String>> {
    let (neg, rest) = match s.strip_prefix('-') {
        Some(r) => (true, r),
        None => (false, s),
    };
    let b = rest.as_bytes();
    let mut c = Cur::new(b, 0);
    let (n, digits) = c.run()?;
    c.spaces();
    let u0 = c.i;
    while c.peek().is_some_and(|x| x.is_ascii_alphabetic()) {
        c.i += 1;
    }
    let unit = &rest[u0..c.i];
    if unit.is_empty() {
        return if neg {
            Some(Err(
                "a relative time needs a unit: -30s, -10m, -2h, -1d".into()
            ))
        } else {
            None
        };
    }
    c.spaces();
    let tail = rest[c.i..].trim();
    let ago = tail.eq_ignore_ascii_case("ago");
    if !(tail.is_empty() || ago) {
        return Some(Err(EXPECTED.to_string()));
    }
    if neg == ago {
        return Some(Err(if neg {
            "write either -10m or 10m ago, not both".into()
        } else {
            "a relative time is written 10m ago or -10m".into()
        }));
    }
    let unit_secs = match unit.to_ascii_lowercase().as_str() {
        "s" | "sec" | "secs" | "second" | "seconds" => 1,
        "m" | "min" | "mins" | "minute" | "minutes" => 60,
        "h" | "hr" | "hrs" | "hour" | "hours" => 3600,
        "d" | "day" | "days" => DAY,
        "w" | "week" | "weeks" => 7 * DAY,
        _ => return Some(Err(format!("unknown unit '{unit}' (use s, m, h, d or w)"))),
    };
    if digits > 12 {
        return Some(Err("number too large".into()));
    }
    Some(
        (n as i64)
            .checked_mul(unit_secs)
            .ok_or_else(|| "number too large".into()),
    )
}

/// `H[H]:MM[:SS[.frac]]` → (secs of day, nanos).
fn parse_tod(c: &mut Cur<'_>) -> Result<(i64, u32), Option<String>> {
    let h = c.upto(2).ok_or(None)?;
    c.lit(b':').ok_or(None)?;
    let m = c.fixed(2).ok_or(None)?;
    let (s, nanos) = if c.eat(b':') {
        let s = c.fixed(2).ok_or(None)?;
        (s, c.opt_frac())
    } else {
        (0, 0)
    };
    if !valid_time(h, m, s) {
        return Err(Some(format!("no such time of day {h:02}:{m:02}:{s:02}")));
    }
    Ok((hms_secs(h, m, s), nanos))
}

/// Optional zone at the end: `Z`, ` UTC`, `+01:00`, ` +0100`.
fn parse_tail_zone(c: &mut Cur<'_>) -> Result<Option<i32>, Option<String>> {
    let save = c.i;
    c.spaces();
    if c.at_end() {
        return Ok(None);
    }
    let rest = &c.b[c.i..];
    if rest.eq_ignore_ascii_case(b"utc") || rest.eq_ignore_ascii_case(b"gmt") {
        c.i = c.b.len();
        return Ok(Some(0));
    }
    if c.i == save && !matches!(c.peek(), Some(b'Z' | b'z' | b'+' | b'-')) {
        return Err(None);
    }
    let z = c.zone(true).ok_or(None)?;
    if !c.at_end() {
        return Err(None);
    }
    Ok(Some(z))
}

fn parse_civil(s: &str) -> Result<BoundKind, Option<String>> {
    let b = s.as_bytes();
    let mut c = Cur::new(b, 0);
    let lead = b.iter().take_while(|x| x.is_ascii_digit()).count();
    let mut date: Option<(Option<i64>, u32, u32)> = None;
    if lead == 4 && b.get(4) == Some(&b'-') {
        let y = i64::from(c.fixed(4).ok_or(None)?);
        c.lit(b'-').ok_or(None)?;
        let m = c.upto(2).ok_or(None)?;
        c.lit(b'-').ok_or(None)?;
        let d = c.upto(2).ok_or(None)?;
        date = Some((Some(y), m, d));
        if !(c.eat(b'T') || c.eat(b't')) && c.spaces() == 0 && !c.at_end() {
            return Err(None);
        }
    } else if (1..=2).contains(&lead) && b.get(lead) == Some(&b'-') {
        let m = c.upto(2).ok_or(None)?;
        c.lit(b'-').ok_or(None)?;
        let d = c.upto(2).ok_or(None)?;
        date = Some((None, m, d));
        if c.spaces() == 0 && !c.at_end() {
            return Err(None);
        }
    } else if lead == 0 {
        let m = c.month_name().ok_or(None)?;
        if c.spaces() == 0 {
            return Err(None);
        }
        let d = c.upto(2).ok_or(None)?;
        date = Some((None, m, d));
        if c.spaces() == 0 && !c.at_end() {
            return Err(None);
        }
    }
    if let Some((y, m, d)) = date {
        if !valid_date(y, m, d) {
            return Err(Some(match y {
                Some(y) => format!("no such date {y:04}-{m:02}-{d:02}"),
                None => format!("no such date: month {m}, day {d}"),
            }));
        }
    }
    let (secs_of_day, nanos) = if c.at_end() {
        if date.is_none() {
            return Err(None);
        }
        (0, 0)
    } else {
        parse_tod(&mut c)?
    };
    let offset = parse_tail_zone(&mut c)?;
    Ok(BoundKind::Civil {
        date,
        secs_of_day,
        nanos,
        offset,
    })
}

// ---------------------------------------------------------------------------
// Cutoff
// ---------------------------------------------------------------------------

/// A [`Bound`] resolved against one log: it says which of that log's stamps
/// are at or after it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Cutoff {
    secs: i64,
    nanos: u32,
    /// Compare stamps in UTC (stamps without an offset: their wall clock).
    utc: bool,
    /// Year-less log: the first line's wall time, for the year roll-over.
    anchor: Option<i64>,
}

impl Cutoff {
    /// Whether a stamp of this log is at or after the cutoff.
    pub fn reached_by(&self, s: &Stamp) -> bool {
        self.key(s) >= (self.secs, self.nanos)
    }

    /// The stamp on this cutoff's time line (the search's sort key).
    fn key(&self, s: &Stamp) -> (i64, u32) {
        match self.anchor {
            Some(a) => (unwrap(a, s.wall), s.nanos),
            None if self.utc => (s.utc(), s.nanos),
            None => (s.wall, s.nanos),
        }
    }
}

/// `2026-11-29 22:33:00` (wall clock), `2026-11-29 21:33:00Z` (UTC), or
/// `11-29 22:33:00` in a year-less log (`(+1 year)` when in the log's
/// following year).
impl fmt::Display for Cutoff {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.anchor {
            Some(_) => {
                let next = self.secs >= days_from_civil(YEARLESS_BASE + 1, 1, 1) * DAY;
                let s = if next { self.secs - YEAR } else { self.secs };
                write_wall(f, s, self.nanos, true)?;
                if next {
                    f.write_str(" (+1 year)")?;
                }
                Ok(())
            }
            None => {
                write_wall(f, self.secs, self.nanos, false)?;
                if self.utc {
                    f.write_str("Z")?;
                }
                Ok(())
            }
        }
    }
}

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

/// The lines of `hay` inside the time window, with the default
/// [`WindowOptions`]. Lines in `[start, end)` are those whose (effective)
/// timestamp `t` satisfies `since <= t < before`, by the rule in the
/// [module docs](self). With neither bound it is the whole of `hay`, read
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
    w.probed_bytes = union_len(&r.ranges);
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

/// The bytes a set of ranges covers, each counted once.
pub fn union_len(ranges: &[(usize, usize)]) -> u64 {
    let mut v: Vec<(usize, usize)> = ranges.iter().copied().filter(|r| r.1 > r.0).collect();
    v.sort_unstable();
    let (mut total, mut reach) = (0usize, 0usize);
    for (a, b) in v {
        let a = a.max(reach);
        if b > a {
            total += b - a;
            reach = b;
        }
    }
    total as u64
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

#[cfg(test)]
mod tests {
    use super::*;

    fn st(fmt: &TimeFormat, line: &str) -> Option<String> {
        fmt.stamp(line.as_bytes()).map(|s| s.to_string())
    }

    fn auto(line: &str) -> Option<(String, String)> {
        let f = TimeFormat::detect(line.as_bytes())?;
        let s = f.stamp(line.as_bytes())?;
        Some((f.name(), s.to_string()))
    }

    #[test]
    fn civil_round_trip() {
        for z in [-800_000i64, -1, 0, 1, 10_957, 11_016, 20_000, 2_932_896] {
            let (y, m, d) = civil_from_days(z);
            assert_eq!(days_from_civil(y, m, d), z);
        }
        assert_eq!(days_from_civil(1970, 1, 1), 0);
        assert_eq!(days_from_civil(2000, 3, 1), 11_017);
    }

    #[test]
    fn built_in_formats() {
        let a = |l: &str| auto(l).map(|(n, s)| format!("{n}: {s}"));
        assert_eq!(
            a("2015-10-18 18:01:47,978 INFO x").unwrap(),
            "ISO-8601: 2015-10-18 18:01:47.978"
        );
        assert_eq!(
            a("2026-11-29T22:33:01.123Z x").unwrap(),
            "ISO-8601: 2026-11-29 22:33:01.123Z"
        );
        assert_eq!(
            a("2026-11-29T22:33:01+02:00 x").unwrap(),
            "ISO-8601: 2026-11-29 22:33:01+02:00"
        );
        assert_eq!(
            a("2026-11-29 22:33:01 +0530 x").unwrap(),
            "ISO-8601: 2026-11-29 22:33:01+05:30"
        );
        assert_eq!(
            a("2024-01-11 15:50:57,902 - run_eval").unwrap(),
            "ISO-8601: 2024-01-11 15:50:57.902"
        );
        assert_eq!(
            a("nova-api.log.1.2017-05-16_13:53:08 2017-05-16 00:00:00.008 25746 INFO").unwrap(),
            "ISO-8601: 2017-05-16 00:00:00.008"
        );
        assert_eq!(
            a("Jul  1 09:00:55 host kernel").unwrap(),
            "syslog (no year): 07-01 09:00:55"
        );
        assert_eq!(
            a("INFO 11-29 22:33:01 [file.py:12] x").unwrap(),
            "month-day (no year): 11-29 22:33:01"
        );
        assert_eq!(
            a("\x1b[32mINFO\x1b[0m \x1b[90m11-05 12:19:20\x1b[0m x").unwrap(),
            "month-day (no year): 11-05 12:19:20"
        );
        assert_eq!(
            a("03-17 16:13:38.811  1702 D x").unwrap(),
            "month-day (no year): 03-17 16:13:38.811"
        );
        assert_eq!(
            a("1.2.3.4 - - [29/Nov/2026:22:33:01 +0000] \"GET /\"").unwrap(),
            "Apache access: 2026-11-29 22:33:01Z"
        );
        assert_eq!(
            a("[Sun Dec 04 04:47:44 2005] [notice] x").unwrap(),
            "ctime: 2005-12-04 04:47:44"
        );
        assert_eq!(
            a("- 1117838570 2005.06.03 R02 2005-06-03-15.42.50.675872 x").unwrap(),
            "epoch seconds: 2005-06-03 22:42:50Z"
        );
        assert_eq!(
            a("134681 node-246 unix.hw state_change.unavailable 1077804742 1 x").unwrap(),
            "epoch seconds: 2004-02-26 14:12:22Z"
        );
        assert_eq!(a("no time here"), None);
        assert_eq!(a("2026-11-29 only a date"), None);
        assert_eq!(a("id 12345678901 and 123456789"), None);
    }

    #[test]
    fn out_of_range_values_are_not_stamps() {
        let f = TimeFormat::detect(b"2026-11-29 22:33:01 x").unwrap();
        assert_eq!(st(&f, "2026-13-29 22:33:01"), None);
        assert_eq!(st(&f, "2026-02-29 22:33:01"), None);
        assert_eq!(
            st(&f, "2024-02-29 22:33:01").unwrap(),
            "2024-02-29 22:33:01"
        );
        assert_eq!(st(&f, "2026-11-29 24:33:01"), None);
        assert_eq!(st(&f, "12026-11-29 22:33:01"), None);
        assert_eq!(st(&f, "x 2026-11-29 22:33:011"), None);
    }

    #[test]
    fn stamp_must_start_within_reach() {
        let f = TimeFormat::detect(b"2026-11-29 22:33:01 x").unwrap();
        let near = format!("{}2026-11-29 22:33:01", "x".repeat(255));
        let far = format!("{}2026-11-29 22:33:01", "x".repeat(256));
        assert!(f.stamp(near.as_bytes()).is_some());
        assert!(f.stamp(far.as_bytes()).is_none());
    }

    #[test]
    fn explicit_formats() {
        let p = |s: &str| TimeFormat::parse(s).unwrap();
        assert_eq!(
            st(&p("%y%m%d %H%M%S"), "081109 203615 148 INFO").unwrap(),
            "2008-11-09 20:36:15"
        );
        assert_eq!(
            st(&p("%Y%m%d-%H:%M:%S:%L"), "20171224-1:2:35:78|x").unwrap(),
            "2017-12-24 01:02:35.078"
        );
        assert_eq!(
            st(&p("[%m.%d %H:%M:%S]"), "[10.30 16:49:06] chrome").unwrap(),
            "10-30 16:49:06"
        );
        assert_eq!(
            st(&p("%y/%m/%d %H:%M:%S"), "17/06/09 20:10:40 INFO").unwrap(),
            "2017-06-09 20:10:40"
        );
        assert_eq!(
            st(&p("%b %e %H:%M:%S"), "Jul  1 09:00:55 h").unwrap(),
            "07-01 09:00:55"
        );
        assert_eq!(
            st(
                &p("[%d/%b/%Y:%H:%M:%S %z]"),
                "h [29/Nov/2026:22:33:01 +0100] x"
            )
            .unwrap(),
            "2026-11-29 22:33:01+01:00"
        );
        assert_eq!(
            st(&p("%s"), "134681 node 1077804742 1").unwrap(),
            "2004-02-26 14:12:22Z"
        );
        assert_eq!(st(&p("%s"), "x 1700000000123 y"), None);
        assert_eq!(
            st(&p("%F %T.%f"), "2026-11-29 22:33:01.5 x").unwrap(),
            "2026-11-29 22:33:01.5"
        );
        assert_eq!(
            st(&p("%m/%d/%Y %I:%M:%S %p"), "12/04/2005 12:47:44 AM").unwrap(),
            "2005-12-04 00:47:44"
        );
        assert_eq!(
            st(&p("%m/%d/%Y %I:%M:%S %p"), "12/04/2005 04:47:44 PM").unwrap(),
            "2005-12-04 16:47:44"
        );
        assert_eq!(
            st(&p("%a %b %d %T %Y"), "Sun Dec 04 04:47:44 2005").unwrap(),
            "2005-12-04 04:47:44"
        );
        assert!(!p("%b %e %T").has_year());
        assert!(p("%s").has_year());
        assert_eq!(p("%y%m%d %H%M%S").name(), "explicit '%y%m%d %H%M%S'");
        for bad in ["", "%H:%M:%S", "%Y-%m %H", "%Q", "abc%", "%I:%M %b %d"] {
            assert!(TimeFormat::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn yearless_roll_over() {
        let f = TimeFormat::detect(b"Dec 31 23:59:00 h x").unwrap();
        let first = f.stamp(b"Dec 31 23:00:00").unwrap();
        let last = f.stamp(b"Jan  1 01:00:00").unwrap();
        let now = SystemTime::UNIX_EPOCH;
        let c = Bound::parse("Jan 1", now)
            .unwrap()
            .resolve(&f, &first, &last);
        assert_eq!(c.to_string(), "01-01 00:00:00 (+1 year)");
        assert!(c.reached_by(&last));
        assert!(!c.reached_by(&first));
        let c = Bound::parse("Dec 29", now)
            .unwrap()
            .resolve(&f, &first, &last);
        assert!(c.reached_by(&first));
        let c = Bound::parse("2020-12-31 23:30", now)
            .unwrap()
            .resolve(&f, &first, &last);
        assert_eq!(c.to_string(), "12-31 23:30:00");
        let c = Bound::parse("00:30", now)
            .unwrap()
            .resolve(&f, &first, &last);
        assert_eq!(c.to_string(), "01-01 00:30:00 (+1 year)");
    }

    #[test]
    fn year_placement_for_dates_without_a_year() {
        let f = TimeFormat::detect(b"2026-11-29 22:33:01 x").unwrap();
        let first = f.stamp(b"2026-12-30 10:00:00").unwrap();
        let last = f.stamp(b"2027-01-02 10:00:00").unwrap();
        let now = SystemTime::UNIX_EPOCH;
        let r = |s: &str| {
            Bound::parse(s, now)
                .unwrap()
                .resolve(&f, &first, &last)
                .to_string()
        };
        assert_eq!(r("Jan 1"), "2027-01-01 00:00:00");
        assert_eq!(r("12-31 12:00"), "2026-12-31 12:00:00");
        assert_eq!(r("Dec 29"), "2026-12-29 00:00:00");
        assert_eq!(r("Jan 5"), "2027-01-05 00:00:00");
        assert_eq!(r("Jul 1"), "2027-07-01 00:00:00");
        assert_eq!(r("09:15"), "2027-01-02 09:15:00");
        assert_eq!(r("09:15+01:00"), "2027-01-02 08:15:00Z");
        assert_eq!(r("2026-12-31T12:00:00+02:00"), "2026-12-31 10:00:00Z");
        assert_eq!(r("@1700000000"), "2023-11-14 22:13:20Z");
    }

    #[test]
    fn zones() {
        let f = TimeFormat::detect(b"2026-11-29T22:33:01+02:00 x").unwrap();
        let s = f.stamp(b"2026-11-29T22:33:01+02:00").unwrap();
        let now = SystemTime::UNIX_EPOCH;
        let c = |b: &str| Bound::parse(b, now).unwrap().resolve(&f, &s, &s);
        // both with offsets: UTC (20:33:01Z)
        assert!(c("2026-11-29T20:33:01Z").reached_by(&s));
        assert!(!c("2026-11-29T20:33:02Z").reached_by(&s));
        // bound without an offset: wall clocks
        assert!(c("2026-11-29 22:33:01").reached_by(&s));
        assert!(!c("2026-11-29 22:33:01.000001").reached_by(&s));
        // epoch: UTC
        let e = days_from_civil(2026, 11, 29) * DAY + hms_secs(20, 33, 1);
        assert!(c(&format!("@{e}")).reached_by(&s));
        assert!(!c(&format!("@{}", e + 1)).reached_by(&s));
    }

    #[test]
    fn bound_forms() {
        let now = UNIX_EPOCH + std::time::Duration::from_secs(1_700_000_000);
        let ok = |s: &str| {
            Bound::parse(s, now)
                .unwrap_or_else(|e| panic!("{s}: {e}"))
                .kind
        };
        let civil = |date, h: i64, m: i64, sec: i64, nanos, offset| BoundKind::Civil {
            date,
            secs_of_day: h * 3600 + m * 60 + sec,
            nanos,
            offset,
        };
        assert_eq!(
            ok("2026-11-29"),
            civil(Some((Some(2026), 11, 29)), 0, 0, 0, 0, None)
        );
        assert_eq!(
            ok("2026-11-29 22:33"),
            civil(Some((Some(2026), 11, 29)), 22, 33, 0, 0, None)
        );
        assert_eq!(
            ok("2026-11-29T22:33:01Z"),
            civil(Some((Some(2026), 11, 29)), 22, 33, 1, 0, Some(0))
        );
        assert_eq!(
            ok("2026-11-29 22:33:01.5+01:00"),
            civil(
                Some((Some(2026), 11, 29)),
                22,
                33,
                1,
                500_000_000,
                Some(3600)
            )
        );
        assert_eq!(
            ok("2026-11-29 22:33:01 UTC"),
            civil(Some((Some(2026), 11, 29)), 22, 33, 1, 0, Some(0))
        );
        assert_eq!(
            ok("2026-11-29 22:33 -0530"),
            civil(Some((Some(2026), 11, 29)), 22, 33, 0, 0, Some(-19800))
        );
        assert_eq!(
            ok("Nov 29 22:33:01"),
            civil(Some((None, 11, 29)), 22, 33, 1, 0, None)
        );
        assert_eq!(
            ok("november 9"),
            civil(Some((None, 11, 9)), 0, 0, 0, 0, None)
        );
        assert_eq!(ok("Nov 29"), civil(Some((None, 11, 29)), 0, 0, 0, 0, None));
        assert_eq!(
            ok("11-29 22:33:01"),
            civil(Some((None, 11, 29)), 22, 33, 1, 0, None)
        );
        assert_eq!(
            ok("07-14 10:21:58.811"),
            civil(Some((None, 7, 14)), 10, 21, 58, 811_000_000, None)
        );
        assert_eq!(ok("22:33"), civil(None, 22, 33, 0, 0, None));
        assert_eq!(ok("9:05:01"), civil(None, 9, 5, 1, 0, None));
        assert_eq!(ok(" 22:33:01Z "), civil(None, 22, 33, 1, 0, Some(0)));
        assert_eq!(
            ok("@1700000000"),
            BoundKind::Instant {
                secs: 1_700_000_000,
                nanos: 0
            }
        );
        assert_eq!(
            ok("@1700000000.25"),
            BoundKind::Instant {
                secs: 1_700_000_000,
                nanos: 250_000_000
            }
        );
        assert_eq!(
            ok("now"),
            BoundKind::Instant {
                secs: 1_700_000_000,
                nanos: 0
            }
        );
        let back = |s: &str| match ok(s) {
            BoundKind::Instant { secs, .. } => 1_700_000_000 - secs,
            k => panic!("{k:?}"),
        };
        assert_eq!(back("10m ago"), 600);
        assert_eq!(back("2h ago"), 7200);
        assert_eq!(back("-30s"), 30);
        assert_eq!(back("-1d"), 86_400);
        assert_eq!(back("90 minutes ago"), 5400);
        assert_eq!(back("1w ago"), 7 * 86_400);
        assert!(Bound::parse("2026-11-29", now).unwrap().has_year());
        assert!(!Bound::parse("Nov 29", now).unwrap().has_year());
        for bad in [
            "",
            "xyz",
            "2026-13-01",
            "2026-02-30",
            "2026-11-29 25:00",
            "2026-11-29 22:61",
            "22",
            "22:3",
            "10m",
            "-10m ago",
            "10 parsecs ago",
            "@",
            "@12x",
            "Nov",
            "Nov 31",
            "2026-11-29 22:33 +25:00",
            "2026-11-29 22:33 junk",
            "-",
            "11-29-2026",
            "99999999999999999999d ago",
            "2026/11/29",
        ] {
            let e = Bound::parse(bad, now).expect_err(bad);
            assert!(e.starts_with(&format!("cannot read time '{bad}': ")), "{e}");
        }
        assert!(Bound::parse("xyz", now)
            .unwrap_err()
            .contains("expected a date and time"));
    }

    #[test]
    fn stamp_display_parses_back() {
        let now = SystemTime::UNIX_EPOCH;
        for line in [
            "2026-11-29T22:33:01.123+02:00",
            "2026-11-29 22:33:01",
            "Nov 29 22:33:01",
            "- 1700000000 x",
            "11-29 22:33:01.5",
        ] {
            let f = TimeFormat::detect(line.as_bytes()).unwrap();
            let s = f.stamp(line.as_bytes()).unwrap();
            let c = Bound::parse(&s.to_string(), now)
                .unwrap()
                .resolve(&f, &s, &s);
            assert!(c.reached_by(&s), "{line}");
            assert_eq!(c.key(&s), (c.secs, c.nanos), "{line}");
        }
    }

    #[test]
    fn detection_prefers_the_most_matched_then_the_year() {
        // every line has both an epoch token and a syslog time: epoch wins (year)
        let tb = b"- 1131566461 2005.11.09 dn228 Nov 9 12:01:01 dn228/dn228 crond\n";
        assert_eq!(TimeFormat::detect(tb).unwrap().name(), "epoch seconds");
        // syslog on all lines beats ISO on a few
        let mac = b"Jul  1 09:00:55 h a\nJul  1 09:00:56 h 2017-07-05 10:52:16.977 b\nJul  1 09:00:57 h c\n";
        assert_eq!(TimeFormat::detect(mac).unwrap().name(), "syslog (no year)");
        // a few 10-digit numbers do not make an epoch log
        let few = b"a 1234567890\nb\nc\nd\n";
        assert_eq!(TimeFormat::detect(few), None);
    }

    #[test]
    fn no_panics_on_odd_bytes() {
        let fmts = [
            TimeFormat::detect(b"2026-11-29 22:33:01").unwrap(),
            TimeFormat::detect(b"Nov 29 22:33:01").unwrap(),
            TimeFormat::detect(b"INFO 11-29 22:33:01").unwrap(),
            TimeFormat::detect(b"[29/Nov/2026:22:33:01 +0000]").unwrap(),
            TimeFormat::detect(b"Sun Dec 04 04:47:44 2005").unwrap(),
            TimeFormat::detect(b"1700000000 x").unwrap(),
            TimeFormat::parse("%Y%m%d-%H:%M:%S:%L %z %p %I")
                .unwrap_or_else(|_| TimeFormat::parse("%s").unwrap()),
        ];
        let pieces: [&[u8]; 12] = [
            b"2026-",
            b"11-29",
            b" ",
            b"22:33:0",
            b"Nov",
            b"\xff",
            b"-",
            b"+01",
            b"[",
            b"/",
            b"1700000000",
            b"\n",
        ];
        let mut x = 12345u32;
        for _ in 0..3000 {
            let mut line = Vec::new();
            for _ in 0..(x % 9) {
                x = x.wrapping_mul(1_103_515_245).wrapping_add(12345);
                line.extend_from_slice(pieces[(x >> 16) as usize % pieces.len()]);
            }
            for f in &fmts {
                let _ = f.stamp(&line);
            }
            let _ = TimeFormat::detect(&line);
        }
    }
}
