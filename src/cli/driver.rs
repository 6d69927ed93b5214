//! The one per-file loop: open each input (refusing the one that is also
//! the output), find the part to search, let the job search it, report
//! (`--stats`, `--json`, stderr notes) and settle the exit status as grep
//! does.

use super::args::Args;
use super::jobs::{self, Searched};
use super::plan::{Phase, Plan, Stop};
use super::report::{self, FileStats, NulStat};
use super::walk::{Directories, Item};
use super::{EXIT_NONE, EXIT_SELECTED, EXIT_TROUBLE};
use crate::printer::Format;
use crate::region::Region;
use crate::search::{BinaryMode, Outcome, SearchError};
use crate::source::decompress::Compressed;
use crate::source::{self, Input};
use std::ffi::OsString;
use std::io::{self, Write};

mod merge;

/// What standard input is for a search.
pub enum Stdin {
    /// The process's standard input.
    Real,
    /// The output of an earlier pipeline stage (pipe semantics).
    Bytes(Vec<u8>),
    /// A file piped in by `cat FILE |` (pipe semantics, read without copying).
    File(std::path::PathBuf),
    /// A reader handed over once (`--follow`'s growing file).
    Reader(std::sync::Mutex<Option<Box<dyn io::Read + Send>>>),
}

/// The result of a run.
#[derive(Clone, Copy, Debug)]
pub struct RunResult {
    /// grep's exit status.
    pub status: i32,
    /// Whether a line was selected (regardless of errors).
    pub selected: bool,
}

/// Where a run writes: `to_stdout` when `sink` is the process's standard
/// output (grep's check that an input is not also the output applies);
/// `reports`: hand the per-file reports back instead of printing the
/// `--json` summary (`--follow` prints one summary of all phases).
pub struct Output<'w> {
    /// The bytes written.
    pub sink: &'w mut dyn Write,
    /// `sink` is standard output.
    pub to_stdout: bool,
    /// Where the per-file reports go.
    pub reports: Option<&'w mut Vec<FileStats>>,
}

/// The output stream: buffered, remembering a failed write.
pub struct Out<'w> {
    w: io::BufWriter<&'w mut dyn Write>,
    line_buffered: bool,
    /// Set when writing failed; `Some(None)` for a closed pipe (quiet).
    pub failed: Option<Option<io::Error>>,
}

impl Out<'_> {
    /// Write `b`; false once writing has failed.
    pub fn write(&mut self, b: &[u8]) -> bool {
        if self.failed.is_some() {
            return false;
        }
        let r = self.w.write_all(b).and_then(|_| {
            if self.line_buffered {
                self.w.flush()
            } else {
                Ok(())
            }
        });
        self.check(r)
    }

    fn check(&mut self, r: io::Result<()>) -> bool {
        match r {
            Ok(()) => true,
            Err(e) if e.kind() == io::ErrorKind::BrokenPipe => {
                self.failed = Some(None);
                false
            }
            Err(e) => {
                self.failed = Some(Some(e));
                false
            }
        }
    }

    fn flush(&mut self) -> bool {
        if self.failed.is_some() {
            return false;
        }
        let r = self.w.flush();
        self.check(r)
    }
}

/// The state of a run across its files.
pub struct Driver<'p, 'w> {
    /// The settings.
    pub plan: &'p Plan<'p>,
    stdin: &'p Stdin,
    /// An error was reported.
    errors: bool,
    /// Per-file reports, when `--stats` or `--json` asks for them.
    stats: Option<Vec<FileStats>>,
    /// Standard output's file, when no input may be it (see [`output_file`]).
    output: Option<(u64, u64)>,
    /// stderr said that compressed files are searched as their text.
    said_decompressed: bool,
    /// Where lines go.
    pub out: Out<'w>,
}

const LIMITS_NEED_A_FILE: &str =
    "--from-byte, --since and --before need a regular file (not a pipe or terminal)";
const LIMITS_NOT_COMPRESSED: &str = "--from-byte, --since and --before need an uncompressed file: \
     a compressed one is read from its start (decompress it first, or --no-decompress)";

/// Run the search `args` describe (after the earlier `phase`), reading `-`
/// from `stdin` and writing to `sink`.
pub fn run_args(args: &Args, phase: &Phase, stdin: &Stdin, sink: &mut dyn Write) -> RunResult {
    let output = Output {
        sink,
        to_stdout: false,
        reports: None,
    };
    run_plan(args, phase, stdin, output)
}

/// [`run_args`] with every choice of where the output goes.
pub fn run_plan(args: &Args, phase: &Phase, stdin: &Stdin, output: Output<'_>) -> RunResult {
    match Plan::new(args, phase) {
        Ok(plan) => run(&plan, stdin, output),
        Err(Stop(status)) => RunResult {
            status,
            selected: false,
        },
    }
}

/// Run the search `plan` describes, reading `-` from `stdin`.
fn run(plan: &Plan, stdin: &Stdin, output: Output<'_>) -> RunResult {
    let started = std::time::Instant::now();
    let args = plan.args;
    let mut d = Driver {
        plan,
        stdin,
        errors: false,
        stats: plan.reports.then(Vec::new),
        said_decompressed: false,
        output: if output.to_stdout {
            output_file(args)
        } else {
            None
        },
        out: Out {
            w: io::BufWriter::with_capacity(256 << 10, output.sink),
            line_buffered: args.line_buffered,
            failed: None,
        },
    };
    let mut job = jobs::new(plan);
    let each = if plan.merge {
        d.each_merged(&mut *job)
    } else {
        d.each_file(&mut *job)
    };
    let Some(selected) = each else {
        // -q found a line.
        return RunResult {
            status: EXIT_SELECTED,
            selected: true,
        };
    };
    job.finish(&mut d.out);
    let files = d.stats.take().unwrap_or_default();
    if let Some(r) = output.reports {
        r.extend(files);
    } else if args.json {
        let summary = report::Summary {
            kind: "summary",
            selected: files.iter().map(|f| f.selected).sum::<u64>(),
            elapsed_ms: started.elapsed().as_secs_f64() * 1000.0,
            files,
        };
        let mut b = serde_json::to_vec(&summary).unwrap_or_default();
        b.push(b'\n');
        d.out.write(&b);
    }
    d.out.flush();
    let status = match &d.out.failed {
        Some(Some(e)) => {
            say!("grail: write error: {}", crate::error::io_text(e));
            EXIT_TROUBLE
        }
        Some(None) if selected => EXIT_SELECTED,
        Some(None) => EXIT_NONE,
        None if d.errors && !(args.quiet && selected) => EXIT_TROUBLE,
        None if selected => EXIT_SELECTED,
        None => EXIT_NONE,
    };
    RunResult { status, selected }
}

impl Driver<'_, '_> {
    /// Every input, in order (last to first for a tail), until the job
    /// knows its answer; later inputs are still opened so that their errors
    /// are reported as the pipeline would report them. `None`: -q found a
    /// line.
    fn each_file(&mut self, job: &mut dyn jobs::Job) -> Option<bool> {
        let plan = self.plan;
        let inputs: Box<dyn Iterator<Item = Item> + Send> = if plan.job.backwards() {
            let mut all: Vec<Item> = plan.inputs().collect();
            all.reverse();
            Box::new(all.into_iter())
        } else {
            Box::new(plan.inputs())
        };
        // One named file gains nothing from opening it ahead.
        let many = plan.files.len() > 1 || plan.args.walk.directories == Directories::Recurse;
        if !many {
            return self.each_input(job, inputs.map(|i| (i, None)));
        }
        // A tree of small logs costs system calls more than searching: one
        // thread walks and opens (and reads a small file whole, a larger
        // one is mapped) while this one searches, in order; at most
        // [`BATCH`] times three inputs wait, so memory stays bounded. A file that is not
        // regular (a FIFO could block) is opened here when its turn comes.
        let output = self.output;
        std::thread::scope(|s| {
            let (tx, rx) = std::sync::mpsc::sync_channel::<Vec<(Item, Option<Opened>)>>(2);
            s.spawn(move || {
                use rayon::prelude::*;
                let mut inputs = inputs.peekable();
                while inputs.peek().is_some() {
                    // The next batch, opened on the thread pool.
                    let items: Vec<Item> = inputs.by_ref().take(BATCH).collect();
                    let batch: Vec<(Item, Option<Opened>)> = items
                        .into_par_iter()
                        .map(|item| {
                            let opened = match &item {
                                Item::Search {
                                    path,
                                    regular: true,
                                    ..
                                } => Some(open_path(path, output)),
                                _ => None,
                            };
                            (item, opened)
                        })
                        .collect();
                    if tx.send(batch).is_err() {
                        return;
                    }
                }
            });
            self.each_input(job, rx.into_iter().flatten())
        })
    }

    /// [`each_file`](Self::each_file) over `inputs`, each opened already
    /// or not.
    fn each_input(
        &mut self,
        job: &mut dyn jobs::Job,
        inputs: impl Iterator<Item = (Item, Option<Opened>)>,
    ) -> Option<bool> {
        let mut any = false;
        // Small whole files waiting to be searched side by side (see
        // `search_batch`); flushed before anything else is said or written.
        let mut batch: Vec<Ready> = Vec::new();
        let batching = self.batches(job);
        for (item, opened) in inputs {
            let small = matches!(&opened, Some(Ok(Input::Whole(b))) if b.len() <= BATCH_FILE);
            if !(batching && small) {
                any |= self.search_batch(job, &mut batch)?;
            }
            let Some(ready) = self.prepare(job, item, opened, any) else {
                continue;
            };
            if batching && small {
                batch.push(ready);
                if batch.len() == BATCH {
                    any |= self.search_batch(job, &mut batch)?;
                }
                continue;
            }
            let mut ready = ready;
            let opened = jobs::Opened {
                name: &ready.name,
                fmt: &ready.fmt,
                region: ready.region.as_ref(),
                input: ready.input.as_mut(),
            };
            let res = job.search(self, opened);
            any |= self.conclude(job, &ready, res)?;
        }
        any |= self.search_batch(job, &mut batch)?;
        Some(any)
    }

    /// Whether small files may be searched side by side: each file's output
    /// is then independent of the others' (no `--head`/`--tail` over all
    /// files, no `-q`, no flush per line, no PCRE2 limit to attribute).
    fn batches(&self, job: &dyn jobs::Job) -> bool {
        let a = self.plan.args;
        job.independent()
            && a.head.is_none()
            && a.tail.is_none()
            && !a.quiet
            && !a.line_buffered
            && !a.null_data
            && self.plan.limits.is_none()
            && a.syntax != Some(crate::query::Syntax::Perl)
            && rayon::current_num_threads() > 1
    }

    /// Search the files of `batch` side by side, each into its own buffer,
    /// then write and report them in order; `None`: -q found a line.
    fn search_batch(&mut self, job: &mut dyn jobs::Job, batch: &mut Vec<Ready>) -> Option<bool> {
        use rayon::prelude::*;
        if batch.is_empty() {
            return Some(false);
        }
        let (plan, stdin) = (self.plan, self.stdin);
        let results: Vec<(Result<Searched, SearchError>, Vec<u8>)> = batch
            .par_iter_mut()
            .map(|r| {
                let mut buf = Vec::new();
                let res = {
                    let mut d = Driver {
                        plan,
                        stdin,
                        errors: false,
                        stats: None,
                        output: None,
                        said_decompressed: true,
                        out: Out {
                            w: io::BufWriter::with_capacity(0, &mut buf),
                            line_buffered: false,
                            failed: None,
                        },
                    };
                    let opened = jobs::Opened {
                        name: &r.name,
                        fmt: &r.fmt,
                        region: r.region.as_ref(),
                        input: r.input.as_mut(),
                    };
                    let res = jobs::new(plan).search(&mut d, opened);
                    d.out.flush();
                    res
                };
                (res, buf)
            })
            .collect();
        let mut any = false;
        for (r, (res, buf)) in batch.drain(..).zip(results) {
            self.out.write(&buf);
            any |= self.conclude(job, &r, res)?;
        }
        Some(any)
    }

    /// An input opened and ready to search, or `None` after reporting why
    /// not (or when the job knows its answer: it is only opened).
    fn prepare(
        &mut self,
        job: &mut dyn jobs::Job,
        item: Item,
        opened: Option<Opened>,
        any: bool,
    ) -> Option<Ready> {
        let (f, name) = match item {
            Item::Search { path, name, .. } => (path, name),
            Item::Error { name, msg } => {
                self.error(&name, &msg);
                return None;
            }
            Item::Warning(w) => {
                self.say(&format!("grail: {w}"));
                return None;
            }
        };
        let mut input = match opened.unwrap_or_else(|| self.open(&f)) {
            Ok(i) => Some(i),
            // grep opens a directory and fails at its first read: the
            // file still gets its count (0) and can be listed by -L.
            Err(e @ source::OpenError::Directory) => {
                self.error(&name, &e.to_string());
                None
            }
            Err(e) => {
                self.error(&name, &e.to_string());
                return None;
            }
        };
        if job.done(any, &self.out) {
            if let Some(v) = &mut self.stats {
                let st = FileStats {
                    path: String::from_utf8_lossy(&name).into_owned(),
                    unread: true,
                    ..Default::default()
                };
                if self.plan.args.stats {
                    super::say::text(&report::report(&st));
                }
                v.push(st);
            }
            return None;
        }
        let started = std::time::Instant::now();
        let mut compressed = None;
        if f != "-" {
            if let Some(mode) = self.plan.decompress {
                (input, compressed) = decompress(input, mode);
            }
        }
        if let Some(c) = &compressed {
            let a = self.plan.args;
            // zgrep (`--sh`) decompresses too: no difference to name.
            if !self.said_decompressed && !a.gzip_only && !a.quiet && !a.no_messages {
                self.said_decompressed = true;
                self.say(&format!(
                    "grail: {}: {} compressed: searching its text, as zcat FILE | grep does \
                     (grep would search the compressed bytes; --no-decompress does); said once",
                    String::from_utf8_lossy(&name),
                    c.format.name()
                ));
            }
        }
        // A pipe's size is unknown to grep (`-T` widths), also when
        // --sh hands a stage its input in memory.
        let piped = f == "-" && !matches!(self.stdin, Stdin::Real);
        if compressed.is_some() && self.plan.limits.is_some() {
            self.error(&name, LIMITS_NOT_COMPRESSED);
            return None;
        }
        let (region, fmt) = self.input_region(&name, input.as_ref(), piped).ok()?;
        if self.plan.args.null_data {
            input = input.map(source::swap_nul_newline);
        }
        Some(Ready {
            name,
            input,
            region,
            fmt,
            started,
            compressed,
        })
    }

    /// After searching `r`: its notes and reports, its count or name, and
    /// whether it had a selected line; `None`: -q found one.
    fn conclude(
        &mut self,
        job: &mut dyn jobs::Job,
        r: &Ready,
        res: Result<Searched, SearchError>,
    ) -> Option<bool> {
        let name = &r.name[..];
        if let Some(at) = r
            .fmt
            .bad_utf8
            .as_ref()
            .map(|a| a.load(std::sync::atomic::Ordering::Relaxed))
        {
            if at != u64::MAX && !self.plan.args.no_messages {
                self.say(&format!(
                    "grail: {}: a printed line at offset {at} is not valid UTF-8 (GNU grep leaves \
                     such lines out and says \"binary file matches\"; grail prints them as they are)",
                    String::from_utf8_lossy(name)
                ));
            }
        }
        if let Some(why) = self.plan.q.take_failure() {
            self.error(name, &why);
        }
        if let Some(why) = r.compressed.as_ref().and_then(|c| c.failure()) {
            self.error(name, &why);
        }
        let Some(s) = self.outcome(name, res) else {
            return Some(false);
        };
        self.record_stats(name, r, &s);
        if !self.plan.args.quiet && !self.plan.listing() {
            let whole = s.read_all || r.region.is_none();
            self.notes(
                name,
                &s.outcome,
                r.region.as_ref().map_or(0, |r| r.start),
                whole,
            );
        }
        let sel = self.file_selected(&s.outcome);
        if self.plan.args.quiet && sel {
            return None;
        }
        job.after(self, name, &s.outcome, sel);
        Some(sel)
    }

    /// Open input `name` (`-`: standard input), refusing the file that is
    /// also the output, as grep does.
    fn open(&self, name: &OsString) -> Result<Input, source::OpenError> {
        if name != "-" {
            return open_path(name, self.output);
        }
        if let (Some(out), Stdin::Real) = (self.output, self.stdin) {
            use std::os::fd::AsFd;
            let md = io::stdin()
                .as_fd()
                .try_clone_to_owned()
                .ok()
                .and_then(|fd| std::fs::File::from(fd).metadata().ok());
            if md.is_some_and(|m| is_output(&m, out)) {
                return Err(also_the_output());
            }
        }
        open(self.stdin, self.plan.opts.binary)
    }

    /// The region of an opened input (`None` for a stream or a directory)
    /// and the format to print it with; `Err` after reporting an error.
    fn input_region(
        &mut self,
        name: &[u8],
        input: Option<&Input>,
        piped: bool,
    ) -> Result<(Option<Region>, Format), ()> {
        let region = match input {
            Some(Input::Whole(bytes)) => Some(self.region(name, bytes).ok_or(())?),
            Some(Input::Stream(_)) if self.plan.limits.is_some() => {
                self.error(name, LIMITS_NEED_A_FILE);
                return Err(());
            }
            _ => None,
        };
        let mut fmt = self.plan.fmt.clone();
        if self.plan.args.utf8 && self.plan.opts.binary != BinaryMode::Text {
            fmt.bad_utf8 = Some(std::sync::Arc::new(std::sync::atomic::AtomicU64::new(
                u64::MAX,
            )));
        }
        if fmt.tab_width.is_some() {
            let size = match input {
                Some(Input::Whole(bytes)) if !piped => Some(bytes.len() as u64),
                _ => None,
            };
            fmt.tab_width = Some(super::plan::tab_width(size, fmt.line_number));
        }
        if let Some(r) = &region {
            fmt.base_offset = r.start as u64;
            fmt.base_line = r.base_line;
        }
        Ok((region, fmt))
    }

    /// The part of a whole input to search; `None` after reporting an error.
    fn region(&mut self, name: &[u8], bytes: &source::Bytes) -> Option<Region> {
        let plan = self.plan;
        let Some(limits) = &plan.limits else {
            return Some(Region {
                start: 0,
                end: bytes.len(),
                ..Default::default()
            });
        };
        let end = plan.to_byte.iter().find(|(n, _)| n == name).map(|x| x.1);
        let limits = crate::region::Limits {
            end,
            ..limits.clone()
        };
        let (numbering, parallel) = (plan.opts.line_numbers, plan.opts.scan.parallel);
        match crate::region::region(bytes.haystack(), &limits, numbering, parallel) {
            Ok(r) => {
                if let Some(n) = &r.note {
                    if !plan.args.no_messages {
                        say!("grail: {}: {n}", String::from_utf8_lossy(name));
                    }
                }
                Some(r)
            }
            Err(e) => {
                self.error(name, &e);
                None
            }
        }
    }

    /// A search's outcome. A read error is reported and the file counts as
    /// having nothing selected (as grep); other errors skip the file (`None`).
    fn outcome(&mut self, name: &[u8], res: Result<Searched, SearchError>) -> Option<Searched> {
        match res {
            Ok(s) => Some(s),
            Err(SearchError::Io(e)) => {
                self.error(name, &crate::error::io_text(&e));
                Some(Searched::default())
            }
            Err(e) => {
                self.error(name, &message(&e));
                None
            }
        }
    }

    /// Keep the `--stats`/`--json` report for one searched input.
    fn record_stats(&mut self, name: &[u8], r: &Ready, s: &Searched) {
        let (input, region, started) = (&r.input, r.region.as_ref(), r.started);
        if self.stats.is_none() || input.is_none() {
            return;
        }
        let o = &s.outcome;
        let base = region.map_or(0, |r| r.start as u64);
        let mut st = FileStats {
            path: String::from_utf8_lossy(name).into_owned(),
            selected: o.selected,
            nul: o.nuls.map(|n| NulStat {
                first: base + n.first as u64,
                count: n.count,
            }),
            ..Default::default()
        };
        match (input, region) {
            (Some(Input::Whole(bytes)), Some(r)) => self.file_stats(&mut st, bytes, r, s),
            _ => {
                st.stream = true;
                st.scanned = s.stream_read;
            }
        }
        st.compressed = r.compressed.as_ref().map(|c| report::CompressedStat {
            format: c.format.name(),
            size: c.size,
            read: c.consumed(),
            text: c.produced(),
        });
        st.elapsed_ms = started.elapsed().as_secs_f64() * 1000.0;
        if self.plan.args.stats {
            super::say::text(&report::report(&st));
        }
        if let Some(v) = &mut self.stats {
            v.push(st);
        }
    }

    /// The parts of a report only a whole file has.
    fn file_stats(&self, st: &mut FileStats, hay: &[u8], r: &Region, s: &Searched) {
        st.size = hay.len() as u64;
        st.region_start = r.start as u64;
        st.region_end = r.end as u64;
        // Each byte counted once: the search's reads (in the region) and
        // the time window's probes (in the file).
        let mut read: Vec<(usize, usize)> = s
            .outcome
            .read
            .iter()
            .map(|&(a, b)| (r.start + a, r.start + b))
            .collect();
        read.extend(r.read.iter().copied());
        st.scanned = crate::scan::union_len(&read);
        st.window = r.window.clone();
        st.trailing_newline = hay.last() == Some(&b'\n');
        st.end_offset = memchr::memrchr(b'\n', hay).map_or(0, |i| i + 1) as u64;
        let last = &hay[st.end_offset as usize..];
        if !last.is_empty() && last.iter().all(|&b| b == 0) {
            st.nul_tail = last.len() as u64;
        }
        if let Some(p) = &self.plan.probe {
            // For a tail, where the lines it printed start: exclude counts
            // cover that part only.
            let from = s.first_out.map_or(r.start, |f| r.start + f);
            let (ex, hidden) = p.count(hay, from, r.end, &self.plan.opts.scan);
            st.excludes = ex;
            st.hidden = hidden;
            st.excludes_from = from as u64;
        }
    }

    /// Report an error about input `name`.
    pub fn error(&mut self, name: &[u8], msg: &str) {
        self.errors = true;
        if !self.plan.args.no_messages {
            self.say(&format!(
                "grail: {}: {}",
                String::from_utf8_lossy(name),
                msg
            ));
        }
    }

    /// One message line to stderr after the lines written so far, as grep's
    /// `error()` flushes stdout first: output and messages interleave as
    /// grep's do when both go to one place (`2>&1`).
    pub fn say(&mut self, line: &str) {
        self.out.flush();
        say!("{line}");
    }

    /// What grep says about a binary input, and what the log rule adds:
    /// NUL bytes searched as text (`base`: the region's file offset;
    /// `whole`: the search read the input from its start), or a binary
    /// input that looks like a log truncated under its writer.
    fn notes(&mut self, name: &[u8], o: &Outcome, base: usize, whole: bool) {
        let args = self.plan.args;
        let name = String::from_utf8_lossy(name);
        if o.binary_matched
            && !args.quiet
            && !args.count
            && matches!(self.plan.opts.binary, BinaryMode::Log | BinaryMode::Grep)
        {
            self.say(&format!("grail: {name}: binary file matches"));
        }
        if args.quiet || args.no_messages || (o.nuls.is_none() && o.leading_nuls.is_none()) {
            return;
        }
        self.out.flush();
        if let Some(n) = &o.nuls {
            let what = format!(
                "{} NUL byte{} from offset {}",
                n.count,
                if n.count == 1 { "" } else { "s" },
                base + n.first
            );
            if whole {
                say!("grail: {name}: {what} (GNU grep would stop printing there)");
            } else {
                say!(
                    "grail: {name}: {what} in the part read (GNU grep would stop printing at the first NUL)"
                );
            }
        }
        if let Some(k) = o.leading_nuls {
            say!("grail: {name}: starts with {k} NUL bytes, then text: a log truncated under its writer? -a searches it");
        }
    }

    /// Whether this outcome counts as "a line was selected" for the exit status.
    fn file_selected(&self, o: &Outcome) -> bool {
        if o.is_binary && self.plan.opts.binary == BinaryMode::WithoutMatch {
            return false;
        }
        // A pipeline's `grep -v` (and a `grep -c ''` after it) sees only what
        // the first grep printed: nothing of a binary part.
        if self.plan.q.has_excludes() && !self.plan.listing() && !self.plan.args.quiet {
            return o.reported > 0;
        }
        o.selected > 0
    }
}

/// A search error as the command line words it.
fn message(e: &SearchError) -> String {
    match e {
        SearchError::AmbiguousBinary => "binary file: where grep stops printing depends on its \
             buffer layout here, so no exact answer exists; use -a (--text) to search it as text"
            .into(),
        SearchError::ContextIntoBinary => "binary file: trailing context would run into the part \
             after the first NUL byte, which grep prints in pieces that depend on its buffer \
             layout; use -a (--text)"
            .into(),
        e => e.to_string(),
    }
}

/// Whether `md` is the regular file `out` (standard output's identity).
fn is_output(md: &std::fs::Metadata, out: (u64, u64)) -> bool {
    use std::os::unix::fs::MetadataExt;
    md.is_file() && (md.dev(), md.ino()) == out
}

fn also_the_output() -> source::OpenError {
    source::OpenError::Io(io::Error::other("input file is also the output"))
}

/// Open the file at `path`, unless it is standard output's file `output`.
fn open_path(path: &OsString, output: Option<(u64, u64)>) -> Result<Input, source::OpenError> {
    if let Some(out) = output {
        if std::fs::metadata(path).is_ok_and(|m| is_output(&m, out)) {
            return Err(also_the_output());
        }
    }
    source::open_path(std::path::Path::new(path))
}

type Opened = Result<Input, source::OpenError>;

/// One input ready to search.
struct Ready {
    name: Vec<u8>,
    input: Option<Input>,
    region: Option<Region>,
    fmt: Format,
    started: std::time::Instant,
    /// The file is compressed: its text is decompressed as it is read.
    compressed: Option<Compressed>,
}

/// Which compressed files are decompressed (see [`Plan::decompress`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Decompress {
    /// Every format grail knows (the default).
    All,
    /// gzip only (`zgrep`, which runs `gzip -cdfq`).
    Gzip,
}

/// `input` decompressed when it is a whole file in a compressed format
/// that `mode` covers.
fn decompress(input: Option<Input>, mode: Decompress) -> (Option<Input>, Option<Compressed>) {
    use crate::source::decompress::Format;
    match input {
        Some(Input::Whole(bytes)) => match Format::detect(&bytes) {
            Some(format) if mode == Decompress::All || format == Format::Gzip => {
                let (text, c) = Compressed::new(format, bytes);
                (Some(Input::Stream(text)), Some(c))
            }
            _ => (Some(Input::Whole(bytes)), None),
        },
        other => (other, None),
    }
}

/// Files up to this size are searched side by side, [`BATCH`] at a time.
const BATCH_FILE: usize = 1 << 20;

/// Inputs opened ahead are handed over in batches of this many (one wake-up
/// per batch, not per file), at most two batches waiting.
const BATCH: usize = 32;

/// Why data from a pipe is refused when NUL bytes are where grep decides
/// from its reads whether the input is binary.
pub const PIPE_NUL: &str = "input read from a pipe contains NUL bytes: grep's output would depend \
     on pipe timing, so grail refuses (add -a to that grep)";

/// How many of a pipe's first bytes decide, read by read, whether grep
/// calls it binary (so their pipe timing would matter): none with `-a`,
/// the first read under the log rule, every read under grep's rule.
pub fn pipe_nul_limit(mode: BinaryMode) -> u64 {
    match mode {
        BinaryMode::Text => 0,
        BinaryMode::Grep => u64::MAX,
        BinaryMode::Log | BinaryMode::WithoutMatch => source::GREP_READ as u64,
    }
}

fn open(stdin: &Stdin, mode: BinaryMode) -> Result<Input, source::OpenError> {
    let piped_nul = |b: &[u8]| {
        let decided = usize::try_from(pipe_nul_limit(mode)).unwrap_or(usize::MAX);
        if memchr::memchr(0, &b[..b.len().min(decided)]).is_some() {
            Err(source::OpenError::Io(io::Error::other(PIPE_NUL)))
        } else {
            Ok(())
        }
    };
    match stdin {
        Stdin::Real => {
            use std::os::fd::AsFd;
            let fd = io::stdin()
                .as_fd()
                .try_clone_to_owned()
                .map_err(source::OpenError::Io)?;
            source::open_file(std::fs::File::from(fd))
        }
        Stdin::Bytes(b) => {
            piped_nul(b)?;
            Ok(Input::Whole(source::Bytes::from(b.clone())))
        }
        Stdin::Reader(m) => match m.lock().ok().and_then(|mut r| r.take()) {
            Some(r) => Ok(Input::Stream(r)),
            None => Err(source::OpenError::Io(io::Error::other(
                "the followed file can be read only once",
            ))),
        },
        Stdin::File(p) => match source::open_path(p)? {
            Input::Whole(bytes) => {
                piped_nul(&bytes)?;
                Ok(Input::Whole(bytes.piped()))
            }
            s => Ok(s),
        },
    }
}

/// The identity (device, inode) of standard output when it is a regular
/// file and grep would refuse to read that file: it would read what it
/// writes (`grep x log >> log`). grep skips the check when it writes no
/// lines (`-q`, `-l`, `-L`, `-c`) or stops after one (`-m 1`).
fn output_file(args: &Args) -> Option<(u64, u64)> {
    use std::os::fd::AsFd;
    use std::os::unix::fs::MetadataExt;
    let writes_lines = !args.quiet
        && !args.count
        && !args.files_with_matches
        && !args.files_without_match
        && args.max_count.is_none_or(|m| m > 1);
    if !writes_lines {
        return None;
    }
    let fd = io::stdout().as_fd().try_clone_to_owned().ok()?;
    let md = std::fs::File::from(fd).metadata().ok()?;
    md.is_file().then(|| (md.dev(), md.ino()))
}
