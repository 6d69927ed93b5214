//! Timestamp formats: the built-in ones auto-detection chooses from, explicit
//! strftime-like specs, and [`TimeFormat`], which finds a line's stamp.

use super::*;

// ---------------------------------------------------------------------------
// A small cursor for parsing
// ---------------------------------------------------------------------------

pub(super) struct Cur<'a> {
    pub(super) b: &'a [u8],
    pub(super) i: usize,
}

impl<'a> Cur<'a> {
    pub(super) fn new(b: &'a [u8], i: usize) -> Self {
        Cur { b, i }
    }
    pub(super) fn peek(&self) -> Option<u8> {
        self.b.get(self.i).copied()
    }
    pub(super) fn peek_at(&self, k: usize) -> Option<u8> {
        self.b.get(self.i + k).copied()
    }
    pub(super) fn digit_at(&self, k: usize) -> bool {
        self.peek_at(k).is_some_and(|c| c.is_ascii_digit())
    }
    pub(super) fn eat(&mut self, c: u8) -> bool {
        if self.peek() == Some(c) {
            self.i += 1;
            true
        } else {
            false
        }
    }
    pub(super) fn lit(&mut self, c: u8) -> Option<()> {
        self.eat(c).then_some(())
    }
    pub(super) fn at_end(&self) -> bool {
        self.i >= self.b.len()
    }
    /// Exactly `n` digits.
    pub(super) fn fixed(&mut self, n: usize) -> Option<u32> {
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
    pub(super) fn upto(&mut self, max: usize) -> Option<u32> {
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
    pub(super) fn run(&mut self) -> Option<(u64, usize)> {
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
    pub(super) fn frac(&mut self) -> Option<u32> {
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
    pub(super) fn opt_frac(&mut self) -> u32 {
        if matches!(self.peek(), Some(b'.' | b',')) && self.digit_at(1) {
            self.i += 1;
            self.frac().unwrap_or(0)
        } else {
            0
        }
    }
    /// `HH:MM:SS` with two-digit fields.
    pub(super) fn hms2(&mut self) -> Option<(u32, u32, u32)> {
        let h = self.fixed(2)?;
        self.lit(b':')?;
        let m = self.fixed(2)?;
        self.lit(b':')?;
        let s = self.fixed(2)?;
        valid_time(h, m, s).then_some((h, m, s))
    }
    pub(super) fn spaces(&mut self) -> usize {
        let s = self.i;
        while matches!(self.peek(), Some(b' ' | b'\t')) {
            self.i += 1;
        }
        self.i - s
    }
    /// A numeric UTC offset `±HH`, `±HHMM` or `±HH:MM`; `Z` when `z`.
    pub(super) fn zone(&mut self, z: bool) -> Option<i32> {
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
    pub(super) fn month_name(&mut self) -> Option<u32> {
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
    pub(super) fn weekday_name(&mut self) -> Option<()> {
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

pub(super) fn reach(line: &[u8], extra: usize) -> &[u8] {
    &line[..line.len().min(REACH + extra)]
}

pub(super) fn hms_secs(h: u32, m: u32, s: u32) -> i64 {
    i64::from(h) * 3600 + i64::from(m) * 60 + i64::from(s)
}

/// `YYYY-MM-DD[T ]HH:MM:SS[.frac][Z|±HH:MM|±HHMM| ±HHMM]`
pub(super) fn iso(line: &[u8]) -> Option<Stamp> {
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

pub(super) fn iso_at(line: &[u8], s: usize) -> Option<Stamp> {
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
pub(super) fn month_day(line: &[u8]) -> Option<Stamp> {
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
pub(super) fn yearless_time(c: &mut Cur<'_>, mo: u32, d: u32) -> Option<Stamp> {
    let (h, mi, sec) = c.hms2()?;
    let nanos = c.opt_frac();
    if c.digit_at(0) || !valid_date(None, mo, d) {
        return None;
    }
    Some(Stamp::civil(None, mo, d, hms_secs(h, mi, sec), nanos, None))
}

/// Day of month after a month name: ` 1`, `01`, `1`, `12`.
pub(super) fn syslog_day(c: &mut Cur<'_>) -> Option<u32> {
    if c.eat(b' ') {
        // "Jul  1"
        let d = c.fixed(1)?;
        return (!c.digit_at(0)).then_some(d);
    }
    c.upto(2)
}

/// `Mon D HH:MM:SS[.frac]` with the day space-padded or not.
pub(super) fn syslog(line: &[u8]) -> Option<Stamp> {
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
pub(super) fn ctime(line: &[u8]) -> Option<Stamp> {
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
            let secs = hms_secs(h, mi, sec);
            Some(Stamp::civil(Some(y), mo, d, secs, nanos, None))
        })();
        if st.is_some() {
            return st;
        }
    }
    None
}

/// `DD/Mon/YYYY:HH:MM:SS[ ±HHMM]` (Apache/nginx access log).
pub(super) fn apache_access(line: &[u8]) -> Option<Stamp> {
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
            let secs = hms_secs(h, mi, sec);
            Some(Stamp::civil(Some(y), mo, d, secs, nanos, off))
        })();
        if st.is_some() {
            return st;
        }
    }
    None
}

pub(super) fn is_blank(c: u8) -> bool {
    matches!(c, b' ' | b'\t' | b'\r')
}

/// A whitespace-separated token of exactly 10 digits, `.frac` allowed.
pub(super) fn epoch(line: &[u8]) -> Option<Stamp> {
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
pub(super) enum Item {
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
    pub(super) fn numeric(self) -> bool {
        !matches!(
            self,
            Item::Lit(_) | Item::Space | Item::MonthName | Item::Weekday | Item::AmPm | Item::Zone
        )
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Spec {
    pub(super) text: String,
    pub(super) items: Vec<Item>,
    pub(super) has_year: bool,
    pub(super) epoch: bool,
}

impl Spec {
    pub(super) fn parse(spec: &str) -> Result<Spec, String> {
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

    pub(super) fn stamp(&self, line: &[u8]) -> Option<Stamp> {
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

    pub(super) fn stamp_at(&self, line: &[u8], s: usize) -> Option<Stamp> {
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
pub(super) enum Kind {
    Iso,
    ApacheAccess,
    Ctime,
    Epoch,
    Syslog,
    MonthDay,
    Explicit(Spec),
}

/// The built-in formats in detection priority order.
pub(super) const AUTO: [Kind; 6] = [
    Kind::Iso,
    Kind::ApacheAccess,
    Kind::Ctime,
    Kind::Epoch,
    Kind::Syslog,
    Kind::MonthDay,
];

/// A timestamp format: auto-detected ([`TimeFormat::detect`]) or explicit
/// ([`TimeFormat::parse`]). See the [module docs](super) for the formats.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TimeFormat {
    pub(super) kind: Kind,
}

impl TimeFormat {
    /// An explicit strftime-like format given by the user (`--time-format`),
    /// e.g. `"%Y-%m-%d %H:%M:%S"`, `"%b %e %H:%M:%S"`,
    /// `"[%d/%b/%Y:%H:%M:%S %z]"`, `"%s"`. The directives are listed in the
    /// [module docs](super). The error is a message for the user.
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

pub(super) fn stamp_kind(kind: &Kind, line: &[u8]) -> Option<Stamp> {
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
