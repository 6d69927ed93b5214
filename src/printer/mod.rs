//! grep-exact output records: `FILE:`, `LINE:`, `OFFSET:` prefixes, the
//! line or its `-o` matches, and a newline (added even when the input's last
//! line had none).

mod context;

pub use context::{ContextSpec, FileContext, Groups, Mark, Marks};

use crate::query::Query;
use crate::search::Line;

/// One line as the printer prints it.
#[derive(Clone, Copy, Debug)]
pub struct LineOut<'a> {
    /// The file's name as printed.
    pub name: &'a [u8],
    /// The line, without its newline.
    pub bytes: &'a [u8],
    /// Its line number (when numbering).
    pub number: u64,
    /// Its byte offset.
    pub offset: u64,
    /// A selected line (`:` separators), not a context line (`-`).
    pub selected: bool,
}

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
    /// Highlight as `grep --color=always` does (`None`: no colour).
    pub color: Option<std::sync::Arc<Colors>>,
    /// Print JSON objects instead of grep's lines (`--json`).
    pub json: Option<std::sync::Arc<JsonSpec>>,
    /// Added to every printed byte offset (the searched region's start in
    /// the file, for `--from-byte` and time windows).
    pub base_offset: u64,
    /// Added to every printed line number (lines before the region).
    pub base_line: u64,
    /// `-T`: line numbers and offsets padded to this width, and a tab
    /// before each line's text (grep's width: the digits of the file's size,
    /// plus one with `-n`; 19 for a pipe).
    pub tab_width: Option<usize>,
    /// `-z`: the lines searched are NUL-terminated records with NUL and
    /// newline swapped; they are printed swapped back, each ended by a NUL.
    pub null_data: bool,
    /// In a UTF-8 locale (grep's binary-file rule): the smallest offset of a
    /// printed line that is not valid UTF-8, where grep would have stopped
    /// printing (`u64::MAX`: none yet). grail prints such lines as they are.
    pub bad_utf8: Option<std::sync::Arc<std::sync::atomic::AtomicU64>>,
}

/// What `--json` needs to say which include pattern matched a line.
#[derive(Debug)]
pub struct JsonSpec {
    /// Each include pattern as given, with a query matching it alone.
    pub patterns: Vec<(String, Query)>,
    /// Objects carry `line_number` (not with `--no-line-number`).
    pub line_numbers: bool,
}

/// One selected line as `--json` prints it.
#[derive(serde::Serialize)]
struct JsonLine<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    path: std::borrow::Cow<'a, str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    line_number: Option<u64>,
    byte_offset: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    text: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    bytes_base64: Option<String>,
    patterns: Vec<usize>,
    matches: Vec<[usize; 2]>,
}

/// grep's colours (`GREP_COLORS`), each an SGR parameter string such as
/// `01;31`; an empty string means "not coloured".
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Colors {
    /// Matched text in selected lines (`ms`).
    pub ms: String,
    /// Matched text in context lines (`mc`).
    pub mc: String,
    /// Whole selected lines (`sl`).
    pub sl: String,
    /// Whole context lines (`cx`).
    pub cx: String,
    /// File names (`fn`).
    pub fname: String,
    /// Line numbers (`ln`).
    pub ln: String,
    /// Byte offsets (`bn`).
    pub bn: String,
    /// Separators (`se`).
    pub se: String,
    /// `rv`: with `-v`, swap `sl` and `cx`.
    pub rv: bool,
    /// `ne`: no "erase in line" (`\x1b[K`) after each SGR sequence.
    pub ne: bool,
}

impl Default for Colors {
    /// GNU grep's defaults: `ms=01;31:mc=01;31:sl=:cx=:fn=35:ln=32:bn=32:se=36`.
    fn default() -> Self {
        Colors {
            ms: "01;31".into(),
            mc: "01;31".into(),
            sl: String::new(),
            cx: String::new(),
            fname: "35".into(),
            ln: "32".into(),
            bn: "32".into(),
            se: "36".into(),
            rv: false,
            ne: false,
        }
    }
}

impl Colors {
    /// The colours grep uses given the `GREP_COLOR` (deprecated) and
    /// `GREP_COLORS` environment values, with grep's parsing rules: unknown
    /// capabilities are skipped, parsing stops silently at a malformed part.
    /// Returns the colours and the deprecation warning grep prints, if any.
    pub fn from_env(
        grep_color: Option<&str>,
        grep_colors: Option<&str>,
    ) -> (Colors, Option<String>) {
        let mut c = Colors::default();
        let mut legacy = None;
        if let Some(v) = grep_color {
            if !v.is_empty() && v.bytes().all(|b| b == b';' || b.is_ascii_digit()) {
                c.ms = v.to_string();
                c.mc = v.to_string();
                legacy = Some(v.to_string());
            }
        }
        if let Some(p) = grep_colors {
            c.parse_caps(p);
        }
        let warning = legacy.and_then(|v| {
            (c.ms == v || c.mc == v).then(|| {
                format!("warning: GREP_COLOR='{v}' is deprecated; use GREP_COLORS='mt={v}'")
            })
        });
        (c, warning)
    }

    fn parse_caps(&mut self, p: &str) {
        // grep's parse_grep_colors: `name[=val]` items separated by ':',
        // values made of digits and ';' only; anything else stops parsing.
        for item in p.split(':') {
            let (name, val) = match item.split_once('=') {
                Some((n, v)) => {
                    if n.is_empty() || v.contains('=') {
                        return;
                    }
                    if !v.bytes().all(|b| b == b';' || b.is_ascii_digit()) {
                        // The bad character ends parsing; what precedes it
                        // in this item is dropped too.
                        return;
                    }
                    (n, Some(v))
                }
                None => (item, None),
            };
            let v = val.map(str::to_string);
            match (name, v) {
                ("mt", Some(v)) => {
                    self.ms = v.clone();
                    self.mc = v;
                }
                ("mt", None) => self.mc = self.ms.clone(),
                ("ms", Some(v)) => self.ms = v,
                ("mc", Some(v)) => self.mc = v,
                ("fn", Some(v)) => self.fname = v,
                ("ln", Some(v)) => self.ln = v,
                ("bn", Some(v)) => self.bn = v,
                ("se", Some(v)) => self.se = v,
                ("sl", Some(v)) => self.sl = v,
                ("cx", Some(v)) => self.cx = v,
                ("rv", _) => self.rv = true,
                ("ne", _) => self.ne = true,
                _ => {}
            }
        }
    }

    fn start(&self, out: &mut Vec<u8>, s: &str) {
        if !s.is_empty() {
            out.extend_from_slice(b"\x1b[");
            out.extend_from_slice(s.as_bytes());
            out.push(b'm');
            if !self.ne {
                out.extend_from_slice(b"\x1b[K");
            }
        }
    }

    fn end(&self, out: &mut Vec<u8>, s: &str) {
        if !s.is_empty() {
            out.extend_from_slice(b"\x1b[m");
            if !self.ne {
                out.extend_from_slice(b"\x1b[K");
            }
        }
    }
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

    fn prefix(&self, out: &mut Vec<u8>, name: &[u8], number: u64, offset: u64, len: usize) {
        if self.color.is_some() || self.tab_width.is_some() {
            return self.head(out, name, number, offset, b':', len);
        }
        if self.with_filename {
            out.extend_from_slice(name);
            out.push(if self.null_after_name { 0 } else { b':' });
        }
        if self.line_number {
            push_num(out, number + self.base_line);
            out.push(b':');
        }
        if self.byte_offset {
            push_num(out, offset + self.base_offset);
            out.push(b':');
        }
    }

    /// grep's `print_line_head`: file name, line number and byte offset,
    /// each followed by `sep` (`:` selected, `-` context), in colour if set;
    /// with `-T`, numbers padded and a tab before a body of `len` bytes.
    fn head(&self, out: &mut Vec<u8>, name: &[u8], number: u64, offset: u64, sep: u8, len: usize) {
        let c = self.color.as_deref();
        let colored = |out: &mut Vec<u8>, color: fn(&Colors) -> &str, text: &[u8]| match c {
            Some(c) => {
                c.start(out, color(c));
                out.extend_from_slice(text);
                c.end(out, color(c));
            }
            None => out.extend_from_slice(text),
        };
        let mut num = [0u8; 20];
        if self.with_filename {
            colored(out, |c| &c.fname, name);
            if self.null_after_name {
                out.push(0);
            } else {
                colored(out, |c| &c.se, &[sep]);
            }
        }
        let width = self.tab_width.unwrap_or(0);
        let mut padded = |out: &mut Vec<u8>, color: fn(&Colors) -> &str, v: u64| {
            let n = put_num(&mut num, v);
            let mut text = vec![b' '; width.saturating_sub(n)];
            text.extend_from_slice(&num[..n]);
            colored(out, color, &text);
            colored(out, |c| &c.se, &[sep]);
        };
        if self.line_number {
            padded(out, |c| &c.ln, number + self.base_line);
        }
        if self.byte_offset {
            padded(out, |c| &c.bn, offset + self.base_offset);
        }
        if self.tab_width.is_some()
            && (self.with_filename || self.line_number || self.byte_offset)
            && len != 0
        {
            out.push(b'\t');
        }
    }

    /// Append the `--json` object for one selected line (and a newline).
    pub fn push_json(
        &self,
        out: &mut Vec<u8>,
        q: &Query,
        name: &[u8],
        bytes: &[u8],
        number: u64,
        offset: u64,
    ) {
        let line = LineOut {
            name,
            bytes,
            number,
            offset,
            selected: true,
        };
        self.push_json_kind(out, q, &line)
    }

    /// [`Format::push_json`] for a selected line (`"match"`) or a context
    /// line (`"context"`, whose `patterns` and `matches` describe the
    /// include patterns too, as grep's colour does for context lines).
    fn push_json_kind(&self, out: &mut Vec<u8>, q: &Query, line: &LineOut<'_>) {
        use base64::Engine;
        let (bytes, selected) = (line.bytes, line.selected);
        // Lines the include patterns match: selected ones, or context
        // lines under -v.
        let matching = selected != q.is_inverted();
        let (patterns, matches) = match (&self.json, matching) {
            (Some(j), true) => (
                j.patterns
                    .iter()
                    .enumerate()
                    .filter(|(_, (_, pq))| pq.include_matches(bytes))
                    .map(|(i, _)| i)
                    .collect(),
                q.matches(bytes)
                    .unwrap_or_default()
                    .into_iter()
                    .map(|(s, e)| [s, e])
                    .collect(),
            ),
            _ => (Vec::new(), Vec::new()),
        };
        let text = std::str::from_utf8(bytes).ok();
        let obj = JsonLine {
            kind: if selected { "match" } else { "context" },
            path: String::from_utf8_lossy(line.name),
            line_number: self
                .json
                .as_ref()
                .is_none_or(|j| j.line_numbers)
                .then_some(line.number + self.base_line),
            byte_offset: line.offset + self.base_offset,
            text,
            bytes_base64: text
                .is_none()
                .then(|| base64::engine::general_purpose::STANDARD.encode(bytes)),
            patterns,
            matches,
        };
        // Writing to a Vec cannot fail.
        let _ = serde_json::to_writer(&mut *out, &obj);
        out.push(b'\n');
    }

    /// A file name, in the file-name colour (for `-c`, `-l`, `-L`).
    pub fn push_name(&self, out: &mut Vec<u8>, name: &[u8]) {
        match self.color.as_deref() {
            Some(c) => {
                c.start(out, &c.fname);
                out.extend_from_slice(name);
                c.end(out, &c.fname);
            }
            None => out.extend_from_slice(name),
        }
    }

    /// A separator character, in the separator colour.
    pub fn push_sep(&self, out: &mut Vec<u8>, sep: u8) {
        match self.color.as_deref() {
            Some(c) => {
                c.start(out, &c.se);
                out.push(sep);
                c.end(out, &c.se);
            }
            None => out.push(sep),
        }
    }

    /// The group separator line (`--` by default) between non-adjacent
    /// context groups, in the separator colour.
    pub fn push_separator(&self, out: &mut Vec<u8>, sep: &[u8]) {
        if self.json.is_some() {
            // JSON objects carry their line numbers: groups need no marker.
            return;
        }
        match self.color.as_deref() {
            Some(c) => {
                c.start(out, &c.se);
                out.extend_from_slice(sep);
                c.end(out, &c.se);
            }
            None => out.extend_from_slice(sep),
        }
        out.push(b'\n');
    }

    /// Note a printed line that is not valid UTF-8 (see `bad_utf8`).
    fn check_utf8(&self, bytes: &[u8], offset: u64) {
        if let Some(first) = &self.bad_utf8 {
            if !bytes.is_ascii() && std::str::from_utf8(bytes).is_err() {
                first.fetch_min(
                    offset + self.base_offset,
                    std::sync::atomic::Ordering::Relaxed,
                );
            }
        }
    }

    /// A line's text (`-z`: with NUL and newline swapped back).
    fn text(&self, out: &mut Vec<u8>, bytes: &[u8]) {
        if self.null_data {
            out.extend(bytes.iter().map(|&b| match b {
                0 => b'\n',
                b'\n' => 0,
                b => b,
            }));
        } else {
            out.extend_from_slice(bytes);
        }
    }

    /// The end of an output line: grep's end-of-line byte.
    fn eol(&self, out: &mut Vec<u8>) {
        out.push(if self.null_data { 0 } else { b'\n' });
    }

    /// Append one output line exactly as grep's `prline` prints it: a
    /// selected line (`selected`, `:` separators) or a context line (`-`),
    /// with `-o` and colour handled. `bytes` is the line without its newline.
    pub fn push_prline(&self, out: &mut Vec<u8>, q: &Query, line: &LineOut<'_>) {
        let LineOut {
            name,
            bytes,
            number,
            offset,
            selected,
        } = *line;
        if self.json.is_some() {
            return self.push_json_kind(out, q, line);
        }
        if !self.only_matching {
            self.check_utf8(bytes, offset);
        }
        let sep = if selected { b':' } else { b'-' };
        let invert = q.is_inverted();
        let matching = selected != invert;
        let c = self.color.as_deref();
        if !self.only_matching {
            self.head(out, name, number, offset, sep, bytes.len());
        }
        let (line_color, match_color) = match c {
            Some(c) => (
                if selected != (invert && c.rv) {
                    c.sl.as_str()
                } else {
                    c.cx.as_str()
                },
                if selected {
                    c.ms.as_str()
                } else {
                    c.mc.as_str()
                },
            ),
            None => ("", ""),
        };
        let mut cur = 0usize;
        let mut newline_done = false;
        if (self.only_matching && matching)
            || (c.is_some() && (!line_color.is_empty() || !match_color.is_empty()))
        {
            if matching && (self.only_matching || !match_color.is_empty()) {
                let msep = if invert { b'-' } else { b':' };
                if q.word_and_line() {
                    // GNU's match for -w -x takes the newline with it.
                    if self.only_matching {
                        self.head(out, name, number, offset, msep, bytes.len() + 1);
                    } else if let Some(c) = c {
                        c.start(out, line_color);
                    }
                    if let Some(c) = c {
                        c.start(out, match_color);
                    }
                    self.text(out, bytes);
                    self.eol(out);
                    if let Some(c) = c {
                        c.end(out, match_color);
                    }
                    if self.only_matching {
                        self.eol(out);
                    }
                    return;
                }
                for (s, e) in q.matches(bytes).unwrap_or_default() {
                    if self.only_matching {
                        self.check_utf8(&bytes[s..e], offset + s as u64);
                        self.head(out, name, number, offset + s as u64, msep, e - s);
                    } else {
                        if let Some(c) = c {
                            c.start(out, line_color);
                        }
                        self.text(out, &bytes[cur..s]);
                    }
                    if let Some(c) = c {
                        c.start(out, match_color);
                    }
                    self.text(out, &bytes[s..e]);
                    if let Some(c) = c {
                        c.end(out, match_color);
                    }
                    if self.only_matching {
                        self.eol(out);
                    }
                    cur = e;
                }
                if self.only_matching {
                    newline_done = true;
                }
            }
            if !self.only_matching && !line_color.is_empty() {
                // print_line_tail: the rest up to a CR before the newline.
                let end = if bytes.last() == Some(&b'\r') {
                    bytes.len() - 1
                } else {
                    bytes.len()
                };
                if end > cur {
                    if let Some(c) = c {
                        c.start(out, line_color);
                        self.text(out, &bytes[cur..end]);
                        c.end(out, line_color);
                    }
                    cur = end;
                }
            }
        }
        if !self.only_matching && !newline_done {
            self.text(out, &bytes[cur.min(bytes.len())..]);
            self.eol(out);
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
        self.check_utf8(bytes, offset);
        self.prefix(out, name, number, offset, bytes.len());
        self.text(out, bytes);
        self.eol(out);
    }

    /// Append the records of `line`, each as its own `Vec`, to `recs`.
    pub fn records(&self, recs: &mut Vec<Vec<u8>>, q: &Query, name: &[u8], line: &Line) {
        if self.only_matching {
            // grep checks what it prints: each match.
            if let Ok(ms) = q.matches(&line.bytes) {
                for (s, e) in ms {
                    self.check_utf8(&line.bytes[s..e], line.offset + s as u64);
                }
            }
        } else {
            self.check_utf8(&line.bytes, line.offset);
        }
        if self.json.is_some() {
            let mut r = Vec::new();
            self.push_json(&mut r, q, name, &line.bytes, line.number, line.offset);
            recs.push(r);
            return;
        }
        if self.color.is_some() && !self.only_matching {
            let mut r = Vec::with_capacity(line.bytes.len() + name.len() + 48);
            self.push_prline(
                &mut r,
                q,
                &LineOut {
                    name,
                    bytes: &line.bytes,
                    number: line.number,
                    offset: line.offset,
                    selected: true,
                },
            );
            recs.push(r);
            return;
        }
        if let Some(c) = self.color.as_deref() {
            // -o in colour: one record per output line, as grep prints them.
            if q.is_inverted() {
                return;
            }
            let msep = b':';
            if q.word_and_line() {
                let mut r = Vec::new();
                self.head(
                    &mut r,
                    name,
                    line.number,
                    line.offset,
                    msep,
                    line.bytes.len() + 1,
                );
                c.start(&mut r, &c.ms);
                self.text(&mut r, &line.bytes);
                self.eol(&mut r);
                recs.push(r);
                let mut r2 = Vec::new();
                c.end(&mut r2, &c.ms);
                self.eol(&mut r2);
                recs.push(r2);
                return;
            }
            for (s, e) in q.matches(&line.bytes).unwrap_or_default() {
                let mut r = Vec::new();
                self.head(
                    &mut r,
                    name,
                    line.number,
                    line.offset + s as u64,
                    msep,
                    e - s,
                );
                c.start(&mut r, &c.ms);
                self.text(&mut r, &line.bytes[s..e]);
                c.end(&mut r, &c.ms);
                self.eol(&mut r);
                recs.push(r);
            }
            return;
        }
        if !self.only_matching {
            let mut r = Vec::with_capacity(line.bytes.len() + name.len() + 24);
            self.prefix(&mut r, name, line.number, line.offset, line.bytes.len());
            self.text(&mut r, &line.bytes);
            self.eol(&mut r);
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
            self.prefix(&mut r, name, line.number, line.offset, line.bytes.len() + 1);
            self.text(&mut r, &line.bytes);
            self.eol(&mut r);
            recs.push(r);
            let mut end = Vec::new();
            self.eol(&mut end);
            recs.push(end);
            return;
        }
        for (s, e) in q.matches(&line.bytes).unwrap_or_default() {
            let mut r = Vec::new();
            self.prefix(&mut r, name, line.number, line.offset + s as u64, e - s);
            self.text(&mut r, &line.bytes[s..e]);
            self.eol(&mut r);
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
