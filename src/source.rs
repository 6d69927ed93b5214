//! Where the bytes come from: a memory-mapped file (the only `unsafe` mmap in
//! grail), a byte slice, or a stream (pipes, terminals, special files) that is
//! read block by block.

use memmap2::{Mmap, MmapOptions};
use std::fs::File;
use std::io::{self, Read};
use std::os::unix::fs::FileTypeExt;
use std::path::Path;

/// GNU grep's first read of a file (its `INITIAL_BUFSIZE`), and its read
/// size on a stream: a NUL byte within it makes an input binary.
pub const GREP_READ: usize = 96 * 1024;

/// The bytes of one input, either mapped or owned.
pub enum Bytes {
    /// A read-only private mapping of a regular file, protected against
    /// truncation (see [`crate::sigbus`]); the guard is dropped (unregistered)
    /// before the mapping is unmapped.
    Mapped(crate::sigbus::Guard, Mmap),
    /// Bytes held in memory (small files, or files that cannot be mapped).
    Owned(Vec<u8>),
}

impl Bytes {
    /// The flag raised when the mapped file shrank during the search.
    pub fn shrink_flag(&self) -> Option<&'static std::sync::atomic::AtomicBool> {
        match self {
            Bytes::Mapped(g, _) => g.flag(),
            Bytes::Owned(_) => None,
        }
    }
}

impl std::ops::Deref for Bytes {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        match self {
            Bytes::Mapped(_, m) => m,
            Bytes::Owned(v) => v,
        }
    }
}

/// An opened input.
pub enum Input {
    /// A regular file's contents (mapped when possible), with a hint that it
    /// has holes (sparse files are binary to GNU grep).
    Whole {
        /// The bytes.
        bytes: Bytes,
        /// The file has a hole after its first block (GNU's
        /// `file_must_have_nulls`).
        has_holes: bool,
    },
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
            OpenError::Io(e) => f.write_str(&crate::io_error_text(e)),
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
                return Ok(Input::Whole {
                    bytes: {
                        let g = crate::sigbus::Guard::register(m.as_ptr(), m.len());
                        Bytes::Mapped(g, m)
                    },
                    has_holes,
                });
            }
        }
    }
    // Small files, and files that cannot be mapped (some special
    // filesystems): read them whole.
    let mut v = Vec::with_capacity(len as usize);
    let mut f = file;
    f.read_to_end(&mut v).map_err(OpenError::Io)?;
    Ok(Input::Whole {
        bytes: Bytes::Owned(v),
        has_holes,
    })
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
pub fn prefetch(hay: &[u8], start: usize, end: usize) {
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
pub unsafe fn release_pages(hay: &[u8], start: usize, end: usize) {
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
