#!/usr/bin/env bash
# Run each fuzz target for a fixed time (default 600 s each), one after the
# other, one job each, starting from a scratch copy of the committed seeds so
# fuzz/corpus/ keeps only the seeds. Crashes land in fuzz/artifacts/<target>/.
# Needs: rustup nightly, `cargo install cargo-fuzz`.
#   fuzz/run.sh [SECONDS] [TARGET...]
set -euo pipefail
cd "$(dirname "$0")"
secs=${1:-600}
shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(pattern scan prefilter)
export RAYON_NUM_THREADS=${RAYON_NUM_THREADS:-2} # the scan target's parallel paths
san=${FUZZ_SANITIZER:-none} # address is 2-3x slower; the fuzzed paths have no unsafe of their own
cargo +nightly fuzz build --sanitizer "$san"
status=0
for t in "${targets[@]}"; do
    work=$(mktemp -d "${TMPDIR:-/tmp}/grail-fuzz-$t.XXXXXX")
    cp corpus/"$t"/* "$work"/
    log="$work.log"
    echo "== $t: ${secs}s, corpus copy in $work, log in $log"
    extra=()
    [ "$t" = scan ] && extra=(-max_len=4102) # 6-byte header + 4 KiB haystack
    [ "$t" = prefilter ] && extra=(-max_len=10000) # literals + 8 KiB haystack
    # The prefilter's SIMD paths, each for a share of the time.
    paths=(default)
    [ "$t" = prefilter ] && paths=(avx2 ssse3 sse2 scalar)
    each=$((secs / ${#paths[@]}))
    ok=1
    for p in "${paths[@]}"; do
        [ "$p" = default ] || export GRAIL_SIMD="$p"
        cargo +nightly fuzz run --sanitizer "$san" "$t" "$work" -- "${extra[@]}" \
            -max_total_time="$each" -timeout=30 -print_final_stats=1 >>"$log" 2>&1 || ok=0
        unset GRAIL_SIMD
    done
    if [ $ok = 1 ]; then
        echo "   ok"
    else
        status=1
        echo "   FAILED: see $log and fuzz/artifacts/$t/"
        grep -E "panicked|ERROR|Test unit written" "$log" | head -5 || true
    fi
    grep -E "^(stat::number_of_executed_units|stat::average_exec_per_sec|stat::new_units_added|stat::peak_rss_mb)|^Done [0-9]+ runs" "$log" | sed 's/^/   /'
done
exit $status
