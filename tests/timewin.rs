//! `--since`/`--before` time windows: the binary search against a
//! line-by-line reference, on every loghub sample, on generated edge cases,
//! and on random logs.

mod common;

use grail::timewin::{
    window, window_with, Bound, Cutoff, Stamp, TimeFormat, Window, WindowError, WindowOptions,
};
use proptest::prelude::*;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// `../shared/testdata` beside the checkout (CI lays it there too). The
/// tests that read it fail when it is missing: they never pass by skipping.
fn shared(dir: &str) -> String {
    common::shared("testdata").join(dir).display().to_string()
}

fn now() -> SystemTime {
    UNIX_EPOCH + Duration::from_secs(1_780_000_000)
}

fn bound(s: &str) -> Bound {
    Bound::parse(s, now()).unwrap_or_else(|e| panic!("{s}: {e}"))
}

/// (start, end without the `\n`) of every line, as grep sees them.
fn lines(hay: &[u8]) -> Vec<(usize, usize)> {
    let mut v = Vec::new();
    let mut s = 0;
    while s < hay.len() {
        let e = hay[s..]
            .iter()
            .position(|&b| b == b'\n')
            .map_or(hay.len(), |p| s + p);
        v.push((s, e));
        s = e + 1;
    }
    v
}

/// What the reference knows about a log.
struct Parsed {
    lines: Vec<(usize, usize)>,
    stamps: Vec<Option<Stamp>>,
    first: Option<Stamp>,
    last: Option<Stamp>,
}

fn parse(hay: &[u8], fmt: &TimeFormat) -> Parsed {
    let lines = lines(hay);
    let stamps: Vec<_> = lines.iter().map(|&(s, e)| fmt.stamp(&hay[s..e])).collect();
    let first = stamps.iter().flatten().next().copied();
    let last = stamps.iter().flatten().next_back().copied();
    Parsed {
        lines,
        stamps,
        first,
        last,
    }
}

/// The rule, line by line: every line gets the stamp of the last
/// timestamped line at or before it (none before the first); the window
/// starts at the first line whose stamp reaches `since` and ends at the
/// first line at or after it whose stamp reaches `before`.
fn reference(
    hay: &[u8],
    fmt: &TimeFormat,
    since: Option<&Bound>,
    before: Option<&Bound>,
) -> Result<(usize, usize), WindowError> {
    if since.is_none() && before.is_none() {
        return Ok((0, hay.len()));
    }
    let p = parse(hay, fmt);
    let (Some(first), Some(last)) = (p.first, p.last) else {
        return Err(WindowError::NoTimestamps);
    };
    let mut eff: Vec<Option<Stamp>> = Vec::with_capacity(p.lines.len());
    let mut cur = None;
    for s in &p.stamps {
        if s.is_some() {
            cur = *s;
        }
        eff.push(cur);
    }
    let reach = |c: &Cutoff, from: usize| {
        (from..p.lines.len())
            .find(|&i| eff[i].is_some_and(|s| c.reached_by(&s)))
            .unwrap_or(p.lines.len())
    };
    let si = match since {
        Some(b) => reach(&b.resolve(fmt, &first, &last), 0),
        None => 0,
    };
    let ei = match before {
        Some(b) => reach(&b.resolve(fmt, &first, &last), si),
        None => p.lines.len(),
    };
    let at = |i: usize| p.lines.get(i).map_or(hay.len(), |l| l.0);
    Ok((at(si), at(ei)))
}

/// Whether the log is in order as `window` assumes: timestamped lines whose
/// starts are more than `slack` bytes apart are in time order. "a is later
/// than b" is "a cutoff at a's stamp (written back as a bound) is not
/// reached by b", which follows the year-less roll-over.
fn ordered(hay: &[u8], fmt: &TimeFormat, slack: usize) -> bool {
    let p = parse(hay, fmt);
    let (first, last) = (p.first.unwrap(), p.last.unwrap());
    let stamped: Vec<(usize, Cutoff, Stamp)> = p
        .lines
        .iter()
        .zip(&p.stamps)
        .filter_map(|(l, s)| s.map(|s| (l.0, bound(&s.to_string()).resolve(fmt, &first, &last), s)))
        .collect();
    let later = |a: usize, b: usize| !stamped[a].1.reached_by(&stamped[b].2);
    let mut j = 0;
    let mut max: Option<usize> = None;
    for k in 0..stamped.len() {
        while j < k && stamped[k].0 - stamped[j].0 > slack {
            if max.is_none_or(|m| later(j, m)) {
                max = Some(j);
            }
            j += 1;
        }
        if max.is_some_and(|m| later(m, k)) {
            return false;
        }
    }
    true
}

fn check(
    hay: &[u8],
    fmt: &TimeFormat,
    since: Option<&Bound>,
    before: Option<&Bound>,
    opts: &WindowOptions,
) -> Result<Window, WindowError> {
    let got = window_with(hay, fmt, since, before, opts);
    if let Ok(w) = &got {
        assert!(w.start <= w.end && w.end <= hay.len());
        for x in [w.start, w.end] {
            assert!(
                x == 0 || x == hay.len() || hay[x - 1] == b'\n',
                "{x} is not a line start"
            );
        }
    }
    got
}

// ---------------------------------------------------------------------------
// loghub
// ---------------------------------------------------------------------------

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Expect {
    /// Every window equals the reference.
    Exact,
    /// Not time-ordered: per window, in the order of the cases, `N` for
    /// `NotOrdered`, `=` for the reference's window, `x` for another window
    /// (disorder the probes did not see).
    Disordered(&'static str),
}

/// (file, explicit format or None for auto, expected detected name, expectation)
const LOGHUB_FILES: [(&str, Option<&str>, &str, Expect); 16] = [
    ("Android", None, "month-day (no year)", Expect::Exact),
    ("Apache", None, "ctime", Expect::Exact),
    ("BGL", None, "epoch seconds", Expect::Exact),
    ("HDFS", Some("%y%m%d %H%M%S"), "", Expect::Exact),
    (
        "HPC",
        None,
        "epoch seconds",
        Expect::Disordered(
            "===x==NNNNxxxxxNNNNN===x==NNNN===x==NN=NNNNNNNNNNNNNNNNNNNNN===x==NN=NNNNNNNNNNN",
        ),
    ),
    ("Hadoop", None, "ISO-8601", Expect::Exact),
    ("HealthApp", Some("%Y%m%d-%H:%M:%S:%L"), "", Expect::Exact),
    ("Linux", None, "syslog (no year)", Expect::Exact),
    ("Mac", None, "syslog (no year)", Expect::Exact),
    ("OpenSSH", None, "syslog (no year)", Expect::Exact),
    ("OpenStack", None, "ISO-8601", Expect::Exact),
    ("Proxifier", Some("[%m.%d %H:%M:%S]"), "", Expect::Exact),
    ("Spark", Some("%y/%m/%d %H:%M:%S"), "", Expect::Exact),
    ("Thunderbird", None, "epoch seconds", Expect::Exact),
    ("Windows", None, "ISO-8601", Expect::Exact),
    (
        "Zookeeper",
        None,
        "ISO-8601",
        Expect::Disordered(
            "NNNNNNNNNNNNNNNNNNNNNNNNNNNNNN==NNN=NN=NNNNNNNNNNNNNNNNNNNNN==NNN=NN=NNNNNNNNNNN",
        ),
    ),
];

/// Bounds taken from the log itself: the stamps at 10%, 50% and 90% of the
/// timestamped lines (as written back by `Stamp`'s `Display`), the first and
/// last, the 50% one as a time of day alone, and far outside the log.
fn loghub_bounds(p: &Parsed) -> Vec<String> {
    let st: Vec<Stamp> = p.stamps.iter().flatten().copied().collect();
    let at = |pc: usize| st[(st.len() - 1) * pc / 100].to_string();
    let mid = at(50);
    let tod = mid.rsplit(' ').next().unwrap().to_string();
    vec![
        at(10),
        mid,
        at(90),
        at(0),
        at(100),
        tod,
        "1990-01-01".to_string(),
        "2100-01-01".to_string(),
    ]
}

fn loghub_format(name: &str, explicit: Option<&str>, hay: &[u8]) -> TimeFormat {
    let auto = TimeFormat::detect(hay);
    match explicit {
        Some(spec) => {
            assert!(
                auto.is_none(),
                "{name}: detected {:?}",
                auto.map(|f| f.name())
            );
            TimeFormat::parse(spec).unwrap()
        }
        None => auto.unwrap_or_else(|| panic!("{name}: not detected")),
    }
}

#[test]
fn loghub_every_file_every_window() {
    let loghub = shared("loghub");
    let opts = WindowOptions::default();
    for (name, explicit, detected, expect) in LOGHUB_FILES {
        let hay = std::fs::read(format!("{loghub}/{name}_2k.log")).unwrap();
        let fmt = loghub_format(name, explicit, &hay);
        if explicit.is_none() {
            assert_eq!(fmt.name(), detected, "{name}");
        }
        let p = parse(&hay, &fmt);
        let stamped = p.stamps.iter().flatten().count();
        assert!(
            stamped >= 1999,
            "{name}: only {stamped} lines have a timestamp"
        );
        let texts = loghub_bounds(&p);
        let bounds: Vec<Bound> = texts.iter().map(|t| bound(t)).collect();
        let mut cases: Vec<(Option<&Bound>, Option<&Bound>)> = Vec::new();
        for a in &bounds {
            cases.push((Some(a), None));
            cases.push((None, Some(a)));
            for b in &bounds {
                cases.push((Some(a), Some(b)));
            }
        }
        let mut proper = 0;
        // per case: '=' the reference's window, 'N' NotOrdered, 'x' another window
        let mut outcome = String::new();
        for (s, b) in cases {
            let got = check(&hay, &fmt, s, b, &opts);
            let want = reference(&hay, &fmt, s, b).unwrap();
            let what = format!(
                "{name}: --since {s:?} --before {b:?}",
                s = s.map(|x| x.to_string()),
                b = b.map(|x| x.to_string())
            );
            match got {
                Ok(w) if (w.start, w.end) == want => {
                    outcome.push('=');
                    if w.end > w.start && w.end - w.start < hay.len() {
                        proper += 1;
                    }
                }
                Ok(_) => outcome.push('x'),
                Err(WindowError::NotOrdered {
                    earlier_at,
                    later_at,
                    earlier,
                    later,
                }) => {
                    outcome.push('N');
                    assert!(earlier_at + opts.slack_bytes < later_at, "{what}");
                    assert!(earlier > later, "{what}");
                    let f = |at: usize| {
                        let end = hay[at..]
                            .iter()
                            .position(|&c| c == b'\n')
                            .map_or(hay.len(), |p| at + p);
                        fmt.stamp(&hay[at..end])
                    };
                    assert_eq!(f(earlier_at), Some(earlier), "{what}");
                    assert_eq!(f(later_at), Some(later), "{what}");
                }
                Err(e) => panic!("{what}: {e}"),
            }
        }
        match expect {
            Expect::Exact => assert!(!outcome.contains(['N', 'x']), "{name}: {outcome}"),
            Expect::Disordered(pattern) => assert_eq!(outcome, pattern, "{name}"),
        }
        if expect == Expect::Exact {
            // the windows are not all trivial
            assert!(proper >= 20, "{name}: {proper} proper windows");
        }
    }
}

/// The files that are not perfectly ordered are exact only thanks to the
/// slack: with `slack_bytes = 0` the same windows give `NotOrdered` or,
/// where no probe sees the disorder, the window of the order the search saw.
#[test]
fn loghub_disorder_is_local() {
    let loghub = shared("loghub");
    for (name, explicit, _, expect) in LOGHUB_FILES {
        let hay = std::fs::read(format!("{loghub}/{name}_2k.log")).unwrap();
        let fmt = loghub_format(name, explicit, &hay);
        let strict = ordered(&hay, &fmt, 0);
        let relaxed = ordered(&hay, &fmt, WindowOptions::default().slack_bytes);
        let want = match name {
            "Apache" | "Linux" | "Mac" => (false, true),
            _ if matches!(expect, Expect::Disordered(_)) => (false, false),
            _ => (true, true),
        };
        assert_eq!((strict, relaxed), want, "{name}");
    }
}

#[test]
fn loghub_probes_are_few() {
    let loghub = shared("loghub");
    // strictly ordered files: a window costs a few dozen lines with slack 0
    let opts = WindowOptions {
        slack_bytes: 0,
        ..WindowOptions::default()
    };
    for name in [
        "Android",
        "BGL",
        "Hadoop",
        "OpenStack",
        "Thunderbird",
        "Windows",
    ] {
        let hay = std::fs::read(format!("{loghub}/{name}_2k.log")).unwrap();
        let fmt = TimeFormat::detect(&hay).unwrap();
        let p = parse(&hay, &fmt);
        let texts = loghub_bounds(&p);
        let (s, b) = (bound(&texts[0]), bound(&texts[2]));
        let w = window_with(&hay, &fmt, Some(&s), Some(&b), &opts).unwrap();
        assert_eq!(
            (w.start, w.end),
            reference(&hay, &fmt, Some(&s), Some(&b)).unwrap(),
            "{name}"
        );
        assert!(w.probed_lines <= 50, "{name}: {} lines", w.probed_lines);
        assert!(w.probed_bytes < 20_000, "{name}: {} bytes", w.probed_bytes);
    }
}

// ---------------------------------------------------------------------------
// Generated edge cases
// ---------------------------------------------------------------------------

fn iso() -> TimeFormat {
    TimeFormat::detect(b"2026-11-29 22:33:01 x").unwrap()
}

fn win(
    hay: &str,
    since: Option<&str>,
    before: Option<&str>,
) -> Result<(usize, usize), WindowError> {
    let fmt = TimeFormat::detect(hay.as_bytes()).unwrap_or_else(iso);
    win_fmt(hay, &fmt, since, before)
}

fn win_fmt(
    hay: &str,
    fmt: &TimeFormat,
    since: Option<&str>,
    before: Option<&str>,
) -> Result<(usize, usize), WindowError> {
    let (s, b) = (since.map(bound), before.map(bound));
    let got = check(
        hay.as_bytes(),
        fmt,
        s.as_ref(),
        b.as_ref(),
        &WindowOptions::default(),
    )
    .map(|w| (w.start, w.end));
    let want = reference(hay.as_bytes(), fmt, s.as_ref(), b.as_ref());
    if got.is_ok() {
        assert_eq!(got, want, "{hay:?} since {since:?} before {before:?}");
    }
    got
}

fn text(hay: &str, r: (usize, usize)) -> &str {
    &hay[r.0..r.1]
}

const LOG: &str = "preamble without time\n\
    2026-11-29 10:00:00 a\n\
    2026-11-29 11:00:00 b\n\
    \tcontinuation of b\n\
    Traceback: of b\n\
    2026-11-29 12:00:00 c\n\
    2026-11-29 12:00:00 c2\n\
    2026-11-29 13:00:00.5 d\n\
    last words of d";

#[test]
fn continuation_lines_and_preamble() {
    let w = |s, b| text(LOG, win(LOG, s, b).unwrap());
    assert_eq!(
        w(Some("2026-11-29 11:00"), Some("2026-11-29 12:00")),
        "2026-11-29 11:00:00 b\n\tcontinuation of b\nTraceback: of b\n"
    );
    // the preamble belongs to no time: in only without --since
    assert!(w(None, Some("2026-11-29 11:00")).starts_with("preamble"));
    assert_eq!(
        w(None, Some("2026-11-29 11:00")),
        "preamble without time\n2026-11-29 10:00:00 a\n"
    );
    assert!(w(Some("2026-11-29"), None).starts_with("2026-11-29 10:00:00 a"));
    // equal stamps: inclusive since, exclusive before
    assert_eq!(
        w(Some("2026-11-29 12:00"), Some("2026-11-29 12:00:01")),
        "2026-11-29 12:00:00 c\n2026-11-29 12:00:00 c2\n"
    );
    // fractions are kept
    assert_eq!(
        w(Some("2026-11-29 13:00:00.5"), None),
        "2026-11-29 13:00:00.5 d\nlast words of d"
    );
    assert_eq!(w(Some("2026-11-29 13:00:00.51"), None), "");
    assert_eq!(
        w(Some("2026-11-29 13:00:00.4"), Some("2026-11-29 13:00:00.5")),
        ""
    );
    // the last line has no newline
    assert_eq!(
        w(Some("13:00"), None),
        "2026-11-29 13:00:00.5 d\nlast words of d"
    );
}

#[test]
fn windows_outside_the_log_and_empty_windows() {
    let len = LOG.len();
    assert_eq!(win(LOG, Some("2026-11-30"), None).unwrap(), (len, len));
    assert_eq!(
        win(LOG, Some("2026-11-30"), Some("2026-12-01")).unwrap(),
        (len, len)
    );
    assert_eq!(
        win(LOG, None, Some("2026-11-28")).unwrap(),
        (0, 22),
        "just the preamble"
    );
    assert_eq!(
        text(LOG, win(LOG, Some("2026-11-28"), None).unwrap()),
        &LOG[22..]
    );
    assert_eq!(
        win(LOG, Some("2026-11-28"), Some("2026-12-01")).unwrap(),
        (22, len)
    );
    // since == before, since > before: empty, at the since line
    let c = LOG.find("2026-11-29 12").unwrap();
    assert_eq!(
        win(LOG, Some("2026-11-29 12:00"), Some("2026-11-29 12:00")).unwrap(),
        (c, c)
    );
    assert_eq!(
        win(LOG, Some("2026-11-29 11:30"), Some("2026-11-29 10:30")).unwrap(),
        (c, c)
    );
    // no bound: everything, nothing read
    let w = window(LOG.as_bytes(), &iso(), None, None).unwrap();
    assert_eq!((w.start, w.end, w.probed_bytes), (0, len, 0));
}

#[test]
fn empty_one_line_and_untimed_files() {
    let fmt = iso();
    let b = bound("2026-11-29");
    for hay in ["", "\n", "\n\n", "no time\nat all\n", "no time"] {
        assert_eq!(
            window(hay.as_bytes(), &fmt, Some(&b), None),
            Err(WindowError::NoTimestamps),
            "{hay:?}"
        );
        assert_eq!(
            window(hay.as_bytes(), &fmt, None, Some(&b)),
            Err(WindowError::NoTimestamps),
            "{hay:?}"
        );
        let w = window(hay.as_bytes(), &fmt, None, None).unwrap();
        assert_eq!((w.start, w.end), (0, hay.len()));
    }
    let one = "2026-11-29 10:00:00 x";
    assert_eq!(win(one, Some("2026-11-29"), None).unwrap(), (0, one.len()));
    assert_eq!(
        win(one, Some("2026-11-29 10:00:01"), None).unwrap(),
        (one.len(), one.len())
    );
    assert_eq!(win(one, None, Some("2026-11-29 10:00:00")).unwrap(), (0, 0));
    let one_nl = "2026-11-29 10:00:00 x\n";
    assert_eq!(
        win(one_nl, None, Some("2026-11-29 10:00:01")).unwrap(),
        (0, one_nl.len())
    );
    let crlf = "2026-11-29 10:00:00 a\r\n2026-11-29 11:00:00 b\r\n";
    assert_eq!(
        text(crlf, win(crlf, Some("11:00"), None).unwrap()),
        "2026-11-29 11:00:00 b\r\n"
    );
}

#[test]
fn yearless_logs_across_new_year() {
    let log =
        "Dec 31 23:59:58 h a\nDec 31 23:59:59 h b\nJan  1 00:00:00 h c\nJan  1 00:00:01 h d\n";
    let w = |s, b| text(log, win(log, s, b).unwrap());
    assert_eq!(
        w(Some("Jan 1"), None),
        "Jan  1 00:00:00 h c\nJan  1 00:00:01 h d\n"
    );
    assert_eq!(
        w(None, Some("Jan 1")),
        "Dec 31 23:59:58 h a\nDec 31 23:59:59 h b\n"
    );
    assert_eq!(
        w(Some("Dec 31 23:59:59"), Some("Jan  1 00:00:01")),
        "Dec 31 23:59:59 h b\nJan  1 00:00:00 h c\n"
    );
    // a year in the bound is ignored; the date goes where it fits the log
    assert_eq!(
        w(Some("1999-01-01"), None),
        "Jan  1 00:00:00 h c\nJan  1 00:00:01 h d\n"
    );
    assert_eq!(w(Some("2030-12-31 23:59:59"), None), &log[20..]);
    // a time of day alone: the day of the last line
    assert_eq!(w(Some("00:00:01"), None), "Jan  1 00:00:01 h d\n");
    // vLLM-style month-day too
    let v = "INFO 12-31 23:59:59 [a.py:1] x\nINFO 01-01 00:00:00 [a.py:1] y\n";
    assert_eq!(
        text(v, win(v, Some("01-01 00:00:00"), None).unwrap()),
        "INFO 01-01 00:00:00 [a.py:1] y\n"
    );
}

#[test]
fn timezones() {
    let log =
        "2026-11-29T10:00:00+02:00 a\n2026-11-29T10:30:00+02:00 b\n2026-11-29T11:00:00+02:00 c\n";
    let w = |s: &str| {
        text(log, win(log, Some(s), None).unwrap())
            .lines()
            .next()
            .map(str::to_string)
    };
    // both with offsets: UTC (08:30Z is b)
    assert_eq!(
        w("2026-11-29T08:30:00Z").unwrap(),
        "2026-11-29T10:30:00+02:00 b"
    );
    assert_eq!(
        w("2026-11-29T09:30:00+01:00").unwrap(),
        "2026-11-29T10:30:00+02:00 b"
    );
    // bound without offset: wall clocks as written
    assert_eq!(
        w("2026-11-29 10:30").unwrap(),
        "2026-11-29T10:30:00+02:00 b"
    );
    // epoch: UTC
    assert_eq!(w("@1795941000").unwrap(), "2026-11-29T10:30:00+02:00 b");
    // epoch log, zone-less bound: UTC
    let e = "- 1795941000 x\n- 1795942800 y\n";
    assert_eq!(
        text(e, win(e, Some("2026-11-29 09:00"), None).unwrap()),
        "- 1795942800 y\n"
    );
    // relative times are UTC instants
    let rel = format!(
        "- {} old\n- {} new\n",
        1_780_000_000 - 7200,
        1_780_000_000 - 60
    );
    assert_eq!(
        text(&rel, win(&rel, Some("10m ago"), None).unwrap()),
        format!("- {} new\n", 1_780_000_000 - 60)
    );
    assert_eq!(
        text(&rel, win(&rel, Some("-3h"), Some("-1h")).unwrap()),
        format!("- {} old\n", 1_780_000_000 - 7200)
    );
}

#[test]
fn explicit_formats_window() {
    let hdfs = "081109 203615 148 INFO a\n081109 203807 222 INFO b\n081110 000001 35 INFO c\n";
    let fmt = TimeFormat::parse("%y%m%d %H%M%S").unwrap();
    assert_eq!(
        text(
            hdfs,
            win_fmt(hdfs, &fmt, Some("2008-11-09 20:37"), Some("2008-11-10")).unwrap()
        ),
        "081109 203807 222 INFO b\n"
    );
    let apache = "1.2.3.4 - - [29/Nov/2026:22:33:01 +0000] \"GET /a\"\n1.2.3.4 - - [29/Nov/2026:22:34:01 +0000] \"GET /b\"\n";
    let fmt = TimeFormat::parse("[%d/%b/%Y:%H:%M:%S %z]").unwrap();
    assert_eq!(
        text(apache, win_fmt(apache, &fmt, Some("22:34"), None).unwrap()),
        &apache[apache.len() / 2..]
    );
}

#[test]
fn not_ordered_names_the_offsets() {
    let mut log = String::new();
    for i in 0..200 {
        log.push_str(&format!(
            "2026-11-29 10:{:02}:{:02} line {i:03}\n",
            i / 60,
            i % 60
        ));
    }
    let late = log.len();
    log.push_str("2026-11-29 09:00:00 the clock went back\n");
    let fmt = iso();
    let opts = WindowOptions {
        slack_bytes: 100,
        ..WindowOptions::default()
    };
    let s = bound("2026-11-29 10:01");
    let e = window_with(log.as_bytes(), &fmt, Some(&s), None, &opts).unwrap_err();
    let WindowError::NotOrdered {
        earlier_at,
        later_at,
        ..
    } = e
    else {
        panic!("{e:?}")
    };
    assert_eq!((earlier_at, later_at), (0, late));
    let msg = e.to_string();
    assert!(msg.contains("byte 0 "), "{msg}");
    assert!(msg.contains(&format!("byte {late} ")), "{msg}");
    assert!(
        msg.contains("--since/--before need a time-ordered log"),
        "{msg}"
    );
    // within the slack the same disorder is fine, and exact
    let opts = WindowOptions::default();
    let w = window_with(log.as_bytes(), &fmt, Some(&s), None, &opts).unwrap();
    assert_eq!(
        (w.start, w.end),
        reference(log.as_bytes(), &fmt, Some(&s), None).unwrap()
    );
}

#[test]
fn jitter_near_the_boundary_is_exact() {
    // a line stamped 10:00:05 written before lines stamped 10:00:03/04
    let log = "2026-11-29 10:00:01 a\n2026-11-29 10:00:05 early\n2026-11-29 10:00:03 b\n2026-11-29 10:00:04 c\n2026-11-29 10:00:06 d\n";
    // the first line at or after 10:00:04 is "early"
    assert_eq!(
        text(log, win(log, Some("10:00:04"), None).unwrap()),
        &log[22..]
    );
    // before 10:00:04 ends at "c": "early" is inside, as the rule says
    assert_eq!(
        text(log, win(log, Some("10:00:02"), Some("10:00:04")).unwrap()),
        ""
    );
    assert_eq!(
        text(log, win(log, Some("10:00:01"), Some("10:00:05")).unwrap()),
        "2026-11-29 10:00:01 a\n"
    );
    assert_eq!(
        text(log, win(log, Some("10:00:05"), Some("10:00:06")).unwrap()),
        "2026-11-29 10:00:05 early\n2026-11-29 10:00:03 b\n2026-11-29 10:00:04 c\n"
    );
}

#[test]
fn sparse_timestamps_and_long_lines() {
    // 3 MiB of untimed lines between two timed halves
    let mut log = String::new();
    for i in 0..1000 {
        log.push_str(&format!(
            "2026-11-29 10:{:02}:{:02} a{i}\n",
            i / 60 % 60,
            i % 60
        ));
    }
    let gap_at = log.len();
    while log.len() < gap_at + 3 * 1024 * 1024 {
        log.push_str("    at some.java.Frame(Frame.java:123) untimed untimed untimed\n");
    }
    for i in 0..1000 {
        log.push_str(&format!(
            "2026-11-29 11:{:02}:{:02} b{i}\n",
            i / 60 % 60,
            i % 60
        ));
    }
    let fmt = iso();
    let s = bound("2026-11-29 11:00:30");
    let got = window(log.as_bytes(), &fmt, Some(&s), None);
    match got {
        Ok(w) => assert_eq!(
            (w.start, w.end),
            reference(log.as_bytes(), &fmt, Some(&s), None).unwrap()
        ),
        Err(WindowError::Sparse { offset, limit }) => {
            assert_eq!(limit, 1024 * 1024);
            assert!(
                offset > gap_at && offset < gap_at + 3 * 1024 * 1024,
                "{offset}"
            );
        }
        Err(e) => panic!("{e}"),
    }
    // with a bigger walk limit it is found, and exact
    let opts = WindowOptions {
        walk_limit: 4 * 1024 * 1024,
        ..WindowOptions::default()
    };
    let w = window_with(log.as_bytes(), &fmt, Some(&s), None, &opts).unwrap();
    assert_eq!(
        (w.start, w.end),
        reference(log.as_bytes(), &fmt, Some(&s), None).unwrap()
    );

    // one line longer than the walk limit
    let mut long = String::from("2026-11-29 10:00:00 a\n");
    long.push_str(&"x".repeat(5000));
    long.push_str("\n2026-11-29 11:00:00 b\n");
    let opts = WindowOptions {
        walk_limit: 1000,
        slack_bytes: 0,
    };
    for s in ["10:30", "09:00", "12:00"] {
        let b = bound(s);
        match window_with(long.as_bytes(), &fmt, Some(&b), None, &opts) {
            Ok(w) => assert_eq!(
                (w.start, w.end),
                reference(long.as_bytes(), &fmt, Some(&b), None).unwrap(),
                "{s}"
            ),
            Err(WindowError::Sparse { .. }) => {}
            Err(e) => panic!("{s}: {e}"),
        }
    }
}

#[test]
fn big_log_reads_little() {
    // ~32 MiB, one line per 10 ms
    let mut log = Vec::with_capacity(33 << 20);
    let base = 1_796_025_600i64; // 08:00:00 UTC (the date is written as 2026-11-29)
    let mut i = 0i64;
    while log.len() < 32 << 20 {
        let t = base + i / 100;
        let (h, m, s) = (t / 3600 % 24, t / 60 % 60, t % 60);
        log.extend_from_slice(
            format!(
                "2026-11-29 {h:02}:{m:02}:{s:02}.{:03} INFO worker {} did some work item {i}\n",
                i % 100 * 10,
                i % 7
            )
            .as_bytes(),
        );
        if i % 1000 == 0 {
            log.extend_from_slice(
                b"Traceback (most recent call last):\n  File \"x.py\", line 1\nValueError: nope\n",
            );
        }
        i += 1;
    }
    let fmt = TimeFormat::detect(&log).unwrap();
    let (s, b) = (bound("2026-11-29 08:30:00.5"), bound("2026-11-29 08:45"));
    let t0 = std::time::Instant::now();
    let w = window(&log, &fmt, Some(&s), Some(&b)).unwrap();
    let took = t0.elapsed();
    let start_line = &log[w.start..w.start + 40];
    assert!(
        start_line.starts_with(b"2026-11-29 08:30:00.500"),
        "{}",
        String::from_utf8_lossy(start_line)
    );
    assert!(log[w.end..].starts_with(b"2026-11-29 08:45:00.000"));
    assert!(log[..w.end].ends_with(b"\n"));
    // O(log n) probes plus the 64 KiB slack before each boundary
    assert!(
        w.probed_bytes < 2 * 64 * 1024 + 40_000,
        "{} bytes",
        w.probed_bytes
    );
    assert!(w.probed_lines < 3000, "{} lines", w.probed_lines);
    eprintln!(
        "32 MiB: window in {took:?}, {} bytes / {} lines read",
        w.probed_bytes, w.probed_lines
    );
    // strictly ordered: a few dozen lines
    let opts = WindowOptions {
        slack_bytes: 0,
        ..WindowOptions::default()
    };
    let w0 = window_with(&log, &fmt, Some(&s), Some(&b), &opts).unwrap();
    assert_eq!((w0.start, w0.end), (w.start, w.end));
    assert!(w0.probed_lines < 120, "{} lines", w0.probed_lines);
}

#[test]
fn vllm_logs() {
    let mut paths = vec![std::path::PathBuf::from("testdata/vllm-crash.log")];
    let d = std::fs::read_dir(shared("vllm")).unwrap();
    paths.extend(
        d.map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|e| e == "log")),
    );
    assert!(paths.len() > 1, "no vLLM logs in ../shared/testdata/vllm");
    for p in paths {
        let hay = std::fs::read(&p).unwrap();
        let fmt = TimeFormat::detect(&hay).unwrap_or_else(|| panic!("{}", p.display()));
        let parsed = parse(&hay, &fmt);
        let st: Vec<Stamp> = parsed.stamps.iter().flatten().copied().collect();
        for (i, j) in [
            (0, st.len() / 2),
            (st.len() / 3, st.len() - 1),
            (st.len() / 2, st.len() / 2),
        ] {
            let (s, b) = (bound(&st[i].to_string()), bound(&st[j].to_string()));
            for (s, b) in [(Some(&s), Some(&b)), (Some(&s), None), (None, Some(&b))] {
                let w = window(&hay, &fmt, s, b).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
                assert_eq!(
                    (w.start, w.end),
                    reference(&hay, &fmt, s, b).unwrap(),
                    "{}",
                    p.display()
                );
            }
        }
    }
}

#[test]
fn bound_parse_forms() {
    for ok in [
        "2026-11-29",
        "2026-11-29 22:33",
        "2026-11-29T22:33:01Z",
        "2026-11-29 22:33:01.5+01:00",
        "2026-11-29 22:33:01 UTC",
        "Nov 29 22:33:01",
        "Nov 29",
        "November 29",
        "11-29 22:33:01",
        "22:33",
        "22:33:01",
        "22:33:01.250",
        "@1700000000",
        "@1700000000.5",
        "now",
        "10m ago",
        "2h ago",
        "-30s",
        "-1d",
        "3 days ago",
    ] {
        assert!(Bound::parse(ok, now()).is_ok(), "{ok}");
    }
    for bad in [
        "xyz",
        "",
        "yesterday",
        "2026-11-31",
        "2026-11-29 22",
        "25:00",
        "Nov 29 25:00",
        "10m",
        "-10m ago",
        "10 fortnights ago",
        "@-5",
        "11/29/2026",
    ] {
        let e = Bound::parse(bad, now()).unwrap_err();
        assert!(e.starts_with(&format!("cannot read time '{bad}': ")), "{e}");
    }
    assert!(Bound::parse("xyz", now()).unwrap_err().contains("expected"));
}

// ---------------------------------------------------------------------------
// Random logs
// ---------------------------------------------------------------------------

/// How a random log writes its times.
#[derive(Clone, Copy, Debug)]
enum Style {
    Iso,
    IsoZone,
    Syslog,
    MonthDay,
    Epoch,
}

fn civil(days: i64) -> (i64, i64, i64) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    (yoe + era * 400 + i64::from(m <= 2), m, d)
}

fn write_time(style: Style, t: i64, ms: u32) -> String {
    let (y, mo, d) = civil(t.div_euclid(86_400));
    let s = t.rem_euclid(86_400);
    let (h, mi, se) = (s / 3600, s / 60 % 60, s % 60);
    const MON: [&str; 12] = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ];
    match style {
        Style::Iso => format!("{y:04}-{mo:02}-{d:02} {h:02}:{mi:02}:{se:02},{ms:03} INFO"),
        Style::IsoZone => {
            // +01:00, as written by a zone-aware logger
            let l = t + 3600;
            let (y, mo, d) = civil(l.div_euclid(86_400));
            let s = l.rem_euclid(86_400);
            format!(
                "{y:04}-{mo:02}-{d:02}T{:02}:{:02}:{:02}.{ms:03}+01:00",
                s / 3600,
                s / 60 % 60,
                s % 60
            )
        }
        Style::Syslog => format!(
            "{} {d:>2} {h:02}:{mi:02}:{se:02} host prog[1]:",
            MON[mo as usize - 1]
        ),
        Style::MonthDay => format!(
            "\x1b[1;36m(Worker pid=7)\x1b[0;0m INFO {mo:02}-{d:02} {h:02}:{mi:02}:{se:02} [x.py:1]"
        ),
        Style::Epoch => format!("- {t} 2026.11.29 node"),
    }
}

#[derive(Clone, Debug)]
struct RandomLog {
    text: String,
    style: Style,
    times: Vec<(i64, u32)>,
}

fn random_log() -> impl Strategy<Value = RandomLog> {
    let style = prop_oneof![
        Just(Style::Iso),
        Just(Style::IsoZone),
        Just(Style::Syslog),
        Just(Style::MonthDay),
        Just(Style::Epoch)
    ];
    // start: 2026-12-31 23:00 UTC, so some logs cross a new year
    let start = 1_798_758_000i64;
    // (ms since previous, continuation lines, message length, swap with previous)
    let entry = (
        prop_oneof![3 => Just(0i64), 5 => 0i64..3000, 1 => 0i64..5_000_000],
        prop_oneof![4 => Just(0usize), 1 => 1usize..4],
        0usize..40,
        prop::bool::weighted(0.1),
    );
    (
        style,
        prop::collection::vec(entry, 0..60),
        0usize..3,
        any::<bool>(),
        any::<bool>(),
        0i64..200_000,
    )
        .prop_map(
            move |(style, entries, preamble, trailing_nl, crlf, offset)| {
                let nl = if crlf { "\r\n" } else { "\n" };
                let mut t_ms = (start - offset) * 1000;
                let mut rows: Vec<(i64, u32, String)> = Vec::new();
                let mut swapped = false;
                for (dt, cont, len, swap) in entries {
                    t_ms += dt;
                    let t = t_ms.div_euclid(1000);
                    let ms = match style {
                        Style::Syslog | Style::MonthDay | Style::Epoch => 0,
                        _ => t_ms.rem_euclid(1000) as u32,
                    };
                    let mut line = format!("{} {}", write_time(style, t, ms), "m".repeat(len));
                    for c in 0..cont {
                        line.push_str(nl);
                        line.push_str(&format!("    continuation {c} {}", "c".repeat(len / 2)));
                    }
                    rows.push((t, ms, line));
                    // swap with the previous row, never twice in a row (each
                    // line moves by at most one place)
                    if swap && rows.len() >= 2 && !swapped {
                        let n = rows.len();
                        rows.swap(n - 1, n - 2);
                        swapped = true;
                    } else {
                        swapped = false;
                    }
                }
                let mut text = String::new();
                for p in 0..preamble {
                    text.push_str(&format!("preamble {p}{nl}"));
                }
                for (_, _, l) in &rows {
                    text.push_str(l);
                    text.push_str(nl);
                }
                if !trailing_nl && !text.is_empty() {
                    text.truncate(text.len() - nl.len());
                }
                let times = rows.iter().map(|r| (r.0, r.1)).collect();
                RandomLog { text, style, times }
            },
        )
}

/// A bound near the log's times, in a form the style suits.
fn bound_text(style: Style, t: i64, ms: u32, form: u8) -> String {
    let (y, mo, d) = civil(t.div_euclid(86_400));
    let s = t.rem_euclid(86_400);
    let (h, mi, se) = (s / 3600, s / 60 % 60, s % 60);
    match (form % 5, style) {
        (0, _) => format!("@{t}.{ms:03}"),
        (1, _) => format!("{h:02}:{mi:02}:{se:02}.{ms:03}"),
        (2, Style::Syslog | Style::MonthDay) => format!("{mo:02}-{d:02} {h:02}:{mi:02}:{se:02}"),
        (3, _) => format!("{y:04}-{mo:02}-{d:02}T{h:02}:{mi:02}:{se:02}.{ms:03}Z"),
        _ => format!("{y:04}-{mo:02}-{d:02} {h:02}:{mi:02}:{se:02}.{ms:03}"),
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 1500, ..ProptestConfig::default() })]

    /// Random time-ordered logs (with adjacent swaps, allowed by the slack):
    /// every window equals the line-by-line reference, with tight walk
    /// limits too (then a `Sparse` refusal is allowed, never a wrong window).
    #[test]
    fn random_logs_match_the_reference(
        log in random_log(),
        picks in prop::collection::vec((any::<prop::sample::Index>(), -3i64..4, 0u32..1000, any::<u8>(), any::<bool>()), 2),
        which in 0u8..3,
        tight in any::<bool>(),
    ) {
        let hay = log.text.as_bytes();
        let fmt = match log.style {
            Style::Iso => TimeFormat::parse("%Y-%m-%d %H:%M:%S,%f").unwrap(),
            Style::Syslog => TimeFormat::parse("%b %e %H:%M:%S").unwrap(),
            _ => TimeFormat::detect(hay).unwrap_or_else(|| TimeFormat::parse("%s").unwrap()),
        };
        let mut bounds = Vec::new();
        for (idx, dt, ms, form, far) in &picks {
            let (t, m) = if log.times.is_empty() || *far {
                (1_798_700_000 + dt * 40_000, *ms)
            } else {
                let (t, m) = log.times[idx.index(log.times.len())];
                (t + dt, if *dt == 0 { m } else { *ms })
            };
            bounds.push(bound(&bound_text(log.style, t, m, *form)));
        }
        let (s, b) = match which {
            0 => (Some(&bounds[0]), Some(&bounds[1])),
            1 => (Some(&bounds[0]), None),
            _ => (None, Some(&bounds[1])),
        };
        let want = reference(hay, &fmt, s, b);
        let opts = if tight {
            WindowOptions { slack_bytes: 400, walk_limit: 200 }
        } else {
            WindowOptions::default()
        };
        let got = check(hay, &fmt, s, b, &opts);
        match (&got, &want) {
            (Ok(w), Ok(r)) => prop_assert_eq!((w.start, w.end), *r),
            (Err(WindowError::NoTimestamps), Err(WindowError::NoTimestamps)) => {}
            (Err(WindowError::Sparse { .. }), Ok(_)) if tight => {}
            _ => prop_assert!(false, "got {:?}, want {:?}", got, want),
        }
    }
}

/// About `n` bytes of pieces of timestamps, newlines and junk.
fn noise(mut seed: u64, n: usize) -> Vec<u8> {
    const PIECES: [&[u8]; 20] = [
        b"\n",
        b"\n",
        b"\r\n",
        b" ",
        b"2026-11-29 ",
        b"2026-11-30T",
        b"10:00:0",
        b"23:59:5",
        b"1",
        b"9",
        b".5",
        b"Z",
        b"+01:00",
        b"Nov 29 ",
        b"Jan  1 ",
        b"12-31 ",
        b"- 1700000000 ",
        b"081109 203615 ",
        b"[10.30 16:49:06]",
        b"\xff-x",
    ];
    let mut v = Vec::new();
    while v.len() < n {
        seed = seed
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        v.extend_from_slice(PIECES[(seed >> 33) as usize % PIECES.len()]);
    }
    v
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

    /// Arbitrary bytes never panic, whatever the format and bounds.
    #[test]
    fn arbitrary_bytes_never_panic(
        seed in any::<u64>(),
        n in 0usize..400,
        spec in prop::sample::select(vec!["auto", "%s", "%y%m%d %H%M%S", "[%m.%d %H:%M:%S]", "%b %e %T"]),
        s in prop::sample::select(vec!["00:00", "@0", "Jan 1", "2000-01-01T00:00:00Z", "12-31 23:59:59"]),
        walk in 1usize..64,
        slack in 0usize..64,
    ) {
        let hay = noise(seed, n);
        let fmt = if spec == "auto" {
            TimeFormat::detect(&hay).unwrap_or_else(|| TimeFormat::parse("%s").unwrap())
        } else {
            TimeFormat::parse(spec).unwrap()
        };
        let b = bound(s);
        let opts = WindowOptions { slack_bytes: slack, walk_limit: walk };
        let _ = check(&hay, &fmt, Some(&b), Some(&b), &opts);
        let _ = check(&hay, &fmt, None, Some(&b), &opts);
        let _ = check(&hay, &fmt, Some(&b), None, &WindowOptions::default());
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(3000))]
    /// Whatever the user types as TIME or --time-format, and whatever the
    /// lines hold, parsing and stamping return values or errors, never panic.
    #[test]
    fn user_text_never_panics(
        time in "[0-9a-zA-Z :.+@/TZ_-]{0,40}|.{0,12}",
        spec in "(%[YymdebHMSfLzsTRFDaAIpnth%]|[ :./\\[\\]x-]|.){0,12}",
        line in "[0-9a-zA-Z :.+/\\[\\]-]{0,60}|.{0,20}",
    ) {
        let _ = Bound::parse(&time, std::time::SystemTime::UNIX_EPOCH);
        if let Ok(f) = TimeFormat::parse(&spec) {
            let _ = f.stamp(line.as_bytes());
            let _ = f.name();
        }
        if let Some(f) = TimeFormat::detect(line.as_bytes()) {
            let _ = f.stamp(line.as_bytes());
        }
    }
}
