//! The inputs of a run, in grep's order: each operand, and under `-r`/`-R`
//! the files below each directory operand, visited as gnulib's fts visits
//! them for grep 3.8:
//!
//! * depth first, each directory's entries in the order `readdir` returns
//!   them (what `ls -f` shows); a directory holding more than 10,000
//!   entries has them sorted by inode number first (fts does that except on
//!   NFS, CIFS and tmpfs), in batches of 100,000;
//! * `-r` follows a symbolic link only when it is an operand, and skips the
//!   ones it meets; `-R` follows every one, a link to a directory above it
//!   being "warning: recursive directory loop";
//! * devices, FIFOs and sockets met while recursing are skipped unless
//!   `-D read` or `-R` is given; operands are read unless `-D skip`;
//! * `--include`/`--exclude`/`--exclude-dir` as [`Selection`] decides.
//!
//! `walkdir` would give the same `readdir` order, but not fts's inode sort
//! of large directories, which needs the entry count before the order is
//! fixed; the walk here reads each directory into memory first, as fts
//! does, so at most one directory handle per level is open.

use super::select::Selection;
use std::ffi::OsString;
use std::fs::{self, FileType};
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::os::unix::fs::{DirEntryExt, FileTypeExt, MetadataExt};
use std::path::Path;

/// What to do with a directory operand (`-d ACTION`, `-r`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Directories {
    /// Read it, which fails ("Is a directory"): grep's default.
    #[default]
    Read,
    /// Skip it silently.
    Skip,
    /// Search the files below it.
    Recurse,
}

/// What to do with devices, FIFOs and sockets (`-D ACTION`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Devices {
    /// Read operands, skip the ones met while recursing: grep's default.
    #[default]
    ReadOperands,
    /// Read them all.
    Read,
    /// Skip them all.
    Skip,
}

/// How the inputs are found.
#[derive(Clone, Debug, Default)]
pub struct Settings {
    /// `-d`, `-r`, `-R`.
    pub directories: Directories,
    /// `-R`: follow every symbolic link.
    pub dereference: bool,
    /// `-D`.
    pub devices: Devices,
    /// `--include`, `--exclude`, `--exclude-from`, `--exclude-dir`.
    pub selection: Selection,
}

impl Settings {
    fn reads_devices(&self, command_line: bool) -> bool {
        match self.devices {
            Devices::Skip => false,
            Devices::Read => true,
            Devices::ReadOperands => command_line || self.dereference,
        }
    }
}

/// One step of the walk.
#[derive(Debug)]
pub enum Item {
    /// Search `path` (`-` is standard input), printed as `name`.
    Search {
        /// What to open.
        path: OsString,
        /// Its name in output and messages.
        name: Vec<u8>,
        /// It was a regular file when the walk saw it: opening it cannot
        /// block (it may be opened ahead, in parallel).
        regular: bool,
    },
    /// An error about `name`: the exit status becomes 2.
    Error {
        /// The file or directory.
        name: Vec<u8>,
        /// What went wrong.
        msg: String,
    },
    /// A warning (`NAME: warning: ...`): the status is unchanged.
    Warning(String),
}

/// A directory being walked: its path as fts builds it, the entries of the
/// batch read so far, and the handle when more batches remain.
struct Frame {
    path: Vec<u8>,
    id: (u64, u64),
    entries: std::vec::IntoIter<Entry>,
    more: Option<fs::ReadDir>,
    /// Under -R fts cannot learn the file system type (it works without
    /// directory descriptors), so a large directory is always sorted.
    dereference: bool,
}

struct Entry {
    name: Vec<u8>,
    kind: Option<FileType>,
}

/// fts's batch size when it does not sort, and the size above which it
/// sorts a batch by inode number.
const BATCH: usize = 100_000;
const INODE_SORT_ABOVE: usize = 10_000;

/// The walk over `operands` (`-` is standard input, named `stdin_name`).
/// `omit_dot_slash`: the operand is the implicit `.` of `grep -r PATTERN`,
/// whose files are named without `./`.
pub struct Walk<'a> {
    settings: &'a Settings,
    operands: std::slice::Iter<'a, OsString>,
    stdin_name: &'a [u8],
    omit_dot_slash: bool,
    quiet: bool,
    stack: Vec<Frame>,
}

impl<'a> Walk<'a> {
    /// Walk `operands`; `quiet` (`-s`) drops warnings.
    pub fn new(
        settings: &'a Settings,
        operands: &'a [OsString],
        stdin_name: &'a [u8],
        omit_dot_slash: bool,
        quiet: bool,
    ) -> Self {
        Walk {
            settings,
            operands: operands.iter(),
            stdin_name,
            omit_dot_slash,
            quiet,
            stack: Vec::new(),
        }
    }

    /// An operand: searched as it is, skipped, or the root of a walk.
    fn operand(&mut self, op: &OsString) -> Option<Item> {
        if op == "-" {
            return Some(Item::Search {
                path: op.clone(),
                name: self.stdin_name.to_vec(),
                regular: false,
            });
        }
        let search = |regular| Item::Search {
            path: op.clone(),
            name: op.as_bytes().to_vec(),
            regular,
        };
        // An operand that cannot be examined is opened anyway: the open
        // reports the error in grep's words.
        let Ok(md) = fs::metadata(op) else {
            return Some(search(false));
        };
        let s = self.settings;
        let is_dir = md.is_dir();
        if is_device(md.file_type()) && !s.reads_devices(true) {
            return None;
        }
        if is_dir && s.directories == Directories::Skip {
            return None;
        }
        let implicit_dot = is_dir && self.omit_dot_slash;
        if !implicit_dot && s.selection.skips(op.as_bytes(), true, is_dir) {
            return None;
        }
        if !(is_dir && s.directories == Directories::Recurse) {
            return Some(search(md.is_file()));
        }
        let path = fts_root(op.as_bytes());
        self.enter(path, (md.dev(), md.ino()))
    }

    /// Start walking the directory at `path`; an item when it cannot be
    /// read or closes a loop.
    fn enter(&mut self, path: Vec<u8>, id: (u64, u64)) -> Option<Item> {
        if self.stack.iter().any(|f| f.id == id) {
            return (!self.quiet).then(|| {
                Item::Warning(format!(
                    "{}: warning: recursive directory loop",
                    String::from_utf8_lossy(self.shown(&path))
                ))
            });
        }
        match fs::read_dir(Path::new(std::ffi::OsStr::from_bytes(&path))) {
            Ok(rd) => {
                let mut frame = Frame {
                    path,
                    id,
                    entries: Vec::new().into_iter(),
                    more: Some(rd),
                    dereference: self.settings.dereference,
                };
                frame.read_batch();
                self.stack.push(frame);
                None
            }
            Err(e) => Some(Item::Error {
                name: self.shown(&path).to_vec(),
                msg: crate::error::io_text(&e),
            }),
        }
    }

    /// The name of `path` in output: without the implicit `./`.
    fn shown<'p>(&self, path: &'p [u8]) -> &'p [u8] {
        if self.omit_dot_slash && path.len() > 1 && path.starts_with(b"./") {
            &path[2..]
        } else {
            path
        }
    }

    /// One entry of the directory on top of the stack.
    fn entry(&mut self, e: Entry) -> Option<Item> {
        let top = self.stack.last()?;
        let mut path = top.path.clone();
        if path.last() != Some(&b'/') {
            path.push(b'/');
        }
        path.extend_from_slice(&e.name);
        let s = self.settings;
        let p = Path::new(std::ffi::OsStr::from_bytes(&path));
        let (kind, id) = if s.dereference {
            match fs::metadata(p) {
                Ok(md) => (Some(md.file_type()), (md.dev(), md.ino())),
                // A dangling link (or a vanished file) is opened, and the
                // open says what is wrong.
                Err(_) => (None, (0, 0)),
            }
        } else {
            let kind = e
                .kind
                .or_else(|| fs::symlink_metadata(p).ok().map(|m| m.file_type()));
            (kind, (0, 0))
        };
        let is_dir = kind.is_some_and(|k| k.is_dir());
        if s.selection.skips(&e.name, false, is_dir) {
            return None;
        }
        let search = |w: &Self, path: Vec<u8>| Item::Search {
            name: w.shown(&path).to_vec(),
            path: OsString::from_vec(path),
            regular: kind.is_some_and(|k| k.is_file()),
        };
        match kind {
            Some(k) if k.is_dir() => {
                let id = if s.dereference {
                    id
                } else {
                    match fs::symlink_metadata(p) {
                        Ok(md) => (md.dev(), md.ino()),
                        Err(err) => {
                            return Some(Item::Error {
                                name: self.shown(&path).to_vec(),
                                msg: crate::error::io_text(&err),
                            })
                        }
                    }
                };
                self.enter(path, id)
            }
            Some(k) if k.is_symlink() => None,
            Some(k) if is_device(k) && !s.reads_devices(false) => None,
            _ => Some(search(self, path)),
        }
    }
}

impl Iterator for Walk<'_> {
    type Item = Item;

    fn next(&mut self) -> Option<Item> {
        loop {
            if let Some(top) = self.stack.last_mut() {
                match top.next_entry() {
                    Some(e) => {
                        if let Some(item) = self.entry(e) {
                            return Some(item);
                        }
                    }
                    None => {
                        self.stack.pop();
                    }
                }
                continue;
            }
            let op = self.operands.next()?;
            if let Some(item) = self.operand(op) {
                return Some(item);
            }
        }
    }
}

impl Frame {
    fn next_entry(&mut self) -> Option<Entry> {
        loop {
            if let Some(e) = self.entries.next() {
                return Some(e);
            }
            self.more.as_ref()?;
            self.read_batch();
        }
    }

    /// Read the next batch of entries (sorted by inode when it is large).
    fn read_batch(&mut self) {
        let Some(rd) = self.more.as_mut() else {
            return;
        };
        let mut batch: Vec<(u64, Entry)> = Vec::new();
        while batch.len() < BATCH {
            match rd.next() {
                Some(Ok(de)) => batch.push((
                    de.ino(),
                    Entry {
                        name: de.file_name().into_vec(),
                        kind: de.file_type().ok(),
                    },
                )),
                // fts stops reading a directory at an error.
                Some(Err(_)) | None => {
                    self.more = None;
                    break;
                }
            }
        }
        if batch.len() > INODE_SORT_ABOVE && (self.dereference || inode_sort_helps(&self.path)) {
            batch.sort_by_key(|(ino, _)| *ino);
        }
        self.entries = batch
            .into_iter()
            .map(|(_, e)| e)
            .collect::<Vec<_>>()
            .into_iter();
    }
}

fn is_device(k: FileType) -> bool {
    k.is_char_device() || k.is_block_device() || k.is_fifo() || k.is_socket()
}

/// An operand as fts names it: two or more trailing slashes become one.
fn fts_root(op: &[u8]) -> Vec<u8> {
    let mut len = op.len();
    if len > 2 && op[len - 1] == b'/' {
        while len > 1 && op[len - 2] == b'/' {
            len -= 1;
        }
    }
    op[..len].to_vec()
}

/// Whether fts sorts a large directory at `path` by inode number: not on
/// NFS, CIFS or tmpfs (gnulib's `dirent_inode_sort_may_be_useful`).
fn inode_sort_helps(path: &[u8]) -> bool {
    const NFS: i64 = 0x6969;
    const CIFS: i64 = 0xFF53_4D42;
    const TMPFS: i64 = 0x0102_1994;
    let Ok(c) = std::ffi::CString::new(path) else {
        return true;
    };
    // SAFETY: `c` is a NUL-terminated path that outlives the call, and `st`
    // is a properly sized, writable statfs buffer that statfs fills.
    let (rc, st) = unsafe {
        let mut st: libc::statfs = std::mem::zeroed();
        (libc::statfs(c.as_ptr(), &mut st), st)
    };
    // f_type's type differs between platforms.
    #[allow(clippy::unnecessary_cast)]
    let kind = st.f_type as i64;
    rc != 0 || !matches!(kind, NFS | CIFS | TMPFS)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fts_keeps_one_trailing_slash() {
        assert_eq!(fts_root(b"d"), b"d");
        assert_eq!(fts_root(b"d/"), b"d/");
        assert_eq!(fts_root(b"d///"), b"d/");
        assert_eq!(fts_root(b"//"), b"//");
        assert_eq!(fts_root(b"/"), b"/");
    }
}
