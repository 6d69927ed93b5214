//! Query compilation: grep patterns (includes) and grail's exclude patterns,
//! each in its own syntax, compiled into two multi-pattern automata.
//!
//! A line is *selected* when (some include matches) XOR `invert`, and no
//! exclude matches. Includes are searched over whole chunks (with literal
//! prefilters); excludes are only ever run on a candidate line.

mod gnu_regex;
mod hir;
mod literals;
mod locale;
mod parse;
mod pcre;
#[cfg(target_arch = "x86_64")]
mod teddy;

pub use locale::{locale_is_utf8, locale_name};

/// The case-insensitive literal prefilter on its own, for the fuzz target
/// `fuzz/fuzz_targets/prefilter.rs` (not a stable API: queries choose it
/// themselves).
#[doc(hidden)]
pub mod prefilter {
    pub use super::literals::{FoldCache, Folded, Plain};
}

pub use parse::{PatternError, Syntax};

use parse::Flags;
use regex_automata::hybrid::dfa::{Cache as DfaCache, DFA};
use regex_automata::meta::{self, Regex};
use regex_automata::util::pool::Pool;
use regex_automata::{Anchored, Input, MatchKind};
use regex_syntax::hir::Hir;
use std::fmt;

/// Upper bound on the memory of one compiled automaton (NFA) and of each lazy
/// DFA cache. A pattern set that needs more is refused rather than allowed
/// to exhaust memory.
pub const AUTOMATON_SIZE_LIMIT: usize = 256 << 20;

/// An error building a [`Query`]: names the pattern and what is wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QueryError {
    /// The offending pattern (lossy UTF-8), if the error is about one pattern.
    pub pattern: Option<String>,
    /// What is wrong, in GNU grep's words where grep has words for it.
    pub message: String,
    /// True when grep would accept the pattern but grail cannot run it exactly.
    pub unsupported: bool,
}

impl fmt::Display for QueryError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let what = if self.unsupported {
            "not supported: "
        } else {
            ""
        };
        match &self.pattern {
            Some(p) => {
                // A pattern of a million bytes is named by its start.
                const SHOWN: usize = 80;
                match p.char_indices().nth(SHOWN) {
                    Some((i, _)) => write!(f, "pattern '{}...': {what}{}", &p[..i], self.message),
                    None => write!(f, "pattern '{}': {what}{}", p, self.message),
                }
            }
            None => write!(f, "{what}{}", self.message),
        }
    }
}

impl std::error::Error for QueryError {}

/// Builds a [`Query`]. Patterns keep the syntax they were added with.
///
/// ```
/// use grail::{QueryBuilder, Syntax};
/// let q = QueryBuilder::new()
///     .syntax(Syntax::Extended)
///     .include("RuntimeError|ValueError")
///     .exclude_with(Syntax::Basic, r"repo_utils\|FutureWarning")
///     .build()
///     .unwrap();
/// assert!(q.is_selected(b"RuntimeError: CUDA out of memory"));
/// assert!(!q.is_selected(b"FutureWarning: RuntimeError soon"));
/// assert!(!q.is_selected(b"all good"));
/// ```
#[derive(Clone, Debug, Default)]
pub struct QueryBuilder {
    syntax: Option<Syntax>,
    includes: Vec<(Syntax, Vec<u8>)>,
    excludes: Vec<(Option<Syntax>, Option<Flags>, Vec<u8>)>,
    flags: Flags,
    invert: bool,
}

impl QueryBuilder {
    /// A builder with no patterns, BRE syntax, no flags.
    pub fn new() -> Self {
        Self::default()
    }

    /// The syntax of include patterns added after this call.
    pub fn syntax(mut self, syntax: Syntax) -> Self {
        self.syntax = Some(syntax);
        self
    }

    fn cur(&self) -> Syntax {
        self.syntax.unwrap_or(Syntax::Basic)
    }

    /// Add include patterns (split on `\n`, as grep does).
    pub fn include(mut self, pattern: impl AsRef<[u8]>) -> Self {
        let s = self.cur();
        for p in split_lines(pattern.as_ref()) {
            self.includes.push((s, p));
        }
        self
    }

    /// Add include patterns in an explicit syntax.
    pub fn include_with(mut self, syntax: Syntax, pattern: impl AsRef<[u8]>) -> Self {
        for p in split_lines(pattern.as_ref()) {
            self.includes.push((syntax, p));
        }
        self
    }

    /// Add exclude patterns in BRE, exactly as `| grep -v PATTERN` reads them
    /// whatever the include syntax is (like `-N`).
    pub fn exclude(mut self, pattern: impl AsRef<[u8]>) -> Self {
        for p in split_lines(pattern.as_ref()) {
            self.excludes.push((None, None, p));
        }
        self
    }

    /// Add exclude patterns in an explicit syntax (like `--not-E`).
    pub fn exclude_with(mut self, syntax: Syntax, pattern: impl AsRef<[u8]>) -> Self {
        for p in split_lines(pattern.as_ref()) {
            self.excludes.push((Some(syntax), None, p));
        }
        self
    }

    /// Add exclude patterns with their own syntax and flags, ignoring the
    /// builder's `-i`/`-w`/`-x` (a pasted `| grep -iv PATTERN` stage).
    pub fn exclude_with_flags(
        mut self,
        syntax: Syntax,
        pattern: impl AsRef<[u8]>,
        ignore_case: bool,
        word: bool,
        line: bool,
    ) -> Self {
        let f = Flags {
            ignore_case,
            word,
            line,
            null_data: false,
            utf8: false,
        };
        for p in split_lines(pattern.as_ref()) {
            self.excludes.push((Some(syntax), Some(f), p));
        }
        self
    }

    /// `-i`: ASCII case-insensitive matching for every pattern.
    pub fn ignore_case(mut self, yes: bool) -> Self {
        self.flags.ignore_case = yes;
        self
    }

    /// `-w`: every pattern must match whole words.
    pub fn word(mut self, yes: bool) -> Self {
        self.flags.word = yes;
        self
    }

    /// `-x`: every pattern must match whole lines.
    pub fn line(mut self, yes: bool) -> Self {
        self.flags.line = yes;
        self
    }

    /// `-z`: patterns as grep reads them for NUL-terminated records, for
    /// data in which NUL and newline bytes were swapped (so each record is
    /// one line): what matches a newline in a record (`.`, `[^a]`, `\s`,
    /// `[[:space:]]`) matches the NUL standing for it, and nothing matches
    /// the newline that ends the record.
    ///
    /// ```
    /// use grail::QueryBuilder;
    /// let q = QueryBuilder::new().null_data(true).include("a.b").build().unwrap();
    /// // The record "a\nb", swapped.
    /// assert!(q.is_selected(b"a\0b"));
    /// ```
    pub fn null_data(mut self, yes: bool) -> Self {
        self.flags.null_data = yes;
        self
    }

    /// Read patterns as grep does in a UTF-8 locale (see [`locale_is_utf8`]):
    /// `.` and bracket expressions match whole characters, never a byte
    /// that is not UTF-8; classes, `\w`, `\s` and `-i` follow the C
    /// library's tables for the locale. `-w`, `\b`, `\B`, `\<` and `\>`
    /// are refused there for now.
    ///
    /// ```
    /// use grail::QueryBuilder;
    /// let q = QueryBuilder::new().utf8(true).ignore_case(true).include("^é.$").build().unwrap();
    /// assert!(q.is_selected("Éé".as_bytes())); // `.` is one character, -i folds É
    /// assert!(!q.is_selected("é".as_bytes())); // one character, not two bytes
    /// ```
    pub fn utf8(mut self, yes: bool) -> Self {
        self.flags.utf8 = yes;
        self
    }

    /// `-v`: select lines that no include pattern matches.
    pub fn invert(mut self, yes: bool) -> Self {
        self.invert = yes;
        self
    }

    /// Number of include patterns added so far.
    pub fn include_count(&self) -> usize {
        self.includes.len()
    }

    /// Compile the query.
    ///
    /// Patterns nested more than 10,000 levels deep are
    /// refused (GNU grep says "stack overflow" for them):
    ///
    /// ```
    /// use grail::{QueryBuilder, Syntax};
    /// let deep = format!("{}a{}", "(".repeat(50_000), ")".repeat(50_000));
    /// let err = QueryBuilder::new().syntax(Syntax::Extended).include(&deep).build().unwrap_err();
    /// assert!(err.message.contains("stack overflow"));
    /// ```
    pub fn build(&self) -> Result<Query, QueryError> {
        // Translation and compilation recurse over the pattern's nesting.
        on_big_stack(|| self.build_here())
    }

    fn build_here(&self) -> Result<Query, QueryError> {
        let null_data = self.flags.null_data;
        let translate_all = |pats: &mut dyn Iterator<Item = (Syntax, Flags, &Vec<u8>)>| {
            let mut t = Translated::default();
            for (syn, mut flags, p) in pats {
                flags.null_data = null_data;
                flags.utf8 = self.flags.utf8;
                let err = |message: String, unsupported| QueryError {
                    pattern: Some(String::from_utf8_lossy(p).into_owned()),
                    message,
                    unsupported,
                };
                let (h, q) = parse::translate_quirks(p, syn, flags).map_err(|e| match e {
                    PatternError::Invalid(m) => err(m, false),
                    PatternError::Unsupported(m) => err(m, true),
                })?;
                if syn == Syntax::Perl {
                    if null_data {
                        return Err(err("-P with -z".into(), true));
                    }
                    if flags.utf8 && pcre::negated_shorthand(p) {
                        return Err(err(
                            "-P with \\D, \\S or \\W in a UTF-8 locale (grep's PCRE2 10.42 matches no \
                             non-ASCII character with them, the PCRE2 10.46 grail carries matches all; \
                             write [^\\d], [^\\s] or [^\\w], which both read alike)"
                                .into(),
                            true,
                        ));
                    }
                    let pc = pcre::PcrePattern::new(p, &flags).map_err(|m| QueryError {
                        pattern: None,
                        message: m,
                        unsupported: false,
                    })?;
                    t.perl.push(pc);
                } else if q.backref {
                    if null_data {
                        return Err(err("back-references with -z".into(), true));
                    }
                    let g = gnu_regex::GnuPattern::new(
                        p,
                        syn == Syntax::Extended,
                        flags.ignore_case,
                        flags.word,
                        flags.line,
                        flags.utf8,
                    )
                    .map_err(|m| err(m, false))?;
                    t.gnu.push(g);
                } else {
                    t.plain.push(h.clone());
                }
                t.hirs.push(h);
                t.quirks.leading_repetition |= q.leading_repetition;
                t.quirks.repeated_anchor |= q.repeated_anchor;
            }
            Ok::<_, QueryError>(t)
        };
        if self
            .includes
            .iter()
            .filter(|(s, _)| *s == Syntax::Perl)
            .count()
            > 1
        {
            return Err(QueryError {
                pattern: None,
                message: "the -P option only supports a single pattern".into(),
                unsupported: false,
            });
        }
        let inc = translate_all(&mut self.includes.iter().map(|(s, p)| (*s, self.flags, p)))?;
        let exc = translate_all(
            &mut self
                .excludes
                .iter()
                .map(|(s, f, p)| (s.unwrap_or(Syntax::Basic), f.unwrap_or(self.flags), p)),
        )?;
        let include = compile(&inc.hirs, MatchKind::LeftmostFirst)?;
        let exclude = compile(&exc.hirs, MatchKind::LeftmostFirst)?;
        let only_matching_quirk = inc.quirks.leading_repetition || inc.quirks.repeated_anchor;
        let include_hirs = inc.hirs.clone();
        let include_exact = inc.exact()?;
        let folded = literals::choose(&include_hirs);
        let plain = match (&folded, &include_exact) {
            (None, None) => literals::Plain::new(&include_hirs),
            _ => None,
        };
        Ok(Query {
            folded,
            plain,
            include_hirs,
            include,
            include_exact,
            exclude,
            exclude_exact: exc.exact()?,
            invert: self.invert,
            longest: std::sync::OnceLock::new(),
            only_matching_quirk,
            utf8: self.flags.utf8,
            word_and_line: self.flags.word && self.flags.line,
        })
    }
}

/// One side's patterns (includes or excludes), translated.
#[derive(Default)]
struct Translated {
    /// Every pattern, those with back-references loosened.
    hirs: Vec<Hir>,
    /// The patterns without back-references.
    plain: Vec<Hir>,
    /// The patterns with back-references, compiled by glibc.
    gnu: Vec<gnu_regex::GnuPattern>,
    /// The `-P` pattern, compiled by PCRE2.
    perl: Vec<pcre::PcrePattern>,
    quirks: parse::Quirks,
}

impl Translated {
    /// The exact check for lines the loosened automaton finds, when a
    /// pattern has a back-reference.
    fn exact(self) -> Result<Option<Exact>, QueryError> {
        if self.gnu.is_empty() && self.perl.is_empty() {
            return Ok(None);
        }
        Ok(Some(Exact {
            plain: compile(&self.plain, MatchKind::LeftmostFirst)?,
            gnu: self.gnu,
            perl: self.perl,
        }))
    }
}

/// Whether a line really matches one side, where back-references made its
/// automaton match a superset: some pattern without one matches, or glibc
/// says a pattern with one does.
struct Exact {
    plain: Option<Regex>,
    gnu: Vec<gnu_regex::GnuPattern>,
    perl: Vec<pcre::PcrePattern>,
}

impl Exact {
    fn matches(&self, line: &[u8]) -> bool {
        self.plain
            .as_ref()
            .is_some_and(|re| re.is_match(Input::new(line).earliest(true)))
            || self.gnu.iter().any(|g| g.matches_line(line))
            || self.perl.iter().any(|p| p.matches_line(line))
    }
}

/// The end of a match of `re` in `hay[start..end]` (`start` a line start)
/// whose line `exact` accepts (every match's, without `exact`).
fn find_exact_end(
    re: &Regex,
    exact: Option<&Exact>,
    hay: &[u8],
    start: usize,
    end: usize,
) -> Option<usize> {
    let mut pos = start;
    loop {
        let input = Input::new(hay).range(pos..end).earliest(true);
        let m = re.search_half(&input)?.offset();
        let Some(exact) = exact else {
            return Some(m);
        };
        let ls = memchr::memrchr(b'\n', &hay[pos..m]).map_or(pos, |i| pos + i + 1);
        if m == end && ls == end {
            return None;
        }
        let le = memchr::memchr(b'\n', &hay[m..end]).map_or(end, |i| m + i);
        if exact.matches(&hay[ls..le]) {
            return Some(m);
        }
        if le >= end {
            return None;
        }
        pos = le + 1;
    }
}

/// [`Query::include_finder`]: successive searches of one haystack.
pub(crate) struct IncludeFinder<'q> {
    q: &'q Query,
    /// The prefilter's folded block of the haystack.
    cache: literals::FoldCache,
    /// Candidates the prefilter gave, and where the first search started.
    candidates: u64,
    first: Option<usize>,
    /// The candidates came too densely: the automaton alone is faster.
    dense: bool,
    /// What the prefilter read, for the log rule's NUL check.
    watch: Option<&'q mut NulWatch>,
}

/// How much of a region the include search has read and found free of NUL
/// bytes (its vector loop checks them as it reads), so that the log rule's
/// NUL check reads only the rest: the bytes after each match, the last
/// bytes, everything where the search has no vector loop.
#[derive(Debug)]
pub(crate) struct NulWatch {
    /// Every byte before this was checked.
    clean_to: usize,
    /// A NUL byte may be there (then its caller counts exactly).
    dirty: bool,
}

impl NulWatch {
    /// Nothing checked from `from` on.
    pub(crate) fn new(from: usize) -> NulWatch {
        NulWatch {
            clean_to: from,
            dirty: false,
        }
    }

    /// The search read `hay[from..seen.to]`.
    fn saw(&mut self, hay: &[u8], from: usize, seen: literals::Seen) {
        self.dirty |= seen.nul;
        if seen.to > self.clean_to {
            self.check(hay, from);
            self.clean_to = seen.to;
        }
    }

    /// Check `hay[clean_to..to]` (nothing once dirty) and move on to `to`.
    fn check(&mut self, hay: &[u8], to: usize) {
        if to > self.clean_to {
            self.dirty = self.dirty || memchr::memchr(0, &hay[self.clean_to..to]).is_some();
            self.clean_to = to;
        }
    }

    /// Whether `hay[from..to]` may hold a NUL byte, checking what the search
    /// did not read.
    pub(crate) fn finish(&mut self, hay: &[u8], to: usize) -> bool {
        self.check(hay, to);
        self.dirty
    }
}

/// Candidates closer than this on average (bytes) make the prefilter
/// slower than the automaton alone: each costs a line search (measured:
/// `-i info`, on most lines of a log, 0.96 s with it, 0.64 s without).
const DENSE_GAP: usize = 1024;

impl IncludeFinder<'_> {
    /// The end offset of some include match in `hay[start..end]` (`start` a
    /// line start), searching with look-around context from the whole of
    /// `hay`, which must be the same haystack for every call.
    pub(crate) fn find_end(&mut self, hay: &[u8], start: usize, end: usize) -> Option<usize> {
        let q = self.q;
        let re = q.include.as_ref()?;
        if let Some(p) = &q.plain {
            let (found, seen) = p.find_end_seen(hay, start, end);
            if let Some(w) = &mut self.watch {
                w.saw(hay, start, seen);
            }
            return match found {
                Ok(m) => Some(m),
                // The last bytes: the automaton.
                Err(from) => find_exact_end(re, None, hay, from, end),
            };
        }
        let f = match &q.folded {
            Some(f) if !self.dense => f,
            _ => return find_exact_end(re, q.include_exact.as_ref(), hay, start, end),
        };
        let first = *self.first.get_or_insert(start);
        // Only lines holding a literal can hold a match: the automaton
        // searches those.
        let mut pos = start;
        loop {
            let (c, seen) = f.find_seen(&mut self.cache, hay, pos, end);
            if let Some(w) = &mut self.watch {
                w.saw(hay, pos, seen);
            }
            let c = c?;
            self.candidates += 1;
            if self.candidates % 64 == 0 && (c - first) / (self.candidates as usize) < DENSE_GAP {
                self.dense = true;
                return find_exact_end(re, q.include_exact.as_ref(), hay, pos, end);
            }
            let ls = memchr::memrchr(b'\n', &hay[pos..c]).map_or(pos, |i| pos + i + 1);
            let le = memchr::memchr(b'\n', &hay[c..end]).map_or(end, |i| c + i);
            if let Some(m) = find_exact_end(re, q.include_exact.as_ref(), hay, ls, le) {
                return Some(m);
            }
            if le >= end {
                return None;
            }
            pos = le + 1;
        }
    }
}

/// The stack for compiling patterns: the recursion over a pattern nested
/// [`parse::MAX_NESTING`] levels deep needs about 16 MiB; the rest is margin.
/// Only the pages a compile touches are ever committed.
const COMPILE_STACK: usize = 256 << 20;

/// Run `f` on a thread with a [`COMPILE_STACK`]-sized stack (on this thread
/// when no such thread can be started).
fn on_big_stack<T: Send>(f: impl FnOnce() -> T + Send) -> T {
    let mut f = Some(f);
    let mut out = None;
    std::thread::scope(|s| {
        let spawned = std::thread::Builder::new()
            .name("grail-compile".into())
            .stack_size(COMPILE_STACK)
            .spawn_scoped(s, || (f.take().expect("runs once"))());
        // The closure is only taken by the thread that runs.
        if let Ok(h) = spawned {
            if let Ok(v) = h.join() {
                out = Some(v);
            }
        }
    });
    match (out, f) {
        (Some(v), _) => v,
        (None, Some(f)) => f(),
        // The compile thread panicked: propagate it here.
        (None, None) => panic!("pattern compilation failed"),
    }
}

fn split_lines(p: &[u8]) -> Vec<Vec<u8>> {
    p.split(|&b| b == b'\n').map(<[u8]>::to_vec).collect()
}

fn one_alternation(hirs: &[Hir]) -> Hir {
    if hirs.len() == 1 {
        hirs[0].clone()
    } else {
        Hir::alternation(hirs.to_vec())
    }
}

fn compile(hirs: &[Hir], kind: MatchKind) -> Result<Option<Regex>, QueryError> {
    if hirs.is_empty() {
        return Ok(None);
    }
    let config = meta::Config::new()
        .match_kind(kind)
        .utf8_empty(false)
        .nfa_size_limit(Some(AUTOMATON_SIZE_LIMIT))
        .onepass_size_limit(Some(AUTOMATON_SIZE_LIMIT))
        .dfa_size_limit(Some(AUTOMATON_SIZE_LIMIT / 4))
        .hybrid_cache_capacity(64 << 20);
    meta::Builder::new()
        .configure(config)
        // One pattern, an alternation: grail never asks which pattern
        // matched, the Thompson compiler shares prefixes of literal
        // alternations (a trie, so 100,000 `-f` words stay small), and the
        // PikeVM fallback then needs 2 slots per state, not 2 per pattern.
        .build_from_hir(&one_alternation(hirs))
        .map(Some)
        .map_err(|e| QueryError {
            pattern: None,
            message: format!(
                "pattern set too large to compile within {} MiB: {}",
                AUTOMATON_SIZE_LIMIT >> 20,
                e
            ),
            unsupported: true,
        })
}

/// A compiled query: include automaton, exclude automaton, inversion.
pub struct Query {
    /// Where to look for include matches, when the includes are
    /// case-insensitive literals (see [`literals`]).
    folded: Option<literals::Folded>,
    /// The includes are plain literals: finding one is a match.
    plain: Option<literals::Plain>,
    include_hirs: Vec<Hir>,
    include: Option<Regex>,
    include_exact: Option<Exact>,
    exclude: Option<Regex>,
    exclude_exact: Option<Exact>,
    invert: bool,
    longest: std::sync::OnceLock<Result<LongestMatcher, QueryError>>,
    only_matching_quirk: bool,
    /// Patterns read as in a UTF-8 locale.
    utf8: bool,
    word_and_line: bool,
}

impl fmt::Debug for Query {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Query")
            .field("includes", &self.include_hirs.len())
            .field("has_exclude", &self.exclude.is_some())
            .field("invert", &self.invert)
            .finish()
    }
}

struct LongestMatcher {
    dfa: DFA,
    pool: Pool<DfaCache, Box<dyn Fn() -> DfaCache + Send + Sync>>,
}

impl Query {
    /// True when `-v` is in effect.
    pub fn is_inverted(&self) -> bool {
        self.invert
    }

    /// Why `-o` cannot print exactly what GNU grep prints for these include
    /// patterns, if it cannot: GNU's DFA and glibc regex disagree on a
    /// repetition with nothing to repeat (`*a`) or a repeated anchor (`^*`).
    pub fn only_matching_refusal(&self) -> Option<&'static str> {
        if self
            .include_exact
            .as_ref()
            .is_some_and(|e| !e.gnu.is_empty())
        {
            return Some(
                "-o, --color and --json with back-references, or in a UTF-8 locale with -w, \\b, \\B, \\< \
                 or \\> (glibc's regex decides those lines)",
            );
        }
        self.only_matching_quirk.then_some(
            "-o with a repetition operator that has nothing to repeat or repeats an anchor \
             (GNU grep's two matchers disagree on where such matches are)",
        )
    }

    /// `-w` and `-x` together: GNU's `-o` then prints each matched line with
    /// its newline, followed by another newline.
    pub fn word_and_line(&self) -> bool {
        self.word_and_line
    }

    /// What PCRE2 gave up on since the last call (a match limit on some
    /// line, which then did not match), if anything: grep stops there with
    /// this message.
    pub fn take_failure(&self) -> Option<String> {
        let e = self.include_exact.as_ref()?;
        e.perl.iter().find_map(|p| p.take_failure())
    }

    /// True when there are exclude patterns.
    pub fn has_excludes(&self) -> bool {
        self.exclude.is_some()
    }

    /// Whether an include pattern matches somewhere in `line` (no newline in it).
    pub fn include_matches(&self, line: &[u8]) -> bool {
        match &self.include {
            None => false,
            Some(re) => {
                re.is_match(Input::new(line).earliest(true))
                    && self.include_exact.as_ref().is_none_or(|e| e.matches(line))
            }
        }
    }

    /// Whether an exclude pattern matches somewhere in `line`.
    pub fn exclude_matches(&self, line: &[u8]) -> bool {
        match &self.exclude {
            None => false,
            Some(re) => {
                re.is_match(Input::new(line).earliest(true))
                    && self.exclude_exact.as_ref().is_none_or(|e| e.matches(line))
            }
        }
    }

    /// Whether `line` (without its newline) is selected.
    pub fn is_selected(&self, line: &[u8]) -> bool {
        self.include_matches(line) != self.invert && !self.exclude_matches(line)
    }

    /// A search for include matches through one haystack, in order: what
    /// the scanners use (with the literal prefilter when the query has one).
    pub(crate) fn include_finder<'a>(
        &'a self,
        watch: Option<&'a mut NulWatch>,
    ) -> IncludeFinder<'a> {
        IncludeFinder {
            q: self,
            cache: literals::FoldCache::default(),
            candidates: 0,
            first: None,
            dense: false,
            watch,
        }
    }

    /// The end offset of some exclude match in `hay[start..end]`.
    pub(crate) fn find_exclude_end(&self, hay: &[u8], start: usize, end: usize) -> Option<usize> {
        let re = self.exclude.as_ref()?;
        find_exact_end(re, self.exclude_exact.as_ref(), hay, start, end)
    }

    fn longest(&self) -> Result<&LongestMatcher, QueryError> {
        self.longest
            .get_or_init(|| on_big_stack(|| self.build_longest()))
            .as_ref()
            .map_err(Clone::clone)
    }

    fn build_longest(&self) -> Result<LongestMatcher, QueryError> {
        {
            {
                let err = |e: String| QueryError {
                    pattern: None,
                    message: format!("pattern set too large for -o: {e}"),
                    unsupported: true,
                };
                let nfa = regex_automata::nfa::thompson::Compiler::new()
                    .configure(
                        regex_automata::nfa::thompson::Config::new()
                            .nfa_size_limit(Some(AUTOMATON_SIZE_LIMIT))
                            .utf8(false),
                    )
                    .build_from_hir(&one_alternation(&self.include_hirs))
                    .map_err(|e| err(e.to_string()))?;
                let dfa = DFA::builder()
                    .configure(
                        DFA::config()
                            .match_kind(MatchKind::All)
                            .cache_capacity(64 << 20)
                            .skip_cache_capacity_check(true),
                    )
                    .build_from_nfa(nfa)
                    .map_err(|e| err(e.to_string()))?;
                let d2 = dfa.clone();
                let create: Box<dyn Fn() -> DfaCache + Send + Sync> =
                    Box::new(move || d2.create_cache());
                Ok(LongestMatcher {
                    dfa,
                    pool: Pool::new(create),
                })
            }
        }
    }

    /// Leftmost-longest include matches in `line`, as GNU grep's `-o` and
    /// `--color` report them: non-empty matches only, left to right.
    pub fn matches(&self, line: &[u8]) -> Result<Vec<(usize, usize)>, QueryError> {
        if let Some(why) = self
            .include_exact
            .as_ref()
            .and(self.only_matching_refusal())
        {
            return Err(QueryError {
                pattern: None,
                message: format!("{why} is not supported"),
                unsupported: true,
            });
        }
        let mut out = Vec::new();
        if let Some(p) = self.include_exact.as_ref().and_then(|e| e.perl.first()) {
            // grep -P's -o: PCRE2's next match from where the last ended
            // (one byte on after an empty one; in a UTF-8 locale grep then
            // skips to the next character's start).
            let mut pos = 0;
            while pos < line.len() {
                let Some((s, e)) = p.find_at(line, pos) else {
                    break;
                };
                if e == s {
                    pos = s + 1;
                    if self.utf8 {
                        while pos < line.len() && line[pos] & 0xC0 == 0x80 {
                            pos += 1;
                        }
                    }
                    continue;
                }
                out.push((s, e));
                pos = e;
            }
            return Ok(out);
        }
        let Some(re) = &self.include else {
            return Ok(out);
        };
        let lm = self.longest()?;
        let mut cache = lm.pool.get();
        let mut pos = 0;
        while pos < line.len() {
            let Some(m) = re.search(&Input::new(line).range(pos..)) else {
                break;
            };
            let s = m.start();
            // Longest match from the leftmost start.
            let input = Input::new(line).range(s..).anchored(Anchored::Yes);
            let e = match lm.dfa.try_search_fwd(&mut cache, &input) {
                Ok(Some(hm)) => hm.offset().max(m.end()),
                _ => m.end(),
            };
            if e == s {
                // Empty match: GNU makes minimal progress and looks again.
                pos = s + 1;
                continue;
            }
            out.push((s, e));
            pos = e;
        }
        Ok(out)
    }
}
