//! Error text as grep words it.

/// An I/O error as grep words it: the system's message without Rust's
/// "(os error N)" suffix.
pub(crate) fn io_text(e: &std::io::Error) -> String {
    let s = e.to_string();
    match s.find(" (os error ") {
        Some(i) => s[..i].to_string(),
        None => s,
    }
}
