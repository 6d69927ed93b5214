//! The results: the table, the JSON document, and the memchr floor.

use crate::*;
use std::fmt::Write as _;
use std::path::Path;

pub(crate) fn gib(bytes: u64) -> f64 {
    bytes as f64 / (1u64 << 30) as f64
}

/// grail's median time in `scenario`, when it has timed runs.
fn grail_median(rows: &[Row], scenario: &str) -> Option<f64> {
    rows.iter()
        .find(|x| x.scenario == scenario && x.contender == Contender::Grail)
        .and_then(|x| match &x.outcome {
            Outcome::Ok(st) if !st.times.is_empty() => Some(st.median),
            _ => None,
        })
}

pub(crate) fn table(rows: &[Row], floor: Option<&FloorResult>) -> String {
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
        let grail_med = grail_median(rows, &r.scenario);
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

pub(crate) struct FloorResult {
    pub(crate) threads: usize,
    pub(crate) times: Vec<f64>,
    pub(crate) median: f64,
    pub(crate) min: f64,
    pub(crate) max: f64,
    pub(crate) bytes: u64,
    pub(crate) newlines: u64,
}

pub(crate) fn floor(file: &Path, threads: usize, runs: usize) -> std::io::Result<FloorResult> {
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

pub(crate) struct Meta<'a> {
    pub(crate) file: &'a Path,
    pub(crate) bytes: u64,
    pub(crate) spec: GenSpec,
    pub(crate) runs: usize,
}

/// The results as one JSON document (`--json`).
pub(crate) fn json(meta: &[Meta], rows: &[Row], floor: Option<&FloorResult>) -> String {
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
            let grail_med = grail_median(rows, &r.scenario);
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
