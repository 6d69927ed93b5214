//! The `grail` command: a thin shell over the library's command line.

fn main() {
    die_on_closed_pipe();
    let code = grail::run_cli(std::env::args_os().collect());
    std::process::exit(code);
}

/// Restore SIGPIPE's default action (Rust's runtime ignores it), so that a
/// write to a closed pipe ends grail as it ends grep: killed by the signal,
/// silently, exit status 141 under `set -o pipefail`.
fn die_on_closed_pipe() {
    // SAFETY: setting a signal's disposition to SIG_DFL installs no handler
    // code; it runs once, at program start, before any thread exists.
    unsafe { libc::signal(libc::SIGPIPE, libc::SIG_DFL) };
}
