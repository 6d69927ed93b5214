//! Writing that never panics: messages to stderr (a failure there is
//! ignored, as grep ignores it) and whole answers to stdout (a failure there
//! is grep's "write error" and exit status 2).

use std::fmt;
use std::io::{self, Write};

/// Write one message line to stderr; a failing stderr is ignored.
pub(crate) fn line(args: fmt::Arguments) {
    let mut e = io::stderr().lock();
    let _ = e.write_fmt(args).and_then(|_| e.write_all(b"\n"));
}

/// Write `text` to stderr as it is; a failing stderr is ignored.
pub(crate) fn text(text: &str) {
    let _ = io::stderr().lock().write_all(text.as_bytes());
}

/// Write `bytes` to stdout and flush: the exit status is 0, or 2 after
/// "write error" when stdout fails (a full disk). A closed pipe is quiet.
pub(crate) fn stdout(bytes: &[u8]) -> i32 {
    let mut o = io::stdout().lock();
    match o.write_all(bytes).and_then(|_| o.flush()) {
        Ok(()) => super::EXIT_SELECTED,
        Err(e) => write_failed(&e),
    }
}

/// The status for a failed write to stdout, after saying so unless the
/// pipe was closed.
pub(crate) fn write_failed(e: &io::Error) -> i32 {
    if e.kind() == io::ErrorKind::BrokenPipe {
        return super::EXIT_SELECTED;
    }
    line(format_args!(
        "grail: write error: {}",
        crate::error::io_text(e)
    ));
    super::EXIT_TROUBLE
}
