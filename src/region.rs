//! Which part of a file is searched: from a byte offset (`--from-byte`),
//! up to an end offset, inside a time window (`--since`, `--before`, found by
//! binary search, see [`timewin`]).

use crate::source::Haystack;
use crate::timewin::{self, Bound, TimeFormat};
use serde::Serialize;

/// The limits put on the searched part of an input.
#[derive(Clone, Debug, Default)]
pub struct Limits {
    /// Start at the first line start at or after this offset (a resume
    /// offset; past the end of the file: from the start, with a note).
    pub from_byte: Option<u64>,
    /// End at this offset (a line start).
    pub end: Option<u64>,
    /// Lines at or after this time.
    pub since: Option<Bound>,
    /// Lines before this time.
    pub before: Option<Bound>,
    /// The timestamp format (`None`: detected from the first lines).
    pub format: Option<TimeFormat>,
}

impl Limits {
    /// No limit: the whole input.
    pub fn is_empty(&self) -> bool {
        self.from_byte.is_none() && self.end.is_none() && !self.timed()
    }

    fn timed(&self) -> bool {
        self.since.is_some() || self.before.is_some()
    }
}

/// The part of one file to search.
#[derive(Clone, Debug, Default)]
pub struct Region {
    /// First byte searched (a line start).
    pub start: usize,
    /// End of the searched part (a line start or the file's end).
    pub end: usize,
    /// Newlines before `start` (counted only when line numbers are wanted).
    pub base_line: u64,
    /// What the time window's binary search read.
    pub window: Option<WindowStats>,
    /// The byte ranges of the file finding the region read (the window's
    /// probes, the newline count before it), to count them once.
    pub read: Vec<(usize, usize)>,
    /// A warning to print (e.g. `--from-byte` past the end).
    pub note: Option<String>,
}

/// How a time window was found, for `--stats`/`--json`.
#[derive(Clone, Debug, Serialize)]
pub struct WindowStats {
    /// The timestamp format used.
    pub format: String,
    /// `--since` as resolved against the log.
    pub since: Option<String>,
    /// `--before` as resolved against the log.
    pub before: Option<String>,
    /// Bytes the binary search read.
    pub probed_bytes: u64,
    /// Lines whose timestamps it read.
    pub probed_lines: u64,
}

/// The region of `haystack` the limits select. `numbering`: count the lines
/// before it (for `-n`). The error is a message for the user.
pub fn region(
    haystack: Haystack<'_>,
    limits: &Limits,
    numbering: bool,
    parallel: bool,
) -> Result<Region, String> {
    let hay = haystack.bytes();
    let mut r = Region {
        start: 0,
        end: hay.len(),
        ..Region::default()
    };
    if let Some(t) = limits.end {
        // A line start (the caller's end of the last complete line).
        r.end = usize::try_from(t).unwrap_or(usize::MAX).min(hay.len());
    }
    if let Some(fb) = limits.from_byte {
        match usize::try_from(fb) {
            Ok(fb) if fb <= hay.len() => {
                // A partial line at the offset is not searched: resume
                // offsets are line starts.
                r.start = if fb == 0 || hay[fb - 1] == b'\n' {
                    fb
                } else {
                    memchr::memchr(b'\n', &hay[fb..]).map_or(hay.len(), |i| fb + i + 1)
                };
            }
            _ => {
                r.note = Some(format!(
                    "file is shorter ({} bytes) than --from-byte {fb}: it was truncated or \
                     replaced; searching it from the start",
                    hay.len()
                ));
            }
        }
    }
    if limits.timed() {
        let part = &hay[r.start..r.end.max(r.start)];
        let detected;
        let fmt = match &limits.format {
            Some(f) => f,
            None => {
                detected = TimeFormat::detect(part).ok_or_else(|| {
                    "no timestamps in a known format (ISO-8601, syslog, vLLM/Android MM-DD, \
                     Apache, epoch seconds) among the first lines; give --time-format"
                        .to_string()
                })?;
                &detected
            }
        };
        let w = timewin::window(part, fmt, limits.since.as_ref(), limits.before.as_ref())
            .map_err(|e| e.to_string())?;
        r.window = Some(WindowStats {
            format: fmt.name(),
            since: w.since.as_ref().map(|c| c.to_string()),
            before: w.before.as_ref().map(|c| c.to_string()),
            probed_bytes: w.probed_bytes,
            probed_lines: w.probed_lines,
        });
        r.read
            .extend(w.probed.iter().map(|&(a, b)| (r.start + a, r.start + b)));
        r.end = r.start + w.end;
        r.start += w.start;
    }
    if numbering && r.start > 0 {
        r.read.push((0, r.start));
        let release = |a: usize, b: usize| haystack.release(a, b);
        r.base_line = crate::scan::count_newlines_then(hay, 0, r.start, parallel, &release);
    }
    Ok(r)
}
