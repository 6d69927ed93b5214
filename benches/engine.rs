//! criterion benches of the engine on a generated in-memory log (~64 MiB,
//! the same generator as `grail-bench`): query compilation, the forward
//! parallel count, the reverse tail, and newline counting. Every timed
//! closure asserts its answer against one computed outside by a simple
//! line-by-line reference. Run with `cargo bench --bench engine`.

use criterion::{black_box, criterion_group, criterion_main, Criterion, Throughput};
use grail::{Query, QueryBuilder, Searcher, Syntax};
use grail_bench::logs::{self, GenSpec, Shape};
use std::time::Duration;

const INC: &str = "RuntimeError|ValueError|Error|not supported|incompatible";
const EXC: &str = r"repo_utils\|gpt_oss_triton\|FutureWarning";
const LITERAL_FREE: &str = "[0-9]{4}ms";
const SIZE: u64 = 64 << 20;

fn seed_query() -> Query {
    QueryBuilder::new()
        .syntax(Syntax::Extended)
        .include(INC)
        .exclude_with(Syntax::Basic, EXC)
        .build()
        .expect("seed query compiles")
}

fn regex_query() -> Query {
    QueryBuilder::new()
        .syntax(Syntax::Extended)
        .include(LITERAL_FREE)
        .exclude_with(Syntax::Basic, EXC)
        .build()
        .expect("literal-free query compiles")
}

fn data(shape: Shape) -> Vec<u8> {
    logs::generate_vec(&GenSpec {
        size: SIZE,
        seed: 1,
        shape,
        // Dense enough that the forward count has work to report.
        density: 1e-4,
    })
}

/// Line ranges selected by `q`, one line at a time (the reference).
fn reference(q: &Query, hay: &[u8]) -> Vec<(usize, usize)> {
    let mut v = Vec::new();
    let mut pos = 0;
    while pos < hay.len() {
        let end = memchr::memchr(b'\n', &hay[pos..]).map_or(hay.len(), |i| pos + i);
        if q.is_selected(&hay[pos..end]) {
            v.push((pos, end));
        }
        pos = end + 1;
    }
    v
}

fn settings(c: &mut Criterion) -> criterion::BenchmarkGroup<'_, criterion::measurement::WallTime> {
    let mut g = c.benchmark_group("engine");
    g.sample_size(10)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2));
    g
}

fn engine(c: &mut Criterion) {
    let crash = data(Shape::Crash);
    let none = data(Shape::None);
    let seed = seed_query();
    let regex = regex_query();
    let crash_ref = reference(&seed, &crash);
    let none_ref = reference(&seed, &none);
    let regex_ref = reference(&regex, &crash);
    assert!(
        crash_ref.len() > 1000,
        "the crash log has a burst at the end"
    );
    assert!(none_ref.is_empty(), "the none log selects nothing");
    assert!(!regex_ref.is_empty());
    let newlines = crash.iter().filter(|&&b| b == b'\n').count() as u64;

    let mut g = settings(c);

    g.throughput(Throughput::Bytes((INC.len() + EXC.len()) as u64));
    g.bench_function("compile/seed-query", |b| {
        b.iter(|| {
            let q = seed_query();
            assert!(q.has_excludes());
            q
        })
    });

    g.throughput(Throughput::Bytes(crash.len() as u64));
    g.bench_function("count/seed-query/64MiB", |b| {
        let s = Searcher::new(&seed);
        b.iter(|| {
            assert_eq!(
                s.count(black_box(&crash)).unwrap().count,
                crash_ref.len() as u64
            )
        })
    });
    g.bench_function("count/literal-free-regex/64MiB", |b| {
        let s = Searcher::new(&regex);
        b.iter(|| {
            assert_eq!(
                s.count(black_box(&crash)).unwrap().count,
                regex_ref.len() as u64
            )
        })
    });

    // Reverse tail: on the crash log the answer is in the last megabyte; on
    // the `none` log the whole buffer is scanned backwards.
    let want10: Vec<&[u8]> = crash_ref[crash_ref.len() - 10..]
        .iter()
        .map(|&(a, b)| &crash[a..b])
        .collect();
    g.bench_function("tail10/crash/64MiB", |b| {
        let s = Searcher::new(&seed);
        b.iter(|| {
            let got = s.tail(black_box(&crash), 10).unwrap().lines;
            assert!(got.iter().map(|l| &l.bytes[..]).eq(want10.iter().copied()));
        })
    });
    g.bench_function("tail10/none/64MiB", |b| {
        let s = Searcher::new(&seed);
        b.iter(|| assert!(s.tail(black_box(&none), 10).unwrap().lines.is_empty()))
    });

    g.bench_function("count_newlines/64MiB", |b| {
        b.iter(|| {
            assert_eq!(
                grail::scan::count_newlines(black_box(&crash), 0, crash.len(), true),
                newlines
            )
        })
    });
    g.finish();
}

criterion_group!(benches, engine);
criterion_main!(benches);
