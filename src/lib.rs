//! # grail
//!
//! Exact, fast `grep PATTERN FILE | grep -v EXCLUDE | tail -n N` for huge logs.
//!
//! grail compiles grep patterns (BRE, ERE or fixed strings, with GNU's
//! semantics under `LC_ALL=C`) and exclude patterns into automata, memory-maps
//! the input, and scans line-aligned chunks in parallel. For a tail it scans
//! chunks backwards from the end of the file and stops as soon as the last N
//! selected lines are certain. Its output is byte-for-byte what the GNU
//! pipeline prints; what it cannot do exactly it refuses.
//!
//! ```
//! use grail::{QueryBuilder, Searcher, Syntax};
//!
//! let log = b"INFO start\nERROR disk full\nWARNING FutureWarning: Error soon\nERROR oom\n";
//! let query = QueryBuilder::new()
//!     .syntax(Syntax::Extended)
//!     .include("Error|ERROR")
//!     .exclude("FutureWarning")
//!     .build()
//!     .unwrap();
//! let searcher = Searcher::new(&query).line_numbers(true);
//! let last = searcher.tail(log, 1).unwrap();
//! assert_eq!(last[0].bytes, b"ERROR oom");
//! assert_eq!(last[0].number, 4);
//! assert_eq!(searcher.count(log).unwrap(), 2);
//! let all: Vec<_> = searcher.all(log).unwrap().into_iter().map(|l| l.offset).collect();
//! assert_eq!(all, vec![11, 61]);
//! ```
//!
//! The pieces, in the order a search uses them: [`query`] compiles patterns;
//! [`source`] maps or reads inputs; [`scan`] finds selected lines forwards
//! in parallel or backwards from the end; [`search`] handles one input
//! (binary files, line numbers, streams); [`printer`] and [`context`] print
//! grep's lines, colours, context groups and JSON; [`timewin`] finds time
//! windows by binary search and [`follow`] follows growing files; [`cli`] is
//! the program.
#![deny(missing_docs)]

pub mod cli;
pub mod context;
pub mod follow;
pub mod printer;
pub mod query;
pub mod scan;
pub mod search;
pub mod sigbus;
pub mod source;
pub mod timewin;

pub use query::{Query, QueryBuilder, QueryError, Syntax};
pub use scan::ScanConfig;
pub use search::{BinaryMode, Line, SearchError, SearchOptions};

/// Searches byte slices or files with one query, with the same semantics as
/// the command line (binary handling, `-m`, line numbers).
#[derive(Debug)]
pub struct Searcher<'q> {
    query: &'q Query,
    opts: SearchOptions,
}

impl<'q> Searcher<'q> {
    /// A searcher with default options: parallel, logs are text ([`BinaryMode::Log`]).
    pub fn new(query: &'q Query) -> Self {
        Searcher {
            query,
            opts: SearchOptions::default(),
        }
    }

    /// Report 1-based line numbers in [`Line::number`].
    pub fn line_numbers(mut self, yes: bool) -> Self {
        self.opts.line_numbers = yes;
        self
    }

    /// Stop after `n` selected lines (grep's `-m`).
    pub fn max_count(mut self, n: Option<u64>) -> Self {
        self.opts.max_count = n;
        self
    }

    /// How NUL bytes are treated.
    pub fn binary(mut self, mode: BinaryMode) -> Self {
        self.opts.binary = mode;
        self
    }

    /// Chunking and parallelism (tests set tiny chunks to stress boundaries).
    pub fn scan_config(mut self, cfg: ScanConfig) -> Self {
        self.opts.scan = cfg;
        self
    }

    /// Every selected line of the text part of `hay`, in order.
    pub fn all(&self, hay: &[u8]) -> Result<Vec<Line>, SearchError> {
        let mut v = Vec::new();
        search::search_forward(
            self.query,
            hay,
            false,
            &self.opts,
            &mut |_, l| {
                v.push(l.clone());
                true
            },
            false,
        )?;
        Ok(v)
    }

    /// The first `n` selected lines.
    pub fn head(&self, hay: &[u8], n: usize) -> Result<Vec<Line>, SearchError> {
        let mut v = Vec::new();
        if n == 0 {
            return Ok(v);
        }
        search::search_forward(
            self.query,
            hay,
            false,
            &self.opts,
            &mut |_, l| {
                v.push(l.clone());
                v.len() < n
            },
            false,
        )?;
        Ok(v)
    }

    /// The last `n` selected lines, found from the end.
    pub fn tail(&self, hay: &[u8], n: usize) -> Result<Vec<Line>, SearchError> {
        let (mut v, _) = search::search_tail(self.query, hay, false, n, &self.opts, &|_| 1)?;
        if v.len() > n {
            v.drain(..v.len() - n);
        }
        Ok(v)
    }

    /// The number of selected lines, as `grep -c` counts them.
    pub fn count(&self, hay: &[u8]) -> Result<u64, SearchError> {
        Ok(
            search::search_forward(self.query, hay, false, &self.opts, &mut |_, _| true, true)?
                .selected,
        )
    }

    /// Open `path` (memory-mapped when large) and return its last `n` selected lines.
    pub fn tail_path(
        &self,
        path: impl AsRef<std::path::Path>,
        n: usize,
    ) -> Result<Vec<Line>, SearchError> {
        match source::open_path(path.as_ref()) {
            Ok(source::Input::Whole { bytes, has_holes }) => {
                let (mut v, _) =
                    search::search_tail(self.query, &bytes, has_holes, n, &self.opts, &|_| 1)?;
                if v.len() > n {
                    v.drain(..v.len() - n);
                }
                Ok(v)
            }
            Ok(source::Input::Stream(mut r)) => {
                let mut ring = std::collections::VecDeque::new();
                search::search_stream(
                    self.query,
                    &mut *r,
                    &self.opts,
                    &mut |_, l| {
                        if n > 0 {
                            if ring.len() == n {
                                ring.pop_front();
                            }
                            ring.push_back(l.clone());
                        }
                        true
                    },
                    false,
                )?;
                Ok(ring.into())
            }
            Err(source::OpenError::Io(e)) => Err(SearchError::Io(e)),
            Err(source::OpenError::Directory) => {
                Err(SearchError::Io(std::io::Error::other("Is a directory")))
            }
        }
    }
}

/// An I/O error as grep words it: the system's message without Rust's
/// "(os error N)" suffix.
pub fn io_error_text(e: &std::io::Error) -> String {
    let s = e.to_string();
    match s.find(" (os error ") {
        Some(i) => s[..i].to_string(),
        None => s,
    }
}
