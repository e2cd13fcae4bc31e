#!/usr/bin/env bash
# Builds the libFuzzer targets (clang, ASan+UBSan, ccache) in BUILD_DIR and runs each for
# FUZZ_SECONDS, JOBS of them at a time. Fails on the first crash, leak, timeout or
# out-of-memory, naming the saved input: turn it into a regression test (tests/data/fuzz-regressions/).
#
# usage: fuzz/run.sh [BUILD_DIR]     env: FUZZ_SECONDS (60), FUZZ_TARGETS (all), JOBS (nproc)
set -euo pipefail

src="$(cd "$(dirname "$0")/.." && pwd)"
build="${1:-build-fuzz}"
seconds="${FUZZ_SECONDS:-60}"
jobs="${JOBS:-$(nproc)}"
targets="${FUZZ_TARGETS:-jsonl_reader claude_line agent_line query_parser timeutil regex}"

launcher=()
if command -v ccache >/dev/null; then launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache); fi
cmake -S "$src" -B "$build" -DOSEARCH_FUZZ=ON -DOSEARCH_BENCH=OFF -DCMAKE_CXX_COMPILER=clang++ \
  -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG="-O1 -g" "${launcher[@]}" >/dev/null
cmake --build "$build" --target fuzz_all -j "$jobs"

# Seeds: fuzz/seeds/<target> plus what tests/data yields, rebuilt each run. New inputs libFuzzer
# finds go to corpus/<target>, kept between runs of the same build dir.
python3 "$src/fuzz/make_seeds.py" "$src/tests/data" "$src/fuzz/seeds" "$build/fuzz-seeds"

max_len() {
  case "$1" in
    jsonl_reader|claude_line|agent_line) echo 8192 ;;
    query_parser) echo 512 ;;
    timeutil) echo 64 ;;
    regex) echo 256 ;;
  esac
}

export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
mkdir -p "$build/fuzz-artifacts"
# One target: its status, with its log in $build/fuzz-<target>.log.
run_target() {
  local t="$1" dict=()
  mkdir -p "$build/fuzz-corpus/$t"
  case "$t" in jsonl_reader|claude_line|agent_line) dict=(-dict="$src/fuzz/json.dict") ;; esac
  "$build/fuzz/fuzz_$t" "$build/fuzz-corpus/$t" "$build/fuzz-seeds/$t" "${dict[@]}" \
    -max_total_time="$seconds" -seed="${FUZZ_SEED:-0}" -max_len="$(max_len "$t")" -timeout=10 -rss_limit_mb=2048 \
    -artifact_prefix="$build/fuzz-artifacts/$t-" -print_final_stats=1 >"$build/fuzz-$t.log" 2>&1
}

# The targets run $jobs at a time (each is one process, one thread), then report in order.
set -- $targets
while [ $# -gt 0 ]; do
  batch=()
  pids=()
  while [ $# -gt 0 ] && [ "${#batch[@]}" -lt "$jobs" ]; do
    echo "fuzz: $1 for ${seconds}s"
    run_target "$1" &
    batch+=("$1")
    pids+=($!)
    shift
  done
  for k in "${!batch[@]}"; do
    t="${batch[$k]}"
    if ! wait "${pids[$k]}"; then
      tail -n 60 "$build/fuzz-$t.log" >&2
      echo "fuzz: $t FAILED (log $build/fuzz-$t.log, input in $build/fuzz-artifacts/)" >&2
      kill "${pids[@]}" 2>/dev/null || true
      exit 1
    fi
    echo "fuzz: $t: $(grep -E '^stat::number_of_executed_units|^Done' "$build/fuzz-$t.log" | tr '\n' ' ')"
  done
done
echo "fuzz: all targets ran ${seconds}s without a crash"
