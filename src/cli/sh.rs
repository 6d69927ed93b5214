//! `--sh 'PIPELINE'`: run a pasted `[cat F |] grep … | grep -v … | tail -n N`
//! pipeline exactly as `bash -c` would, in one process.
//!
//! The string is split as bash splits it, and unquoted globs are expanded
//! as bash expands them ([`super::glob`]). grail refuses anything else whose
//! meaning depends on the shell beyond quoting (parameter and command
//! expansions, redirections, other commands) rather than run it differently. The common shape —
//! one grep reading files, then `grep -v` stages, then one `tail`/`head`, then
//! `wc -l` — becomes one query: excludes join the automaton and the tail is
//! answered from the end of the file. Every other accepted shape runs stage by
//! stage in memory, each stage with grail's grep-exact engine.

use super::args::{self, Args};
use super::driver::{run_args, Stdin};
use super::glob;
use super::{EXIT_SELECTED, EXIT_TROUBLE};
use crate::query::Syntax;
use crate::search::BinaryMode;
use std::ffi::OsString;
use std::io::Write;

/// Where the first grep reads from.
#[derive(Debug, Clone, PartialEq)]
pub enum Source {
    /// The grep's own file operands (or grail's stdin when it has none).
    Grep,
    /// `cat FILE... |` (no files: stdin).
    Cat(Vec<String>),
    /// `zcat FILE... |` and the other decompressors.
    Zcat(super::zcat::Zcat),
}

/// A line-window stage after the greps.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Post {
    /// `tail -n N`
    Last(u64),
    /// `tail -n +K`
    From(u64),
    /// `head -n N`
    First(u64),
    /// `head -n -K`
    AllBut(u64),
}

/// A parsed pipeline.
#[derive(Debug)]
pub struct Pipeline {
    /// Input of the first grep.
    pub source: Source,
    /// The grep stages' words (without the command name, `egrep`/`fgrep` mapped to flags).
    pub greps: Vec<Vec<String>>,
    /// Parsed grep stages.
    pub grep_args: Vec<Args>,
    /// The tail/head chain.
    pub post: Vec<Post>,
    /// A final `wc -l`.
    pub wc: bool,
}

/// Split `s` into pipeline stages of words, as bash would, refusing what
/// bash would expand or redirect.
pub fn split(s: &str) -> Result<Vec<Vec<String>>, String> {
    if glob::has_marker(s) {
        return Err("a private-use character U+E000..U+E003 (grail marks globs with them)".into());
    }
    let cwd = std::env::current_dir().map_err(|e| format!("the current directory: {e}"))?;
    let mut out = Vec::new();
    for seg in stages(s)? {
        let raw = shell_words::split(&seg)
            .map_err(|e| format!("cannot split '{}': {e}", glob::literal(seg.trim())))?;
        let mut words = Vec::with_capacity(raw.len());
        for w in raw {
            match glob::expand(&w, &cwd)? {
                Some(names) => words.extend(names),
                None => words.push(glob::literal(&w)),
            }
        }
        if words.is_empty() {
            return Err("an empty pipeline stage".into());
        }
        out.push(words);
    }
    Ok(out)
}

/// The pipeline's stages as written (quotes kept, unquoted glob characters
/// marked), refusing what bash would expand or run differently.
fn stages(s: &str) -> Result<Vec<String>, String> {
    let b = s.as_bytes();
    let mut segs: Vec<String> = Vec::new();
    let mut cur = String::new();
    let mut i = 0;
    let mut word_start = true;
    while let Some(c) = s[i..].chars().next() {
        if let Some(why) = refused(s, i, c, word_start) {
            return Err(why);
        }
        let next = match c {
            '\'' => {
                let end = s[i + 1..].find('\'').ok_or("unterminated single quote")?;
                i + end + 2
            }
            '"' => double_quoted_end(b, i)? + 1,
            '\\' => {
                let n = s[i + 1..].chars().next().ok_or("trailing backslash")?;
                if n == '\n' {
                    i += 2; // line continuation
                    continue;
                }
                i + 1 + n.len_utf8()
            }
            '|' => {
                segs.push(std::mem::take(&mut cur));
                i += 1;
                word_start = true;
                continue;
            }
            // Pathname expansion: marked here, expanded per word later.
            '*' | '?' | '[' | ']' => {
                cur.push(match c {
                    '*' => glob::STAR,
                    '?' => glob::QUESTION,
                    '[' => glob::OPEN,
                    _ => glob::CLOSE,
                });
                i += 1;
                word_start = false;
                continue;
            }
            _ => i + c.len_utf8(),
        };
        cur.push_str(&s[i..next]);
        word_start = c == ' ' || c == '\t';
        i = next;
    }
    segs.push(cur);
    Ok(segs)
}

/// Why bash would read the character `c` at `s[i]` other than as a plain
/// character of a word (`None`: it is one, or a quote grail follows).
fn refused(s: &str, i: usize, c: char, word_start: bool) -> Option<String> {
    let next = s.as_bytes().get(i + 1).copied();
    Some(match c {
        '|' if next == Some(b'|') => "'||' (only simple pipelines are run)".into(),
        '|' if next == Some(b'&') => "'|&' (stderr into the pipe)".into(),
        '\n' => "a newline (several commands)".into(),
        ';' | '&' => format!("'{c}' (command lists and background jobs)"),
        '<' | '>' => format!("'{c}' (redirections)"),
        '(' | ')' => format!("'{c}' (subshells)"),
        '$' => "'$' (shell expansion)".into(),
        '`' => "'`' (command substitution)".into(),
        '~' if word_start => "'~' (tilde expansion)".into(),
        '#' if word_start => "'#' (a comment)".into(),
        '{' => {
            let rest = &s[i..];
            let inner = &rest[..rest.find('}').unwrap_or(rest.len())];
            if !(inner.contains(',') || inner.contains("..")) {
                return None;
            }
            "unquoted '{…}' (brace expansion)".into()
        }
        _ => return None,
    })
}

/// Where the double-quoted string opening at `b[i]` closes.
fn double_quoted_end(b: &[u8], i: usize) -> Result<usize, String> {
    let mut j = i + 1;
    loop {
        match b.get(j) {
            None => return Err("unterminated double quote".into()),
            Some(b'\\') => j += 2,
            Some(b'"') => return Ok(j),
            Some(b'$') => return Err("'$' inside double quotes (shell expansion)".into()),
            Some(b'`') => return Err("'`' inside double quotes (command substitution)".into()),
            Some(_) => j += 1,
        }
    }
}

fn count_arg(cmd: &str, v: &str, allow_sign: bool) -> Result<(char, u64), String> {
    let (sign, digits) = match v.as_bytes().first() {
        Some(b'+') if allow_sign && cmd == "tail" => ('+', &v[1..]),
        Some(b'-') if allow_sign && cmd == "head" => ('-', &v[1..]),
        _ => (' ', v),
    };
    if digits.is_empty() || !digits.bytes().all(|c| c.is_ascii_digit()) {
        return Err(format!("'{cmd}' count '{v}' (only plain numbers are run)"));
    }
    let n = digits.parse::<u64>().unwrap_or(u64::MAX);
    Ok((sign, n))
}

fn parse_window(words: &[String]) -> Result<Post, String> {
    let cmd = words[0].as_str();
    let mut n: Option<(char, u64)> = None;
    let mut i = 1;
    while i < words.len() {
        let w = words[i].as_str();
        if w == "-n" || w == "--lines" {
            let v = words
                .get(i + 1)
                .ok_or(format!("'{cmd} {w}' needs a count"))?;
            n = Some(count_arg(cmd, v, true)?);
            i += 2;
        } else if let Some(v) = w.strip_prefix("--lines=") {
            n = Some(count_arg(cmd, v, true)?);
            i += 1;
        } else if let Some(v) = w.strip_prefix("-n") {
            n = Some(count_arg(cmd, v, true)?);
            i += 1;
        } else if w.len() > 1 && w.starts_with('-') && w[1..].bytes().all(|c| c.is_ascii_digit()) {
            n = Some((' ', w[1..].parse::<u64>().unwrap_or(u64::MAX)));
            i += 1;
        } else {
            return Err(format!(
                "'{cmd} {w}' (only '{cmd} -n N' and '{cmd} -N' are run)"
            ));
        }
    }
    let (sign, k) = n.unwrap_or((' ', 10));
    Ok(match (cmd, sign) {
        ("tail", '+') => Post::From(k),
        ("tail", _) => Post::Last(k),
        ("head", '-') => Post::AllBut(k),
        _ => Post::First(k),
    })
}

fn parse_grep(words: &[String]) -> Result<(Vec<String>, Args), String> {
    let mut argv: Vec<String> = Vec::new();
    match words[0].as_str() {
        "egrep" | "zegrep" => argv.push("-E".into()),
        "fgrep" | "zfgrep" => argv.push("-F".into()),
        _ => {}
    }
    argv.extend(words[1..].iter().cloned());
    let mut a = args::parse(argv.iter().map(OsString::from).collect())
        .map_err(|e| format!("'{}': {}", words.join(" "), e.0))?;
    // grep reads compressed bytes as they are; zgrep decompresses gzip
    // (it runs `gzip -cdfq`, which passes other files through).
    let zgrep = words[0].starts_with('z');
    a.no_decompress = !zgrep;
    a.gzip_only = zgrep;
    if zgrep {
        let recurse = a.walk.directories == super::walk::Directories::Recurse;
        if recurse || a.files.is_empty() || a.files.iter().any(|f| f == "-") || a.initial_tab {
            return Err(format!(
                "'{}' (zgrep is run on named files, without -r or -T)",
                words.join(" ")
            ));
        }
    }
    let grail_only = !a.excludes.is_empty()
        || a.tail.is_some()
        || a.head.is_some()
        || a.sh.is_some()
        || a.explain
        || a.sh_fallback
        || a.threads.is_some()
        || a.chunk_size.is_some()
        || a.help
        || a.version
        || a.json
        || a.stats
        || a.since.is_some()
        || a.before_time.is_some()
        || a.time_format.is_some()
        || a.from_byte.is_some()
        || a.follow
        || a.timeout.is_some();
    if grail_only {
        return Err(format!(
            "'{}': an option that grep does not have (or --help/--version)",
            words.join(" ")
        ));
    }
    Ok((argv, a))
}

/// Parse a pipeline string into a plan, or say which part cannot be run exactly.
pub fn pipeline(s: &str) -> Result<Pipeline, String> {
    let stages = split(s)?;
    let mut it = stages.into_iter().peekable();
    let mut source = Source::Grep;
    if it.peek().is_some_and(|w| w[0] == "cat") {
        let w = it.next().unwrap();
        if w[1..].iter().any(|a| a.starts_with('-') && a != "-") {
            return Err(format!("'{}' (cat options are not run)", w.join(" ")));
        }
        source = Source::Cat(w[1..].to_vec());
    } else if let Some(z) = it.peek().and_then(|w| super::zcat::parse(w)) {
        it.next();
        source = Source::Zcat(z?);
    }
    let mut greps = Vec::new();
    let mut grep_args = Vec::new();
    while it.peek().is_some_and(|w| {
        matches!(w[0].as_str(), "grep" | "egrep" | "fgrep")
            || (greps.is_empty()
                && source == Source::Grep
                && matches!(w[0].as_str(), "zgrep" | "zegrep" | "zfgrep"))
    }) {
        let (argv, a) = parse_grep(&it.next().unwrap())?;
        let recurse = a.walk.directories == super::walk::Directories::Recurse;
        if (!greps.is_empty() || source != Source::Grep) && recurse {
            return Err(
                "grep -r reading a pipe (with no file operand it searches the working directory)"
                    .into(),
            );
        }
        if !greps.is_empty() && !a.files.is_empty() {
            return Err("a later grep stage with file operands (it would ignore the pipe)".into());
        }
        if (!greps.is_empty() || source != Source::Grep) && !a.files.is_empty() {
            return Err("grep with file operands after 'cat |' (it would ignore the pipe)".into());
        }
        greps.push(argv);
        grep_args.push(a);
    }
    if greps.is_empty() {
        return Err(match it.peek() {
            Some(w) => format!(
                "the command '{}' where grep must come (only cat, grep, zcat and the like, zgrep, tail, \
                 head and wc -l are run)",
                w[0]
            ),
            None => "a pipeline without grep (it must start with grep or 'cat FILE | grep')".into(),
        });
    }
    let mut post = Vec::new();
    let mut wc = false;
    for w in it {
        if wc {
            return Err(format!("'{}' after 'wc -l'", w.join(" ")));
        }
        match w[0].as_str() {
            "tail" | "head" => post.push(parse_window(&w)?),
            "wc" if w.len() == 2 && (w[1] == "-l" || w[1] == "--lines") => wc = true,
            "wc" => return Err(format!("'{}' (only 'wc -l' is run)", w.join(" "))),
            "grep" | "egrep" | "fgrep" => {
                return Err(
                    "a grep stage after tail/head (only greps, then tail/head, then wc -l)".into(),
                )
            }
            other => {
                return Err(format!(
                    "the command '{other}' (only cat, grep, tail, head and wc -l are run)"
                ))
            }
        }
    }
    let stages = greps.len() + post.len() + wc as usize;
    if grep_args.iter().any(|a| a.null_data) && stages > 1 {
        return Err(
            "grep -z in a pipeline (the next stage reads its NUL-terminated records as lines)"
                .into(),
        );
    }
    Ok(Pipeline {
        source,
        greps,
        grep_args,
        post,
        wc,
    })
}

/// Whether stage `a` prints anything other than the selected lines themselves.
fn plain_output(a: &Args) -> bool {
    !(a.line_number
        || a.byte_offset
        || a.with_filename == Some(true)
        || ((a.files.len() > 1 || a.walk.directories == super::walk::Directories::Recurse)
            && a.with_filename != Some(false))
        || a.count
        || a.files_with_matches
        || a.files_without_match
        || a.quiet
        || a.only_matching
        || a.null
        || a.null_data
        || a.initial_tab)
}

/// A later stage that is a pure `grep -v PATTERNS` (no output options).
fn pure_exclude(a: &Args) -> bool {
    a.invert
        && plain_output(a)
        && a.max_count.is_none()
        && matches!(a.binary, BinaryMode::Log | BinaryMode::Grep)
        && !a.line_buffered
}

/// The single-pass form of the plan, if it has one: stage 1's arguments with
/// the later stages as excludes and the window as --tail/--head.
fn fuse(p: &Pipeline) -> Option<Args> {
    let first = &p.grep_args[0];
    // Context and colour change the bytes later stages and tail see: those
    // pipelines run stage by stage.
    if p.grep_args
        .iter()
        .any(|a| a.context().is_some() || a.color != args::ColorWhen::Never)
    {
        return None;
    }
    let later = &p.grep_args[1..];
    if !later.is_empty() {
        if !plain_output(first) || first.max_count.is_some() || first.binary == BinaryMode::Text {
            return None;
        }
        // Under the log rule the first stage decides whether the file is
        // binary, and the later stages read its output as text; a later
        // `--binary-files=binary` stage would see NULs in a pipe.
        let same_rule = |a: &Args| a.binary == BinaryMode::Log || first.binary == BinaryMode::Grep;
        if !later.iter().all(|a| pure_exclude(a) && same_rule(a)) {
            return None;
        }
    }
    let (tail, head) = match p.post.as_slice() {
        [] => (None, None),
        [Post::Last(n)] => (Some(*n), None),
        [Post::First(n)] => (None, Some(*n)),
        [Post::First(h), Post::Last(t)] => (Some(*t), Some(*h)),
        _ => return None,
    };
    let mut a = args::parse(p.greps[0].iter().map(OsString::from).collect()).ok()?;
    a.no_decompress = first.no_decompress;
    a.gzip_only = first.gzip_only;
    // One file or standard input: what the first grep reads is one input.
    if let Source::Cat(files) = &p.source {
        if files.len() > 1 || files.first().is_some_and(|f| f == "-") {
            return None;
        }
    }
    for s in later {
        let syn = s.syntax.unwrap_or(Syntax::Basic);
        for pat in &s.patterns {
            a.stage_excludes
                .push((syn, [s.ignore_case, s.word, s.line], pat.clone()));
        }
        if s.patterns.is_empty() {
            // `grep -v -f /dev/null` selects every line: nothing to exclude.
        }
    }
    a.tail = tail;
    a.head = head;
    Some(a)
}

fn apply_window(data: Vec<u8>, w: Post) -> Vec<u8> {
    let lines: Vec<&[u8]> = data.split_inclusive(|&b| b == b'\n').collect();
    let n = lines.len() as u64;
    let (a, b) = match w {
        Post::Last(k) => (n.saturating_sub(k), n),
        Post::From(k) => (k.saturating_sub(1).min(n), n),
        Post::First(k) => (0, k.min(n)),
        Post::AllBut(k) => (0, n.saturating_sub(k)),
    };
    lines[a as usize..b as usize].concat()
}

/// The plan in words (`--explain`).
pub fn explain(p: &Pipeline) -> String {
    let mut s = String::new();
    let fused = fuse(p);
    s.push_str(&format!(
        "input: {}\n",
        match &p.source {
            Source::Grep if p.grep_args[0].files.is_empty() => "standard input".to_string(),
            Source::Grep => format!("files {:?}", p.grep_args[0].files),
            Source::Cat(f) => format!(
                "cat {:?} (read as a pipe: a NUL byte is refused unless grep -a)",
                f
            ),
            Source::Zcat(z) => format!(
                "{} {:?}: {} text, decompressed in-process{} (read as a pipe: a NUL byte is \
                 refused unless grep -a)",
                z.tool,
                z.files,
                z.format.name(),
                if z.force {
                    ", other files passed through"
                } else {
                    ""
                }
            ),
        }
    ));
    for (i, (w, a)) in p.greps.iter().zip(&p.grep_args).enumerate() {
        let syn = match a.syntax.unwrap_or(Syntax::Basic) {
            Syntax::Basic => "BRE",
            Syntax::Extended => "ERE",
            Syntax::Fixed => "fixed",
            Syntax::Perl => "PCRE",
        };
        let role = if i == 0 {
            if a.invert {
                "include (inverted)"
            } else {
                "include"
            }
        } else if a.invert {
            "exclude"
        } else {
            "also require"
        };
        let pats: Vec<String> = a
            .patterns
            .iter()
            .map(|p| String::from_utf8_lossy(p).into_owned())
            .collect();
        s.push_str(&format!(
            "stage {}: grep {} -> {} {} {:?}{}{}{}; output {}\n",
            i + 1,
            w.join(" "),
            role,
            syn,
            pats,
            if a.ignore_case { " -i" } else { "" },
            if a.word { " -w" } else { "" },
            if a.line { " -x" } else { "" },
            if plain_output(a) {
                "plain lines"
            } else {
                "with prefixes/counts (later stages see them)"
            },
        ));
    }
    for w in &p.post {
        s.push_str(&format!("window: {w:?}\n"));
    }
    if p.wc {
        s.push_str("count: wc -l\n");
    }
    match fused {
        Some(a) => {
            s.push_str("execution: one pass; includes and excludes in one query");
            match (a.tail, a.head) {
                (Some(t), None) => s.push_str(&format!(
                    ", last {t} lines found scanning backwards from the end\n"
                )),
                (None, Some(h)) => s.push_str(&format!(", forwards, stopping after {h} lines\n")),
                (Some(t), Some(h)) => {
                    s.push_str(&format!(", forwards, first {h} then their last {t}\n"))
                }
                (None, None) => s.push_str(", forwards in parallel chunks\n"),
            }
        }
        None => s.push_str(
            "execution: stage by stage in memory (prefixes, counts or windows that need it)\n",
        ),
    }
    s
}

/// Count lines written through it (for `| wc -l` without keeping output).
struct LineCounter(u64);

impl Write for LineCounter {
    fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
        self.0 += memchr::memchr_iter(b'\n', b).count() as u64;
        Ok(b.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

fn stdin_for(p: &Pipeline, failed: &std::sync::Arc<std::sync::atomic::AtomicBool>) -> Stdin {
    match &p.source {
        Source::Zcat(z) => {
            let r = super::zcat::NulGuard {
                inner: super::zcat::Chain::new(z.clone(), failed.clone()),
                pos: 0,
                limit: super::driver::pipe_nul_limit(p.grep_args[0].binary),
            };
            Stdin::Reader(std::sync::Mutex::new(Some(Box::new(r))))
        }
        Source::Grep => Stdin::Real,
        Source::Cat(files) if files.is_empty() => Stdin::Real,
        Source::Cat(files) if files.len() == 1 && files[0] != "-" => {
            Stdin::File(files[0].clone().into())
        }
        Source::Cat(files) => {
            let mut all = Vec::new();
            for f in files {
                let r = if f == "-" {
                    let mut v = Vec::new();
                    std::io::Read::read_to_end(&mut std::io::stdin(), &mut v).map(|_| v)
                } else {
                    std::fs::read(f)
                };
                match r {
                    Ok(v) => all.extend_from_slice(&v),
                    Err(e) => say!("cat: {f}: {}", crate::error::io_text(&e)),
                }
            }
            Stdin::Bytes(all)
        }
    }
}

/// Run `--sh LINE`; `outer` carries grail's own options (--explain, --sh-fallback, --threads).
pub fn run(line: &OsString, outer: &Args) -> i32 {
    let Some(s) = line.to_str() else {
        say!("grail: --sh: the pipeline is not valid UTF-8");
        return EXIT_TROUBLE;
    };
    let p = match pipeline(s) {
        Ok(p) => p,
        Err(why) => {
            if outer.sh_fallback {
                return fallback(s);
            }
            say!("grail: --sh: cannot run exactly: {why}");
            return EXIT_TROUBLE;
        }
    };
    if outer.explain {
        return super::say::stdout(explain(&p).as_bytes());
    }
    let failed = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let stdin = stdin_for(&p, &failed);
    let status = run_pipeline(&p, &stdin);
    if failed.load(std::sync::atomic::Ordering::Acquire) {
        return EXIT_TROUBLE;
    }
    status
}

/// Run the parsed pipeline `p` reading `stdin`; its exit status.
fn run_pipeline(p: &Pipeline, stdin: &Stdin) -> i32 {
    let stdout = std::io::stdout();
    let mut lock = stdout.lock();
    if let Some(a) = fuse(p) {
        let later = p.grep_args.len() > 1;
        if p.wc {
            let mut c = LineCounter(0);
            run_args(&a, &Default::default(), stdin, &mut c);
            if let Err(e) = writeln!(lock, "{}", c.0).and_then(|_| lock.flush()) {
                return super::say::write_failed(&e);
            }
            return EXIT_SELECTED;
        }
        let r = run_args(&a, &Default::default(), stdin, &mut lock);
        if !p.post.is_empty() {
            return EXIT_SELECTED;
        }
        if later {
            // The last `grep -v` only knows whether it printed something.
            return if r.selected {
                EXIT_SELECTED
            } else {
                super::EXIT_NONE
            };
        }
        return r.status;
    }
    // Stage by stage.
    let mut data = Vec::new();
    let mut status = 0;
    let last = p.grep_args.len() - 1;
    let to_tty = p.post.is_empty() && !p.wc && std::io::IsTerminal::is_terminal(&std::io::stdout());
    for (i, a) in p.grep_args.iter().enumerate() {
        // `--color=auto` colours only what reaches the terminal.
        let mut a = a.clone();
        if a.color == args::ColorWhen::Auto {
            a.color = if i == last && to_tty && super::plan::term_ok() {
                args::ColorWhen::Always
            } else {
                args::ColorWhen::Never
            };
        }
        let input = if i == 0 {
            stdin_for_stage0(stdin)
        } else {
            Stdin::Bytes(std::mem::take(&mut data))
        };
        if i > 0 && a.binary.is_log() {
            // The log rule: what the first stage printed is text.
            a.binary = BinaryMode::Text;
        }
        let a = &a;
        if i > 0 && a.binary == BinaryMode::Grep {
            if let Stdin::Bytes(b) = &input {
                if memchr::memchr(0, b).is_some() {
                    say!(
                        "grail: --sh: stage {} would read NUL bytes from a pipe, where grep's output depends \
                         on pipe timing; add -a to that grep",
                        i + 1
                    );
                    return EXIT_TROUBLE;
                }
            }
        }
        let mut out = Vec::new();
        status = run_args(a, &Default::default(), &input, &mut out).status;
        data = out;
    }
    for w in &p.post {
        data = apply_window(data, *w);
        status = EXIT_SELECTED;
    }
    if p.wc {
        let n = memchr::memchr_iter(b'\n', &data).count();
        data = format!("{n}\n").into_bytes();
        status = EXIT_SELECTED;
    }
    let _ = lock.write_all(&data);
    let _ = lock.flush();
    status
}

fn stdin_for_stage0(s: &Stdin) -> Stdin {
    match s {
        Stdin::Real => Stdin::Real,
        Stdin::Bytes(b) => Stdin::Bytes(b.clone()),
        Stdin::File(p) => Stdin::File(p.clone()),
        // Read once: stage 0 is its only reader.
        Stdin::Reader(m) => Stdin::Reader(std::sync::Mutex::new(
            m.lock().ok().and_then(|mut r| r.take()),
        )),
    }
}

fn fallback(s: &str) -> i32 {
    match std::process::Command::new("bash").arg("-c").arg(s).status() {
        Ok(st) => st.code().unwrap_or(EXIT_TROUBLE),
        Err(e) => {
            say!(
                "grail: --sh-fallback: cannot run bash: {}",
                crate::error::io_text(&e)
            );
            EXIT_TROUBLE
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_like_bash() {
        let st = split(r#"grep -E 'a|b' f.log | grep -v "x\|y" | tail -10"#).unwrap();
        assert_eq!(st[0], vec!["grep", "-E", "a|b", "f.log"]);
        assert_eq!(st[1], vec!["grep", "-v", r"x\|y"]);
        assert_eq!(st[2], vec!["tail", "-10"]);
    }

    #[test]
    fn keeps_utf8_words_whole() {
        let st = split("grep -E 'café|naïve' f.log | grep -v Ünïcode").unwrap();
        assert_eq!(st[0], vec!["grep", "-E", "café|naïve", "f.log"]);
        assert_eq!(st[1], vec!["grep", "-v", "Ünïcode"]);
    }

    #[test]
    fn globs_that_match_nothing_stay_as_written() {
        let st = split("grep 'x*' no*such*file [z-a] a]b").unwrap();
        assert_eq!(st[0], vec!["grep", "x*", "no*such*file", "[z-a]", "a]b"]);
    }

    #[test]
    fn refuses_what_bash_would_expand() {
        for bad in [
            "grep x $HOME",
            "grep x f > out",
            "grep x f; ls",
            "grep x `f`",
            "grep x f || true",
        ] {
            assert!(split(bad).is_err(), "{bad}");
        }
    }
}
