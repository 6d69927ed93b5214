//! The scenarios, the contenders, and timing one scenario side by side.

use crate::*;
use std::path::{Path, PathBuf};

/// The scenarios `--plot` draws: every tail.
pub(crate) const PLOT_SCENARIOS: [&str; 3] = ["t10", "t10a", "t1000"];

/// Include of the seed query (ERE) and its exclude (BRE).
pub(crate) const INC: &str = "RuntimeError|ValueError|Error|not supported|incompatible";
pub(crate) const EXC: &str = r"repo_utils\|gpt_oss_triton\|FutureWarning";
/// The same exclude in ripgrep's syntax.
pub(crate) const EXC_RG: &str = "repo_utils|gpt_oss_triton|FutureWarning";
pub(crate) const LITERAL_FREE: &str = "[0-9]{4}ms";

/// 60 Python, CUDA and NCCL exception names (`-F -f`; `@NAMES@` in a
/// scenario is the file holding them, one per line, written beside the log).
pub(crate) const NAMES: [&str; 60] = [
    "RuntimeError",
    "ValueError",
    "TypeError",
    "KeyError",
    "IndexError",
    "AttributeError",
    "AssertionError",
    "ImportError",
    "ModuleNotFoundError",
    "NotImplementedError",
    "OSError",
    "FileNotFoundError",
    "PermissionError",
    "TimeoutError",
    "ConnectionError",
    "ConnectionResetError",
    "BrokenPipeError",
    "MemoryError",
    "OverflowError",
    "RecursionError",
    "ZeroDivisionError",
    "StopIteration",
    "KeyboardInterrupt",
    "SystemExit",
    "UnicodeDecodeError",
    "UnicodeEncodeError",
    "JSONDecodeError",
    "OutOfMemoryError",
    "CUDA error",
    "cudaErrorIllegalAddress",
    "cudaErrorLaunchFailure",
    "CUBLAS_STATUS_EXECUTION_FAILED",
    "CUDNN_STATUS_INTERNAL_ERROR",
    "NCCLError",
    "ncclInternalError",
    "ncclSystemError",
    "ncclUnhandledCudaError",
    "DistBackendError",
    "ProcessGroupNCCL",
    "ChildFailedError",
    "EngineDeadError",
    "AsyncEngineDeadError",
    "EngineGenerateError",
    "SchedulerError",
    "RayTaskError",
    "RayActorError",
    "ActorDiedError",
    "ObjectLostError",
    "OutOfDiskError",
    "NodeDiedError",
    "WorkerCrashedError",
    "TokenizerError",
    "SafetensorError",
    "HFValidationError",
    "RepositoryNotFoundError",
    "GatedRepoError",
    "EntryNotFoundError",
    "LocalEntryNotFoundError",
    "HTTPError",
    "ReadTimeoutError",
];

#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Contender {
    Grail,
    /// `--baseline`: an earlier grail binary.
    Baseline,
    Gnu,
    Rg,
    Tac,
    /// `tail -c BYTES` for the bytes grail read: the physical limit.
    Limit,
}

pub(crate) const CONTENDERS: [Contender; 6] = [
    Contender::Grail,
    Contender::Baseline,
    Contender::Gnu,
    Contender::Rg,
    Contender::Tac,
    Contender::Limit,
];

impl Contender {
    pub(crate) fn name(self) -> &'static str {
        match self {
            Contender::Grail => "grail",
            Contender::Baseline => "grail --baseline",
            Contender::Gnu => "GNU grep pipeline",
            Contender::Rg => "ripgrep pipeline",
            Contender::Tac => "tac|grep|grep -v|head|tac",
            Contender::Limit => "limit: tail -c BYTES",
        }
    }
    pub(crate) fn key(self) -> &'static str {
        match self {
            Contender::Grail => "grail",
            Contender::Baseline => "baseline",
            Contender::Gnu => "gnu",
            Contender::Rg => "rg",
            Contender::Tac => "tac",
            Contender::Limit => "limit",
        }
    }
}

/// How one contender runs a scenario: a grail argument list (the file is
/// appended) or a bash script reading the file as `$1`; or why it does not.
pub(crate) enum Cmd {
    Grail(Vec<String>),
    Baseline(Vec<String>),
    Sh(String),
    Skip(&'static str),
}

pub(crate) struct Scenario {
    pub(crate) key: &'static str,
    pub(crate) label: &'static str,
    pub(crate) grail: Vec<String>,
    pub(crate) gnu: String,
    pub(crate) rg: String,
    pub(crate) tac: Option<String>,
    /// What the contenders read, made from the generated log.
    pub(crate) prep: Prep,
}

/// The input of a scenario, made from the generated log.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Prep {
    /// The log itself.
    Plain,
    /// A tree of small logs cut from the file ([`TREE_PIECE`] bytes each);
    /// outputs are compared as sets of lines (ripgrep prints files in the
    /// order its threads finish them).
    Tree,
    /// The log as `gzip -1` made it.
    Gzip,
    /// The log as `zstd` (level 3) made it.
    Zstd,
    /// A logrotate set: the log, then two older gzip files (`$1` is the
    /// newest, `app.log`).
    Rotated,
    /// Eight rank logs of an eighth of `--size` each, stamped at line
    /// start (`$1` is their directory).
    Ranks,
}

/// The size of each log in the tree scenarios.
pub(crate) const TREE_PIECE: usize = 16 << 10;

pub(crate) fn q(s: &str) -> String {
    shell_words::quote(s).into_owned()
}

pub(crate) fn scenarios() -> Vec<Scenario> {
    let strs = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    let tail = |key, label, n: u32, icase: bool| {
        let i = if icase { "-i" } else { "" };
        let gi = if icase { "i" } else { "" };
        let mut g = vec![];
        if icase {
            g.push("-i");
        }
        let n_s = n.to_string();
        g.extend(["-E", INC, "--not-G", EXC, "-t", &n_s]);
        Scenario {
            key,
            label,
            grail: strs(&g),
            gnu: format!(
                "grep -{gi}E {} \"$1\" | grep -{gi}v {} | tail -n {n}",
                q(INC),
                q(EXC)
            ),
            rg: format!(
                "rg --no-config {i} {} \"$1\" | rg --no-config {i} -v {} | tail -n {n}",
                q(INC),
                q(EXC_RG)
            ),
            tac: Some(format!(
                "tac \"$1\" | grep -{gi}E {} | grep -{gi}v {} | head -n {n} | tac",
                q(INC),
                q(EXC)
            )),
            prep: Prep::Plain,
        }
    };
    // `-a`: no check of grep's first read (96 KiB); otherwise the same
    // work as the default on these NUL-free logs.
    let mut t10a = tail("t10a", "-a -t 10", 10, false);
    t10a.grail.insert(0, "-a".to_string());
    vec![
        tail("t10", "-t 10", 10, false),
        t10a,
        tail("t1000", "-t 1000", 1000, false),
        Scenario {
            key: "count",
            label: "-c",
            grail: strs(&["-c", "-E", INC, "--not-G", EXC]),
            gnu: format!("grep -E {} \"$1\" | grep -vc {}", q(INC), q(EXC)),
            rg: format!(
                "rg --no-config {} \"$1\" | rg --no-config -v {} | wc -l",
                q(INC),
                q(EXC_RG)
            ),
            tac: None,
            prep: Prep::Plain,
        },
        Scenario {
            key: "names60",
            label: "-c -F -f 60 names",
            grail: strs(&["-c", "-F", "-f", "@NAMES@"]),
            gnu: "grep -c -F -f @NAMES@ \"$1\"".into(),
            rg: "rg --no-config -c -F -f @NAMES@ \"$1\"".into(),
            tac: None,
            prep: Prep::Plain,
        },
        Scenario {
            key: "count-i",
            label: "-c -i",
            grail: strs(&["-c", "-i", "-E", INC, "--not-G", EXC]),
            gnu: format!("grep -iE {} \"$1\" | grep -ivc {}", q(INC), q(EXC)),
            rg: format!(
                "rg --no-config -i {} \"$1\" | rg --no-config -i -v {} | wc -l",
                q(INC),
                q(EXC_RG)
            ),
            tac: None,
            prep: Prep::Plain,
        },
        Scenario {
            key: "full",
            label: "all lines",
            grail: strs(&["-E", INC, "--not-G", EXC]),
            gnu: format!("grep -E {} \"$1\" | grep -v {}", q(INC), q(EXC)),
            rg: format!(
                "rg --no-config {} \"$1\" | rg --no-config -v {}",
                q(INC),
                q(EXC_RG)
            ),
            tac: None,
            prep: Prep::Plain,
        },
        tail("icase", "-i -t 10", 10, true),
        Scenario {
            key: "regex",
            label: "-c [0-9]{4}ms",
            grail: strs(&["-c", "-E", LITERAL_FREE, "--not-G", EXC]),
            gnu: format!("grep -E {} \"$1\" | grep -vc {}", q(LITERAL_FREE), q(EXC)),
            rg: format!(
                "rg --no-config {} \"$1\" | rg --no-config -v {} | wc -l",
                q(LITERAL_FREE),
                q(EXC_RG)
            ),
            tac: None,
            prep: Prep::Plain,
        },
        Scenario {
            key: "since",
            label: "--since (last 1%)",
            grail: strs(&["-E", INC, "--not-G", EXC, "--since", "@SINCE@"]),
            gnu: format!(
                "sed -n '/@SINCE@/,$p' \"$1\" | grep -E {} | grep -v {}",
                q(INC),
                q(EXC)
            ),
            rg: format!(
                "sed -n '/@SINCE@/,$p' \"$1\" | rg --no-config {} | rg --no-config -v {}",
                q(INC),
                q(EXC_RG)
            ),
            tac: None,
            prep: Prep::Plain,
        },
        Scenario {
            key: "n-t10",
            label: "-n -t 10",
            grail: strs(&["-n", "-E", INC, "--not-G", EXC, "-t", "10"]),
            gnu: format!(
                "grep -nE {} \"$1\" | grep -v {} | tail -n 10",
                q(INC),
                q(EXC)
            ),
            rg: format!(
                "rg --no-config -n {} \"$1\" | rg --no-config -v {} | tail -n 10",
                q(INC),
                q(EXC_RG)
            ),
            tac: None,
            prep: Prep::Plain,
        },
        Scenario {
            key: "gz-c",
            label: "-c, gzip -1 file",
            grail: strs(&["-c", "-E", INC]),
            gnu: format!("zcat \"$1\" | grep -c -E {}", q(INC)),
            rg: format!("rg --no-config -z -c {} \"$1\"", q(INC)),
            tac: None,
            prep: Prep::Gzip,
        },
        Scenario {
            key: "zst-c",
            label: "-c, zstd file",
            grail: strs(&["-c", "-E", INC]),
            gnu: format!("zstdcat \"$1\" | grep -c -E {}", q(INC)),
            rg: format!("rg --no-config -z -c {} \"$1\"", q(INC)),
            tac: None,
            prep: Prep::Zstd,
        },
        Scenario {
            key: "rot-t10",
            label: "--rotated -t 10",
            grail: strs(&["-h", "-E", INC, "--not-G", EXC, "-t", "10", "--rotated"]),
            gnu: format!(
                "zcat -f \"$1\".2.gz \"$1\".1.gz \"$1\" | grep -E {} | grep -v {} | tail -n 10",
                q(INC),
                q(EXC)
            ),
            rg: format!(
                "zcat -f \"$1\".2.gz \"$1\".1.gz \"$1\" | rg --no-config {} | rg --no-config -v {} | tail -n 10",
                q(INC),
                q(EXC_RG)
            ),
            tac: None,
            prep: Prep::Rotated,
        },
        Scenario {
            key: "merge-t20",
            label: "--merge -t 20, 8 ranks",
            grail: strs(&["--merge", "-h", "-E", INC, "--not-G", EXC, "-t", "20"]),
            gnu: format!(
                "sort -m \"$1\"/rank*.log | grep -E {} | grep -v {} | tail -n 20",
                q(INC),
                q(EXC)
            ),
            rg: format!(
                "sort -m \"$1\"/rank*.log | rg --no-config {} | rg --no-config -v {} | tail -n 20",
                q(INC),
                q(EXC_RG)
            ),
            tac: None,
            prep: Prep::Ranks,
        },
        Scenario {
            key: "rank-t20",
            label: "-t 20, one rank",
            grail: strs(&["-h", "-E", INC, "--not-G", EXC, "-t", "20"]),
            gnu: format!(
                "grep -E {} \"$1\"/rank0.log | grep -v {} | tail -n 20",
                q(INC),
                q(EXC)
            ),
            rg: format!(
                "rg --no-config {} \"$1\"/rank0.log | rg --no-config -v {} | tail -n 20",
                q(INC),
                q(EXC_RG)
            ),
            tac: None,
            prep: Prep::Ranks,
        },
        Scenario {
            key: "rtree",
            label: "-r -c, 16 KiB logs",
            grail: strs(&["-r", "-c", "-E", INC]),
            gnu: format!("grep -r -c -E {} \"$1\"", q(INC)),
            rg: format!("rg --no-config -uuu -c --include-zero {} \"$1\"", q(INC)),
            tac: None,
            prep: Prep::Tree,
        },
    ]
}

pub(crate) struct Env {
    pub(crate) grail: PathBuf,
    pub(crate) baseline: Option<PathBuf>,
    pub(crate) has_rg: bool,
    pub(crate) has_tac: bool,
}

impl Scenario {
    /// grail's command line as a script over the files of `"$1"` (the
    /// one-rank scenario reads rank0.log).
    fn grail_sh(&self, grail: &Path) -> String {
        let mut s = q(&grail.to_string_lossy());
        for a in &self.grail {
            s.push(' ');
            s.push_str(&q(a));
        }
        if self.key == "rank-t20" {
            s + " \"$1\"/rank0.log"
        } else {
            s + " \"$1\"/rank*.log"
        }
    }

    pub(crate) fn cmd(&self, c: Contender, env: &Env) -> Cmd {
        match c {
            // The eight rank files: a glob the shell expands.
            Contender::Grail if self.prep == Prep::Ranks => Cmd::Sh(self.grail_sh(&env.grail)),
            Contender::Grail => Cmd::Grail(self.grail.clone()),
            Contender::Baseline => match &env.baseline {
                None => Cmd::Skip("no --baseline"),
                Some(b) if self.prep == Prep::Ranks => Cmd::Sh(self.grail_sh(b)),
                Some(_) => Cmd::Baseline(self.grail.clone()),
            },
            Contender::Gnu => Cmd::Sh(self.gnu.clone()),
            Contender::Rg if !env.has_rg => Cmd::Skip("rg not installed"),
            Contender::Rg => Cmd::Sh(self.rg.clone()),
            Contender::Tac if !env.has_tac => Cmd::Skip("tac not installed"),
            Contender::Tac => match &self.tac {
                Some(s) => Cmd::Sh(s.clone()),
                None => Cmd::Skip("n/a"),
            },
            // Set once grail's bytes read are known.
            Contender::Limit => Cmd::Skip("grail's bytes read unknown"),
        }
    }
}

pub(crate) fn argv(cmd: &Cmd, env: &Env, file: &Path) -> Option<Vec<String>> {
    let f = file.to_string_lossy().into_owned();
    match cmd {
        Cmd::Grail(a) | Cmd::Baseline(a) => {
            let bin = match cmd {
                Cmd::Baseline(_) => env.baseline.as_ref()?,
                _ => &env.grail,
            };
            let mut v = vec![bin.to_string_lossy().into_owned()];
            v.extend(a.iter().cloned());
            v.push(f);
            Some(v)
        }
        Cmd::Sh(s) => Some(vec![
            "bash".into(),
            "-c".into(),
            s.clone(),
            "grail-bench".into(),
            f,
        ]),
        Cmd::Skip(_) => None,
    }
}

pub(crate) fn display_cmd(cmd: &Cmd, file: &Path) -> String {
    let f = q(&file.to_string_lossy());
    match cmd {
        Cmd::Grail(a) | Cmd::Baseline(a) => {
            let mut s = String::from(match cmd {
                Cmd::Baseline(_) => "grail-baseline",
                _ => "grail",
            });
            for x in a {
                s.push(' ');
                s.push_str(&q(x));
            }
            s.push(' ');
            s.push_str(&f);
            s
        }
        Cmd::Sh(s) => s.replace("\"$1\"", &f),
        Cmd::Skip(why) => why.to_string(),
    }
}

#[derive(Clone, Default)]
pub(crate) struct Stats {
    pub(crate) times: Vec<f64>,
    pub(crate) median: f64,
    pub(crate) min: f64,
    pub(crate) max: f64,
    pub(crate) rss_mib: f64,
    pub(crate) out_len: u64,
    pub(crate) code: i32,
}

pub(crate) enum Outcome {
    Ok(Stats),
    Skipped(String),
    Failed(String),
}

pub(crate) struct Row {
    pub(crate) scenario: String,
    pub(crate) scenario_key: String,
    pub(crate) contender: Contender,
    pub(crate) command: String,
    pub(crate) bytes: u64,
    /// grail's row: the bytes it read, from its own `--stats` report.
    pub(crate) read: Option<u64>,
    /// With --cold: the largest share of the file's pages found resident
    /// right after an eviction, before a timed run.
    pub(crate) resident_after_evict: Option<f64>,
    pub(crate) outcome: Outcome,
}

/// The bytes grail read for `args` on `file`, from its `--stats` line
/// `scanned N B of …` (exact bytes in parentheses for larger sizes).
pub(crate) fn grail_read(env: &Env, args: &[String], file: &Path) -> Option<u64> {
    let mut av = vec![env.grail.to_string_lossy().into_owned(), "--stats".into()];
    av.extend(args.iter().cloned());
    av.push(file.to_string_lossy().into_owned());
    let r = run::run(&av, false).ok()?;
    let err = String::from_utf8_lossy(&r.err);
    let line = err.lines().find(|l| l.contains(": scanned "))?;
    let after = &line[line.find(": scanned ")? + 10..];
    let exact = after.split(" B)").next()?;
    let digits = exact.rsplit('(').next().unwrap_or(exact).trim();
    digits.trim_end_matches(" B").parse().ok()
}

/// The vLLM-style timestamp (`MM-DD HH:MM:SS`) of the first stamped line
/// after 99% of `file`.
pub(crate) fn stamp_near_end(file: &Path) -> Option<String> {
    use std::io::{Read, Seek, SeekFrom};
    let mut f = std::fs::File::open(file).ok()?;
    let len = f.metadata().ok()?.len();
    f.seek(SeekFrom::Start(len / 100 * 99)).ok()?;
    let mut buf = vec![0u8; 1 << 20];
    let n = f.read(&mut buf).ok()?;
    let text = String::from_utf8_lossy(&buf[..n]);
    let start = text.find('\n')? + 1;
    for line in text[start..].lines() {
        if let Some(i) = line.find("INFO ") {
            let t = line.get(i + 5..i + 19)?;
            let b = t.as_bytes();
            if b.len() == 14 && b[2] == b'-' && b[5] == b' ' && b[8] == b':' && b[11] == b':' {
                return Some(t.to_string());
            }
        }
    }
    None
}

/// Time one scenario on one file: warm-up/check run of every contender,
/// byte comparison against the GNU pipeline, then `runs` alternating rounds.
pub(crate) fn bench_scenario(
    sc: &Scenario,
    label: &str,
    env: &Env,
    file: &Path,
    bytes: u64,
    (runs, cold): (usize, bool),
) -> Vec<Row> {
    let concrete;
    let sc = if sc.grail.iter().any(|a| a == "@SINCE@") {
        match since_near_end(sc, label, env, file) {
            Some(c) => {
                concrete = c;
                &concrete
            }
            None => return Vec::new(),
        }
    } else {
        sc
    };
    let named;
    let sc = if sc.grail.iter().any(|a| a == "@NAMES@") {
        let path = file.with_file_name("grail-bench-names60.txt");
        if let Err(e) = std::fs::write(&path, NAMES.join("\n") + "\n") {
            eprintln!("{label}: cannot write {}: {e}", path.display());
            return Vec::new();
        }
        let p = path.to_string_lossy().into_owned();
        let sub = |s: &str| s.replace("@NAMES@", &q(&p));
        named = Scenario {
            key: sc.key,
            label: sc.label,
            grail: sc.grail.iter().map(|a| a.replace("@NAMES@", &p)).collect(),
            gnu: sub(&sc.gnu),
            rg: sub(&sc.rg),
            tac: sc.tac.as_deref().map(sub),
            prep: sc.prep,
        };
        &named
    } else {
        sc
    };
    let made;
    let tree = sc.prep == Prep::Tree;
    let file = if sc.prep == Prep::Plain {
        file
    } else {
        let dir = file.parent().unwrap_or(Path::new("."));
        let r = match sc.prep {
            Prep::Tree => grail_bench::logs::tree(file, TREE_PIECE),
            Prep::Gzip => grail_bench::logs::compressed(file, "gz", "gzip -1"),
            Prep::Zstd => grail_bench::logs::compressed(file, "zst", "zstd -q"),
            Prep::Rotated => grail_bench::logs::rotated(file),
            _ => grail_bench::logs::ranks(dir, 8, bytes / 8, 1),
        };
        match r {
            Ok(d) => {
                made = d;
                &made
            }
            Err(e) => {
                eprintln!(
                    "{label}: cannot make its input from {}: {e}",
                    file.display()
                );
                return Vec::new();
            }
        }
    };
    let cold = cold && sc.prep != Prep::Tree && sc.prep != Prep::Ranks;
    let mut cmds: Vec<(Contender, Cmd)> = CONTENDERS
        .iter()
        .filter(|&&c| c != Contender::Baseline || env.baseline.is_some())
        .map(|&c| (c, sc.cmd(c, env)))
        .collect();
    let read = (sc.prep == Prep::Plain)
        .then(|| grail_read(env, &sc.grail, file))
        .flatten();
    if let (Some(n), Some(limit)) = (read, cmds.iter_mut().find(|c| c.0 == Contender::Limit)) {
        limit.1 = Cmd::Sh(format!("tail -c {n} \"$1\" >/dev/null"));
    }
    let mut rows: Vec<Row> = cmds
        .iter()
        .map(|(c, cmd)| Row {
            scenario: label.to_string(),
            scenario_key: sc.key.to_string(),
            contender: *c,
            command: display_cmd(cmd, file),
            bytes,
            read: (*c == Contender::Grail).then_some(read).flatten(),
            resident_after_evict: None,
            outcome: match cmd {
                Cmd::Skip(why) => Outcome::Skipped(why.to_string()),
                _ => Outcome::Ok(Stats::default()),
            },
        })
        .collect();
    eprint!(
        "{label:<16} (harness RSS {:.1} MiB) check",
        run::self_rss_kib().unwrap_or(0) as f64 / 1024.0
    );
    let mut timing = check(&cmds, env, file, &mut rows, tree);
    eprint!(" ok; timing");
    for round in 0..runs {
        timing.round(round, &cmds, env, (file, tree), cold, &mut rows);
        eprint!(".");
    }
    eprintln!();
    for (i, row) in rows.iter_mut().enumerate() {
        if let Outcome::Ok(s) = &mut row.outcome {
            if timing.times[i].is_empty() {
                continue;
            }
            s.median = run::median(&timing.times[i]);
            s.min = timing.times[i].iter().copied().fold(f64::MAX, f64::min);
            s.max = timing.times[i].iter().copied().fold(0.0, f64::max);
            s.rss_mib = timing.rss[i] as f64 / 1024.0;
            s.times = std::mem::take(&mut timing.times[i]);
        }
    }
    rows
}

/// The `since` scenario made concrete: `--since` the first timestamp after
/// 99% of `file`; says what grail read for it. `None`: no timestamp there.
fn since_near_end(sc: &Scenario, label: &str, env: &Env, file: &Path) -> Option<Scenario> {
    let Some(t) = stamp_near_end(file) else {
        eprintln!("{label}: no vLLM-style timestamp found near the end of the file; skipped");
        return None;
    };
    let sub = |s: &str| s.replace("@SINCE@", &t);
    let concrete = Scenario {
        key: sc.key,
        label: sc.label,
        grail: sc.grail.iter().map(|a| sub(a)).collect(),
        gnu: sub(&sc.gnu),
        rg: sub(&sc.rg),
        tac: sc.tac.as_deref().map(sub),
        prep: sc.prep,
    };
    // What grail read, from its own --json summary.
    let mut av = vec![env.grail.to_string_lossy().into_owned(), "--json".into()];
    av.extend(concrete.grail.iter().cloned());
    av.push(file.to_string_lossy().into_owned());
    if let Ok(r) = run::run(&av, true) {
        let out = r.out.unwrap_or_default();
        let last = out
            .split(|&b| b == b'\n')
            .rfind(|l| !l.is_empty())
            .unwrap_or(&[]);
        if let Ok(v) = serde_json::from_slice::<serde_json::Value>(last) {
            let f = &v["files"][0];
            let scanned = f["scanned"].as_u64().unwrap_or(0);
            let size = f["size"].as_u64().unwrap_or(1).max(1);
            eprintln!(
                "{label}: --since '{t}': grail read {scanned} of {size} bytes ({:.3}%); window {}..{}; {} timestamps probed",
                100.0 * scanned as f64 / size as f64,
                f["region_start"],
                f["region_end"],
                f["window"]["probed_lines"]
            );
        }
    }
    Some(concrete)
}

/// What the timed rounds of one scenario collect, per contender.
struct Timing {
    /// The output each contender printed in its check run (`None`: not timed).
    expect: Vec<Option<(u64, u64)>>,
    rss: Vec<u64>,
    times: Vec<Vec<f64>>,
}

/// The warm-up and check run of every contender, GNU first: it is the
/// definition of the right answer (the limit prints nothing and is not
/// compared).
fn check(
    cmds: &[(Contender, Cmd)],
    env: &Env,
    file: &Path,
    rows: &mut [Row],
    order_free: bool,
) -> Timing {
    let mut reference: Option<Vec<u8>> = None;
    let mut t = Timing {
        expect: vec![None; cmds.len()],
        rss: vec![0; cmds.len()],
        times: vec![vec![]; cmds.len()],
    };
    let gnu = cmds.iter().position(|c| c.0 == Contender::Gnu).unwrap_or(0);
    let order = std::iter::once(gnu).chain((0..cmds.len()).filter(|&i| i != gnu));
    for i in order {
        let (c, cmd) = &cmds[i];
        let Some(av) = argv(cmd, env, file) else {
            continue;
        };
        let r = match run::run(&av, true) {
            Ok(r) => r,
            Err(e) => {
                rows[i].outcome = Outcome::Failed(format!("cannot run: {e}"));
                continue;
            }
        };
        let mut out = r.out.clone().unwrap_or_default();
        if order_free {
            out = sorted_lines(&out);
        }
        let bad_code = match c {
            Contender::Grail | Contender::Baseline => r.code > 1,
            _ => r.code > 1 && r.code != 141,
        };
        if bad_code {
            rows[i].outcome = Outcome::Failed(format!(
                "exit status {}: {}",
                r.code,
                String::from_utf8_lossy(&r.err).trim()
            ));
            continue;
        }
        match &reference {
            _ if *c == Contender::Limit => {}
            None => reference = Some(out),
            Some(want) if *want != out => {
                rows[i].outcome = Outcome::Failed(format!(
                    "output differs from the GNU pipeline ({} bytes vs {}): {}",
                    out.len(),
                    want.len(),
                    first_diff(want, &out)
                ));
                continue;
            }
            Some(_) => {}
        }
        if let Outcome::Ok(s) = &mut rows[i].outcome {
            s.out_len = r.out_len;
            s.code = r.code;
        }
        t.expect[i] = Some(digest(&r, order_free));
        t.rss[i] = r.maxrss_kib;
    }
    t
}

impl Timing {
    /// One timed run of every contender still in the race, starting with a
    /// different one each round.
    fn round(
        &mut self,
        round: usize,
        cmds: &[(Contender, Cmd)],
        env: &Env,
        (file, order_free): (&Path, bool),
        cold: bool,
        rows: &mut [Row],
    ) {
        let active: Vec<usize> = (0..cmds.len())
            .filter(|&i| self.expect[i].is_some())
            .collect();
        for k in 0..active.len() {
            let i = active[(k + round) % active.len()];
            let av = argv(&cmds[i].1, env, file).expect("runnable");
            if cold {
                if let Err(e) = run::evict(file) {
                    eprintln!("\n--cold: cannot evict {}: {e}", file.display());
                }
                if let Ok((res, pages)) = run::residency(file) {
                    let share = res as f64 / pages.max(1) as f64;
                    let worst = rows[i].resident_after_evict.get_or_insert(0.0);
                    *worst = worst.max(share);
                }
            }
            match run::run(&av, order_free) {
                Ok(r) if Some(digest(&r, order_free)) == self.expect[i] => {
                    self.times[i].push(r.wall);
                    self.rss[i] = self.rss[i].max(r.maxrss_kib);
                }
                Ok(r) => {
                    rows[i].outcome = Outcome::Failed(format!(
                        "output changed between runs ({} bytes, status {})",
                        r.out_len, r.code
                    ));
                    self.expect[i] = None;
                }
                Err(e) => {
                    rows[i].outcome = Outcome::Failed(format!("cannot run: {e}"));
                    self.expect[i] = None;
                }
            }
        }
    }
}

/// The lines of `out` sorted (each with its newline).
fn sorted_lines(out: &[u8]) -> Vec<u8> {
    let mut lines: Vec<&[u8]> = out.split_inclusive(|&b| b == b'\n').collect();
    lines.sort_unstable();
    lines.concat()
}

/// What identifies a run's output: its length and hash, of the sorted
/// lines when the order is free.
fn digest(r: &run::RunResult, order_free: bool) -> (u64, u64) {
    match (&r.out, order_free) {
        (Some(out), true) => {
            use std::hash::Hasher;
            let mut h = std::hash::DefaultHasher::new();
            h.write(&sorted_lines(out));
            (r.out_len, h.finish())
        }
        _ => (r.out_len, r.out_hash),
    }
}

pub(crate) fn first_diff(a: &[u8], b: &[u8]) -> String {
    let al: Vec<&[u8]> = a.split(|&c| c == b'\n').collect();
    let bl: Vec<&[u8]> = b.split(|&c| c == b'\n').collect();
    for (n, (x, y)) in al.iter().zip(&bl).enumerate() {
        if x != y {
            let cut = |s: &[u8]| {
                let s = String::from_utf8_lossy(s).into_owned();
                s.chars()
                    .take(120)
                    .collect::<String>()
                    .escape_debug()
                    .to_string()
            };
            return format!(
                "first difference at output line {}: want \"{}\", got \"{}\"",
                n + 1,
                cut(x),
                cut(y)
            );
        }
    }
    format!("{} lines vs {} lines", al.len(), bl.len())
}
