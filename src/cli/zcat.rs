//! The first stage of a `--sh` pipeline that decompresses: `zcat`,
//! `gzip -dc`, `zstdcat`, `zstd -dc`, `xzcat`, `xz -dc`, `bzcat`,
//! `bzip2 -dc` (`-f`: a file in no compressed format passes through, as
//! those tools pass it). Its output is what the next grep reads from a pipe.

use crate::source::decompress::{Compressed, Format};
use std::io::{self, Read};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// A parsed decompressing stage.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Zcat {
    /// The command as typed (for messages).
    pub tool: String,
    /// The format it decompresses.
    pub format: Format,
    /// `-f`: other files pass through unchanged.
    pub force: bool,
    /// The files, in order (none: standard input, refused).
    pub files: Vec<String>,
}

/// `words` as a decompressing stage; `None`: not one; `Err`: one that is
/// not run exactly.
pub fn parse(words: &[String]) -> Option<Result<Zcat, String>> {
    let (format, mut flags): (Format, Vec<char>) = match words[0].as_str() {
        "zcat" | "gzcat" => (Format::Gzip, vec!['d', 'c']),
        "gzip" | "gunzip" => (
            Format::Gzip,
            if words[0] == "gunzip" {
                vec!['d']
            } else {
                vec![]
            },
        ),
        "zstdcat" => (Format::Zstd, vec!['d', 'c']),
        "zstd" | "unzstd" => (
            Format::Zstd,
            if words[0] == "unzstd" {
                vec!['d']
            } else {
                vec![]
            },
        ),
        "xzcat" => (Format::Xz, vec!['d', 'c']),
        "xz" | "unxz" => (
            Format::Xz,
            if words[0] == "unxz" {
                vec!['d']
            } else {
                vec![]
            },
        ),
        "bzcat" => (Format::Bzip2, vec!['d', 'c']),
        "bzip2" | "bunzip2" => (
            Format::Bzip2,
            if words[0] == "bunzip2" {
                vec!['d']
            } else {
                vec![]
            },
        ),
        _ => return None,
    };
    let mut files = Vec::new();
    let mut options_end = false;
    for w in &words[1..] {
        if !options_end && w == "--" {
            options_end = true;
        } else if !options_end && w.len() > 1 && w.starts_with('-') && !w.starts_with("--") {
            flags.extend(w[1..].chars());
        } else if !options_end && w.starts_with("--") {
            let long = match w.as_str() {
                "--decompress" | "--uncompress" => 'd',
                "--stdout" | "--to-stdout" => 'c',
                "--force" => 'f',
                _ => {
                    return Some(Err(format!(
                        "'{}' (the option {w} is not run)",
                        words.join(" ")
                    )))
                }
            };
            flags.push(long);
        } else {
            files.push(w.clone());
        }
    }
    let what = words.join(" ");
    if let Some(c) = flags.iter().find(|c| !matches!(c, 'd' | 'c' | 'f')) {
        return Some(Err(format!("'{what}' (the option -{c} is not run)")));
    }
    if !(flags.contains(&'d') && flags.contains(&'c')) {
        return Some(Err(format!(
            "'{what}' (only decompression to standard output, -dc, is run)"
        )));
    }
    let force = flags.contains(&'f');
    if force && format == Format::Bzip2 {
        return Some(Err(format!("'{what}' (bzip2 -f is not run)")));
    }
    if files.is_empty() || files.iter().any(|f| f == "-") {
        return Some(Err(format!(
            "'{what}' reading standard input (only files are decompressed)"
        )));
    }
    Some(Ok(Zcat {
        tool: words[0].clone(),
        format,
        force,
        files,
    }))
}

/// The files' text, one after another, as the stage writes it: a file the
/// tool cannot read is skipped with a message, as the tool skips it.
/// `failed` is raised when grail's text may differ from the tool's: a file
/// stopped early (corrupt or truncated), or holds a format the tool reads
/// and grail does not (`compress`, `pack`, `lzh`, `lzma`).
pub struct Chain {
    z: Zcat,
    next: usize,
    cur: Option<(Box<dyn Read + Send>, Option<Compressed>, String)>,
    failed: Arc<AtomicBool>,
}

impl Chain {
    /// The text of `z`'s files; `failed` says afterwards that one went wrong.
    pub fn new(z: Zcat, failed: Arc<AtomicBool>) -> Chain {
        Chain {
            z,
            next: 0,
            cur: None,
            failed,
        }
    }

    /// Say `msg`; `inexact`: the text may differ from the tool's.
    fn trouble(&self, msg: &str, inexact: bool) {
        say!("{msg}");
        if inexact {
            self.failed.store(true, Ordering::Release);
        }
    }

    /// Open the next file; false when there is none.
    fn open_next(&mut self) -> bool {
        while self.next < self.z.files.len() {
            let f = self.z.files[self.next].clone();
            self.next += 1;
            let bytes = match crate::source::open_path(std::path::Path::new(&f)) {
                Ok(crate::source::Input::Whole(b)) => b,
                Ok(crate::source::Input::Stream(_)) => {
                    self.trouble(
                        &format!(
                            "grail: --sh: {}: {f}: not a regular file (not run)",
                            self.z.tool
                        ),
                        true,
                    );
                    continue;
                }
                Err(e) => {
                    self.trouble(&format!("{}: {f}: {e}", self.z.tool), false);
                    continue;
                }
            };
            let head = &bytes[..bytes.len().min(6)];
            let other =
                matches!(head, [0x1f, 0x9d | 0x1e | 0xa0, ..]) || head.starts_with(&[0x5d, 0, 0]);
            match Format::detect(head) {
                Some(fmt) if fmt == self.z.format => {
                    let (r, c) = Compressed::new(fmt, bytes);
                    self.cur = Some((r, Some(c), f));
                    return true;
                }
                _ if other && !self.z.force => {
                    let msg = format!(
                        "grail: --sh: {}: {f}: a compressed format grail does not decompress \
                         (compress, pack, lzh or lzma)",
                        self.z.tool
                    );
                    self.trouble(&msg, true);
                }
                _ if self.z.force => {
                    let text = crate::source::WholeReader::new(bytes);
                    self.cur = Some((Box::new(text), None, f));
                    return true;
                }
                _ => {
                    let msg = format!(
                        "{}: {f}: not in {} format",
                        self.z.tool,
                        self.z.format.name()
                    );
                    self.trouble(&msg, false);
                }
            }
        }
        false
    }
}

impl Read for Chain {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        loop {
            if self.cur.is_none() && !self.open_next() {
                return Ok(0);
            }
            let (r, c, f) = self.cur.as_mut().expect("opened");
            let n = r.read(buf)?;
            if n > 0 {
                return Ok(n);
            }
            if let Some(why) = c.as_ref().and_then(|c| c.failure()) {
                let msg = format!("{}: {f}: {why}", self.z.tool);
                self.trouble(&msg, true);
            }
            self.cur = None;
        }
    }
}

/// What a pipe's reader would see of NUL bytes: grep's output then depends
/// on pipe timing (in `decided`: the first `limit` bytes), so the read
/// fails instead, as `cat FILE | grep` is refused.
pub struct NulGuard<R> {
    /// The reader.
    pub inner: R,
    /// Bytes read so far.
    pub pos: u64,
    /// NUL bytes before this offset are refused.
    pub limit: u64,
}

impl<R: Read> Read for NulGuard<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        let watched = (self.limit.saturating_sub(self.pos) as usize).min(n);
        self.pos += n as u64;
        if memchr::memchr(0, &buf[..watched]).is_some() {
            return Err(io::Error::other(super::driver::PIPE_NUL));
        }
        Ok(n)
    }
}
