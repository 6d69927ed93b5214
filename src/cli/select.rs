//! Which files and directories a search reads: grep's `--include`,
//! `--exclude`, `--exclude-from` and `--exclude-dir`, with gnulib's
//! `exclude` semantics. Each option adds to two lists: one for command-line
//! operands (a pattern may match the whole name or any part after a `/`) and
//! one for names met while recursing (the entry's own name, anchored).
//! Patterns are kept in segments in option order; the last option that
//! matches decides, and a name no option matches is excluded only when the
//! first option was `--include`.

use super::fnmatch::{self, Pattern};

/// A run of options of one kind (include or exclude) and one form.
#[derive(Clone, Debug)]
enum Segment {
    /// Names without wildcards, compared as strings.
    Names { include: bool, names: Vec<Vec<u8>> },
    /// fnmatch patterns.
    Patterns { include: bool, pats: Vec<Pattern> },
}

impl Segment {
    fn include(&self) -> bool {
        match self {
            Segment::Names { include, .. } | Segment::Patterns { include, .. } => *include,
        }
    }
}

/// One of gnulib's exclude lists.
#[derive(Clone, Debug, Default)]
pub struct ExcludeList {
    /// Match the whole name only (names met while recursing).
    anchored: bool,
    segments: Vec<Segment>,
}

impl ExcludeList {
    fn new(anchored: bool) -> Self {
        ExcludeList {
            anchored,
            segments: Vec::new(),
        }
    }

    /// Add one pattern (gnulib's `add_exclude` with `EXCLUDE_WILDCARDS`).
    fn add(&mut self, pattern: &[u8], include: bool) {
        if fnmatch::has_wildcards(pattern) {
            let pat = Pattern::new(pattern);
            match self.segments.last_mut() {
                Some(Segment::Patterns { include: i, pats }) if *i == include => pats.push(pat),
                _ => self.segments.push(Segment::Patterns {
                    include,
                    pats: vec![pat],
                }),
            }
        } else {
            let name = fnmatch::unescape(pattern);
            match self.segments.last_mut() {
                Some(Segment::Names { include: i, names }) if *i == include => names.push(name),
                _ => self.segments.push(Segment::Names {
                    include,
                    names: vec![name],
                }),
            }
        }
    }

    /// Whether the list excludes `name` (gnulib's `excluded_file_name`).
    pub fn excludes(&self, name: &[u8]) -> bool {
        let Some(first) = self.segments.first() else {
            return false;
        };
        for seg in self.segments.iter().rev() {
            let hit = match seg {
                Segment::Names { names, .. } => self.names_match(names, name),
                Segment::Patterns { pats, .. } => {
                    pats.iter().any(|p| self.pattern_matches(p, name))
                }
            };
            if hit {
                return !seg.include();
            }
        }
        first.include()
    }

    /// `exclude_fnmatch`: the whole name, or (unanchored) what follows any
    /// `/` that is not followed by another.
    fn pattern_matches(&self, p: &Pattern, name: &[u8]) -> bool {
        p.matches(name)
            || (!self.anchored
                && (0..name.len()).any(|i| {
                    name[i] == b'/' && name.get(i + 1) != Some(&b'/') && p.matches(&name[i + 1..])
                }))
    }

    /// `file_name_matches`: the whole name, or (unanchored) what follows
    /// each `/` in turn.
    fn names_match(&self, names: &[Vec<u8>], name: &[u8]) -> bool {
        let mut f = name;
        loop {
            if names.iter().any(|n| n == f) {
                return true;
            }
            if self.anchored {
                return false;
            }
            match memchr::memchr(b'/', f) {
                Some(i) => f = &f[i + 1..],
                None => return false,
            }
        }
    }
}

/// The file-selection options, as grep keeps them: file patterns and
/// directory patterns, each for command-line operands and for names met
/// while recursing.
#[derive(Clone, Debug)]
pub struct Selection {
    files: [ExcludeList; 2],
    dirs: [ExcludeList; 2],
}

impl Default for Selection {
    fn default() -> Self {
        Selection {
            files: [ExcludeList::new(true), ExcludeList::new(false)],
            dirs: [ExcludeList::new(true), ExcludeList::new(false)],
        }
    }
}

impl Selection {
    /// `--include` (true) or `--exclude` (false).
    pub fn file_glob(&mut self, pattern: &[u8], include: bool) {
        self.files.iter_mut().for_each(|l| l.add(pattern, include));
    }

    /// `--exclude-from`: one exclude per line; trailing white space is
    /// dropped and empty lines are skipped (gnulib's `add_exclude_file`).
    pub fn exclude_from(&mut self, text: &[u8]) {
        for line in text.split(|&b| b == b'\n') {
            let end = line
                .iter()
                .rposition(|b| !(b.is_ascii_whitespace() || *b == 0x0b))
                .map_or(0, |i| i + 1);
            if end > 0 {
                self.file_glob(&line[..end], false);
            }
        }
    }

    /// `--exclude-dir` (trailing slashes dropped, as grep does).
    pub fn exclude_dir(&mut self, pattern: &[u8]) {
        let mut end = pattern.len();
        while end > 1 && pattern[end - 1] == b'/' {
            end -= 1;
        }
        self.dirs
            .iter_mut()
            .for_each(|l| l.add(&pattern[..end], false));
    }

    /// Whether a file or directory is skipped: `name` is the operand as
    /// given (`command_line`) or the entry's own name.
    pub fn skips(&self, name: &[u8], command_line: bool, is_dir: bool) -> bool {
        let lists = if is_dir { &self.dirs } else { &self.files };
        lists[command_line as usize].excludes(name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sel(opts: &[(&str, &str)]) -> Selection {
        let mut s = Selection::default();
        for (o, p) in opts {
            match *o {
                "include" => s.file_glob(p.as_bytes(), true),
                "exclude" => s.file_glob(p.as_bytes(), false),
                _ => s.exclude_dir(p.as_bytes()),
            }
        }
        s
    }

    #[test]
    fn last_matching_option_wins_and_first_include_excludes_the_rest() {
        let s = sel(&[("include", "*.log"), ("exclude", "a*")]);
        assert!(!s.skips(b"b.log", false, false));
        assert!(
            s.skips(b"a.log", false, false),
            "the later --exclude matches"
        );
        assert!(s.skips(b"b.txt", false, false), "first option --include");
        let s = sel(&[("exclude", "a*"), ("include", "*.log")]);
        assert!(
            !s.skips(b"a.log", false, false),
            "the later --include matches"
        );
        assert!(!s.skips(b"b.txt", false, false), "first option --exclude");
        assert!(s.skips(b"a.txt", false, false));
    }

    #[test]
    fn operands_match_after_any_slash_entries_only_whole() {
        let s = sel(&[("exclude", "a.log")]);
        assert!(s.skips(b"dir/a.log", true, false));
        assert!(!s.skips(b"dir/a.log", false, false));
        let s = sel(&[("exclude", "d?r")]);
        assert!(s.skips(b"x/dir", true, false));
        assert!(!s.skips(b"x/dir", false, false));
        let s = sel(&[("exclude-dir", "logs/")]);
        assert!(s.skips(b"logs", false, true));
        assert!(s.skips(b"a/logs", true, true));
        assert!(
            !s.skips(b"logs", false, false),
            "a file named like the directory"
        );
    }
}
