//! Compressed files, recognised by their magic bytes and decompressed in
//! this process: gzip (every member), zstd (every frame), xz (every
//! stream), bzip2 (every stream) and lz4 frames.
//!
//! One thread decompresses while the search reads what it made: the text
//! goes through a channel of at most [`QUEUE`] blocks of [`BLOCK`] bytes,
//! and the pages of the mapped compressed file are released behind the
//! decoder every 4 MiB, so memory stays bounded whatever the size (plus
//! the decoder's own window:
//! 32 KiB for gzip, at most the frame's window for zstd (the decoder's
//! default limit is 128 MiB), the stream's dictionary for xz (64 MiB at
//! `xz -9`), 900 KB for bzip2, 64 KiB to 4 MiB for lz4).
//!
//! A corrupt or truncated archive ends the text where the decoder stopped:
//! the search sees every byte decoded before it (as `zcat FILE | grep` sees
//! what `zcat` wrote before it failed), then [`Compressed::failure`] says
//! what was wrong and at which byte of the file.
//!
//! ```
//! use grail::source::decompress::{Compressed, Format};
//! use std::io::Read;
//!
//! let gz = [
//!     0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 2, 3, 0x73, 0x0d, 0x0a, 0xf2, 0x0f, 0xe2, 0x02, 0x00, 0xcb,
//!     0x7d, 0x1e, 0xde, 0x06, 0x00, 0x00, 0x00,
//! ]; // gzip of "ERROR\n"
//! assert_eq!(Format::detect(&gz), Some(Format::Gzip));
//! let (mut text, c) = Compressed::new(Format::Gzip, gz.to_vec().into());
//! let mut s = String::new();
//! text.read_to_string(&mut s).unwrap();
//! assert_eq!(s, "ERROR\n");
//! assert!(c.failure().is_none());
//! assert_eq!((c.consumed(), c.produced()), (26, 6));
//!
//! // Cut short: the text decoded so far, then the reason.
//! let (mut text, c) = Compressed::new(Format::Gzip, gz[..20].to_vec().into());
//! let mut v = Vec::new();
//! text.read_to_end(&mut v).unwrap();
//! assert!(c.failure().unwrap().starts_with("gzip data cut short: the file ends (byte 20)"));
//! ```

use super::Bytes;
use std::io::{self, BufRead, Read};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{Receiver, SyncSender};
use std::sync::{Arc, Mutex};

/// Text is handed from the decoder thread in blocks of this many bytes...
pub const BLOCK: usize = 256 * 1024;
/// ... and at most this many blocks wait.
pub const QUEUE: usize = 4;
/// The pages of a mapped compressed file are released behind the decoder
/// this many bytes at a time.
const RELEASE: usize = 4 << 20;

/// A compression format grail decompresses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// gzip (RFC 1952), also several members one after another.
    Gzip,
    /// Zstandard frames (skippable frames are skipped).
    Zstd,
    /// xz streams.
    Xz,
    /// bzip2 streams.
    Bzip2,
    /// LZ4 frames (not the legacy format).
    Lz4,
}

impl Format {
    /// The format whose magic bytes `head` starts with.
    pub fn detect(head: &[u8]) -> Option<Format> {
        let starts = |m: &[u8]| head.starts_with(m);
        if starts(&[0x1f, 0x8b]) {
            Some(Format::Gzip)
        } else if starts(&[0x28, 0xb5, 0x2f, 0xfd])
            || (head.len() >= 4 && head[0] & 0xf0 == 0x50 && head[1..4] == [0x2a, 0x4d, 0x18])
        {
            Some(Format::Zstd)
        } else if starts(&[0xfd, b'7', b'z', b'X', b'Z', 0]) {
            Some(Format::Xz)
        } else if starts(b"BZh") && head.get(3).is_some_and(|b| (b'1'..=b'9').contains(b)) {
            Some(Format::Bzip2)
        } else if starts(&[0x04, 0x22, 0x4d, 0x18]) {
            Some(Format::Lz4)
        } else {
            None
        }
    }

    /// Its usual name: `gzip`, `zstd`, `xz`, `bzip2`, `lz4`.
    pub fn name(self) -> &'static str {
        match self {
            Format::Gzip => "gzip",
            Format::Zstd => "zstd",
            Format::Xz => "xz",
            Format::Bzip2 => "bzip2",
            Format::Lz4 => "lz4",
        }
    }
}

/// What a decompression did, shared between its thread and the search.
#[derive(Debug)]
struct State {
    /// Bytes of the compressed file the decoder consumed.
    consumed: AtomicU64,
    /// Bytes of text it made.
    produced: AtomicU64,
    /// Why it stopped early.
    failure: Mutex<Option<String>>,
}

/// One compressed file being decompressed: what the driver keeps to
/// report it (sizes for `--stats`, the error when it stopped early).
#[derive(Clone, Debug)]
pub struct Compressed {
    /// The format.
    pub format: Format,
    /// The compressed file's size.
    pub size: u64,
    state: Arc<State>,
}

impl Compressed {
    /// Start decompressing `bytes` (a compressed file's contents): the
    /// reader gives its text (the thread starts at the first read), the
    /// handle reports on it.
    pub fn new(format: Format, bytes: Bytes) -> (Box<dyn Read + Send>, Compressed) {
        let state = Arc::new(State {
            consumed: AtomicU64::new(0),
            produced: AtomicU64::new(0),
            failure: Mutex::new(None),
        });
        let c = Compressed {
            format,
            size: bytes.len() as u64,
            state: state.clone(),
        };
        let reader = Text {
            start: Some((format, bytes, state)),
            rx: None,
            block: Vec::new(),
            pos: 0,
        };
        (Box::new(reader), c)
    }

    /// Bytes of the compressed file read so far.
    pub fn consumed(&self) -> u64 {
        self.state.consumed.load(Ordering::Acquire)
    }

    /// Bytes of text made so far.
    pub fn produced(&self) -> u64 {
        self.state.produced.load(Ordering::Acquire)
    }

    /// Why decompression stopped before the end of the data (corrupt or
    /// truncated), with the byte offset in the file; `None` when it did not.
    pub fn failure(&self) -> Option<String> {
        self.state.failure.lock().ok()?.clone()
    }
}

/// The text of a compressed file, read from the decoder thread.
struct Text {
    /// What the thread needs, until the first read starts it.
    start: Option<(Format, Bytes, Arc<State>)>,
    rx: Option<Receiver<Vec<u8>>>,
    block: Vec<u8>,
    pos: usize,
}

impl Read for Text {
    /// Fills `buf` entirely unless the text ends first, so that each read a
    /// search makes sees the same bytes whatever the decoder's pace (grep's
    /// first-read rule for NUL bytes depends on it).
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if let Some((format, bytes, state)) = self.start.take() {
            let (tx, rx) = std::sync::mpsc::sync_channel(QUEUE);
            std::thread::Builder::new()
                .name("grail-decompress".into())
                .spawn(move || decode(format, &bytes, &state, tx))?;
            self.rx = Some(rx);
        }
        let mut n = 0;
        while n < buf.len() {
            if self.pos == self.block.len() {
                match self.rx.as_ref().and_then(|rx| rx.recv().ok()) {
                    Some(b) => {
                        self.block = b;
                        self.pos = 0;
                        continue;
                    }
                    None => break,
                }
            }
            let k = (self.block.len() - self.pos).min(buf.len() - n);
            buf[n..n + k].copy_from_slice(&self.block[self.pos..self.pos + k]);
            self.pos += k;
            n += k;
        }
        Ok(n)
    }
}

/// The compressed bytes as the decoder reads them, counting what it used
/// and releasing the pages of a mapping behind it (memory stays bounded
/// whatever the file's size).
struct Source<'a> {
    hay: super::Haystack<'a>,
    data: &'a [u8],
    pos: usize,
    released: usize,
    state: &'a State,
}

impl Read for Source<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let rest = self.fill_buf()?;
        let n = rest.len().min(buf.len());
        buf[..n].copy_from_slice(&rest[..n]);
        self.consume(n);
        Ok(n)
    }
}

impl BufRead for Source<'_> {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        // Hand the decoder at most 64 KiB at a time: the decoders consume
        // what they decoded, so the offset of a failure is where it was.
        let end = (self.pos + (64 << 10)).min(self.data.len());
        Ok(&self.data[self.pos..end])
    }

    fn consume(&mut self, n: usize) {
        self.pos += n;
        if self.pos - self.released >= RELEASE {
            self.hay.release(self.released, self.pos);
            self.released = self.pos;
        }
        self.state
            .consumed
            .store(self.pos as u64, Ordering::Release);
    }
}

/// The decoder thread: decode `data` into blocks sent to `tx`, until the
/// end, a failure (recorded in `state`) or the reader going away.
fn decode(format: Format, bytes: &Bytes, state: &State, tx: SyncSender<Vec<u8>>) {
    let hay = bytes.haystack();
    let data = hay.bytes();
    let src = Source {
        hay,
        data,
        pos: 0,
        released: 0,
        state,
    };
    let mut dec: Box<dyn Read + '_> = match format {
        Format::Gzip => Box::new(flate2::bufread::MultiGzDecoder::new(src)),
        Format::Zstd => match zstd::stream::read::Decoder::with_buffer(src) {
            Ok(d) => Box::new(d),
            Err(e) => return fail(state, format, data.len(), &e),
        },
        Format::Xz => Box::new(liblzma::bufread::XzDecoder::new_multi_decoder(src)),
        Format::Bzip2 => Box::new(bzip2::bufread::MultiBzDecoder::new(src)),
        Format::Lz4 => Box::new(lz4_flex::frame::FrameDecoder::new(src)),
    };
    loop {
        let mut block = vec![0u8; BLOCK];
        let mut n = 0;
        // Why the block ends short: `Ok` at the end, `Err` at a failure.
        let mut stop = None;
        while n < BLOCK && stop.is_none() {
            match dec.read(&mut block[n..]) {
                Ok(0) => stop = Some(Ok(())),
                Ok(k) => n += k,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => stop = Some(Err(e)),
            }
        }
        block.truncate(n);
        state.produced.fetch_add(n as u64, Ordering::AcqRel);
        if n > 0 && tx.send(block).is_err() {
            return;
        }
        match stop {
            None => {}
            Some(Ok(())) => return,
            Some(Err(e)) => return fail(state, format, data.len(), &e),
        }
    }
}

/// Record why decoding stopped: truncated (every byte used) or corrupt.
fn fail(state: &State, format: Format, len: usize, e: &io::Error) {
    let at = state.consumed.load(Ordering::Acquire);
    let made = state.produced.load(Ordering::Acquire);
    let text = e.to_string().to_ascii_lowercase();
    let damaged = ["checksum", "crc", "corrupt", "invalid", "mismatch"]
        .iter()
        .any(|w| text.contains(w));
    let what = if at as usize >= len && !damaged {
        format!(
            "{} data cut short: the file ends (byte {len}) inside a compressed stream",
            format.name()
        )
    } else {
        format!("{} data corrupt at byte {at} of the file", format.name())
    };
    let msg = format!(
        "{what} ({}); the {made} bytes of text decoded before it were searched{}",
        crate::error::io_text(e),
        if damaged {
            " (formats that check their data at the end of a stream may have decoded damaged text)"
        } else {
            ""
        }
    );
    if let Ok(mut f) = state.failure.lock() {
        *f = Some(msg);
    }
}
