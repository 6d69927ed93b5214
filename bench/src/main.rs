//! `grail-bench`: generate realistic LLM-server logs and time grail against
//! the pipelines it replaces (GNU grep, ripgrep, tac), checking first that
//! every contender prints the same bytes.
//!
//! ```text
//! cargo run --release -p grail-bench -- --size 1G
//! cargo run --release -p grail-bench -- --size 1G --shape sparse --json
//! cargo run --release -p grail-bench -- --plot tail.svg --plot-sizes 64M,256M,1G
//! ```

mod run;
mod svg;

use grail_bench::logs::{self, GenSpec, Shape};
use std::ffi::OsString;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

const USAGE: &str = "\
Usage: grail-bench [OPTIONS]

Generates a deterministic synthetic vLLM-style log (reused when it exists) and
times grail against `grep | grep -v | tail` (GNU, LC_ALL=C), the ripgrep
pipeline (when `rg` is on PATH) and `tac | grep | grep -v | head | tac`.
Every contender's output is compared byte for byte before timing; a mismatch
makes the exit status 1.

Data:
  --size SIZE          file size: 64M, 1G, 4G ... (default 1G)
  --seed N             generator seed (default 1)
  --shape SHAPE        crash | sparse | early | none (default crash)
                         crash:  rare errors throughout + tracebacks at the very end
                         sparse: selected lines uniformly at --density, none at the end
                         early:  selected lines only in the first 4 MiB
                         none:   nothing is selected (decoys are all excluded)
  --density P          per-line probability of a selected line for crash/sparse (default 1e-6)
  --dir DIR            where data files live (default ./bench-data)
  --gen-only           generate (or find) the file, print its path and exit

Timing:
  --runs N             timed runs per contender after one warm-up/check run (default 5)
  --scenarios LIST     comma-separated subset of: t10,t10a,t1000,count,full,icase,regex,since,n-t10
                       (since: --since the timestamp found at 99% of the file; the pipelines
                       start at its first line with sed)
  --floor              also time a bare memchr newline pass over the mmapped file
  --floor-threads N    threads for --floor (default: available cores)
  --cold               evict the log from the page cache (POSIX_FADV_DONTNEED) before
                       every timed run of every contender; residency is checked with
                       mincore and reported
  --grail PATH         grail binary (default: `grail` next to this binary, built first)
  --no-build           do not run `cargo build --release --bin grail` first

Output:
  --json               print the results as JSON on stdout (the table goes to stderr)
  --plot FILE.svg      instead of the scenario table, time the tail scenarios (t10,
                       t10a, t1000; with --cold, evicted) over --plot-sizes and plot
                       median time against size
  --plot-sizes LIST    sizes for --plot (default 64M,256M,1G)
  -h, --help
";

/// The scenarios `--plot` draws: every tail.
const PLOT_SCENARIOS: [&str; 3] = ["t10", "t10a", "t1000"];

/// Include of the seed query (ERE) and its exclude (BRE).
const INC: &str = "RuntimeError|ValueError|Error|not supported|incompatible";
const EXC: &str = r"repo_utils\|gpt_oss_triton\|FutureWarning";
/// The same exclude in ripgrep's syntax.
const EXC_RG: &str = "repo_utils|gpt_oss_triton|FutureWarning";
const LITERAL_FREE: &str = "[0-9]{4}ms";

struct Opts {
    size: u64,
    seed: u64,
    shape: Shape,
    density: f64,
    dir: PathBuf,
    gen_only: bool,
    runs: usize,
    scenarios: Option<Vec<String>>,
    floor: bool,
    floor_threads: usize,
    cold: bool,
    grail: Option<PathBuf>,
    no_build: bool,
    json: bool,
    plot: Option<PathBuf>,
    plot_sizes: Vec<u64>,
}

fn parse_opts() -> Result<Opts, String> {
    use lexopt::prelude::*;
    let mut o = Opts {
        size: 1 << 30,
        seed: 1,
        shape: Shape::Crash,
        density: 1e-6,
        dir: PathBuf::from("bench-data"),
        gen_only: false,
        runs: 5,
        scenarios: None,
        floor: false,
        floor_threads: std::thread::available_parallelism().map_or(2, |n| n.get()),
        cold: false,
        grail: None,
        no_build: false,
        json: false,
        plot: None,
        plot_sizes: vec![64 << 20, 256 << 20, 1 << 30],
    };
    let mut p = lexopt::Parser::from_env();
    let s = |v: OsString| v.to_string_lossy().into_owned();
    let size = |v: String| logs::parse_size(&v).ok_or(format!("bad size '{v}'"));
    while let Some(arg) = p.next().map_err(|e| e.to_string())? {
        macro_rules! val {
            () => {
                p.value().map(s).map_err(|e| e.to_string())
            };
        }
        match arg {
            Long("size") => o.size = size(val!()?)?,
            Long("seed") => o.seed = val!()?.parse().map_err(|e| format!("--seed: {e}"))?,
            Long("shape") => {
                let v = val!()?;
                o.shape = Shape::parse(&v).ok_or(format!("unknown shape '{v}'"))?;
            }
            Long("density") => {
                o.density = val!()?.parse().map_err(|e| format!("--density: {e}"))?;
                if !(0.0..=1.0).contains(&o.density) {
                    return Err("--density must be in [0, 1]".into());
                }
            }
            Long("dir") => o.dir = PathBuf::from(val!()?),
            Long("gen-only") => o.gen_only = true,
            Long("cold") => o.cold = true,
            Long("runs") => o.runs = val!()?.parse().map_err(|e| format!("--runs: {e}"))?,
            Long("scenarios") => {
                o.scenarios = Some(val!()?.split(',').map(|x| x.trim().to_string()).collect())
            }
            Long("floor") => o.floor = true,
            Long("floor-threads") => {
                o.floor_threads = val!()?
                    .parse::<usize>()
                    .map_err(|e| format!("--floor-threads: {e}"))?
                    .max(1)
            }
            Long("grail") => o.grail = Some(PathBuf::from(val!()?)),
            Long("no-build") => o.no_build = true,
            Long("json") => o.json = true,
            Long("plot") => o.plot = Some(PathBuf::from(val!()?)),
            Long("plot-sizes") => {
                o.plot_sizes = val!()?
                    .split(',')
                    .map(|x| size(x.to_string()))
                    .collect::<Result<_, _>>()?
            }
            Short('h') | Long("help") => {
                print!("{USAGE}");
                std::process::exit(0);
            }
            _ => return Err(arg.unexpected().to_string()),
        }
    }
    o.runs = o.runs.max(1);
    Ok(o)
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Contender {
    Grail,
    Gnu,
    Rg,
    Tac,
    /// `tail -c BYTES` for the bytes grail read: the physical limit.
    Limit,
}

const CONTENDERS: [Contender; 5] = [
    Contender::Grail,
    Contender::Gnu,
    Contender::Rg,
    Contender::Tac,
    Contender::Limit,
];

impl Contender {
    fn name(self) -> &'static str {
        match self {
            Contender::Grail => "grail",
            Contender::Gnu => "GNU grep pipeline",
            Contender::Rg => "ripgrep pipeline",
            Contender::Tac => "tac|grep|grep -v|head|tac",
            Contender::Limit => "limit: tail -c BYTES",
        }
    }
    fn key(self) -> &'static str {
        match self {
            Contender::Grail => "grail",
            Contender::Gnu => "gnu",
            Contender::Rg => "rg",
            Contender::Tac => "tac",
            Contender::Limit => "limit",
        }
    }
}

/// How one contender runs a scenario: a grail argument list (the file is
/// appended) or a bash script reading the file as `$1`; or why it does not.
enum Cmd {
    Grail(Vec<String>),
    Sh(String),
    Skip(&'static str),
}

struct Scenario {
    key: &'static str,
    label: &'static str,
    grail: Vec<String>,
    gnu: String,
    rg: String,
    tac: Option<String>,
}

fn q(s: &str) -> String {
    shell_words::quote(s).into_owned()
}

fn scenarios() -> Vec<Scenario> {
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
        },
    ]
}

struct Env {
    grail: PathBuf,
    has_rg: bool,
    has_tac: bool,
}

impl Scenario {
    fn cmd(&self, c: Contender, env: &Env) -> Cmd {
        match c {
            Contender::Grail => Cmd::Grail(self.grail.clone()),
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

fn argv(cmd: &Cmd, env: &Env, file: &Path) -> Option<Vec<String>> {
    let f = file.to_string_lossy().into_owned();
    match cmd {
        Cmd::Grail(a) => {
            let mut v = vec![env.grail.to_string_lossy().into_owned()];
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

fn display_cmd(cmd: &Cmd, file: &Path) -> String {
    let f = q(&file.to_string_lossy());
    match cmd {
        Cmd::Grail(a) => {
            let mut s = String::from("grail");
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

#[derive(Clone)]
struct Stats {
    times: Vec<f64>,
    median: f64,
    min: f64,
    max: f64,
    rss_mib: f64,
    out_len: u64,
    code: i32,
}

enum Outcome {
    Ok(Stats),
    Skipped(String),
    Failed(String),
}

struct Row {
    scenario: String,
    scenario_key: String,
    contender: Contender,
    command: String,
    bytes: u64,
    /// grail's row: the bytes it read, from its own `--stats` report.
    read: Option<u64>,
    /// With --cold: the largest share of the file's pages found resident
    /// right after an eviction, before a timed run.
    resident_after_evict: Option<f64>,
    outcome: Outcome,
}

/// The bytes grail read for `args` on `file`, from its `--stats` line
/// `scanned N B of …` (exact bytes in parentheses for larger sizes).
fn grail_read(env: &Env, args: &[String], file: &Path) -> Option<u64> {
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
fn stamp_near_end(file: &Path) -> Option<String> {
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
fn bench_scenario(
    sc: &Scenario,
    label: &str,
    env: &Env,
    file: &Path,
    bytes: u64,
    runs: usize,
    cold: bool,
) -> Vec<Row> {
    let concrete;
    let sc = if sc.grail.iter().any(|a| a == "@SINCE@") {
        let Some(t) = stamp_near_end(file) else {
            eprintln!("{label}: no vLLM-style timestamp found near the end of the file; skipped");
            return Vec::new();
        };
        let sub = |s: &str| s.replace("@SINCE@", &t);
        concrete = Scenario {
            key: sc.key,
            label: sc.label,
            grail: sc.grail.iter().map(|a| sub(a)).collect(),
            gnu: sub(&sc.gnu),
            rg: sub(&sc.rg),
            tac: sc.tac.as_deref().map(sub),
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
        &concrete
    } else {
        sc
    };
    let mut cmds: Vec<(Contender, Cmd)> = CONTENDERS.iter().map(|&c| (c, sc.cmd(c, env))).collect();
    let read = grail_read(env, &sc.grail, file);
    if let Some(n) = read {
        cmds[4].1 = Cmd::Sh(format!("tail -c {n} \"$1\" >/dev/null"));
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
                _ => Outcome::Ok(Stats {
                    times: vec![],
                    median: 0.0,
                    min: 0.0,
                    max: 0.0,
                    rss_mib: 0.0,
                    out_len: 0,
                    code: 0,
                }),
            },
        })
        .collect();
    eprint!(
        "{label:<16} (harness RSS {:.1} MiB) check",
        run::self_rss_kib().unwrap_or(0) as f64 / 1024.0
    );
    // Warm-up and check.
    let mut reference: Option<Vec<u8>> = None;
    let mut expect: Vec<Option<(u64, u64)>> = vec![None; cmds.len()];
    let mut rss: Vec<u64> = vec![0; cmds.len()];
    // GNU first: it is the definition of the right answer. The limit prints
    // nothing and is not compared.
    let order = [1usize, 0, 2, 3, 4];
    for &i in &order {
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
        let out = r.out.clone().unwrap_or_default();
        let bad_code = match c {
            Contender::Grail => r.code > 1,
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
        expect[i] = Some((r.out_len, r.out_hash));
        rss[i] = r.maxrss_kib;
    }
    eprint!(" ok; timing");
    let active: Vec<usize> = (0..cmds.len()).filter(|&i| expect[i].is_some()).collect();
    let mut times: Vec<Vec<f64>> = vec![vec![]; cmds.len()];
    for round in 0..runs {
        for k in 0..active.len() {
            let i = active[(k + round) % active.len()];
            if expect[i].is_none() {
                continue;
            }
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
            match run::run(&av, false) {
                Ok(r) if Some((r.out_len, r.out_hash)) == expect[i] => {
                    times[i].push(r.wall);
                    rss[i] = rss[i].max(r.maxrss_kib);
                }
                Ok(r) => {
                    rows[i].outcome = Outcome::Failed(format!(
                        "output changed between runs ({} bytes, status {})",
                        r.out_len, r.code
                    ));
                    expect[i] = None;
                }
                Err(e) => {
                    rows[i].outcome = Outcome::Failed(format!("cannot run: {e}"));
                    expect[i] = None;
                }
            }
        }
        eprint!(".");
    }
    eprintln!();
    for i in 0..cmds.len() {
        if let Outcome::Ok(s) = &mut rows[i].outcome {
            if times[i].is_empty() {
                continue;
            }
            s.median = run::median(&times[i]);
            s.min = times[i].iter().copied().fold(f64::MAX, f64::min);
            s.max = times[i].iter().copied().fold(0.0, f64::max);
            s.rss_mib = rss[i] as f64 / 1024.0;
            s.times = std::mem::take(&mut times[i]);
        }
    }
    rows
}

fn first_diff(a: &[u8], b: &[u8]) -> String {
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

fn gib(bytes: u64) -> f64 {
    bytes as f64 / (1u64 << 30) as f64
}

fn table(rows: &[Row], floor: Option<&FloorResult>) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "{:<16} {:<27} {:>9} {:>9} {:>9} {:>7} {:>8} {:>9} {:>10} {:>7}",
        "scenario",
        "contender",
        "median s",
        "min s",
        "max s",
        "GiB/s",
        "RSS MiB",
        "vs grail",
        "read MiB",
        "cached"
    );
    let mut last = String::new();
    for r in rows {
        if r.scenario != last && !last.is_empty() {
            s.push('\n');
        }
        let scen = if r.scenario != last {
            r.scenario.as_str()
        } else {
            ""
        };
        last = r.scenario.clone();
        let grail_med = rows
            .iter()
            .find(|x| x.scenario == r.scenario && x.contender == Contender::Grail)
            .and_then(|x| match &x.outcome {
                Outcome::Ok(st) if !st.times.is_empty() => Some(st.median),
                _ => None,
            });
        match &r.outcome {
            Outcome::Ok(st) if !st.times.is_empty() => {
                let ratio = grail_med.map_or("-".to_string(), |g| format!("{:.2}x", st.median / g));
                let read = r.read.map_or("-".to_string(), |n| {
                    format!("{:.2}", n as f64 / (1 << 20) as f64)
                });
                let cached = r
                    .resident_after_evict
                    .map_or("-".to_string(), |f| format!("{:.1}%", 100.0 * f));
                let _ = writeln!(
                    s,
                    "{:<16} {:<27} {:>9.4} {:>9.4} {:>9.4} {:>7.2} {:>8.1} {:>9} {:>10} {:>7}",
                    scen,
                    r.contender.name(),
                    st.median,
                    st.min,
                    st.max,
                    gib(r.bytes) / st.median,
                    st.rss_mib,
                    ratio,
                    read,
                    cached
                );
            }
            Outcome::Ok(_) => {
                let _ = writeln!(s, "{:<16} {:<27} (no timed runs)", scen, r.contender.name());
            }
            Outcome::Skipped(why) => {
                let _ = writeln!(s, "{:<16} {:<27} {:>9}", scen, r.contender.name(), why);
            }
            Outcome::Failed(why) => {
                let _ = writeln!(s, "{:<16} {:<27} FAILED: {}", scen, r.contender.name(), why);
            }
        }
    }
    if let Some(f) = floor {
        let _ = writeln!(
            s,
            "\n{:<16} {:<27} {:>9.4} {:>9.4} {:>9.4} {:>7.2} {:>8} {:>9}",
            "floor",
            format!("memchr '\\n', {} threads", f.threads),
            f.median,
            f.min,
            f.max,
            gib(f.bytes) / f.median,
            "-",
            "-"
        );
    }
    s
}

struct FloorResult {
    threads: usize,
    times: Vec<f64>,
    median: f64,
    min: f64,
    max: f64,
    bytes: u64,
    newlines: u64,
}

fn floor(file: &Path, threads: usize, runs: usize) -> std::io::Result<FloorResult> {
    let f = std::fs::File::open(file)?;
    // SAFETY: the benchmark's own data file; nobody truncates it while mapped.
    let map = unsafe { memmap2::Mmap::map(&f)? };
    let (_, newlines) = run::floor_pass(&map, threads); // warm-up
    let mut times = vec![];
    for _ in 0..runs {
        let (t, n) = run::floor_pass(&map, threads);
        assert_eq!(n, newlines);
        times.push(t);
    }
    Ok(FloorResult {
        threads,
        median: run::median(&times),
        min: times.iter().copied().fold(f64::MAX, f64::min),
        max: times.iter().copied().fold(0.0, f64::max),
        times,
        bytes: map.len() as u64,
        newlines,
    })
}

struct Meta<'a> {
    file: &'a Path,
    bytes: u64,
    spec: GenSpec,
    runs: usize,
}

/// The results as one JSON document (`--json`).
fn json(meta: &[Meta], rows: &[Row], floor: Option<&FloorResult>) -> String {
    use serde_json::{json, Value};
    let finite = |v: f64| if v.is_finite() { json!(v) } else { Value::Null };
    let files: Vec<Value> = meta
        .iter()
        .map(|m| {
            json!({
                "path": m.file.to_string_lossy(),
                "bytes": m.bytes,
                "shape": m.spec.shape.name(),
                "seed": m.spec.seed,
                "density": m.spec.density,
                "runs": m.runs,
            })
        })
        .collect();
    let results: Vec<Value> = rows
        .iter()
        .map(|r| {
            let grail_med = rows
                .iter()
                .find(|x| x.scenario == r.scenario && x.contender == Contender::Grail)
                .and_then(|x| match &x.outcome {
                    Outcome::Ok(st) if !st.times.is_empty() => Some(st.median),
                    _ => None,
                });
            let mut v = json!({
                "scenario": r.scenario_key,
                "label": r.scenario,
                "bytes": r.bytes,
                "contender": r.contender.key(),
                "command": r.command,
                "bytes_read": r.read,
                "resident_after_evict": r.resident_after_evict.map(finite),
            });
            let status = match &r.outcome {
                Outcome::Ok(st) if !st.times.is_empty() => json!({
                    "status": "ok",
                    "times_s": st.times,
                    "median_s": finite(st.median),
                    "min_s": finite(st.min),
                    "max_s": finite(st.max),
                    "gib_per_s": finite(gib(r.bytes) / st.median),
                    "peak_rss_mib": finite(st.rss_mib),
                    "output_bytes": st.out_len,
                    "exit_code": st.code,
                    "ratio_to_grail": grail_med.map(|g| finite(st.median / g)),
                }),
                Outcome::Ok(_) => json!({"status": "no timed runs"}),
                Outcome::Skipped(why) => json!({"status": "skipped", "reason": why}),
                Outcome::Failed(why) => json!({"status": "failed", "reason": why}),
            };
            if let (Some(o), Value::Object(st)) = (v.as_object_mut(), status) {
                o.extend(st);
            }
            v
        })
        .collect();
    let mut doc = json!({"files": files, "results": results});
    if let Some(f) = floor {
        doc["floor"] = json!({
            "threads": f.threads,
            "bytes": f.bytes,
            "newlines": f.newlines,
            "times_s": f.times,
            "median_s": finite(f.median),
            "min_s": finite(f.min),
            "max_s": finite(f.max),
            "gib_per_s": finite(gib(f.bytes) / f.median),
        });
    }
    let mut s = serde_json::to_string_pretty(&doc).unwrap_or_default();
    s.push('\n');
    s
}

/// The grail binary to time: `--grail`, else `grail` in the release
/// directory next to this binary, built (or refreshed) with cargo first.
fn locate_grail(o: &Opts) -> Result<PathBuf, String> {
    if let Some(p) = &o.grail {
        return Ok(p.clone());
    }
    let exe = std::env::current_exe().map_err(|e| format!("current_exe: {e}"))?;
    let dir = exe.parent().ok_or("no parent of current_exe")?;
    let release = if dir.file_name().is_some_and(|n| n == "release") {
        dir.to_path_buf()
    } else {
        eprintln!(
            "warning: grail-bench is not a release build; the generator and --floor will be slow \
             (use `cargo run --release -p grail-bench`)"
        );
        dir.parent().ok_or("no target directory")?.join("release")
    };
    let grail = release.join("grail");
    if !o.no_build {
        let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
        let manifest = concat!(env!("CARGO_MANIFEST_DIR"), "/../Cargo.toml");
        let target_dir = release.parent().ok_or("no target directory")?;
        eprintln!("building grail: cargo build --release --bin grail");
        let st = std::process::Command::new(cargo)
            .args([
                "build",
                "--release",
                "--quiet",
                "--bin",
                "grail",
                "--manifest-path",
            ])
            .arg(manifest)
            .arg("--target-dir")
            .arg(target_dir)
            .status()
            .map_err(|e| format!("cannot run cargo: {e}"))?;
        if !st.success() {
            return Err("cargo build --release --bin grail failed".into());
        }
    }
    if !grail.is_file() {
        return Err(format!(
            "{} not found; build it with `cargo build --release --bin grail` or pass --grail PATH",
            grail.display()
        ));
    }
    Ok(grail)
}

fn main() -> ExitCode {
    match real_main() {
        Ok(code) => code,
        Err(e) => {
            eprintln!("grail-bench: {e}");
            ExitCode::from(2)
        }
    }
}

fn real_main() -> Result<ExitCode, String> {
    run::init();
    let o = parse_opts()?;
    let spec = |size| GenSpec {
        size,
        seed: o.seed,
        shape: o.shape,
        density: o.density,
    };
    if o.gen_only {
        let p = logs::ensure(&o.dir, &spec(o.size)).map_err(|e| e.to_string())?;
        println!("{}", p.display());
        return Ok(ExitCode::SUCCESS);
    }
    let env = Env {
        grail: locate_grail(&o)?,
        has_rg: run::on_path("rg"),
        has_tac: run::on_path("tac"),
    };
    let all = scenarios();
    if let Some(want) = &o.scenarios {
        for w in want {
            if !all.iter().any(|s| s.key == w) {
                return Err(format!("unknown scenario '{w}'"));
            }
        }
    }
    let chosen: Vec<&Scenario> = all
        .iter()
        .filter(|s| match &o.scenarios {
            None => true,
            Some(w) => w.iter().any(|x| x == s.key),
        })
        .collect();

    let mut rows = vec![];
    let mut metas = vec![];
    let mut floor_res = None;
    let files: Vec<(u64, PathBuf)> = if o.plot.is_some() {
        o.plot_sizes
            .iter()
            .map(|&sz| logs::ensure(&o.dir, &spec(sz)).map(|p| (sz, p)))
            .collect::<Result<_, _>>()
            .map_err(|e| e.to_string())?
    } else {
        vec![(
            o.size,
            logs::ensure(&o.dir, &spec(o.size)).map_err(|e| e.to_string())?,
        )]
    };
    for (sz, file) in &files {
        let bytes = std::fs::metadata(file).map_err(|e| e.to_string())?.len();
        eprintln!(
            "\n{} ({:.2} GiB), {} timed runs per contender after a warm-up, LC_ALL=C, grail = {}",
            file.display(),
            gib(bytes),
            o.runs,
            env.grail.display()
        );
        if o.plot.is_some() {
            // Every tail scenario, at every size.
            for sc in all.iter().filter(|s| PLOT_SCENARIOS.contains(&s.key)) {
                let label = format!("{} @ {}", sc.label, logs::size_label(*sz));
                rows.extend(bench_scenario(
                    sc, &label, &env, file, bytes, o.runs, o.cold,
                ));
            }
        } else {
            for sc in &chosen {
                rows.extend(bench_scenario(
                    sc, sc.label, &env, file, bytes, o.runs, o.cold,
                ));
            }
            if o.floor {
                floor_res = Some(floor(file, o.floor_threads, o.runs).map_err(|e| e.to_string())?);
            }
        }
        metas.push((file.clone(), bytes, spec(*sz)));
    }
    let meta: Vec<Meta> = metas
        .iter()
        .map(|(f, b, s)| Meta {
            file: f,
            bytes: *b,
            spec: *s,
            runs: o.runs,
        })
        .collect();
    let t = table(&rows, floor_res.as_ref());
    if o.json {
        eprint!("\n{t}");
        print!("{}", json(&meta, &rows, floor_res.as_ref()));
    } else {
        print!("\n{t}");
    }
    if let Some(path) = &o.plot {
        // grail in every tail scenario; the pipelines (which read the
        // whole file whatever the scenario) in the first.
        let mut wanted: Vec<(Contender, &str)> = PLOT_SCENARIOS
            .iter()
            .map(|k| (Contender::Grail, *k))
            .collect();
        wanted.extend(
            [Contender::Gnu, Contender::Rg, Contender::Tac]
                .into_iter()
                .map(|c| (c, PLOT_SCENARIOS[0])),
        );
        let cold = if o.cold { ", cold" } else { "" };
        let series: Vec<svg::Series> = wanted
            .iter()
            .filter_map(|&(c, key)| {
                let points: Vec<(f64, f64)> = rows
                    .iter()
                    .filter(|r| r.contender == c && r.scenario_key == key)
                    .filter_map(|r| match &r.outcome {
                        Outcome::Ok(st) if !st.times.is_empty() => {
                            Some((r.bytes as f64, st.median))
                        }
                        _ => None,
                    })
                    .collect();
                let label = all.iter().find(|s| s.key == key).map_or(key, |s| s.label);
                (!points.is_empty()).then(|| svg::Series {
                    name: format!("{} {label}{cold}", c.name()),
                    points,
                })
            })
            .collect();
        let subtitle = format!(
            "grail -E '{INC}' --not-G '{EXC}' -t 10\nshape {}, seed {}, median of {} runs, LC_ALL=C",
            o.shape.name(),
            o.seed,
            o.runs
        );
        let doc = svg::chart("Tails: time vs file size", &subtitle, &series);
        std::fs::write(path, doc).map_err(|e| format!("{}: {e}", path.display()))?;
        eprintln!("wrote {}", path.display());
    }
    let failed = rows.iter().any(|r| matches!(r.outcome, Outcome::Failed(_)));
    if failed {
        eprintln!("grail-bench: some contenders failed (see the table)");
        return Ok(ExitCode::from(1));
    }
    Ok(ExitCode::SUCCESS)
}
