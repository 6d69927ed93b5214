//! `-P`: Perl-compatible patterns through PCRE2, the library GNU grep 3.8
//! links, with grep's options: `PCRE2_DOLLAR_ENDONLY`, `PCRE2_CASELESS`
//! for `-i`, `PCRE2_EXTRA_MATCH_LINE` for `-x`, `(?<!\w)(?:…)(?!\w)` around
//! the pattern for `-w`, JIT where available, and one line as the subject
//! of each match (grep's `Pexecute` searches line by line too).

use pcre2_sys::*;
use std::ffi::c_int;
use std::sync::Mutex;

/// Whether `p` uses `\D`, `\S` or `\W` outside a bracket expression.
pub fn negated_shorthand(p: &[u8]) -> bool {
    let (mut i, mut in_class) = (0, false);
    while i < p.len() {
        match p[i] {
            b'\\' if i + 1 < p.len() => {
                if !in_class && matches!(p[i + 1], b'D' | b'S' | b'W') {
                    return true;
                }
                i += 2;
                continue;
            }
            b'[' => in_class = true,
            b']' => in_class = false,
            _ => {}
        }
        i += 1;
    }
    false
}

/// A compiled `-P` pattern.
pub struct PcrePattern {
    code: *mut pcre2_code_8,
    /// Match data blocks, one per concurrent caller, reused.
    data: Mutex<Vec<MatchData>>,
    /// UTF-8 mode (grep's skipping of bytes that cannot start a character).
    utf8: bool,
    /// Set when PCRE2 gave up on a line (a backtracking, depth or heap
    /// limit): the line counts as not matching and the search reports it.
    failed: Mutex<Option<String>>,
}

struct MatchData(*mut pcre2_match_data_8);

// SAFETY: a match data block is used by one caller at a time (it is taken
// out of the pool for the call) and freed once.
unsafe impl Send for MatchData {}

impl Drop for MatchData {
    fn drop(&mut self) {
        // SAFETY: created by pcre2_match_data_create_from_pattern_8, freed once.
        unsafe { pcre2_match_data_free_8(self.0) }
    }
}

// SAFETY: a compiled pattern is read-only after compilation and PCRE2
// documents it as shareable between threads; the mutable match data is
// behind the mutexes.
unsafe impl Send for PcrePattern {}
// SAFETY: as above.
unsafe impl Sync for PcrePattern {}

impl Drop for PcrePattern {
    fn drop(&mut self) {
        self.data.get_mut().map(Vec::clear).ok();
        // SAFETY: compiled by pcre2_compile_8 and freed once, after every
        // match data block made from it.
        unsafe { pcre2_code_free_8(self.code) }
    }
}

impl std::fmt::Debug for PcrePattern {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("PcrePattern")
    }
}

fn error_message(code: c_int) -> String {
    let mut buf = [0u8; 256];
    // SAFETY: the buffer is writable for its length; PCRE2 NUL-terminates.
    let n = unsafe { pcre2_get_error_message_8(code, buf.as_mut_ptr(), buf.len()) };
    String::from_utf8_lossy(&buf[..n.max(0) as usize]).into_owned()
}

impl PcrePattern {
    /// Compile `pattern` as grep -P does with `-i`, `-w`, `-x`; `Err`
    /// holds PCRE2's message (grep prints it alone).
    pub fn new(pattern: &[u8], flags: &super::parse::Flags) -> Result<Self, String> {
        let (icase, word, line) = (flags.ignore_case, flags.word, flags.line);
        let wrapped;
        let pattern = if word {
            wrapped = [b"(?<!\\w)(?:", pattern, b")(?!\\w)"].concat();
            &wrapped[..]
        } else {
            pattern
        };
        let mut options = PCRE2_DOLLAR_ENDONLY | if icase { PCRE2_CASELESS } else { 0 };
        if flags.utf8 {
            // As grep in a UTF-8 locale: a byte that is not UTF-8 cannot
            // match, and is no error.
            options |= PCRE2_UTF | PCRE2_MATCH_INVALID_UTF;
        }
        let (mut err, mut offset): (c_int, usize) = (0, 0);
        // SAFETY: a compile context from the default allocator; the pattern
        // is valid for its length; the context is freed after the compile.
        let code = unsafe {
            let ctx = pcre2_compile_context_create_8(std::ptr::null_mut());
            if ctx.is_null() {
                return Err("memory exhausted".into());
            }
            if line {
                pcre2_set_compile_extra_options_8(ctx, PCRE2_EXTRA_MATCH_LINE);
            }
            let code = pcre2_compile_8(
                pattern.as_ptr(),
                pattern.len(),
                options,
                &mut err,
                &mut offset,
                ctx,
            );
            pcre2_compile_context_free_8(ctx);
            code
        };
        if code.is_null() {
            return Err(error_message(err));
        }
        // SAFETY: `code` is a valid compiled pattern; JIT failure only means
        // the interpreter runs (as in grep).
        unsafe { pcre2_jit_compile_8(code, PCRE2_JIT_COMPLETE) };
        Ok(PcrePattern {
            code,
            utf8: flags.utf8,
            data: Mutex::new(Vec::new()),
            failed: Mutex::new(None),
        })
    }

    /// The first match in `line` starting at or after `start`: its bounds.
    pub fn find_at(&self, line: &[u8], start: usize) -> Option<(usize, usize)> {
        let data = self
            .data
            .lock()
            .ok()
            .and_then(|mut v| v.pop())
            .or_else(|| {
                // SAFETY: `self.code` is valid; a null general context
                // means the default allocator.
                let d = unsafe {
                    pcre2_match_data_create_from_pattern_8(self.code, std::ptr::null_mut())
                };
                (!d.is_null()).then_some(MatchData(d))
            })?;
        // grep's Pexecute in a UTF-8 locale: bytes that cannot start a
        // character are data that cannot match; the subject then starts
        // after them, and not at a line's beginning.
        let (mut base, mut bol) = (0, start == 0);
        let mut from = start;
        if self.utf8 {
            while from < line.len() && matches!(line[from], 0x80..=0xC1 | 0xF5..=0xFF) {
                from += 1;
                base = from;
                bol = false;
            }
        }
        let subject = &line[base..];
        let options = if bol { 0 } else { PCRE2_NOTBOL };
        let run = |options: u32| {
            // SAFETY: the subject is valid for its length, `from - base <=
            // len`, and the match data block belongs to this call alone.
            unsafe {
                pcre2_match_8(
                    self.code,
                    subject.as_ptr(),
                    subject.len(),
                    from - base,
                    options,
                    data.0,
                    std::ptr::null_mut(),
                )
            }
        };
        let mut rc = run(options);
        if rc == PCRE2_ERROR_JIT_STACKLIMIT {
            // grep grows the JIT stack until PCRE2's own limits stop the
            // match; the interpreter, which keeps its backtracking on the
            // heap, stops at the same limits.
            rc = run(options | PCRE2_NO_JIT);
        }
        let found = if rc > 0 {
            // SAFETY: after a successful match the ovector holds at least
            // one pair.
            let ov = unsafe { pcre2_get_ovector_pointer_8(data.0) };
            // SAFETY: as above: two readable entries.
            Some(unsafe { (base + *ov, base + *ov.add(1)) })
        } else {
            if rc != PCRE2_ERROR_NOMATCH {
                let why = match rc {
                    PCRE2_ERROR_MATCHLIMIT => "exceeded PCRE's backtracking limit".to_string(),
                    PCRE2_ERROR_DEPTHLIMIT => "exceeded PCRE's nested backtracking limit".into(),
                    PCRE2_ERROR_HEAPLIMIT => "exceeded PCRE's heap limit".into(),
                    PCRE2_ERROR_JIT_STACKLIMIT => "exhausted PCRE JIT stack".into(),
                    PCRE2_ERROR_NOMEMORY => "memory exhausted".into(),
                    e => format!("internal PCRE error: {e} ({})", error_message(e)),
                };
                if let Ok(mut f) = self.failed.lock() {
                    f.get_or_insert(why);
                }
            }
            None
        };
        if let Ok(mut v) = self.data.lock() {
            v.push(data);
        }
        found
    }

    /// Whether `line` holds a match.
    pub fn matches_line(&self, line: &[u8]) -> bool {
        self.find_at(line, 0).is_some()
    }

    /// What went wrong on some line since the last call, if anything.
    pub fn take_failure(&self) -> Option<String> {
        self.failed.lock().ok().and_then(|mut f| f.take())
    }
}
