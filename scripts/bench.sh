#!/bin/sh
# Benchmark osearch against a generated corpus: scripts/bench.sh BUILD_DIR [extra run_bench.py args]
# Corpus size in MB: $OSEARCH_BENCH_MB (default 500); the mixed-agent corpus (Claude, omp, pi, Codex):
# $OSEARCH_BENCH_MIXED_MB (default 200); the known-item corpus (issue 9, beside the shared real one):
# $OSEARCH_BENCH_KNOWN_ITEM_MB (default 60). Results: bench/out/results.{json,md}.
set -eu
build=${1:-build}
[ $# -gt 0 ] && shift
case $build in /*) ;; *) build=$PWD/$build ;; esac
cd "$(dirname "$0")/.."
exec python3 bench/run_bench.py --build-dir "$build" --corpus-mb "${OSEARCH_BENCH_MB:-500}" --out bench/out "$@"
