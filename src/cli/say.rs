//! Writing that never panics: messages to stderr (a failure there is
//! ignored, as grep ignores it) and whole answers to stdout (a failure there
//! is grep's "write error" and exit status 2).

use std::fmt;
use std::io::{self, Write};
use std::sync::OnceLock;

/// The program's name as invoked (the last part of `argv[0]`).
static PROGRAM: OnceLock<String> = OnceLock::new();

/// Name messages after `argv0` as grep does: `grep: …` when grail is
/// installed (or linked) as `grep`.
pub(crate) fn set_program(argv0: Option<&std::ffi::OsStr>) {
    let name = argv0
        .and_then(|a| std::path::Path::new(a).file_name())
        .map(|n| n.to_string_lossy().into_owned())
        .filter(|n| !n.is_empty())
        .unwrap_or_else(|| "grail".into());
    let _ = PROGRAM.set(name);
}

/// `text` with grail's own name replaced by the name it was invoked as
/// (in message prefixes and grep's usage lines).
fn named(text: &str) -> std::borrow::Cow<'_, str> {
    match PROGRAM.get().map(String::as_str) {
        None | Some("grail") => text.into(),
        Some(p) => {
            let mut out = String::with_capacity(text.len());
            for l in text.split_inclusive('\n') {
                let l = match l.strip_prefix("grail:") {
                    Some(rest) => format!("{p}:{rest}"),
                    None => l
                        .replacen("Usage: grail ", &format!("Usage: {p} "), 1)
                        .replacen("Try 'grail --help'", &format!("Try '{p} --help'"), 1),
                };
                out.push_str(&l);
            }
            out.into()
        }
    }
}

/// Write one message line to stderr; a failing stderr is ignored.
pub(crate) fn line(args: fmt::Arguments) {
    let msg = named(&args.to_string()).into_owned();
    let mut e = io::stderr().lock();
    let _ = e.write_all(msg.as_bytes()).and_then(|_| e.write_all(b"\n"));
}

/// Write `text` to stderr as it is; a failing stderr is ignored.
pub(crate) fn text(text: &str) {
    let _ = io::stderr().lock().write_all(named(text).as_bytes());
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
