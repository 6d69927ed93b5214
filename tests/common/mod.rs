//! Fixtures shared by the integration tests.

use std::path::Path;

/// Small logs that exercise the edges: CRLF, no final newline, an empty
/// file, a NUL byte, an empty pattern file.
pub fn write_small_logs(d: &Path) {
    let files: [(&str, &[u8]); 7] = [
        (
            "v1",
            b"Error one\nINFO Error repo_utils\nWARN x\nError two FutureWarning\n\nError three\r\n",
        ),
        ("v2", b"ValueError a\nb\nRuntimeError c"),
        ("t1", b"x Error\r\ny error\nz\n"),
        ("t2", b"Error only\n"),
        ("empty", b""),
        ("nopats", b""),
        ("bin1", b"a Error\nb\nError c\0d\n"),
    ];
    for (name, data) in files {
        std::fs::write(d.join(name), data).unwrap();
    }
}
