//! Where the bytes come from: a memory-mapped file, bytes read into memory,
//! or a stream (pipes, terminals, special files) that is read block by block.
//!
//! This module is grail's only memory-level `unsafe` code: the mapping, its
//! SIGBUS protection (module `sigbus`), and page release and prefetch. What a
//! search may do to the bytes it reads is carried by [`Haystack`]: only a
//! haystack made from a file mapping ([`Bytes`]) releases pages, so no safe
//! code can release the pages of heap memory.

pub mod decompress;
pub(crate) mod sigbus;

use memmap2::{Mmap, MmapOptions};
use std::fs::File;
use std::io::{self, Read};
use std::os::unix::fs::FileTypeExt;
use std::path::Path;

/// GNU grep's first read of a file (its `INITIAL_BUFSIZE`), and its read
/// size on a stream: a NUL byte within it makes an input binary.
pub const GREP_READ: usize = 96 * 1024;

/// The bytes of one regular file: mapped, or read into memory.
///
/// Only [`open_path`] and [`open_file`] make a mapped one, so a [`Haystack`]
/// made from it may release its pages: they read back from the file.
pub struct Bytes {
    repr: Repr,
    /// The file has a hole after grep's first read (GNU's
    /// `file_must_have_nulls`): binary to grep.
    has_holes: bool,
}

enum Repr {
    /// A read-only private mapping of a regular file, protected against
    /// truncation (see [`sigbus`]); the guard is dropped (unregistered)
    /// before the mapping is unmapped.
    Mapped(sigbus::Guard, Mmap),
    /// Bytes held in memory (small files, or files that cannot be mapped).
    Owned(Vec<u8>),
}

impl Bytes {
    /// The bytes as a haystack to search: one that releases pages behind a
    /// scan and notices a truncation when the bytes are a file mapping.
    pub fn haystack(&self) -> Haystack<'_> {
        Haystack {
            bytes: self,
            mapping: match &self.repr {
                Repr::Mapped(g, _) => Some(Mapping { shrank: g.flag() }),
                Repr::Owned(_) => None,
            },
            has_holes: self.has_holes,
        }
    }

    /// Whether the bytes are a file mapping (not a copy in memory).
    pub fn is_mapped(&self) -> bool {
        matches!(self.repr, Repr::Mapped(..))
    }

    /// Whether the file has a hole after grep's first read.
    pub fn has_holes(&self) -> bool {
        self.has_holes
    }

    /// The same bytes as a pipe delivers them: a pipe has no holes.
    pub(crate) fn piped(mut self) -> Bytes {
        self.has_holes = false;
        self
    }
}

impl From<Vec<u8>> for Bytes {
    fn from(v: Vec<u8>) -> Bytes {
        Bytes {
            repr: Repr::Owned(v),
            has_holes: false,
        }
    }
}

impl std::ops::Deref for Bytes {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        match &self.repr {
            Repr::Mapped(_, m) => m,
            Repr::Owned(v) => v,
        }
    }
}

/// What may be done to the pages of a file mapping.
#[derive(Clone, Copy, Debug)]
struct Mapping {
    /// Raised by the SIGBUS handler when the file shrank under the mapping
    /// (`None`: every protection slot was taken).
    shrank: Option<&'static std::sync::atomic::AtomicBool>,
}

/// The bytes one search reads, with what the search may do to them: release
/// the pages it is done with and ask for the ones it will need (only for a
/// file mapping), and learn that the file shrank under it.
///
/// ```
/// let log = b"INFO start\nERROR disk full\n";
/// let hay = grail::source::Haystack::new(log);
/// assert_eq!(hay.bytes(), log);
/// hay.release(0, log.len()); // memory, not a file mapping: nothing happens
/// assert_eq!(hay.bytes(), log);
/// ```
#[derive(Clone, Copy, Debug)]
pub struct Haystack<'a> {
    bytes: &'a [u8],
    mapping: Option<Mapping>,
    has_holes: bool,
}

impl<'a> Haystack<'a> {
    /// Bytes in memory: never released.
    pub fn new(bytes: &'a [u8]) -> Self {
        Haystack {
            bytes,
            mapping: None,
            has_holes: false,
        }
    }

    /// The bytes.
    pub fn bytes(&self) -> &'a [u8] {
        self.bytes
    }

    /// The part `[start, end)` (what a time window or `--from-byte` leaves),
    /// with the same rights.
    pub fn slice(&self, start: usize, end: usize) -> Haystack<'a> {
        Haystack {
            bytes: &self.bytes[start..end],
            ..*self
        }
    }

    /// Whether the file has a hole after grep's first read (binary to grep).
    pub fn has_holes(&self) -> bool {
        self.has_holes
    }

    /// Whether the bytes are a file mapping whose pages are released.
    pub fn is_mapped(&self) -> bool {
        self.mapping.is_some()
    }

    /// The file shrank under the mapping since it was opened: bytes read
    /// since may be zeros that the file never held.
    pub fn shrank(&self) -> bool {
        self.mapping
            .and_then(|m| m.shrank)
            .is_some_and(|f| f.load(std::sync::atomic::Ordering::Acquire))
    }

    /// Whether `[start, end)` reads what the file holds: its pages are
    /// touched (a page the file no longer has faults now and reads as
    /// zeros), then the shrink flag is checked. Always true for memory.
    pub fn intact(&self, start: usize, end: usize) -> bool {
        if self.mapping.is_none() {
            return true;
        }
        const PAGE: usize = 4096;
        let end = end.min(self.bytes.len());
        let mut i = start;
        while i < end {
            std::hint::black_box(self.bytes[i]);
            i = (i / PAGE + 1) * PAGE;
        }
        !self.shrank()
    }

    /// The search is done with `[start, end)`: drop its pages from this
    /// process's resident set (rounded to whole pages, the page holding
    /// `start` included). A file mapping only; the bytes stay readable.
    pub fn release(&self, start: usize, end: usize) {
        if self.mapping.is_some() {
            // SAFETY: `mapping` is only set by `Bytes::haystack` for a
            // read-only private mapping of a regular file, and `slice`
            // keeps `bytes` inside it.
            unsafe { release_pages(self.bytes, start, end) }
        }
    }

    /// The search will read `[start, end)` soon: start reading it from disk.
    pub fn prefetch(&self, start: usize, end: usize) {
        if self.mapping.is_some() {
            prefetch(self.bytes, start, end);
        }
    }
}

/// An opened input.
pub enum Input {
    /// A regular file's contents (mapped when possible).
    Whole(Bytes),
    /// A stream to read sequentially.
    Stream(Box<dyn Read + Send>),
}

/// Why an input could not be opened, in grep's words.
#[derive(Debug)]
pub enum OpenError {
    /// An I/O error (no such file, permission denied, ...).
    Io(io::Error),
    /// The path is a directory.
    Directory,
}

impl std::fmt::Display for OpenError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            OpenError::Io(e) => f.write_str(&crate::error::io_text(e)),
            OpenError::Directory => f.write_str("Is a directory"),
        }
    }
}

/// Below this size a regular file is read rather than mapped: mapping costs
/// a few syscalls and page faults that a small read does not.
const MMAP_MIN: u64 = 64 * 1024;

/// Open `path` for searching.
pub fn open_path(path: &Path) -> Result<Input, OpenError> {
    let file = File::open(path).map_err(OpenError::Io)?;
    open_file(file)
}

/// Search an already opened file (also used for stdin when it is a regular file).
pub fn open_file(file: File) -> Result<Input, OpenError> {
    let md = file.metadata().map_err(OpenError::Io)?;
    let ft = md.file_type();
    if ft.is_dir() {
        return Err(OpenError::Directory);
    }
    if !ft.is_file() || ft.is_fifo() {
        return Ok(Input::Stream(Box::new(file)));
    }
    let len = md.len();
    let has_holes = file_has_holes(&file, len);
    if len >= MMAP_MIN {
        // SAFETY: the mapping is read-only and private. Another process may
        // truncate or rewrite the file while it is mapped; rewriting only
        // changes the bytes we read, and truncation can raise SIGBUS on
        // access past the new end. That risk is accepted here exactly as
        // ripgrep accepts it for explicit file arguments; the mapping is
        // never exposed beyond the search of this one file.
        if let Ok(m) = unsafe { MmapOptions::new().map(&file) } {
            if m.len() as u64 == len {
                // SAFETY: `m` is a live mapping of `m.len()` bytes, owned by
                // the `Bytes` that also owns the guard, which is dropped first.
                let guard = unsafe { sigbus::Guard::register(m.as_ptr(), m.len()) };
                return Ok(Input::Whole(Bytes {
                    repr: Repr::Mapped(guard, m),
                    has_holes,
                }));
            }
        }
    }
    // Small files, and files that cannot be mapped (some special
    // filesystems): read them whole.
    let v = read_all(file, len as usize).map_err(OpenError::Io)?;
    Ok(Input::Whole(Bytes {
        repr: Repr::Owned(v),
        has_holes,
    }))
}

/// Read `file` to its end, expecting about `len` bytes: plain `read` calls
/// into one buffer (`File::read_to_end` would first ask the size and the
/// position again, two more system calls per file, which a tree of many
/// small logs pays for).
fn read_all(mut file: File, len: usize) -> io::Result<Vec<u8>> {
    let mut v = vec![0u8; len.max(4096) + 1];
    let mut n = 0;
    loop {
        if n == v.len() {
            v.resize(v.len() * 2, 0);
        }
        match file.read(&mut v[n..]) {
            Ok(0) => break,
            Ok(k) => n += k,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    v.truncate(n);
    Ok(v)
}

/// `-z` data: `input` as a stream with its NUL and newline bytes swapped,
/// so that each NUL-terminated record is one line to the line engine (the
/// printer swaps them back). Records are then read once, front to back.
pub fn swap_nul_newline(input: Input) -> Input {
    match input {
        Input::Whole(bytes) => Input::Stream(Box::new(Swap(WholeReader::new(bytes)))),
        Input::Stream(r) => Input::Stream(Box::new(Swap(r))),
    }
}

/// A reader swapping NUL and newline bytes.
struct Swap<R>(R);

impl<R: Read> Read for Swap<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.0.read(buf)?;
        for b in &mut buf[..n] {
            *b = match *b {
                0 => b'\n',
                b'\n' => 0,
                x => x,
            };
        }
        Ok(n)
    }
}

/// A whole input read as a stream.
pub(crate) struct WholeReader {
    bytes: Bytes,
    pos: usize,
}

impl WholeReader {
    /// `bytes` read from their start.
    pub(crate) fn new(bytes: Bytes) -> WholeReader {
        WholeReader { bytes, pos: 0 }
    }
}

impl Read for WholeReader {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let rest = &self.bytes.haystack().bytes()[self.pos..];
        let n = rest.len().min(buf.len());
        buf[..n].copy_from_slice(&rest[..n]);
        self.pos += n;
        Ok(n)
    }
}

/// GNU grep treats a file with a hole past its first 96 KiB read as binary.
fn file_has_holes(file: &File, len: u64) -> bool {
    use std::os::unix::io::AsRawFd;
    const FIRST_READ: u64 = GREP_READ as u64;
    if len <= FIRST_READ {
        return false;
    }
    // SAFETY: lseek on a valid, owned descriptor has no memory effects; we
    // only change the file offset, which no other code relies on (the file
    // is mapped or read from offset 0 explicitly afterwards).
    let hole = unsafe { libc::lseek(file.as_raw_fd(), FIRST_READ as libc::off_t, libc::SEEK_HOLE) };
    // SAFETY: as above; restore the offset for a later read_to_end.
    unsafe { libc::lseek(file.as_raw_fd(), 0, libc::SEEK_SET) };
    hole >= 0 && (hole as u64) < len
}

/// Ask the kernel to start reading the pages of `hay[start..end]` now
/// (`MADV_WILLNEED`), so that a scan reaching them later does not wait on
/// one small read after another: readahead only works forwards, and a tail
/// scan walks a cold file backwards.
fn prefetch(hay: &[u8], start: usize, end: usize) {
    const PAGE: usize = 4096;
    let end = end.min(hay.len());
    if end <= start {
        return;
    }
    let base = hay.as_ptr() as usize;
    let a = (base + start) / PAGE * PAGE;
    let b = base + end;
    // SAFETY: MADV_WILLNEED is only a hint: it never changes what the
    // memory holds, for a file mapping or for any other memory. [a, b)
    // starts at most a page before `hay` on the page `hay` starts in, which
    // is mapped.
    unsafe { libc::madvise(a as *mut libc::c_void, b - a, libc::MADV_WILLNEED) };
}

/// Drop the pages of `hay[start..end]` (rounded inwards to whole pages) from
/// this process's resident set, so that a scan of a huge mapping keeps a
/// small RSS. The pages stay in the page cache; touching them again re-reads
/// them from there.
///
/// # Safety
/// `hay` must be part of a read-only private file mapping (never of heap
/// memory: there `MADV_DONTNEED` would zero the bytes under a shared
/// reference).
unsafe fn release_pages(hay: &[u8], start: usize, end: usize) {
    const PAGE: usize = 4096;
    let base = hay.as_ptr() as usize;
    // Round the start down: the caller releases contiguous ranges, so a
    // page shared with the previous range was scanned already.
    let a = (base + start) / PAGE * PAGE;
    let b = (base + end) / PAGE * PAGE;
    if b > a {
        // SAFETY: [a, b) lies inside `hay`, which the caller guarantees is a
        // read-only private file mapping; dropping its pages cannot change
        // what later reads see.
        unsafe { libc::madvise(a as *mut libc::c_void, b - a, libc::MADV_DONTNEED) };
    }
}

impl From<OpenError> for io::Error {
    fn from(e: OpenError) -> io::Error {
        match e {
            OpenError::Io(e) => e,
            OpenError::Directory => io::Error::other("Is a directory"),
        }
    }
}
