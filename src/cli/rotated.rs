//! `--rotated FILE`: the files logrotate leaves next to FILE, oldest first.
//!
//! * dateext siblings `FILE-YYYYMMDD[…][.gz|.zst|.xz|.bz2|.lz4]`, oldest
//!   date first (names of one length sort by date);
//! * numbered siblings `FILE.N[.gz|…]`, highest N first, down to `FILE.1`;
//! * then `FILE` itself (named even when missing and nothing else is
//!   there, so that its error is reported).

use std::ffi::{OsStr, OsString};
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

/// The extensions a rotated file may carry after its number or date.
const EXTENSIONS: [&[u8]; 5] = [b".gz", b".zst", b".xz", b".bz2", b".lz4"];

/// How one directory entry belongs to FILE's set.
#[derive(Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Member {
    /// `FILE-DATE…`: sorted by its suffix (length first, then bytes).
    Dated(usize, Vec<u8>),
    /// `FILE.N`: sorted highest N first.
    Numbered(std::cmp::Reverse<u64>),
}

/// FILE's logrotate set, oldest first, as paths spelt like FILE.
pub fn set(file: &OsStr) -> Vec<OsString> {
    let path = Path::new(file);
    let (Some(base), dir) = (path.file_name(), path.parent()) else {
        return vec![file.to_os_string()];
    };
    let listed = match dir {
        Some(d) if !d.as_os_str().is_empty() => std::fs::read_dir(d),
        _ => std::fs::read_dir("."),
    };
    let mut members: Vec<(Member, OsString)> = Vec::new();
    if let Ok(entries) = listed {
        for e in entries.flatten() {
            let name = e.file_name();
            if let Some(m) = member(base.as_bytes(), name.as_bytes()) {
                members.push((m, name));
            }
        }
    }
    members.sort();
    let spell = |name: &OsStr| -> OsString {
        match dir {
            Some(d) if !d.as_os_str().is_empty() => d.join(name).into_os_string(),
            _ => name.to_os_string(),
        }
    };
    let mut out: Vec<OsString> = members.iter().map(|(_, n)| spell(n)).collect();
    if path.exists() || out.is_empty() {
        out.push(file.to_os_string());
    }
    out
}

/// Whether `name` is a rotated sibling of `base`, and how it sorts.
fn member(base: &[u8], name: &[u8]) -> Option<Member> {
    let rest = name.strip_prefix(base)?;
    let rest = EXTENSIONS
        .iter()
        .find_map(|e| rest.strip_suffix(*e))
        .unwrap_or(rest);
    if let Some(n) = rest.strip_prefix(b".") {
        if !n.is_empty() && n.iter().all(u8::is_ascii_digit) && n[0] != b'0' {
            let v = std::str::from_utf8(n).ok()?.parse().ok()?;
            return Some(Member::Numbered(std::cmp::Reverse(v)));
        }
    }
    if let Some(d) = rest.strip_prefix(b"-") {
        // logrotate's dateformat starts with %Y%m%d; anything after it
        // (an hour, `-%s`) is part of the sort key.
        let date = d.get(..8)?;
        let plausible = date.iter().all(u8::is_ascii_digit)
            && (b"19".as_slice()..=b"29".as_slice()).contains(&&date[..2])
            && (b"01".as_slice()..=b"12".as_slice()).contains(&&date[4..6])
            && (b"01".as_slice()..=b"31".as_slice()).contains(&&date[6..8]);
        if plausible && d[8..].iter().all(|b| b.is_ascii_digit() || *b == b'-') {
            return Some(Member::Dated(d.len(), d.to_vec()));
        }
    }
    None
}

/// Every `--rotated` set, in order, as operands.
pub fn expand(sets: &[OsString]) -> Vec<OsString> {
    sets.iter().flat_map(|f| set(f)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn members_sort_oldest_first() {
        let b = b"app.log";
        assert!(member(b, b"app.log").is_none());
        assert!(member(b, b"app.log.0").is_none());
        assert!(member(b, b"app.logx").is_none());
        assert!(member(b, b"app.log-old").is_none());
        let mut v = vec![
            member(b, b"app.log.1").unwrap(),
            member(b, b"app.log.10.gz").unwrap(),
            member(b, b"app.log.2.zst").unwrap(),
            member(b, b"app.log-20261130").unwrap(),
            member(b, b"app.log-20261129.gz").unwrap(),
        ];
        v.sort();
        assert_eq!(
            v,
            vec![
                Member::Dated(8, b"20261129".to_vec()),
                Member::Dated(8, b"20261130".to_vec()),
                Member::Numbered(std::cmp::Reverse(10)),
                Member::Numbered(std::cmp::Reverse(2)),
                Member::Numbered(std::cmp::Reverse(1)),
            ]
        );
    }
}
