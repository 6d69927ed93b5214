//! Every scanning path (forward sequential and parallel, tail from the end,
//! head, count, with and without -m) at any chunk size agrees with a
//! line-by-line oracle: split on `\n`, `Query::is_selected` per line.
//!
//! Input: byte 0 picks a query from `QUERIES`; bytes 1 and 2 are the chunk
//! size and the first tail chunk size (1..=64); byte 3 is N for head/tail;
//! byte 4: bit 0 maps the haystack onto a small alphabet, bit 1 adds `-m M`
//! with M = byte 5; the rest (at most 4 KiB) is the haystack.
#![no_main]

use grail::{BinaryMode, Line, Query, QueryBuilder, ScanConfig, Searcher, Syntax};
use libfuzzer_sys::fuzz_target;
use std::sync::OnceLock;

macro_rules! queries {
    ($($e:expr),* $(,)?) => { &[$((stringify!($e), (|| $e) as fn() -> QueryBuilder)),*] };
}

static QUERIES: &[(&str, fn() -> QueryBuilder)] = queries![
    // Case-insensitive literals: the folded literal prefilter
    // (`src/query/literals.rs`) decides where the automaton looks.
    QueryBuilder::new()
        .syntax(Syntax::Extended)
        .ignore_case(true)
        .include("RuntimeError|ValueError|Error|not supported|incompatible")
        .exclude(r"repo_utils\|FutureWarning"),
    QueryBuilder::new()
        .syntax(Syntax::Fixed)
        .ignore_case(true)
        .include("abc\nA_b\nzz\u{e9}"),
    QueryBuilder::new()
        .syntax(Syntax::Extended)
        .ignore_case(true)
        .word(true)
        .include("bAa|aab"),
    QueryBuilder::new()
        .utf8(true)
        .ignore_case(true)
        .include("kiss")
        .invert(true),
    QueryBuilder::new()
        .syntax(Syntax::Extended)
        .include("RuntimeError|ValueError|Error|not supported|incompatible")
        .exclude(r"repo_utils\|gpt_oss_triton\|FutureWarning"),
    QueryBuilder::new().include("a"),
    QueryBuilder::new().include(""),
    QueryBuilder::new().include("^$"),
    QueryBuilder::new().include("x*"),
    QueryBuilder::new().include("a\nb$"),
    QueryBuilder::new()
        .syntax(Syntax::Extended)
        .include("^a|b$|E(rr|x)o?"),
    QueryBuilder::new()
        .syntax(Syntax::Extended)
        .include(r"\<Err")
        .exclude("o$"),
    QueryBuilder::new().include("").exclude("^$"),
    QueryBuilder::new().include("a").invert(true),
    QueryBuilder::new().include("").invert(true),
    QueryBuilder::new().include("^$").invert(true).exclude("b"),
    QueryBuilder::new()
        .include("Error")
        .invert(true)
        .exclude("^$"),
    QueryBuilder::new().invert(true).exclude("a"),
    QueryBuilder::new().exclude("a"),
    QueryBuilder::new()
        .syntax(Syntax::Fixed)
        .include("ab")
        .ignore_case(true)
        .word(true),
    QueryBuilder::new().syntax(Syntax::Fixed).include("r\r"),
    QueryBuilder::new().include("ab").line(true),
    QueryBuilder::new()
        .syntax(Syntax::Extended)
        .include("[^a ]{2}")
        .exclude_with(Syntax::Fixed, "\0"),
];

fn oracle(q: &Query, hay: &[u8]) -> Vec<Line> {
    let mut out = Vec::new();
    let mut start = 0;
    let mut number = 0;
    while start < hay.len() {
        let end = hay[start..]
            .iter()
            .position(|&b| b == b'\n')
            .map_or(hay.len(), |i| start + i);
        number += 1;
        if q.is_selected(&hay[start..end]) {
            out.push(Line {
                bytes: hay[start..end].to_vec(),
                number,
                offset: start as u64,
            });
        }
        start = end + 1;
    }
    out
}

fuzz_target!(|data: &[u8]| {
    static BUILT: OnceLock<Vec<Query>> = OnceLock::new();
    let built = BUILT.get_or_init(|| QUERIES.iter().map(|(_, b)| b().build().unwrap()).collect());
    let [qi, cs, ts, n, bits, m, rest @ ..] = data else {
        return;
    };
    let qi = *qi as usize % QUERIES.len();
    let (q, desc) = (&built[qi], QUERIES[qi].0);
    let (chunk_size, tail_start, n) = (*cs as usize % 64 + 1, *ts as usize % 64 + 1, *n as usize);
    let m = (bits & 2 != 0).then_some(*m as usize);
    let mut hay = rest[..rest.len().min(4096)].to_vec();
    if bits & 1 != 0 {
        const ALPHABET: &[u8; 16] = b"abE\n\nro \r_x\0\xffErr";
        hay.iter_mut().for_each(|b| *b = ALPHABET[*b as usize % 16]);
    }
    let all = oracle(q, &hay);
    let first = &all[..m.unwrap_or(usize::MAX).min(all.len())]; // what -m keeps
    for parallel in [false, true] {
        let cfg = ScanConfig {
            chunk_size,
            tail_start,
            parallel,
        };
        let repro = || {
            format!(
                "let q = {desc}.build().unwrap();\nlet s = Searcher::new(&q).line_numbers(true).binary(BinaryMode::Text)\n    .max_count({:?}).scan_config(ScanConfig {{ chunk_size: {chunk_size}, tail_start: {tail_start}, parallel: {parallel} }});\nlet hay = b\"{}\"; // n = {n}",
                m.map(|m| m as u64),
                hay.escape_ascii()
            )
        };
        let s = Searcher::new(q)
            .line_numbers(true)
            .binary(BinaryMode::Text)
            .max_count(m.map(|m| m as u64))
            .scan_config(cfg);
        assert_eq!(s.all(&hay).unwrap().lines, first, "all:\n{}", repro());
        assert_eq!(
            s.count(&hay).unwrap().count,
            first.len() as u64,
            "count:\n{}",
            repro()
        );
        assert_eq!(
            s.head(&hay, n).unwrap().lines,
            first[..n.min(first.len())],
            "head:\n{}",
            repro()
        );
        assert_eq!(
            s.tail(&hay, n).unwrap().lines,
            first[first.len().saturating_sub(n)..],
            "tail:\n{}",
            repro()
        );
    }
});
