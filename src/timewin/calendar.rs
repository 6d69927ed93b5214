//! The civil calendar and [`Stamp`], a point in time as a log line writes it.

use super::*;

// ---------------------------------------------------------------------------
// Calendar
// ---------------------------------------------------------------------------

pub(super) fn days_from_civil(y: i64, m: u32, d: u32) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = if y >= 0 { y } else { y - 399 } / 400;
    let yoe = y - era * 400;
    let mp = i64::from((m + 9) % 12);
    let doy = (153 * mp + 2) / 5 + i64::from(d) - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

pub(super) fn civil_from_days(z: i64) -> (i64, u32, u32) {
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

pub(super) fn is_leap(y: i64) -> bool {
    (y % 4 == 0 && y % 100 != 0) || y % 400 == 0
}

pub(super) fn days_in_month(y: i64, m: u32) -> u32 {
    match m {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if is_leap(y) => 29,
        2 => 28,
        _ => 0,
    }
}

/// Month and day valid (in year `y`, or in some leap year when there is none).
pub(super) fn valid_date(y: Option<i64>, m: u32, d: u32) -> bool {
    (1..=12).contains(&m) && d >= 1 && d <= days_in_month(y.unwrap_or(YEARLESS_BASE), m)
}

pub(super) fn valid_time(h: u32, mi: u32, s: u32) -> bool {
    h <= 23 && mi <= 59 && s <= 60
}

pub(super) const MONTHS: [&str; 12] = [
    "jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec",
];
pub(super) const MONTHS_FULL: [&str; 12] = [
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
pub(super) const WEEKDAYS: [&str; 7] = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"];
pub(super) const WEEKDAYS_FULL: [&str; 7] = [
    "monday",
    "tuesday",
    "wednesday",
    "thursday",
    "friday",
    "saturday",
    "sunday",
];

/// Exact-case three-letter month (`Jan`) at `b[i..]`.
pub(super) fn month_abbr_exact(b: &[u8], i: usize) -> Option<u32> {
    let w = b.get(i..i + 3)?;
    if !w[0].is_ascii_uppercase() || !w[1].is_ascii_lowercase() || !w[2].is_ascii_lowercase() {
        return None;
    }
    MONTHS
        .iter()
        .position(|m| m.as_bytes().eq_ignore_ascii_case(w))
        .map(|p| p as u32 + 1)
}

pub(super) fn weekday_abbr_exact(b: &[u8], i: usize) -> bool {
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
    pub(super) wall: i64,
    pub(super) nanos: u32,
    /// Seconds east of UTC.
    pub(super) offset: Option<i32>,
    pub(super) yearless: bool,
}

impl Stamp {
    pub(super) fn civil(
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

    pub(super) fn instant(secs: i64, nanos: u32) -> Stamp {
        Stamp {
            wall: secs,
            nanos,
            offset: Some(0),
            yearless: false,
        }
    }

    pub(super) fn utc(&self) -> i64 {
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

pub(super) fn write_frac(f: &mut fmt::Formatter<'_>, nanos: u32) -> fmt::Result {
    if nanos == 0 {
        return Ok(());
    }
    let s = format!("{nanos:09}");
    write!(f, ".{}", s.trim_end_matches('0'))
}

pub(super) fn write_offset(f: &mut fmt::Formatter<'_>, off: i32) -> fmt::Result {
    if off == 0 {
        return write!(f, "Z");
    }
    let sign = if off < 0 { '-' } else { '+' };
    let a = off.unsigned_abs();
    write!(f, "{sign}{:02}:{:02}", a / 3600, a / 60 % 60)
}

/// Writes `secs` (wall seconds) as `YYYY-MM-DD HH:MM:SS` or, year-less, `MM-DD HH:MM:SS`.
pub(super) fn write_wall(
    f: &mut fmt::Formatter<'_>,
    secs: i64,
    nanos: u32,
    yearless: bool,
) -> fmt::Result {
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
