//! What `--stats` and `--json` report about each search.

use super::args::Args;
use crate::query::{Query, QueryBuilder};
use crate::region::WindowStats;
use serde::Serialize;

/// What one search did, for `--stats` (stderr) and the `--json` summary.
#[derive(Clone, Debug, Default, Serialize)]
pub struct FileStats {
    /// The file's name as printed.
    pub path: String,
    /// Its size at open (bytes).
    pub size: u64,
    /// Bytes the search read (NUL check, pattern scan, time-window probes).
    pub scanned: u64,
    /// First byte of the searched region.
    pub region_start: u64,
    /// End of the searched region.
    pub region_end: u64,
    /// Lines selected (as `grep -c` counts them; for a tail, those found).
    pub selected: u64,
    /// Wall time of this file's search, in milliseconds.
    pub elapsed_ms: f64,
    /// For each exclude pattern: lines of the scanned part that the include
    /// patterns select and that this exclude matches (a line matching two
    /// excludes is counted for both).
    pub excludes: Vec<ExcludeStat>,
    /// Lines hidden by any exclude, in the scanned part.
    pub hidden: u64,
    /// The part of the file these exclude counts cover.
    pub excludes_from: u64,
    /// Whether the file ends with a newline (false: the last line was cut
    /// off mid-write, or the file is empty).
    pub trailing_newline: bool,
    /// Where to resume with `--from-byte` next time: just after the last
    /// complete line of the file.
    pub end_offset: u64,
    /// The NUL bytes in the part of the text searched (under the log rule:
    /// GNU grep would have stopped printing at the first).
    pub nul: Option<NulStat>,
    /// The bytes after the last newline are this many NUL bytes: not a line
    /// cut off mid-write but blocks never written (a power loss).
    pub nul_tail: u64,
    /// How the time window was found.
    pub window: Option<WindowStats>,
    /// Input read as a stream (no size, no resume offset).
    pub stream: bool,
    /// A compressed file, decompressed as it was read.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub compressed: Option<CompressedStat>,
    /// Not read: the answer was known before it (a tail found its lines in
    /// later files).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub unread: bool,
}

/// What decompressing one file read and made.
#[derive(Clone, Debug, Default, Serialize)]
pub struct CompressedStat {
    /// `gzip`, `zstd`, `xz`, `bzip2` or `lz4`.
    pub format: &'static str,
    /// The compressed file's size.
    pub size: u64,
    /// Compressed bytes the decoder read.
    pub read: u64,
    /// Bytes of text it made.
    pub text: u64,
}

/// NUL bytes found in the part read.
#[derive(Clone, Copy, Debug, Serialize, PartialEq, Eq)]
pub struct NulStat {
    /// File offset of the first.
    pub first: u64,
    /// How many.
    pub count: u64,
}

/// The last object `--json` prints.
#[derive(Debug, Serialize)]
pub struct Summary {
    /// Always `"summary"`.
    #[serde(rename = "type")]
    pub kind: &'static str,
    /// Selected lines in all files.
    pub selected: u64,
    /// Wall time of the whole run.
    pub elapsed_ms: f64,
    /// One report per file, in the order searched.
    pub files: Vec<FileStats>,
}

/// The last object `--json --follow` prints: the initial search of each
/// file, then what following each file read and selected.
#[derive(Debug, Serialize)]
pub struct FollowSummary<'a> {
    /// Always `"summary"`.
    #[serde(rename = "type")]
    pub kind: &'static str,
    /// Selected lines, initial part and followed streams together.
    pub selected: u64,
    /// Wall time of the whole run.
    pub elapsed_ms: f64,
    /// The initial search, one report per file.
    pub files: &'a [FileStats],
    /// Each followed stream (`"stream": true`, bytes read while following).
    pub followed: Vec<&'a FileStats>,
}

/// Lines an exclude pattern hid.
#[derive(Clone, Debug, Serialize)]
pub struct ExcludeStat {
    /// The pattern as given.
    pub pattern: String,
    /// Lines it hid.
    pub hidden: u64,
}

/// The include-only query and one query per exclude pattern, for counting
/// what each exclude hid.
pub struct ExcludeProbe {
    include: Query,
    excludes: Vec<(String, Query)>,
}

impl ExcludeProbe {
    /// Build from the command line; `None` when there are no excludes.
    pub fn new(args: &Args) -> Option<ExcludeProbe> {
        if args.excludes.is_empty() && args.stage_excludes.is_empty() {
            return None;
        }
        let base = || super::plan::query_builder(args);
        let mut b = base().invert(args.invert);
        for p in &args.patterns {
            b = b.include(p);
        }
        let include = b.build().ok()?;
        let mut excludes = Vec::new();
        for (s, p) in &args.excludes {
            let b = base().include("x");
            let b = match s {
                Some(s) => b.exclude_with(*s, p),
                None => b.exclude(p),
            };
            excludes.push((String::from_utf8_lossy(p).into_owned(), b.build().ok()?));
        }
        for (s, [i, w, x], p) in &args.stage_excludes {
            let b = QueryBuilder::new()
                .utf8(args.utf8)
                .include("x")
                .exclude_with_flags(*s, p, *i, *w, *x);
            excludes.push((String::from_utf8_lossy(p).into_owned(), b.build().ok()?));
        }
        Some(ExcludeProbe { include, excludes })
    }

    /// Count, in `hay[from..to]`, the lines the includes select that each
    /// exclude matches. Returns the per-exclude counts and the lines hidden
    /// by any.
    pub fn count(
        &self,
        hay: &[u8],
        from: usize,
        to: usize,
        cfg: &crate::ScanConfig,
    ) -> (Vec<ExcludeStat>, u64) {
        let mut counts = vec![0u64; self.excludes.len()];
        let mut hidden = 0u64;
        let how = crate::scan::Forward::default();
        crate::scan::forward(&self.include, hay, (from, to), cfg, how, &mut |batch| {
            for h in batch.iter().flat_map(|c| &c.hits) {
                let line = &hay[h.start..h.end];
                let mut any = false;
                for (i, (_, q)) in self.excludes.iter().enumerate() {
                    if q.exclude_matches(line) {
                        counts[i] += 1;
                        any = true;
                    }
                }
                hidden += any as u64;
            }
            true
        });
        let stats = self
            .excludes
            .iter()
            .zip(counts)
            .map(|((p, _), n)| ExcludeStat {
                pattern: p.clone(),
                hidden: n,
            })
            .collect();
        (stats, hidden)
    }
}

/// Human-readable size.
fn size(n: u64) -> String {
    const U: [&str; 5] = ["B", "KiB", "MiB", "GiB", "TiB"];
    let mut v = n as f64;
    let mut i = 0;
    while v >= 1024.0 && i < U.len() - 1 {
        v /= 1024.0;
        i += 1;
    }
    if i == 0 {
        format!("{n} B")
    } else {
        format!("{v:.1} {}", U[i])
    }
}

/// [`size`], with the exact number of bytes beside a rounded one.
fn exact_size(n: u64) -> String {
    if n < 1024 {
        size(n)
    } else {
        format!("{} ({n} B)", size(n))
    }
}

/// The `--stats` report for one file, as lines for stderr.
pub fn report(s: &FileStats) -> String {
    let mut o = String::new();
    if s.unread {
        return format!(
            "grail: stats: {}: not read (the lines wanted were found in later files)\n",
            s.path
        );
    }
    if let Some(c) = &s.compressed {
        o += &format!(
            "grail: stats: {}: {} compressed, {} of {} read, {} of text made\n",
            s.path,
            c.format,
            size(c.read),
            size(c.size),
            size(c.text)
        );
    }
    if s.stream {
        o += &format!(
            "grail: stats: {}: read {} as a stream in {:.1} ms; {} lines selected\n",
            s.path,
            size(s.scanned),
            s.elapsed_ms,
            s.selected
        );
    } else {
        let pct = if s.size > 0 {
            100.0 * s.scanned as f64 / s.size as f64
        } else {
            0.0
        };
        o += &format!(
            "grail: stats: {}: scanned {} of {} ({pct:.3}%) in {:.1} ms; {} lines selected\n",
            s.path,
            exact_size(s.scanned),
            size(s.size),
            s.elapsed_ms,
            s.selected
        );
        if s.region_start > 0 || s.region_end < s.size {
            o += &format!(
                "grail: stats: {}: searched bytes {}..{} only\n",
                s.path, s.region_start, s.region_end
            );
        }
    }
    if let Some(n) = &s.nul {
        o += &format!(
            "grail: stats: {}: {} NUL bytes from offset {} in the part read, searched as text\n",
            s.path, n.count, n.first
        );
    }
    if let Some(w) = &s.window {
        o += &format!(
            "grail: stats: {}: time window by binary search ({}): {} lines probed, {} read; since {}, before {}\n",
            s.path,
            w.format,
            w.probed_lines,
            size(w.probed_bytes),
            w.since.as_deref().unwrap_or("-"),
            w.before.as_deref().unwrap_or("-"),
        );
    }
    for e in &s.excludes {
        o += &format!(
            "grail: stats: {}: exclude '{}' hid {} lines\n",
            s.path, e.pattern, e.hidden
        );
    }
    if !s.excludes.is_empty() && (s.excludes_from > s.region_start) {
        o += &format!(
            "grail: stats: {}: (exclude counts cover bytes {}.. only: the part the tail read)\n",
            s.path, s.excludes_from
        );
    }
    if !s.stream {
        if s.size == 0 {
            o += &format!("grail: stats: {}: empty file\n", s.path);
        } else if s.trailing_newline {
            o += &format!("grail: stats: {}: ends with a complete line\n", s.path);
        } else if s.nul_tail > 0 {
            o += &format!(
                "grail: stats: {}: ends with {} NUL bytes after its last newline: blocks never written (a power loss or a crash before they were flushed?), not a line cut off\n",
                s.path, s.nul_tail
            );
        } else {
            o += &format!(
                "grail: stats: {}: LAST LINE HAS NO NEWLINE: cut off mid-write (was the writer killed?)\n",
                s.path
            );
        }
        o += &format!(
            "grail: stats: {}: end offset {} (resume with --from-byte {})\n",
            s.path, s.end_offset, s.end_offset
        );
    }
    o
}
