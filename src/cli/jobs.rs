//! What a run does with each file's selected lines: the four jobs of
//! [`Job`](super::plan::Job) behind one trait the driver's loop calls, and
//! the sinks that turn lines into grep's output.

use super::driver::{Driver, Out};
use super::plan::{self, Plan};
use crate::printer::{ContextSpec, FileContext, Format, Groups, LineOut, Marks};
use crate::query::Query;
use crate::region::Region;
use crate::search::{self, Line, Mode, Outcome, Resume, SearchError, SearchOptions, Selected};
use crate::search::{Sink, Weight};
use crate::source::Input;
use std::collections::VecDeque;
use std::io;

/// What searching one file gave the driver.
#[derive(Default)]
pub struct Searched {
    /// What happened.
    pub outcome: Outcome,
    /// For a tail: where the lines it printed start, in the region (the
    /// exclude counts of `--stats` cover that part only).
    pub first_out: Option<usize>,
    /// Bytes read from a stream.
    pub stream_read: u64,
    /// The search read the input from its start (not only its end).
    pub read_all: bool,
}

/// One opened input, as the driver hands it to a job.
pub struct Opened<'a> {
    /// Its name as printed.
    pub name: &'a [u8],
    /// How its lines are printed (offsets and numbers of its region).
    pub fmt: &'a Format,
    /// The part to search (`None`: a stream, or a directory).
    pub region: Option<&'a Region>,
    /// The input (`None`: a directory, which grep reads as empty).
    pub input: Option<&'a mut Input>,
}

/// One way of handling every file's lines; the driver calls it per file.
pub trait Job {
    /// The answer is known (`any`: a file had a selected line): later
    /// files are only opened, for their errors.
    fn done(&self, any: bool, out: &Out) -> bool;
    /// Search one input.
    fn search(&mut self, d: &mut Driver, f: Opened<'_>) -> Result<Searched, SearchError>;
    /// After the file's reports: its `-c` count or `-l`/`-L` name.
    fn after(&mut self, d: &mut Driver, name: &[u8], o: &Outcome, selected: bool) {
        let _ = (d, name, o, selected);
    }
    /// After the last file: what was kept for the end.
    fn finish(&mut self, out: &mut Out) {
        let _ = out;
    }
    /// Each file's output depends on that file alone, so files may be
    /// searched side by side (by a fresh job each) and written in order.
    fn independent(&self) -> bool {
        false
    }
}

/// The job `plan` asks for.
pub fn new(plan: &Plan) -> Box<dyn Job> {
    let args = plan.args;
    let records = Records {
        tail: args.tail.map(|t| usize::try_from(t).unwrap_or(usize::MAX)),
        head: args.head.map(|h| usize::try_from(h).unwrap_or(usize::MAX)),
        emitted: 0,
        ring: VecDeque::new(),
    };
    match &plan.job {
        plan::Job::Forward => Box::new(Forward {
            recs: records,
            more: true,
        }),
        plan::Job::Tail(n) => Box::new(Tail {
            n: usize::try_from(*n).unwrap_or(usize::MAX),
            have: 0,
            parts: Vec::new(),
        }),
        plan::Job::Context(spec) => Box::new(Context {
            spec: spec.clone(),
            groups: Groups::default(),
            head_left: args.head,
        }),
        plan::Job::TailContext(spec, n) => Box::new(TailContext {
            spec: spec.clone(),
            sep_fmt: plan.fmt.clone(),
            n: *n,
            have: 0,
            parts: Vec::new(),
        }),
    }
}

/// Counts the bytes read from a stream (for `--stats`).
struct CountingReader<'a> {
    inner: &'a mut dyn io::Read,
    n: &'a mut u64,
}

impl io::Read for CountingReader<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let k = self.inner.read(buf)?;
        *self.n += k as u64;
        Ok(k)
    }
}

/// Search `input` (its `region`, for a whole file) in `mode`.
fn search_input(
    q: &Query,
    opts: &SearchOptions,
    input: &mut Input,
    region: Option<&Region>,
    mode: Mode<'_>,
    sink: &mut dyn Sink,
) -> Result<Searched, SearchError> {
    match input {
        Input::Whole(bytes) => {
            let r = region.expect("whole inputs have a region");
            let hay = bytes.haystack().slice(r.start, r.end.min(bytes.len()));
            let outcome = search::run(q, search::Input::Bytes(hay), opts, mode, sink)?;
            Ok(Searched {
                outcome,
                ..Searched::default()
            })
        }
        Input::Stream(r) => {
            let mut stream_read = 0;
            let mut cr = CountingReader {
                inner: &mut **r,
                n: &mut stream_read,
            };
            let outcome = search::run(q, search::Input::Stream(&mut cr), opts, mode, sink)?;
            Ok(Searched {
                outcome,
                stream_read,
                ..Searched::default()
            })
        }
    }
}

/// Records kept for `--tail`/`--head` over the records of all files
/// (lines, counts, names).
struct Records {
    tail: Option<usize>,
    head: Option<usize>,
    emitted: usize,
    ring: VecDeque<Vec<u8>>,
}

impl Records {
    /// Count one more record; false when `--head` has all it wants (the
    /// record is dropped).
    fn admit(&mut self) -> bool {
        if self.head.is_some_and(|h| self.emitted >= h) {
            return false;
        }
        self.emitted += 1;
        true
    }

    /// Whether another record is wanted after this one.
    fn wants_more(&self) -> bool {
        self.head.is_none_or(|h| self.emitted < h)
    }

    /// Print an admitted record, or keep it for `--tail`; false when
    /// writing failed.
    fn deliver(&mut self, out: &mut Out, rec: &[u8]) -> bool {
        match self.tail {
            Some(0) => true,
            Some(t) => {
                if self.ring.len() == t {
                    self.ring.pop_front();
                }
                self.ring.push_back(rec.to_vec());
                true
            }
            None => out.write(rec),
        }
    }

    /// Offer a whole record; false when no more records are wanted.
    fn push(&mut self, out: &mut Out, rec: &[u8]) -> bool {
        self.admit() && self.deliver(out, rec) && self.wants_more()
    }
}

/// Every file forwards: lines, `-c` counts, `-l`/`-L` names, `-q`.
struct Forward {
    recs: Records,
    /// More records are wanted and writing works.
    more: bool,
}

impl Job for Forward {
    fn done(&self, _any: bool, out: &Out) -> bool {
        !self.more || out.failed.is_some()
    }

    fn independent(&self) -> bool {
        self.recs.tail.is_none() && self.recs.head.is_none()
    }

    fn search(&mut self, d: &mut Driver, f: Opened<'_>) -> Result<Searched, SearchError> {
        let (name, fmt, region, input) = (f.name, f.fmt, f.region, f.input);
        let plan = d.plan;
        let args = plan.args;
        let Some(input) = input else {
            return Ok(Searched {
                read_all: true,
                ..Searched::default()
            });
        };
        let quiet = args.quiet || plan.listing();
        // -q overrides -l and -L, which override -c (as in grep).
        let counting = args.count && !quiet;
        // Plain output of every selected line: formatted in parallel.
        let bulk = !quiet
            && !counting
            && self.recs.tail.is_none()
            && self.recs.head.is_none()
            && args.max_count.is_none()
            && !args.only_matching
            && !args.line_buffered;
        let q = &plan.q;
        let format = |buf: &mut Vec<u8>, line: &[u8], n: u64, off: u64| {
            if fmt.json.is_some() {
                fmt.push_json(buf, q, name, line, n, off)
            } else if fmt.color.is_some() {
                fmt.push_prline(
                    buf,
                    q,
                    &LineOut {
                        name,
                        bytes: line,
                        number: n,
                        offset: off,
                        selected: true,
                    },
                )
            } else {
                fmt.push_line(buf, name, line, n, off)
            }
        };
        let mode = match (counting, bulk) {
            (true, _) => Mode::Count,
            (false, true) => Mode::Formatted(&format),
            (false, false) => Mode::Lines,
        };
        let direct = self.recs_direct(fmt);
        let mut sink = LineSink {
            fmt,
            q,
            name,
            recs: &mut self.recs,
            out: &mut d.out,
            quiet,
            direct,
            ends: Vec::new(),
            more: &mut self.more,
        };
        let s = search_input(q, &plan.opts, input, region, mode, &mut sink)?;
        if bulk {
            self.recs.emitted += s.outcome.reported as usize;
        }
        Ok(Searched {
            read_all: true,
            ..s
        })
    }

    fn after(&mut self, d: &mut Driver, name: &[u8], o: &Outcome, selected: bool) {
        let (args, fmt) = (d.plan.args, &d.plan.fmt);
        let mut r = Vec::new();
        if args.quiet {
            return;
        } else if d.plan.listing() {
            let listed = if args.files_with_matches {
                selected
            } else {
                !selected
            };
            if !listed {
                return;
            }
            fmt.push_name(&mut r, name);
            r.push(if args.null { 0 } else { b'\n' });
        } else if args.count {
            if fmt.with_filename {
                fmt.push_name(&mut r, name);
                if args.null {
                    r.push(0);
                } else {
                    fmt.push_sep(&mut r, b':');
                }
            }
            r.extend_from_slice(o.count.to_string().as_bytes());
            r.push(b'\n');
        } else {
            return;
        }
        if !self.recs.push(&mut d.out, &r) {
            self.more = false;
        }
    }

    fn finish(&mut self, out: &mut Out) {
        for r in self.recs.ring.drain(..) {
            if !out.write(&r) {
                break;
            }
        }
    }
}

impl Forward {
    /// Lines go straight to the output (one record per line, nothing kept).
    fn recs_direct(&self, fmt: &Format) -> bool {
        self.recs.tail.is_none() && !fmt.only_matching && fmt.color.is_none() && fmt.json.is_none()
    }
}

/// Turns selected lines into output records (`--head`/`--tail` count them).
struct LineSink<'a, 'o> {
    fmt: &'a Format,
    q: &'a Query,
    name: &'a [u8],
    recs: &'a mut Records,
    out: &'a mut Out<'o>,
    /// Only whether a line is selected matters (`-q`, `-l`, `-L`).
    quiet: bool,
    /// One record per line, printed as it comes.
    direct: bool,
    /// Where each record made since the last write ends (not `direct`).
    ends: Vec<usize>,
    more: &'a mut bool,
}

impl Sink for LineSink<'_, '_> {
    fn selected(&mut self, out: &mut Vec<u8>, buf: &[u8], l: &Selected) -> bool {
        if self.quiet {
            return false; // one selected line settles it
        }
        if self.direct {
            if !self.recs.admit() {
                *self.more = false;
                return false;
            }
            let line = &buf[l.start..l.end];
            self.fmt.push_line(out, self.name, line, l.number, l.offset);
            return self.recs.wants_more();
        }
        let mut rs = Vec::new();
        self.fmt
            .records(&mut rs, self.q, self.name, &Line::of(buf, l));
        for r in rs {
            if !self.recs.admit() {
                *self.more = false;
                return false;
            }
            out.extend_from_slice(&r);
            self.ends.push(out.len());
            if !self.recs.wants_more() {
                *self.more = false;
                return false;
            }
        }
        true
    }

    fn write(&mut self, bytes: &[u8]) -> bool {
        let ok = if self.direct || self.ends.is_empty() {
            self.out.write(bytes)
        } else {
            let mut start = 0;
            let mut ok = true;
            for end in self.ends.drain(..) {
                ok = ok && self.recs.deliver(self.out, &bytes[start..end]);
                start = end;
            }
            ok
        };
        if !ok {
            *self.more = false;
        }
        ok
    }
}

/// The last N selected lines of all files: files from last to first, each
/// answered from its end, until N records are known.
struct Tail {
    n: usize,
    have: usize,
    /// Each file's records, last file first.
    parts: Vec<Vec<Vec<u8>>>,
}

impl Job for Tail {
    fn done(&self, any: bool, _out: &Out) -> bool {
        any && self.have >= self.n
    }

    fn search(&mut self, d: &mut Driver, f: Opened<'_>) -> Result<Searched, SearchError> {
        let (name, fmt, region, input) = (f.name, f.fmt, f.region, f.input);
        let Some(input) = input else {
            return Ok(Searched::default());
        };
        let plan = d.plan;
        let q = &plan.q;
        let want = self.n.saturating_sub(self.have);
        let weight = |l: &[u8]| fmt.weight(q, l);
        let mode = Mode::Tail {
            records: want,
            weight: &weight,
        };
        let mut recs: Vec<Vec<u8>> = Vec::new();
        let mut first_out = None;
        let mut keep = |buf: &[u8], l: &Selected| {
            first_out = first_out.or(Some(l.offset as usize));
            fmt.records(&mut recs, q, name, &Line::of(buf, l));
            true
        };
        let mut s = search_input(q, &plan.opts, input, region, mode, &mut keep)?;
        if region.is_some() {
            s.first_out = first_out;
        }
        let extra = recs.len().saturating_sub(want);
        recs.drain(..extra);
        self.have += recs.len();
        self.parts.push(recs);
        Ok(s)
    }

    fn finish(&mut self, out: &mut Out) {
        for r in self.parts.iter().rev().flatten() {
            if !out.write(r) {
                return;
            }
        }
    }
}

/// Prints selected lines with context (grep's `-A/-B/-C`) through a
/// [`FileContext`], handing the output to `to`.
struct ContextSink<'a, 'f> {
    fc: FileContext<'f>,
    groups: &'a mut Groups,
    to: &'a mut dyn FnMut(&[u8]) -> bool,
}

impl Sink for ContextSink<'_, '_> {
    fn selected(&mut self, out: &mut Vec<u8>, buf: &[u8], l: &Selected) -> bool {
        self.fc
            .selected(self.groups, out, buf, (l.start, l.end), l.number);
        true
    }
    fn reached(&mut self, out: &mut Vec<u8>, buf: &[u8], upto: usize) {
        self.fc.print_pending(out, buf, upto);
    }
    fn write(&mut self, bytes: &[u8]) -> bool {
        (self.to)(bytes)
    }
    fn keep_from(&self, buf: &[u8], lim: usize) -> usize {
        self.fc.keep_from(buf, lim)
    }
    fn dropped(&mut self, n: usize) {
        self.fc.advance(n);
    }
    fn after(&self) -> usize {
        self.fc.after()
    }
    fn owed(&self) -> usize {
        self.fc.pending()
    }
}

/// Every file forwards with context; with `--head N`, the first N selected
/// lines (of all files) with their context.
struct Context {
    spec: ContextSpec,
    groups: Groups,
    head_left: Option<u64>,
}

impl Job for Context {
    fn done(&self, _any: bool, out: &Out) -> bool {
        self.head_left == Some(0) || out.failed.is_some()
    }

    fn search(&mut self, d: &mut Driver, f: Opened<'_>) -> Result<Searched, SearchError> {
        let (name, fmt, region, input) = (f.name, f.fmt, f.region, f.input);
        let Some(input) = input else {
            return Ok(Searched::default());
        };
        let plan = d.plan;
        let mut opts = plan.opts;
        if let Some(h) = self.head_left {
            opts.max_count = Some(opts.max_count.map_or(h, |m| m.min(h)));
        }
        let out = &mut d.out;
        let mut sink = ContextSink {
            fc: FileContext::new(&self.spec, fmt, &plan.q, name),
            groups: &mut self.groups,
            to: &mut |b| out.write(b),
        };
        let s = search_input(&plan.q, &opts, input, region, Mode::Lines, &mut sink)?;
        if s.outcome.selected > s.outcome.reported {
            // grep's quiet match in the binary part still starts a group.
            self.groups.used = true;
        }
        if let Some(h) = &mut self.head_left {
            *h = h.saturating_sub(s.outcome.reported);
        }
        Ok(Searched {
            read_all: true,
            ..s
        })
    }
}

/// The last N selected lines (of all files), each with its context, found
/// from the end: exactly the end of what `grep -A/-B/-C` prints, from the
/// first leading-context line of the Nth selected line from the end.
struct TailContext {
    spec: ContextSpec,
    /// How separators between files are printed (colour).
    sep_fmt: Format,
    n: u64,
    have: u64,
    /// Each file's output, last file first.
    parts: Vec<Vec<u8>>,
}

impl Job for TailContext {
    fn done(&self, any: bool, _out: &Out) -> bool {
        any && self.have >= self.n
    }

    fn search(&mut self, d: &mut Driver, f: Opened<'_>) -> Result<Searched, SearchError> {
        let (name, fmt, region, input) = (f.name, f.fmt, f.region, f.input);
        let want = usize::try_from(self.n - self.have).unwrap_or(usize::MAX);
        let file = FileJob {
            plan: d.plan,
            spec: &self.spec,
            fmt,
            name,
        };
        let (part, s, got) = match input {
            None => return Ok(Searched::default()),
            Some(Input::Stream(r)) => file.stream_tail(&mut **r, want)?,
            Some(Input::Whole(bytes)) => {
                let r = region.expect("whole inputs have a region");
                file.whole_tail(bytes.haystack().slice(r.start, r.end), want)?
            }
        };
        self.have += got;
        if !part.is_empty() {
            self.parts.push(part);
        }
        Ok(s)
    }

    fn finish(&mut self, out: &mut Out) {
        for (i, part) in self.parts.iter().rev().enumerate() {
            if i > 0 {
                if let Some(sep) = &self.spec.separator {
                    let mut b = Vec::new();
                    self.sep_fmt.push_separator(&mut b, sep);
                    if !out.write(&b) {
                        return;
                    }
                }
            }
            if !out.write(part) {
                return;
            }
        }
    }
}

/// One file of a tail with context.
struct FileJob<'a> {
    plan: &'a Plan<'a>,
    spec: &'a ContextSpec,
    fmt: &'a Format,
    name: &'a [u8],
}

impl FileJob<'_> {
    /// A whole file: the last `want` selected lines found from the end,
    /// then grep's output with context from the first leading-context line
    /// of the first of them. Returns the output, what happened and how many
    /// selected lines it holds.
    fn whole_tail(
        &self,
        hay: crate::source::Haystack<'_>,
        want: usize,
    ) -> Result<(Vec<u8>, Searched, u64), SearchError> {
        let (q, opts) = (&self.plan.q, &self.plan.opts);
        let one: &Weight = &|_| 1;
        let mut found: Vec<Selected> = Vec::new();
        let mut keep = |_: &[u8], l: &Selected| {
            found.push(*l);
            true
        };
        let mode = Mode::Tail {
            records: want,
            weight: one,
        };
        let o = search::run(q, search::Input::Bytes(hay), opts, mode, &mut keep)?;
        let extra = found.len().saturating_sub(want);
        found.drain(..extra);
        let mut part = Vec::new();
        let (Some(first), Some(last)) = (found.first(), found.last()) else {
            let s = Searched {
                outcome: o,
                ..Searched::default()
            };
            return Ok((part, s, 0));
        };
        let (from, k) = crate::scan::lines_back(hay.bytes(), first.start, self.spec.before, 0);
        let resume = Resume {
            from,
            newlines_before: if opts.line_numbers {
                first.number.saturating_sub(1 + k as u64)
            } else {
                0
            },
            stop_after: opts.max_count.and(Some(last.start)),
            text_end: Some(o.text_end),
        };
        let ropts = SearchOptions {
            max_count: None,
            ..*opts
        };
        let mut groups = Groups::default();
        let mut sink = ContextSink {
            fc: FileContext::new(self.spec, self.fmt, q, self.name),
            groups: &mut groups,
            to: &mut |b| {
                part.extend_from_slice(b);
                true
            },
        };
        sink.fc.start_at(from);
        let input = search::Input::Bytes(hay);
        let o2 = search::run(q, input, &ropts, Mode::Resume(resume), &mut sink)?;
        let s = Searched {
            outcome: Outcome {
                binary_matched: o.binary_matched || o2.binary_matched,
                ..o
            },
            first_out: Some(first.start),
            ..Searched::default()
        };
        Ok((part, s, found.len() as u64))
    }

    /// A stream: grep's output with context is produced as it would be
    /// printed, keeping only its end: the lines from the first
    /// leading-context line of the Nth-last selected line on.
    fn stream_tail(
        &self,
        r: &mut dyn io::Read,
        want: usize,
    ) -> Result<(Vec<u8>, Searched, u64), SearchError> {
        let marks: Marks = Default::default();
        let mut fc = FileContext::new(self.spec, self.fmt, &self.plan.q, self.name);
        fc.mark_into(marks.clone());
        let mut kept = KeptOutput {
            units: VecDeque::new(),
            sel: VecDeque::new(),
            want,
            before: self.spec.before as u64,
        };
        let mut groups = Groups::default();
        let mut sink = ContextSink {
            fc,
            groups: &mut groups,
            to: &mut |piece| {
                kept.take(piece, &std::mem::take(&mut *marks.borrow_mut()));
                true
            },
        };
        let opts = SearchOptions {
            line_numbers: true, // the marks need line numbers
            ..self.plan.opts
        };
        let mut stream_read = 0;
        let mut cr = CountingReader {
            inner: r,
            n: &mut stream_read,
        };
        let input = search::Input::Stream(&mut cr);
        let o = search::run(&self.plan.q, input, &opts, Mode::Lines, &mut sink)?;
        let got = kept.sel.len() as u64;
        let s = Searched {
            outcome: o,
            stream_read,
            ..Searched::default()
        };
        Ok((kept.into_output(), s, got))
    }
}

/// The end of a context output as it is printed: its printed lines (with
/// their numbers; separators have none) from the first leading-context
/// line of the `want`-th last selected line.
struct KeptOutput {
    units: VecDeque<(Option<u64>, Vec<u8>)>,
    /// Line numbers of the last `want` selected lines.
    sel: VecDeque<u64>,
    want: usize,
    before: u64,
}

impl KeptOutput {
    /// Take a piece of output whose lines start at `marks`.
    fn take(&mut self, piece: &[u8], marks: &[crate::printer::Mark]) {
        for (i, m) in marks.iter().enumerate() {
            let end = marks.get(i + 1).map_or(piece.len(), |n| n.at);
            self.units.push_back((m.number, piece[m.at..end].to_vec()));
            if m.selected {
                self.sel.push_back(m.number.unwrap_or(0));
                if self.sel.len() > self.want {
                    self.sel.pop_front();
                }
            }
        }
        if self.want == 0 {
            self.units.clear();
        } else if self.sel.len() == self.want {
            let cut = self.sel[0].saturating_sub(self.before);
            while let Some(u) = self.units.front() {
                match u.0 {
                    Some(n) if n >= cut => break,
                    _ => {
                        self.units.pop_front();
                    }
                }
            }
        }
    }

    fn into_output(mut self) -> Vec<u8> {
        while self.units.front().is_some_and(|u| u.0.is_none()) {
            self.units.pop_front();
        }
        self.units.into_iter().flat_map(|u| u.1).collect()
    }
}
