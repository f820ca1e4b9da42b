#!/usr/bin/env bash
# Run each fuzz target in turn on one core: `fuzz/run.sh [SECONDS] [TARGET...]`
# (default 30 s each, all targets). FUZZ_RUNS=N runs each target for N
# executions instead of a time. FUZZ_SANITIZER picks cargo-fuzz's sanitizer:
# the default is none, because mcpscope is safe Rust (two libc calls aside) and
# AddressSanitizer makes each run about ten times slower without finding
# anything safe code can do; panics, leaks past -rss_limit_mb and hangs are
# still caught. FUZZ_SANITIZER=address brings it back. Needs a nightly toolchain and cargo-fuzz;
# without them it says so and exits 0. A crash fails the run and leaves its
# input in fuzz/artifacts/TARGET/ (keep it as a regression test).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
secs="${1:-30}"
shift || true
targets=("$@")
[[ ${#targets[@]} -gt 0 ]] || targets=(frames sse trace config)
if ! cargo +nightly fuzz --version >/dev/null 2>&1; then
    echo "fuzz: skipped (needs a nightly toolchain and cargo-fuzz: cargo install cargo-fuzz)"
    exit 0
fi
mkdir -p fuzz/artifacts
for t in "${targets[@]}"; do
    mkdir -p "fuzz/corpus/$t"
    log="fuzz/artifacts/$t.log"
    if [[ -n "${FUZZ_RUNS:-}" ]]; then echo "fuzz: $t for $FUZZ_RUNS runs"; else echo "fuzz: $t for ${secs}s"; fi
    # One process, so one core; new inputs go to the first (git-ignored) corpus.
    rc=0
    if [[ -n "${FUZZ_RUNS:-}" ]]; then limit=(-runs="$FUZZ_RUNS"); else limit=(-max_total_time="$secs"); fi
    start=$SECONDS
    cargo +nightly fuzz run -O -s "${FUZZ_SANITIZER:-none}" "$t" "fuzz/corpus/$t" "fuzz/seeds/$t" -- \
        "${limit[@]}" -rss_limit_mb=2048 -timeout=20 -print_final_stats=1 >"$log" 2>&1 || rc=$?
    echo "fuzz: $t took $((SECONDS - start))s (build included)"
    grep -E "^(Done [0-9]+ runs|stat::number_of_executed_units|stat::peak_rss_mb)" "$log" || true
    if [[ $rc -ne 0 ]]; then
        tail -n 60 "$log"
        echo "fuzz: $t FAILED (exit $rc); the input is in fuzz/artifacts/$t/"
        exit 1
    fi
done
