//! The command line of `grail-bench`, and the grail binary it times.

use crate::*;
use std::ffi::OsString;
use std::path::PathBuf;

pub(crate) const USAGE: &str = "\
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
  --scenarios LIST     comma-separated subset of: t10,t10a,t1000,count,count-i,names60,full,icase,regex,since,n-t10,
                       rtree (the log cut into 16 KiB files, -r -c),
                       gz-c, zst-c (-c on the log compressed by gzip -1 / zstd, against
                       zcat|grep, zstdcat|grep, rg -z), rot-t10 (--rotated -t 10: the log
                       as the newest of a set with two older gzip files), merge-t20 and
                       rank-t20 (--merge -t 20 over 8 rank logs of SIZE/8, against
                       sort -m | grep | tail; -t 20 on one of them)
                       (since: --since the timestamp found at 99% of the file; the pipelines
                       start at its first line with sed)
  --floor              also time a bare memchr newline pass over the mmapped file
  --floor-threads N    threads for --floor (default: available cores)
  --cold               evict the log from the page cache (POSIX_FADV_DONTNEED) before
                       every timed run of every contender; residency is checked with
                       mincore and reported
  --grail PATH         grail binary (default: `grail` next to this binary, built first)
  --no-build           do not run `cargo build --release --bin grail` first
  --baseline PATH      also time this grail binary (an earlier build), side by side:
                       its row's 'vs grail' column is the ratio of the two medians

Output:
  --json               print the results as JSON on stdout (the table goes to stderr)
  --plot FILE.svg      instead of the scenario table, time the tail scenarios (t10,
                       t10a, t1000; with --cold, evicted) over --plot-sizes and plot
                       median time against size
  --plot-sizes LIST    sizes for --plot (default 64M,256M,1G)
  -h, --help
";

pub(crate) struct Opts {
    pub(crate) size: u64,
    pub(crate) seed: u64,
    pub(crate) shape: Shape,
    pub(crate) density: f64,
    pub(crate) dir: PathBuf,
    pub(crate) gen_only: bool,
    pub(crate) runs: usize,
    pub(crate) scenarios: Option<Vec<String>>,
    pub(crate) floor: bool,
    pub(crate) floor_threads: usize,
    pub(crate) cold: bool,
    pub(crate) grail: Option<PathBuf>,
    pub(crate) baseline: Option<PathBuf>,
    pub(crate) no_build: bool,
    pub(crate) json: bool,
    pub(crate) plot: Option<PathBuf>,
    pub(crate) plot_sizes: Vec<u64>,
}

pub(crate) fn parse_opts() -> Result<Opts, String> {
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
        baseline: None,
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
            Long("baseline") => o.baseline = Some(PathBuf::from(val!()?)),
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

/// The grail binary to time: `--grail`, else `grail` in the release
/// directory next to this binary, built (or refreshed) with cargo first.
pub(crate) fn locate_grail(o: &Opts) -> Result<PathBuf, String> {
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
