//! Context lines (`-A`, `-B`, `-C`, `-NUM`) around selected lines, printed
//! exactly as GNU grep's `prtext`/`prpending` print them: context lines with
//! `-` separators, selected lines with `:`, and a group separator (`--`)
//! before every group that is not adjacent to the previous output — also
//! before the first group of a later file.
//!
//! Exclude patterns (`-N`) only decide which lines are *selected*; any line,
//! an excluded one included, may be printed as context of a selected line.
//!
//! The printer works on a byte region holding whole lines (a mapped file,
//! or the current buffer of a stream) and keeps grep's state between
//! regions: where the last printed line ended, how many trailing-context
//! lines are still owed, and whether anything was printed at all.

use super::{Format, LineOut};
use crate::query::Query;

/// What context was asked for.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ContextSpec {
    /// Lines of leading context (`-B`).
    pub before: usize,
    /// Lines of trailing context (`-A`).
    pub after: usize,
    /// The group separator line (`--group-separator`), `None` for
    /// `--no-group-separator`.
    pub separator: Option<Vec<u8>>,
}

/// The group state of one run, across its files: grep prints the group
/// separator before a group only once something was output (or a binary
/// file's match was found quietly) before.
#[derive(Debug, Default)]
pub struct Groups {
    /// grep's `used`: a group was started before.
    pub used: bool,
}

/// Where one printed line (or group separator) starts in the output piece
/// handed to the sink, with its line number (`None`: a separator).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Mark {
    /// Offset in the piece.
    pub at: usize,
    /// Line number (counted only when numbering), `None` for a separator.
    pub number: Option<u64>,
    /// Whether the line is selected.
    pub selected: bool,
}

/// Marks shared between a [`FileContext`] and the sink of its pieces.
pub type Marks = std::rc::Rc<std::cell::RefCell<Vec<Mark>>>;

/// The context printer for one file.
#[derive(Debug)]
pub struct FileContext<'a> {
    spec: &'a ContextSpec,
    fmt: &'a Format,
    q: &'a Query,
    name: &'a [u8],
    /// Absolute offset of the current region's first byte.
    base: u64,
    /// End of the last printed line, relative to the region (`None`: not in
    /// this region, or nothing printed yet in this file).
    last_end: Option<usize>,
    /// Line number of the line that ends at `last_end` (when numbering).
    last_number: u64,
    /// Trailing-context lines still owed.
    pending: usize,
    /// Leading context never reaches before this offset of the region.
    floor: usize,
    /// When set, every printed line and separator is marked here.
    marks: Option<Marks>,
}

impl<'a> FileContext<'a> {
    /// A printer for the file called `name`.
    pub fn new(spec: &'a ContextSpec, fmt: &'a Format, q: &'a Query, name: &'a [u8]) -> Self {
        FileContext {
            spec,
            fmt,
            q,
            name,
            base: 0,
            last_end: None,
            last_number: 0,
            pending: 0,
            floor: 0,
            marks: None,
        }
    }

    /// Mark every printed line and separator in `marks` (for a tail of the
    /// output that must know where lines start).
    pub fn mark_into(&mut self, marks: Marks) {
        self.marks = Some(marks);
    }

    fn mark(&self, out: &[u8], number: Option<u64>, selected: bool) {
        if let Some(m) = &self.marks {
            m.borrow_mut().push(Mark {
                at: out.len(),
                number,
                selected,
            });
        }
    }

    /// Print (and mark) the line `region[a..b]`: selected, or context.
    fn line(&self, out: &mut Vec<u8>, region: &[u8], (a, b): (usize, usize), n: u64, sel: bool) {
        self.mark(out, Some(n), sel);
        let line = LineOut {
            name: self.name,
            bytes: &region[a..b],
            number: n,
            offset: self.base + a as u64,
            selected: sel,
        };
        self.fmt.push_prline(out, self.q, &line);
    }

    /// Start printing at `from` (a line start): nothing before it is
    /// printed, not even as leading context.
    pub fn start_at(&mut self, from: usize) {
        self.floor = from;
    }

    /// Trailing-context lines still owed after what was printed so far.
    pub fn pending(&self) -> usize {
        self.pending
    }

    /// Trailing-context lines each selected line is owed (`-A`).
    pub fn after(&self) -> usize {
        self.spec.after
    }

    /// Print the selected line `region[start..end]` (no newline in it) with
    /// its leading context, after any trailing context still owed. `number`
    /// is its line number (when numbering). `region` must hold whole lines
    /// from a line start up to at least the line's end.
    pub fn selected(
        &mut self,
        groups: &mut Groups,
        out: &mut Vec<u8>,
        region: &[u8],
        (start, end): (usize, usize),
        number: u64,
    ) {
        // prpending(beg): owed trailing context up to this line.
        if self.pending > 0 {
            self.print_pending(out, region, start);
        }
        // Leading context, never before the last printed line.
        let floor = self.last_end.unwrap_or(self.floor);
        let (mut p, k) = crate::scan::lines_back(region, start, self.spec.before, floor);
        if groups.used && Some(p) != self.last_end {
            if let Some(sep) = &self.spec.separator {
                self.mark(out, None, false);
                self.fmt.push_separator(out, sep);
            }
        }
        let mut n = number.saturating_sub(k as u64);
        while p < start {
            let nl = memchr::memchr(b'\n', &region[p..start]).map_or(start, |i| p + i);
            self.line(out, region, (p, nl), n, false);
            n += 1;
            p = nl + 1;
        }
        self.line(out, region, (start, end), number, true);
        self.last_end = Some((end + 1).min(region.len()));
        self.last_number = number;
        self.pending = self.spec.after;
        groups.used = true;
    }

    /// Print owed trailing context lines that start before `lim` (grep's
    /// `prpending`): they are printed whether or not they would be selected.
    pub fn print_pending(&mut self, out: &mut Vec<u8>, region: &[u8], lim: usize) {
        let Some(mut p) = self.last_end else {
            return;
        };
        let lim = lim.min(region.len());
        while self.pending > 0 && p < lim {
            let nl = memchr::memchr(b'\n', &region[p..]).map_or(region.len(), |i| p + i);
            self.last_number += 1;
            self.line(out, region, (p, nl), self.last_number, false);
            p = (nl + 1).min(region.len());
            self.pending -= 1;
        }
        self.last_end = Some(p);
    }

    /// Move to the next region of a stream: `consumed` bytes of the current
    /// region are dropped and the rest starts the next region.
    pub fn advance(&mut self, consumed: usize) {
        self.base += consumed as u64;
        self.last_end = match self.last_end {
            Some(e) if e >= consumed => Some(e - consumed),
            // What was printed last is gone: the next group is not adjacent.
            _ => None,
        };
        self.floor = self.floor.saturating_sub(consumed);
    }

    /// Where a stream may drop its buffer up to, keeping the lines the
    /// next region may need as leading context: the start of the
    /// `before`-th line before `lim`, but never past the last printed line.
    pub fn keep_from(&self, region: &[u8], lim: usize) -> usize {
        let floor = self.last_end.unwrap_or(0).min(lim);
        crate::scan::lines_back(region, lim, self.spec.before, floor).0
    }
}
