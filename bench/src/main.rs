//! `grail-bench`: generate realistic LLM-server logs and time grail against
//! the pipelines it replaces (GNU grep, ripgrep, tac), checking first that
//! every contender prints the same bytes.
//!
//! ```text
//! cargo run --release -p grail-bench -- --size 1G
//! cargo run --release -p grail-bench -- --size 1G --shape sparse --json
//! cargo run --release -p grail-bench -- --plot tail.svg --plot-sizes 64M,256M,1G
//! ```

mod opts;
mod report;
mod run;
mod scenario;
mod svg;

use grail_bench::logs::{self, GenSpec, Shape};
use opts::*;
use report::*;
use scenario::*;
use std::path::PathBuf;
use std::process::ExitCode;

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
        baseline: o.baseline.clone(),
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
                    sc,
                    &label,
                    &env,
                    file,
                    bytes,
                    (o.runs, o.cold),
                ));
            }
        } else {
            for sc in &chosen {
                rows.extend(bench_scenario(
                    sc,
                    sc.label,
                    &env,
                    file,
                    bytes,
                    (o.runs, o.cold),
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
        plot(path, &o, &rows, &all)?;
    }
    let failed = rows.iter().any(|r| matches!(r.outcome, Outcome::Failed(_)));
    if failed {
        eprintln!("grail-bench: some contenders failed (see the table)");
        return Ok(ExitCode::from(1));
    }
    Ok(ExitCode::SUCCESS)
}

/// `--plot`: grail in every tail scenario, the pipelines (which read the
/// whole file whatever the scenario) in the first, median time against size.
fn plot(path: &std::path::Path, o: &Opts, rows: &[Row], all: &[Scenario]) -> Result<(), String> {
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
                    Outcome::Ok(st) if !st.times.is_empty() => Some((r.bytes as f64, st.median)),
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
    Ok(())
}
