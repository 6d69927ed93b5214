//! grep-exact output records: `FILE:`, `LINE:`, `OFFSET:` prefixes, the
//! line or its `-o` matches, and a newline (added even when the input's last
//! line had none).

use crate::query::Query;
use crate::search::Line;

/// Which prefixes and body to print.
#[derive(Clone, Debug, Default)]
pub struct Format {
    /// Prefix each record with the file name (`-H`).
    pub with_filename: bool,
    /// Prefix each record with the line number (`-n`).
    pub line_number: bool,
    /// Prefix each record with the byte offset (`-b`).
    pub byte_offset: bool,
    /// Print only the matched parts, one per record (`-o`).
    pub only_matching: bool,
    /// Print a NUL after file names instead of `:` (`-Z`).
    pub null_after_name: bool,
}

impl Format {
    /// Number of records `line` produces.
    pub fn weight(&self, q: &Query, line: &[u8]) -> usize {
        if !self.only_matching {
            return 1;
        }
        if q.is_inverted() {
            return 0;
        }
        if q.word_and_line() {
            return 2;
        }
        q.matches(line).map_or(1, |m| m.len())
    }

    fn prefix(&self, out: &mut Vec<u8>, name: &[u8], number: u64, offset: u64) {
        if self.with_filename {
            out.extend_from_slice(name);
            out.push(if self.null_after_name { 0 } else { b':' });
        }
        if self.line_number {
            push_num(out, number);
            out.push(b':');
        }
        if self.byte_offset {
            push_num(out, offset);
            out.push(b':');
        }
    }

    /// Append one plain record (not `-o`) for a line's parts to `out`.
    pub fn push_line(
        &self,
        out: &mut Vec<u8>,
        name: &[u8],
        bytes: &[u8],
        number: u64,
        offset: u64,
    ) {
        self.prefix(out, name, number, offset);
        out.extend_from_slice(bytes);
        out.push(b'\n');
    }

    /// Write `line` as one plain record (not `-o`) to `w`.
    pub fn write_line(
        &self,
        w: &mut dyn std::io::Write,
        name: &[u8],
        line: &Line,
    ) -> std::io::Result<()> {
        let mut head = [0u8; 64];
        let mut p = Vec::new();
        let prefix: &[u8] = if self.with_filename {
            self.prefix(&mut p, name, line.number, line.offset);
            &p
        } else {
            // No file name: the prefix fits on the stack.
            let mut n = 0;
            if self.line_number {
                n += put_num(&mut head[n..], line.number);
                head[n] = b':';
                n += 1;
            }
            if self.byte_offset {
                n += put_num(&mut head[n..], line.offset);
                head[n] = b':';
                n += 1;
            }
            &head[..n]
        };
        w.write_all(prefix)?;
        w.write_all(&line.bytes)?;
        w.write_all(b"\n")
    }

    /// Append the records of `line`, each as its own `Vec`, to `recs`.
    pub fn records(&self, recs: &mut Vec<Vec<u8>>, q: &Query, name: &[u8], line: &Line) {
        if !self.only_matching {
            let mut r = Vec::with_capacity(line.bytes.len() + name.len() + 24);
            self.prefix(&mut r, name, line.number, line.offset);
            r.extend_from_slice(&line.bytes);
            r.push(b'\n');
            recs.push(r);
            return;
        }
        if q.is_inverted() {
            return;
        }
        if q.word_and_line() {
            // GNU's -o with -w and -x reports the whole line with its
            // newline as the match, then ends the record with another.
            let mut r = Vec::new();
            self.prefix(&mut r, name, line.number, line.offset);
            r.extend_from_slice(&line.bytes);
            r.push(b'\n');
            recs.push(r);
            recs.push(b"\n".to_vec());
            return;
        }
        for (s, e) in q.matches(&line.bytes).unwrap_or_default() {
            let mut r = Vec::new();
            self.prefix(&mut r, name, line.number, line.offset + s as u64);
            r.extend_from_slice(&line.bytes[s..e]);
            r.push(b'\n');
            recs.push(r);
        }
    }
}

fn put_num(buf: &mut [u8], mut n: u64) -> usize {
    let mut tmp = [0u8; 20];
    let mut i = tmp.len();
    loop {
        i -= 1;
        tmp[i] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    let len = tmp.len() - i;
    buf[..len].copy_from_slice(&tmp[i..]);
    len
}

fn push_num(out: &mut Vec<u8>, n: u64) {
    let mut tmp = [0u8; 20];
    let len = put_num(&mut tmp, n);
    out.extend_from_slice(&tmp[..len]);
}
