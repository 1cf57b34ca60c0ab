#!/usr/bin/env bash
# The long fuzz runs: every target under libFuzzer (cargo-fuzz, pinned) for RUNS executions
# each (default 10,000,000), starting from the corpora in fuzz/corpus. New inputs the
# fuzzer finds go to fuzz/scratch/ (not committed; copy the interesting ones into the
# corpus), crashes to fuzz/artifacts/. Needs no nightly: RUSTC_BOOTSTRAP=1 lets the stable
# compiler take the fuzzing flags.
#
# The targets are safe Rust, where a bug shows as a panic (which libFuzzer reports as a
# crash), so they run without a sanitizer by default: several times faster. SANITIZER=address
# runs them under AddressSanitizer, for the unsafe code of the dependencies.
#
#   fuzz/run.sh              # all targets, 10M executions each
#   fuzz/run.sh 100000 path  # one target, fewer executions
#   JOBS=2 fuzz/run.sh       # two fuzzing processes per target (each runs RUNS)
set -euo pipefail
cd "$(dirname "$0")"
RUNS=${1:-10000000}
SANITIZER=${SANITIZER:-none}
JOBS=${JOBS:-1}
shift || true
TARGETS=("$@")
if [ ${#TARGETS[@]} -eq 0 ]; then
  TARGETS=(lines jsonrpc dispatch http_headers path uri_template prompt_template)
fi
CARGO_FUZZ_VERSION=0.13.2
if ! cargo fuzz --version 2>/dev/null | grep -q "$CARGO_FUZZ_VERSION"; then
  cargo install cargo-fuzz --version "$CARGO_FUZZ_VERSION" --locked
fi
export RUSTC_BOOTSTRAP=1
for target in "${TARGETS[@]}"; do
  mkdir -p "scratch/$target"
  echo "== $target: $RUNS executions"
  # -max_len 4096: the framing and decoders see lines of any length in the unit tests;
  # the fuzzer spends its time on structure instead.
  cargo fuzz run --sanitizer "$SANITIZER" "$target" "scratch/$target" "corpus/$target" -- \
    -runs="$RUNS" -jobs="$JOBS" -workers="$JOBS" -max_len=4096 -rss_limit_mb=2048 \
    -timeout=10 -print_final_stats=1 2>&1 |
    grep -E '^(stat::|SUMMARY|==[0-9]+==ERROR|Done)|#[0-9]+.*DONE' || true
  test ! -d artifacts/"$target" || test -z "$(ls -A artifacts/"$target" 2>/dev/null)" ||
    { echo "$target: crashes in fuzz/artifacts/$target"; exit 1; }
done
