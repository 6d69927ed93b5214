//! The TIME bounds of `--since`/`--before` ([`Bound`]) and their placement
//! against a log's span ([`Cutoff`]).

use super::*;

// ---------------------------------------------------------------------------
// Bound
// ---------------------------------------------------------------------------

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum BoundKind {
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
    pub(super) kind: BoundKind,
    pub(super) text: String,
}

pub(super) const EXPECTED: &str = "expected a date and time (2026-11-29, 2026-11-29 22:33, \
     2026-11-29T22:33:01Z, 2026-11-29 22:33:01.5+01:00, Nov 29, Nov 29 22:33:01, \
     11-29 22:33:01), a time of day (22:33, 22:33:01), @EPOCH (@1700000000), \
     or a relative time (10m ago, 2h ago, -30s, -1d)";

impl Bound {
    /// Parses the user's TIME (forms in the [module docs](super)). `now` is
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
    /// first and last timestamps (the rules are in the [module docs](super)).
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
pub(super) fn place(cands: impl Iterator<Item = i64>, lo: i64, hi: i64) -> i64 {
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
pub(super) fn unwrap(anchor: i64, wall: i64) -> i64 {
    if wall < anchor - DAY {
        wall + YEAR
    } else {
        wall
    }
}

pub(super) fn system_secs(t: SystemTime) -> (i64, u32) {
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

pub(super) fn parse_epoch(e: &str) -> Option<BoundKind> {
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
pub(super) fn parse_relative(s: &str) -> Option<Result<i64, String>> {
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
pub(super) fn parse_tod(c: &mut Cur<'_>) -> Result<(i64, u32), Option<String>> {
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
pub(super) fn parse_tail_zone(c: &mut Cur<'_>) -> Result<Option<i32>, Option<String>> {
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

pub(super) fn parse_civil(s: &str) -> Result<BoundKind, Option<String>> {
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
    pub(super) secs: i64,
    pub(super) nanos: u32,
    /// Compare stamps in UTC (stamps without an offset: their wall clock).
    pub(super) utc: bool,
    /// Year-less log: the first line's wall time, for the year roll-over.
    pub(super) anchor: Option<i64>,
}

impl Cutoff {
    /// Whether a stamp of this log is at or after the cutoff.
    pub fn reached_by(&self, s: &Stamp) -> bool {
        self.key(s) >= (self.secs, self.nanos)
    }

    /// The stamp on this cutoff's time line (the search's sort key).
    pub(super) fn key(&self, s: &Stamp) -> (i64, u32) {
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
