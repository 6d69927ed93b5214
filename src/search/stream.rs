//! A stream (pipe, terminal, special file), read as GNU grep reads it: 96
//! KiB reads, the binary rule applied read by read, bounded memory (the
//! lines a sink still needs as leading context are kept between reads).

use super::rule::StreamRule;
use super::{Line, Mode, Outcome, SearchError, SearchOptions, Selected, Sink, Weight};
use crate::query::Query;
use crate::scan::{self, binary, Forward, LastWeighted, ScanConfig};
use crate::source::GREP_READ;
use std::io::{self, Read};

/// Append up to `n` bytes from `reader` to `buf` (one read, retried when
/// interrupted); returns how many arrived (0 at end of input).
fn read_more(reader: &mut dyn Read, buf: &mut Vec<u8>, n: usize) -> io::Result<usize> {
    let old = buf.len();
    buf.resize(old + n, 0);
    let got = loop {
        match reader.read(&mut buf[old..]) {
            Ok(k) => break k,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => {
                buf.truncate(old);
                return Err(e);
            }
        }
    };
    buf.truncate(old + got);
    Ok(got)
}

/// The state of a stream search between reads.
struct Reads<'s> {
    q: &'s Query,
    opts: &'s SearchOptions,
    mode: Mode<'s>,
    out: Outcome,
    max: u64,
    /// The current buffer: whole lines (and a partial last one).
    buf: Vec<u8>,
    /// `buf[..scanned]` was searched already (kept as leading context).
    scanned: usize,
    /// Stream offset of `buf[0]`.
    base: u64,
    /// Newlines before `buf[0]`.
    lines_before: u64,
    /// `-m` was reached: only owed trailing context is still printed.
    limited: bool,
}

/// Every selected line (`Lines`, `Formatted`) or only their count.
pub(super) fn lines(
    q: &Query,
    reader: &mut dyn Read,
    opts: &SearchOptions,
    mode: Mode<'_>,
    sink: &mut dyn Sink,
) -> Result<Outcome, SearchError> {
    let max = match (mode, opts.max_count) {
        (Mode::Formatted(_), _) | (_, None) => u64::MAX,
        (_, Some(m)) => m,
    };
    let mut r = Reads {
        q,
        opts,
        mode,
        out: Outcome::default(),
        max,
        buf: Vec::with_capacity(2 * GREP_READ),
        scanned: 0,
        base: 0,
        lines_before: 0,
        limited: false,
    };
    if max == 0 {
        return Ok(r.out);
    }
    let mut rule = StreamRule::new(opts.binary);
    let mut binary = false;
    let mut piece: Vec<u8> = Vec::new();
    let mut eof = false;
    while !eof {
        let old = r.buf.len();
        eof = read_more(reader, &mut r.buf, GREP_READ)? == 0;
        if rule.binary(&r.buf[old..], &mut r.out) && !binary {
            binary = true;
            r.out.is_binary = true;
            if sink.owed() > 0 {
                return Err(SearchError::ContextIntoBinary);
            }
        }
        // Complete lines (all remaining bytes at EOF).
        let lim = if eof {
            r.buf.len()
        } else {
            match memchr::memrchr(b'\n', &r.buf[old..]) {
                Some(i) => old + i + 1,
                None => continue,
            }
        };
        let go = if binary {
            r.binary_read(lim)
        } else {
            r.text_read(lim, sink, &mut piece)
        };
        if !go {
            break;
        }
        let keep = if binary {
            lim
        } else {
            sink.keep_from(&r.buf, lim)
        };
        if opts.line_numbers {
            r.lines_before += scan::count_newlines(&r.buf, 0, keep, false);
        }
        r.buf.drain(..keep);
        r.base += keep as u64;
        sink.dropped(keep);
        r.scanned = lim - keep;
    }
    Ok(r.out)
}

impl Reads<'_> {
    /// Search the new lines of a text read up to `lim`; false to stop.
    fn text_read(&mut self, lim: usize, sink: &mut dyn Sink, piece: &mut Vec<u8>) -> bool {
        let seq = ScanConfig {
            parallel: false,
            ..self.opts.scan
        };
        let mut stop = false;
        if !self.limited {
            let (buf, out, mode) = (&self.buf, &mut self.out, self.mode);
            let (max, numbering, base) = (self.max, self.opts.line_numbers, self.base);
            let mut nl = (0usize, self.lines_before);
            let limited = &mut self.limited;
            let range = (self.scanned, lim);
            scan::forward(
                self.q,
                &buf[..lim],
                range,
                &seq,
                Forward::default(),
                &mut |b| {
                    for h in b.iter().flat_map(|c| &c.hits) {
                        let number = if numbering {
                            nl.1 += scan::count_newlines(buf, nl.0, h.start, false);
                            nl.0 = h.start;
                            nl.1 + 1
                        } else {
                            0
                        };
                        out.selected += 1;
                        out.reported += 1;
                        let offset = base + h.start as u64;
                        match mode {
                            Mode::Count => {}
                            Mode::Formatted(f) => f(piece, &buf[h.start..h.end], number, offset),
                            _ => {
                                let line = Selected {
                                    start: h.start,
                                    end: h.end,
                                    number,
                                    offset,
                                };
                                if !sink.selected(piece, buf, &line) {
                                    stop = true;
                                    return false;
                                }
                            }
                        }
                        if out.selected >= max {
                            *limited = true;
                            return false;
                        }
                    }
                    true
                },
            );
        }
        if !stop {
            sink.reached(piece, &self.buf, lim);
        }
        if !piece.is_empty() {
            stop |= !sink.write(piece);
            piece.clear();
        }
        !(stop || (self.limited && sink.owed() == 0))
    }

    /// Search a read of the binary part up to `lim` as grep does (NUL bytes
    /// end lines, nothing is printed); false to stop.
    fn binary_read(&mut self, lim: usize) -> bool {
        if self.limited {
            return false;
        }
        let counting = matches!(self.mode, Mode::Count);
        let (q, out, max) = (self.q, &mut self.out, self.max);
        let mut go = true;
        binary::scan_zapped(q, &self.buf, self.scanned, lim, &mut |line| {
            out.selected += 1;
            out.binary_matched |= q.include_matches(line) != q.is_inverted();
            go = counting && out.selected < max;
            go
        });
        go
    }
}

/// The last `records` records of a stream: every selected line is read,
/// the last ones that make enough records are kept, then handed to the
/// sink in order.
pub(super) fn tail(
    q: &Query,
    reader: &mut dyn Read,
    opts: &SearchOptions,
    (records, weight): (usize, &Weight<'_>),
    sink: &mut dyn Sink,
) -> Result<Outcome, SearchError> {
    let mut ring = LastWeighted::new(records.max(1));
    let mut keep = |buf: &[u8], l: &Selected| {
        let line = Line::of(buf, l);
        let w = weight(&line.bytes);
        ring.push(line, w);
        true
    };
    let o = lines(q, reader, opts, Mode::Lines, &mut keep)?;
    let mut out = Vec::new();
    for (line, _) in ring.into_inner() {
        let l = Selected {
            start: 0,
            end: line.bytes.len(),
            number: line.number,
            offset: line.offset,
        };
        if !sink.selected(&mut out, &line.bytes, &l) {
            break;
        }
    }
    if !out.is_empty() {
        sink.write(&out);
    }
    Ok(o)
}
