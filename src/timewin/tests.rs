use super::bound::*;
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
}

#[test]
fn relative_and_bad_bounds() {
    let now = UNIX_EPOCH + std::time::Duration::from_secs(1_700_000_000);
    let ok = |s: &str| {
        Bound::parse(s, now)
            .unwrap_or_else(|e| panic!("{s}: {e}"))
            .kind
    };
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
    let mac =
        b"Jul  1 09:00:55 h a\nJul  1 09:00:56 h 2017-07-05 10:52:16.977 b\nJul  1 09:00:57 h c\n";
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
