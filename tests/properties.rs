//! Property tests: every scanning path agrees with a line-by-line oracle.
//! Sequential scan = parallel scan at any chunk size (down to 1 byte) =
//! reverse tail at every N = forward head at every N, with the same line
//! numbers and offsets.

use grail::{BinaryMode, Line, QueryBuilder, ScanConfig, Searcher, Syntax};
use proptest::prelude::*;

/// The oracle: split on '\n' and test each line on its own.
fn oracle(q: &grail::Query, hay: &[u8]) -> Vec<Line> {
    let mut out = Vec::new();
    let mut start = 0;
    let mut n = 0;
    while start < hay.len() {
        let end = memchr_nl(&hay[start..]).map_or(hay.len(), |i| start + i);
        n += 1;
        if q.is_selected(&hay[start..end]) {
            out.push(Line {
                bytes: hay[start..end].to_vec(),
                number: n,
                offset: start as u64,
            });
        }
        start = end + 1;
    }
    out
}

fn memchr_nl(b: &[u8]) -> Option<usize> {
    b.iter().position(|&c| c == b'\n')
}

fn hay_strategy() -> impl Strategy<Value = Vec<u8>> {
    prop::collection::vec(
        prop::sample::select(vec![
            b'a', b'b', b'E', b'r', b'o', b' ', b'\n', b'\n', b'\r', b'x', b'_', 0xff,
        ]),
        0..400,
    )
}

fn pattern_strategy() -> impl Strategy<Value = (String, Syntax)> {
    prop_oneof![
        Just(("a".to_string(), Syntax::Basic)),
        Just(("ab*".to_string(), Syntax::Basic)),
        Just(("^a".to_string(), Syntax::Basic)),
        Just(("b$".to_string(), Syntax::Basic)),
        Just(("^$".to_string(), Syntax::Basic)),
        Just(("".to_string(), Syntax::Basic)),
        Just(("x*".to_string(), Syntax::Basic)),
        Just(("Err\\|rr".to_string(), Syntax::Basic)),
        Just(("E(rr|x)o?".to_string(), Syntax::Extended)),
        Just(("[^a ]{2}".to_string(), Syntax::Extended)),
        Just(("\\<a".to_string(), Syntax::Extended)),
        Just(("o\\b".to_string(), Syntax::Extended)),
        Just(("r\r".to_string(), Syntax::Fixed)),
        Just(("ab".to_string(), Syntax::Fixed)),
        // Decided line by line by glibc's regex and PCRE2 behind the
        // loosened automaton: every path must still agree.
        Just(("\\(a\\)\\1".to_string(), Syntax::Basic)),
        Just(("(.)\\1".to_string(), Syntax::Extended)),
        Just(("a(?=b)".to_string(), Syntax::Perl)),
        Just(("\\bab".to_string(), Syntax::Perl)),
    ]
}

fn check(
    hay: &[u8],
    inc: &(String, Syntax),
    exc: &Option<(String, Syntax)>,
    flags: (bool, bool, bool, bool),
    chunk: usize,
) {
    let (icase, word, line, invert) = flags;
    let mut b = QueryBuilder::new()
        .include_with(inc.1, &inc.0)
        .ignore_case(icase)
        .word(word)
        .line(line)
        .invert(invert);
    if let Some((p, s)) = exc {
        b = b.exclude_with(*s, p);
    }
    let q = b.build().unwrap();
    let want = oracle(&q, hay);
    for parallel in [false, true] {
        let cfg = ScanConfig {
            chunk_size: chunk,
            tail_start: chunk,
            parallel,
        };
        let s = Searcher::new(&q)
            .line_numbers(true)
            .binary(BinaryMode::Text)
            .scan_config(cfg);
        let all = s.all(hay).unwrap().lines;
        assert_eq!(all, want, "all(), chunk {chunk}, parallel {parallel}");
        assert_eq!(s.count(hay).unwrap().count, want.len() as u64);
        for n in 0..=want.len() + 1 {
            let t = s.tail(hay, n).unwrap().lines;
            let k = want.len().saturating_sub(n);
            assert_eq!(
                t,
                want[k..].to_vec(),
                "tail({n}), chunk {chunk}, parallel {parallel}"
            );
            let h = s.head(hay, n).unwrap().lines;
            assert_eq!(h, want[..n.min(want.len())].to_vec(), "head({n})");
        }
        for m in 0..=want.len() {
            let s = Searcher::new(&q)
                .line_numbers(true)
                .binary(BinaryMode::Text)
                .scan_config(cfg)
                .max_count(Some(m as u64));
            assert_eq!(s.all(hay).unwrap().lines, want[..m].to_vec(), "-m {m}");
            let t = s.tail(hay, 2).unwrap().lines;
            assert_eq!(t, want[m.saturating_sub(2)..m].to_vec(), "-m {m} tail 2");
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn all_paths_agree(
        hay in hay_strategy(),
        inc in pattern_strategy(),
        exc in prop::option::of(pattern_strategy()),
        flags in (any::<bool>(), any::<bool>(), any::<bool>(), any::<bool>()),
        chunk in prop_oneof![Just(1usize), 1usize..64, Just(4096usize)],
    ) {
        check(&hay, &inc, &exc, flags, chunk);
    }
}

#[test]
fn chunk_sizes_everywhere_on_a_real_log() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/testdata/vllm-crash.log");
    let hay = std::fs::read(path).expect("testdata/vllm-crash.log");
    let inc = (
        "RuntimeError|ValueError|Error|not supported|incompatible".to_string(),
        Syntax::Extended,
    );
    let exc = Some((
        "repo_utils\\|gpt_oss_triton\\|FutureWarning".to_string(),
        Syntax::Basic,
    ));
    for chunk in [1, 2, 3, 5, 17, 100, 1000, 65536] {
        check(&hay, &inc, &exc, (false, false, false, false), chunk);
    }
}
