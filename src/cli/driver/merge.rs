//! `--merge`: the selected lines of several files as one timeline.
//!
//! Each line's time is that of its record: the line itself when it has a
//! timestamp, else the nearest timestamped line above it in its file (a
//! traceback stays with its error). A stamp earlier than one above it (by
//! less than [`SLACK`] bytes, the disorder `--since` tolerates) counts as
//! that later time, so a file's own lines are never reordered; lines
//! before a file's first stamp come first. Ties keep the command-line file
//! order, then line order. A stamp earlier than one more than [`SLACK`]
//! bytes above it is an error naming the file and both offsets.
//!
//! Forwards, every file is searched on its own thread and its records are
//! merged as they come (a bounded queue per file). A tail (`-t N`) takes
//! each file's last N records, found from its end, and merges those.

use super::{Driver, Ready};
use crate::cli::jobs::{self, Searched};
use crate::query::Query;
use crate::search::{self, Line, Mode, Resume, SearchError, Selected, Sink};
use crate::source::Input;
use crate::timewin::{timeline_key, Stamp, TimeFormat};
use std::collections::{BinaryHeap, VecDeque};
use std::sync::mpsc;

/// Lines farther apart than this must be in time order (`--since`'s
/// `slack_bytes`).
pub const SLACK: u64 = 64 * 1024;

/// A place on the merged timeline: `None` before a file's first stamp.
type Key = Option<(i64, u32)>;

/// A stamp read at an offset: its time, the offset, the stamp.
type Seen = ((i64, u32), u64, Stamp);

/// Records handed from a file's search thread at a time.
const BATCH: usize = 256;

/// One selected line's output records, with its time.
struct Rec {
    key: Key,
    recs: Vec<Vec<u8>>,
    /// Where the line starts in its input.
    at: u64,
}

impl Rec {
    /// `json`: the records are `--json` objects, which get the line's
    /// place on the timeline as `"time"`: `{"s": seconds, "ns": nanoseconds,
    /// "year": whether the stamps have years}`, or `null` before the file's
    /// first stamp. Seconds are UTC for stamps with years, the wall clock
    /// (year 2000, rolled over as the log's months wrap) without. Merging
    /// records of several runs by (`time`, file, line) gives `--merge`'s
    /// order.
    fn new(key: Key, mut recs: Vec<Vec<u8>>, at: u64, json: Option<bool>) -> Rec {
        if let Some(year) = json {
            let time = match key {
                Some((s, ns)) => format!(r#"{{"s":{s},"ns":{ns},"year":{year}}}"#),
                None => "null".to_string(),
            };
            for r in &mut recs {
                // `{"type":…` becomes `{"type":…,"time":…` (the object
                // starts with its type).
                if let Some(comma) = memchr::memchr(b',', r) {
                    let field = format!(r#","time":{time}"#);
                    r.splice(comma..comma, field.bytes());
                }
            }
        }
        Rec { key, recs, at }
    }
}

/// The times of one file's lines, read in order.
struct Stamper {
    fmt: TimeFormat,
    /// The file's first stamp (the year roll-over of year-less logs).
    first: Option<Stamp>,
    /// The latest time so far: the key of the current record.
    max: Key,
    /// Stamps of the last [`SLACK`] bytes: (offset, time).
    recent: VecDeque<(u64, (i64, u32), Stamp)>,
    /// The latest time of the lines before those.
    settled: Option<Seen>,
}

impl Stamper {
    fn new(fmt: TimeFormat) -> Stamper {
        Stamper {
            fmt,
            first: None,
            max: None,
            recent: VecDeque::new(),
            settled: None,
        }
    }

    /// The line at `offset`; `Err`: it goes back in time beyond the slack.
    fn line(&mut self, offset: u64, line: &[u8]) -> Result<(), String> {
        let Some(s) = self.fmt.stamp(line) else {
            return Ok(());
        };
        let first = *self.first.get_or_insert(s);
        let k = timeline_key(&s, &first);
        while let Some(&(o, rk, rs)) = self.recent.front() {
            if o + SLACK >= offset {
                break;
            }
            self.recent.pop_front();
            if self.settled.is_none_or(|(sk, _, _)| rk > sk) {
                self.settled = Some((rk, o, rs));
            }
        }
        if let Some((sk, so, ss)) = self.settled {
            if k < sk {
                return Err(disorder(so, &ss, offset, &s));
            }
        }
        self.recent.push_back((offset, k, s));
        self.max = self.max.max(Some(k));
        Ok(())
    }
}

fn disorder(earlier_at: u64, earlier: &Stamp, later_at: u64, later: &Stamp) -> String {
    format!(
        "not in time order: the line at byte {later_at} ({later}) is earlier than the line at \
         byte {earlier_at} ({earlier}), more than {SLACK} bytes above it; --merge needs a \
         time-ordered log"
    )
}

/// Where a file's records go as it is searched.
trait Records {
    /// One more; false to stop the search.
    fn push(&mut self, r: Rec) -> bool;
}

/// A forward search's sink: reads the time of every line (selected or
/// not) and makes each selected line's records.
struct MergeSink<'a, R: Records> {
    q: &'a Query,
    fmt: &'a crate::printer::Format,
    name: &'a [u8],
    stamper: Stamper,
    /// Offset (in the input) of the next line whose time is unread.
    pos: u64,
    /// Offset of `buf[0]`.
    base: u64,
    to: R,
    error: Option<String>,
    /// `--json`: each record carries its time.
    json: bool,
}

impl<R: Records> MergeSink<'_, R> {
    /// Read the times of the lines of `buf` from `pos` to `upto` (a line
    /// start in buffer terms, or the end of the buffer).
    fn advance(&mut self, buf: &[u8], upto: usize) -> bool {
        if self.error.is_some() {
            return false;
        }
        let st = &mut self.stamper;
        let mut p = (self.pos - self.base) as usize;
        while p < upto {
            let end = memchr::memchr(b'\n', &buf[p..]).map_or(buf.len(), |i| p + i);
            if let Err(e) = st.line(self.base + p as u64, &buf[p..end]) {
                self.error = Some(e);
                return false;
            }
            p = if end < buf.len() { end + 1 } else { buf.len() };
        }
        self.pos = self.base + p as u64;
        true
    }
}

impl<R: Records> Sink for MergeSink<'_, R> {
    fn selected(&mut self, _out: &mut Vec<u8>, buf: &[u8], l: &Selected) -> bool {
        self.base = l.offset - l.start as u64;
        // The times up to this line's end: its own stamp too.
        let end = (l.end + 1).min(buf.len());
        if !self.advance(buf, end) {
            return false;
        }
        let key = self.stamper.max;
        let mut recs = Vec::new();
        self.fmt
            .records(&mut recs, self.q, self.name, &Line::of(buf, l));
        let year = self.stamper.fmt.has_year();
        self.to
            .push(Rec::new(key, recs, l.offset, self.json.then_some(year)))
    }

    fn reached(&mut self, _out: &mut Vec<u8>, buf: &[u8], upto: usize) {
        self.advance(buf, upto);
    }

    fn keep_from(&self, _buf: &[u8], lim: usize) -> usize {
        ((self.pos.saturating_sub(self.base)) as usize).min(lim)
    }

    fn dropped(&mut self, n: usize) {
        self.base += n as u64;
    }
}

/// Records sent to the merging thread in batches.
struct Sender {
    tx: mpsc::SyncSender<Vec<Rec>>,
    batch: Vec<Rec>,
    /// At most this many records in all (`--head`).
    left: usize,
}

impl Records for Sender {
    fn push(&mut self, r: Rec) -> bool {
        self.left = self.left.saturating_sub(r.recs.len());
        self.batch.push(r);
        if self.batch.len() >= BATCH {
            let b = std::mem::take(&mut self.batch);
            if self.tx.send(b).is_err() {
                return false;
            }
        }
        self.left > 0
    }
}

impl Drop for Sender {
    fn drop(&mut self) {
        if !self.batch.is_empty() {
            let _ = self.tx.send(std::mem::take(&mut self.batch));
        }
    }
}

/// The last records of a stream, kept as they come.
struct Ring {
    recs: VecDeque<Rec>,
    want: usize,
    have: usize,
}

impl Records for Ring {
    fn push(&mut self, r: Rec) -> bool {
        self.have += r.recs.len();
        self.recs.push_back(r);
        while self
            .recs
            .front()
            .is_some_and(|f| self.have - f.recs.len() >= self.want)
        {
            let f = self.recs.pop_front().expect("non-empty");
            self.have -= f.recs.len();
        }
        true
    }
}

/// What searching one file of a merge gave.
struct FileResult {
    res: Result<Searched, SearchError>,
    /// A timestamp problem (no format, disorder): an error for the file.
    error: Option<String>,
}

impl Driver<'_, '_> {
    /// `--merge`: open every input, then search them side by side and
    /// print one timeline. `None`: never (`-q` does not merge).
    pub(super) fn each_merged(&mut self, job: &mut dyn jobs::Job) -> Option<bool> {
        let plan = self.plan;
        let explicit = match &plan.args.time_format {
            Some(f) => match TimeFormat::parse(f) {
                Ok(f) => Some(f),
                Err(e) => {
                    self.say(&format!("grail: --time-format: {e}"));
                    self.errors = true;
                    return Some(false);
                }
            },
            None => None,
        };
        let mut ready: Vec<Ready> = Vec::new();
        let mut formats: Vec<TimeFormat> = Vec::new();
        // Inputs with no text (empty files, directories) add no line and
        // have no format.
        let mut empty: Vec<bool> = Vec::new();
        for item in plan.inputs() {
            let Some(mut r) = self.prepare(job, item, None, false) else {
                continue;
            };
            let (f, no_text) = match &explicit {
                Some(f) => (Some(f.clone()), false),
                None => detect(&mut r),
            };
            match (f, no_text) {
                (Some(f), _) => formats.push(f),
                // Any format does: there is no line to read it in.
                (None, true) => formats.push(TimeFormat::parse("%s").expect("a valid format")),
                (None, false) => {
                    self.error(&r.name, NO_STAMPS);
                    continue;
                }
            }
            ready.push(r);
            empty.push(no_text);
        }
        // Logs with years and logs without cannot share a timeline.
        let with_text = |i: &usize| !empty[*i];
        if let (Some(a), Some(b)) = (
            (0..formats.len())
                .filter(with_text)
                .find(|&i| formats[i].has_year()),
            (0..formats.len())
                .filter(with_text)
                .find(|&i| !formats[i].has_year()),
        ) {
            let msg = format!(
                "grail: --merge: the timestamps of {} have no year ({}) and those of {} do ({}): \
                 one timeline needs both with years or both without (--time-format can say how to \
                 read them)",
                String::from_utf8_lossy(&ready[b].name),
                formats[b].name(),
                String::from_utf8_lossy(&ready[a].name),
                formats[a].name()
            );
            self.say(&msg);
            self.errors = true;
            return Some(false);
        }
        let results = match plan.job {
            super::super::plan::Job::Tail(n) => {
                let n = usize::try_from(n).unwrap_or(usize::MAX);
                self.merged_tail(&mut ready, &formats, n)
            }
            _ => self.merged_forward(&mut ready, &formats),
        };
        let mut any = false;
        for (r, f) in ready.iter().zip(results) {
            if let Some(e) = &f.error {
                self.error(&r.name, e);
            }
            any |= self.conclude(job, r, f.res)?;
        }
        Some(any)
    }

    /// Every file searched on its own thread, the records merged as they
    /// come.
    fn merged_forward(&mut self, ready: &mut [Ready], formats: &[TimeFormat]) -> Vec<FileResult> {
        let plan = self.plan;
        let head = plan
            .args
            .head
            .map_or(usize::MAX, |h| usize::try_from(h).unwrap_or(usize::MAX));
        std::thread::scope(|s| {
            let mut rxs = Vec::new();
            let mut handles = Vec::new();
            for (r, tf) in ready.iter_mut().zip(formats) {
                let (tx, rx) = mpsc::sync_channel::<Vec<Rec>>(4);
                rxs.push(rx);
                let to = Sender {
                    tx,
                    batch: Vec::new(),
                    left: head,
                };
                handles.push(s.spawn(move || forward_file(plan, r, tf, to).1));
            }
            // The k-way merge: the smallest (time, file, line) first.
            let mut queues: Vec<VecDeque<Rec>> = rxs.iter().map(|_| VecDeque::new()).collect();
            let mut open: Vec<bool> = vec![true; rxs.len()];
            let mut heap = BinaryHeap::new();
            let mut seq = 0u64;
            let refill = |i: usize, queues: &mut Vec<VecDeque<Rec>>, open: &mut Vec<bool>| {
                while queues[i].is_empty() && open[i] {
                    match rxs[i].recv() {
                        Ok(b) => queues[i].extend(b),
                        Err(_) => open[i] = false,
                    }
                }
            };
            for i in 0..rxs.len() {
                refill(i, &mut queues, &mut open);
                if let Some(r) = queues[i].front() {
                    heap.push(std::cmp::Reverse((r.key, i, seq)));
                    seq += 1;
                }
            }
            let mut left = head;
            let mut writing = true;
            while let Some(std::cmp::Reverse((_, i, _))) = heap.pop() {
                let r = queues[i].pop_front().expect("queued");
                for rec in &r.recs {
                    if writing && left > 0 {
                        writing = self.out.write(rec);
                        left -= 1;
                    }
                }
                if !writing || left == 0 {
                    break;
                }
                refill(i, &mut queues, &mut open);
                if let Some(n) = queues[i].front() {
                    heap.push(std::cmp::Reverse((n.key, i, seq)));
                    seq += 1;
                }
            }
            // Stop the searches still running: their queues go away.
            drop(queues);
            drop(rxs);
            handles
                .into_iter()
                .map(|h| {
                    h.join().unwrap_or_else(|_| FileResult {
                        res: Err(SearchError::Io(std::io::Error::other("search failed"))),
                        error: None,
                    })
                })
                .collect()
        })
    }

    /// The last `n` records of the timeline, merged backwards: each file
    /// is searched over its last bytes only (64 KiB, then 4 times more as
    /// needed), until every file either was read from its start or holds no
    /// line before that stretch that could be among the last `n` (the
    /// latest time before the stretch is earlier than the `n`-th last
    /// record). A stream is read to its end, its last `n` kept.
    fn merged_tail(
        &mut self,
        ready: &mut [Ready],
        formats: &[TimeFormat],
        n: usize,
    ) -> Vec<FileResult> {
        let plan = self.plan;
        let mut parts: Vec<Part> = ready.iter().map(|_| Part::default()).collect();
        let mut window: Vec<usize> = vec![TAIL_WINDOW; ready.len()];
        let mut todo: Vec<usize> = (0..ready.len()).collect();
        while !todo.is_empty() {
            let searched: Vec<(usize, Part)> = std::thread::scope(|s| {
                let handles: Vec<_> = ready
                    .iter_mut()
                    .zip(formats)
                    .enumerate()
                    .filter(|(i, _)| todo.contains(i))
                    .map(|(i, (r, tf))| {
                        let w = window[i];
                        (i, s.spawn(move || file_tail(plan, r, tf, n, w)))
                    })
                    .collect();
                handles
                    .into_iter()
                    .map(|(i, h)| (i, h.join().unwrap_or_else(|_| Part::failed())))
                    .collect()
            });
            for (i, part) in searched {
                parts[i] = part;
            }
            // The n-th last record so far, in timeline order.
            let mut lines: Vec<(Order, usize)> = Vec::new();
            for (i, p) in parts.iter().enumerate() {
                lines.extend(p.recs.iter().map(|r| ((r.key, i, r.at), r.recs.len())));
            }
            lines.sort_unstable_by_key(|a| std::cmp::Reverse(a.0));
            let mut have = 0;
            let nth = lines.iter().find_map(|(o, k)| {
                have += k;
                (have >= n).then_some(*o)
            });
            todo = (0..parts.len())
                .filter(|&i| match (parts[i].before, nth) {
                    (None, _) => false,
                    (Some(b), Some(t)) => (b.0, i, b.1) > t,
                    (Some(_), None) => true,
                })
                .collect();
            for &i in &todo {
                window[i] = window[i].saturating_mul(4);
            }
        }
        let mut all: Vec<(Order, Rec)> = Vec::new();
        let mut results = Vec::new();
        for (i, p) in parts.into_iter().enumerate() {
            all.extend(p.recs.into_iter().map(|r| ((r.key, i, r.at), r)));
            results.push(p.result);
        }
        all.sort_by_key(|(k, _)| *k);
        let flat: Vec<&Vec<u8>> = all.iter().flat_map(|(_, r)| &r.recs).collect();
        for rec in &flat[flat.len().saturating_sub(n)..] {
            if !self.out.write(rec) {
                break;
            }
        }
        results
    }
}

/// A record's place in the merged timeline: time, file, offset.
type Order = (Key, usize, u64);

/// The first stretch a merged tail searches at each file's end...
const TAIL_WINDOW: usize = 64 << 10;

/// What a merged tail found in one file.
struct Part {
    /// The selected lines of the stretch searched, in file order.
    recs: Vec<Rec>,
    /// The stretch starts at this offset (a line start) after lines whose
    /// latest time is this; `None`: it is the whole file.
    before: Option<(Key, u64)>,
    result: FileResult,
}

impl Default for Part {
    fn default() -> Part {
        Part {
            recs: Vec::new(),
            before: None,
            result: FileResult {
                res: Ok(Searched::default()),
                error: None,
            },
        }
    }
}

impl Part {
    fn failed() -> Part {
        Part {
            result: FileResult {
                res: Err(SearchError::Io(std::io::Error::other("search failed"))),
                error: None,
            },
            ..Part::default()
        }
    }
}

/// Search `r` forwards, reading the time of every line, its records to
/// `to` (handed back with the result).
fn forward_file<R: Records>(
    plan: &crate::cli::plan::Plan,
    r: &mut Ready,
    tf: &TimeFormat,
    to: R,
) -> (R, FileResult) {
    let mut sink = MergeSink {
        q: &plan.q,
        fmt: &r.fmt,
        name: &r.name[..],
        stamper: Stamper::new(tf.clone()),
        pos: 0,
        base: 0,
        to,
        error: None,
        json: plan.args.json,
    };
    let res = search_one(
        plan,
        (&mut r.input, r.region.as_ref()),
        Mode::Lines,
        &mut sink,
    );
    let error = sink.error.take();
    (sink.to, FileResult { res, error })
}

/// Search one prepared input in `mode`.
fn search_one(
    plan: &crate::cli::plan::Plan,
    (input, region): (&mut Option<Input>, Option<&crate::region::Region>),
    mode: Mode<'_>,
    sink: &mut dyn Sink,
) -> Result<Searched, SearchError> {
    let Some(input) = input.as_mut() else {
        return Ok(Searched::default());
    };
    let res = match input {
        Input::Whole(bytes) => {
            let reg = region.expect("whole inputs have a region");
            let hay = bytes.haystack().slice(reg.start, reg.end.min(bytes.len()));
            search::run(&plan.q, search::Input::Bytes(hay), &plan.opts, mode, sink)
        }
        Input::Stream(rd) => search::run(
            &plan.q,
            search::Input::Stream(&mut **rd),
            &plan.opts,
            mode,
            sink,
        ),
    };
    res.map(|outcome| Searched {
        outcome,
        read_all: true,
        ..Searched::default()
    })
}

/// One file's part of a merged tail: the selected lines of its last
/// `window` bytes with their times (a stream: its last `n`, read through).
fn file_tail(
    plan: &crate::cli::plan::Plan,
    r: &mut Ready,
    tf: &TimeFormat,
    n: usize,
    window: usize,
) -> Part {
    let (q, fmt, name) = (&plan.q, &r.fmt, &r.name[..]);
    let hay = match (&r.input, &r.region) {
        (Some(Input::Whole(bytes)), Some(reg)) => {
            Some(bytes.haystack().slice(reg.start, reg.end.min(bytes.len())))
        }
        _ => None,
    };
    let Some(hay) = hay else {
        // A stream: read forwards, the last records kept.
        let ring = Ring {
            recs: VecDeque::new(),
            want: n,
            have: 0,
        };
        let (ring, result) = forward_file(plan, r, tf, ring);
        return Part {
            recs: ring.recs.into(),
            before: None,
            result,
        };
    };
    let bytes = hay.bytes();
    let opts = &plan.opts;
    // `-m` counts from the file's start: those lines are found from there.
    let from = if window >= bytes.len() || opts.max_count.is_some() {
        0
    } else {
        let w = bytes.len() - window;
        memchr::memchr(b'\n', &bytes[w..]).map_or(bytes.len(), |i| w + i + 1)
    };
    let first = first_stamp(bytes, tf);
    let mut error = None;
    let mut settled = None;
    let before = if from == 0 {
        None
    } else {
        match key_before(bytes, tf, first.as_ref(), prev_line(bytes, from)).and_then(|k| {
            settled = probe_order(bytes, tf, first.as_ref(), from)?;
            Ok(k)
        }) {
            Ok(k) => Some((k, from as u64)),
            Err(e) => {
                error = Some(e);
                Some((None, from as u64))
            }
        }
    };
    let resume = Resume {
        from,
        newlines_before: if opts.line_numbers {
            crate::scan::count_newlines(bytes, 0, from, opts.scan.parallel)
        } else {
            0
        },
        stop_after: None,
        text_end: None,
    };
    let mut found: Vec<(Selected, Vec<Vec<u8>>)> = Vec::new();
    let mut keep = |buf: &[u8], l: &Selected| {
        let mut recs = Vec::new();
        fmt.records(&mut recs, q, name, &Line::of(buf, l));
        found.push((*l, recs));
        true
    };
    let res = search::run(
        q,
        search::Input::Bytes(hay),
        opts,
        Mode::Resume(resume),
        &mut keep,
    );
    let res = res.map(|outcome| Searched {
        outcome,
        first_out: found.first().map(|f| f.0.offset as usize),
        read_all: from == 0,
        ..Searched::default()
    });
    // The times of the stretch, read forwards from the latest time before it.
    let mut st = Stamper::new(tf.clone());
    st.first = first;
    st.max = before.and_then(|b| b.0);
    // The stretch's stamps are checked against the probes above it.
    st.settled = settled;
    let mut recs = Vec::with_capacity(found.len());
    let mut next = found.into_iter().peekable();
    let mut p = from;
    while p < bytes.len() && next.peek().is_some() && error.is_none() {
        let end = memchr::memchr(b'\n', &bytes[p..]).map_or(bytes.len(), |i| p + i);
        if let Err(e) = st.line(p as u64, &bytes[p..end]) {
            error = Some(e);
            break;
        }
        while let Some((l, _)) = next.peek() {
            if l.offset as usize > p {
                break;
            }
            let (l, r) = next.next().expect("peeked");
            let json = plan.args.json.then_some(tf.has_year());
            recs.push(Rec::new(st.max, r, l.offset, json));
        }
        p = end + 1;
    }
    Part {
        recs,
        before,
        result: FileResult { res, error },
    }
}

/// The part of a file a tail does not read is checked as `--since` checks
/// a file: the stamps found at [`PROBES`] evenly spaced places before
/// `from`, and the first one from `from` on, must be in time order where
/// they are more than [`SLACK`] bytes apart (a log concatenated with an
/// older one is caught; a disorder between lines never read is not).
/// Returns the latest probe more than [`SLACK`] bytes before `from`, which
/// every stamp from `from` on must not precede.
fn probe_order(
    hay: &[u8],
    tf: &TimeFormat,
    first: Option<&Stamp>,
    from: usize,
) -> Result<Option<Seen>, String> {
    let Some(first) = first else {
        return Ok(None);
    };
    let stamp_from = |p: usize| -> Option<(usize, Stamp)> {
        let mut q = if p == 0 {
            0
        } else {
            memchr::memchr(b'\n', &hay[p - 1..]).map(|i| p + i)?
        };
        let limit = q + SLACK as usize;
        while q < hay.len() && q < limit {
            let end = memchr::memchr(b'\n', &hay[q..]).map_or(hay.len(), |i| q + i);
            if let Some(s) = tf.stamp(&hay[q..end]) {
                return Some((q, s));
            }
            q = end + 1;
        }
        None
    };
    let mut seen: Vec<(usize, (i64, u32), Stamp)> = Vec::new();
    for j in 0..PROBES {
        if let Some((at, s)) = stamp_from(from / PROBES * j) {
            if at < from {
                seen.push((at, timeline_key(&s, first), s));
            }
        }
    }
    if let Some((at, s)) = stamp_from(from) {
        seen.push((at, timeline_key(&s, first), s));
    }
    for (i, a) in seen.iter().enumerate() {
        for b in &seen[i + 1..] {
            if b.0 > a.0 + SLACK as usize && b.1 < a.1 {
                return Err(disorder(a.0 as u64, &a.2, b.0 as u64, &b.2));
            }
        }
    }
    Ok(seen
        .iter()
        .filter(|p| p.0 + (SLACK as usize) < from)
        .max_by_key(|p| p.1)
        .map(|p| (p.1, p.0 as u64, p.2)))
}

/// Places a merged tail reads a stamp at in the part of a file before
/// the stretch it searches.
const PROBES: usize = 16;

/// The start of the line before the one starting at `p` (> 0).
fn prev_line(hay: &[u8], p: usize) -> usize {
    memchr::memrchr(b'\n', &hay[..p - 1]).map_or(0, |i| i + 1)
}

const NO_STAMPS: &str = "no timestamp in a format grail knows in the first lines; --merge needs \
     timestamped lines (--time-format FMT gives the format)";

/// The time format of a prepared input, detected from its first 64 KiB
/// (a stream's are read ahead and handed back to its reader), and whether
/// the input has no text at all.
fn detect(r: &mut Ready) -> (Option<TimeFormat>, bool) {
    let Some(input) = r.input.take() else {
        return (None, true);
    };
    match input {
        Input::Whole(bytes) => {
            let text = match r.region.as_ref() {
                Some(reg) => &bytes[reg.start..reg.end.min(bytes.len())],
                None => &[][..],
            };
            let f = (TimeFormat::detect(text), text.is_empty());
            r.input = Some(Input::Whole(bytes));
            f
        }
        Input::Stream(mut rd) => {
            let mut head = vec![0u8; 64 << 10];
            let mut n = 0;
            while n < head.len() {
                match rd.read(&mut head[n..]) {
                    Ok(0) => break,
                    Ok(k) => n += k,
                    Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                    Err(_) => break,
                }
            }
            head.truncate(n);
            let f = (TimeFormat::detect(&head), head.is_empty());
            r.input = Some(Input::Stream(Box::new(Ahead {
                head,
                pos: 0,
                rest: rd,
            })));
            f
        }
    }
}

/// A stream whose first bytes were read ahead: they come first, and each
/// read is filled as the stream alone would fill it.
struct Ahead {
    head: Vec<u8>,
    pos: usize,
    rest: Box<dyn std::io::Read + Send>,
}

impl std::io::Read for Ahead {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let k = (self.head.len() - self.pos).min(buf.len());
        buf[..k].copy_from_slice(&self.head[self.pos..self.pos + k]);
        self.pos += k;
        if k == buf.len() {
            return Ok(k);
        }
        Ok(k + self.rest.read(&mut buf[k..])?)
    }
}

/// The first stamp of `hay`.
fn first_stamp(hay: &[u8], tf: &TimeFormat) -> Option<Stamp> {
    hay.split(|&b| b == b'\n').find_map(|l| tf.stamp(l))
}

/// The time of the record holding the line at `at`, found backwards: the
/// nearest stamp at or above it, raised to the latest stamp within
/// [`SLACK`] bytes above that (the lines farther up are earlier, or the
/// log is out of order: the first stamped line beyond is checked).
fn key_before(
    hay: &[u8],
    tf: &TimeFormat,
    first: Option<&Stamp>,
    at: usize,
) -> Result<Key, String> {
    let Some(first) = first else {
        return Ok(None);
    };
    let line_at = |p: usize| {
        let end = memchr::memchr(b'\n', &hay[p..]).map_or(hay.len(), |i| p + i);
        &hay[p..end]
    };
    let prev = |p: usize| (p > 0).then(|| prev_line(hay, p));
    // The record's stamp.
    let mut p = Some(at);
    let (r, rs) = loop {
        let Some(q) = p else {
            return Ok(None);
        };
        if let Some(s) = tf.stamp(line_at(q)) {
            break (q, s);
        }
        p = prev(q);
    };
    let rk = timeline_key(&rs, first);
    let mut max = rk;
    let mut p = prev(r);
    while let Some(q) = p {
        if let Some(s) = tf.stamp(line_at(q)) {
            let k = timeline_key(&s, first);
            if (q as u64) + SLACK < r as u64 {
                if k > rk {
                    return Err(disorder(q as u64, &s, r as u64, &rs));
                }
                break;
            }
            max = max.max(k);
        }
        p = prev(q);
    }
    Ok(Some(max))
}
