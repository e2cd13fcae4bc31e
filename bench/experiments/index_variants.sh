#!/usr/bin/env bash
# Reproduces BENCHMARKS.md "What the cold build's CPU buys": builds osearch with
# index_variants.patch in a scratch worktree, then runs ROUNDS rounds of (python scan, one cold
# `index --full` per variant) over HOME's Claude projects tree, and the one-thread feed_order program.
#   bench/experiments/index_variants.sh HOME [ROUNDS] [VARIANTS...]
# HOME holds .claude/projects (bench/gen_corpus.py --out HOME/.claude/projects --mb 500 --seed 1).
# Variants: OSEARCH_PROTO values (0 = unchanged, 1-7 as the patch's comment says), run:N for the
# shard threads' run size (OSEARCH_RUN), or P:N for both. Default: 0 1 2 4 5 6 run:256.
# PATCH=bench/experiments/coarse_docs.patch measures coarse documents instead (variants 0, 8, 9, 9:16;
# a fresh SCRATCH for it, since the worktree keeps the patch it was made with).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
home=${1:?usage: index_variants.sh HOME [ROUNDS] [VARIANTS...]}
rounds=${2:-2}
shift $(( $# >= 2 ? 2 : 1 ))
variants=("$@")
[ ${#variants[@]} -gt 0 ] || variants=(0 1 2 4 5 6 run:256)
scratch=${SCRATCH:-/tmp/osearch-variants}

if [ ! -d "$scratch/src" ]; then
  git -C "$repo" worktree add --detach "$scratch/src" HEAD
  git -C "$scratch/src" apply "${PATCH:-$here/index_variants.patch}"
fi
cmake -S "$scratch/src" -B "$scratch/build" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$scratch/build" -j2 --target osearch >/dev/null
bin="$scratch/build/osearch"

python3 - "$repo" > "$scratch/baseline.py" <<'PY'
import sys; sys.path.insert(0, sys.argv[1] + '/bench'); import bench_corpus; print(bench_corpus.BASELINE_CODE)
PY

for r in $(seq "$rounds"); do
  s=$(date +%s.%N); python3 "$scratch/baseline.py" "$home/.claude/projects" >/dev/null; e=$(date +%s.%N)
  py=$(echo "$e - $s" | bc)
  for v in "${variants[@]}"; do
    rm -rf "$scratch/idx"; mkdir -p "$scratch/idx"
    proto=0; run=
    case $v in run:*) run=${v#run:} ;; *:*) proto=${v%%:*}; run=${v#*:} ;; *) proto=$v ;; esac
    s=$(date +%s.%N)
    env OSEARCH_PROTO=$proto ${run:+OSEARCH_RUN=$run} HOME=$home OSEARCH_INDEX="$scratch/idx" \
      /usr/bin/time -f "%U %S %M" -o "$scratch/time" "$bin" index --full --quiet >/dev/null
    e=$(date +%s.%N)
    read -r user sys rss < "$scratch/time"
    os=$(echo "$e - $s" | bc)
    printf 'round %s  %-8s wall %6.2f s  user %6.2f s  sys %5.2f s  rss %6d KB  python %5.2f s  ratio %.2f\n' \
      "$r" "$v" "$os" "$user" "$sys" "$rss" "$py" "$(echo "$os / $py" | bc -l)"
  done
done

# One thread deep: term order and commit interval.
g++ -std=c++20 -O2 -I"$scratch/src" $(pkg-config --cflags simdjson) "$here/feed_order.cpp" \
  "$scratch/build/libosearch_index.a" "$scratch/build/libosearch_store.a" "$scratch/build/libosearch_ingest.a" \
  "$scratch/build/libosearch_memory.a" $(pkg-config --libs simdjson xapian-core libzstd lmdb) -lpthread \
  -o "$scratch/feed_order"
"$scratch/feed_order" "$home/.claude/projects" "$scratch/feed-db" order 3
"$scratch/feed_order" "$home/.claude/projects" "$scratch/feed-db" interval 2
