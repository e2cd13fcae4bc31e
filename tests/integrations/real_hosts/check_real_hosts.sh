#!/bin/sh
# Manual check (not part of ctest: it downloads ~1 GB of npm packages): loads integrations/omp in the real pi
# (@mariozechner/pi-coding-agent) and omp (@oh-my-pi/pi-coding-agent under bun) and calls session_search there.
#   tests/integrations/real_hosts/check_real_hosts.sh [HOST_DIR]   (default /tmp/osearch-real-hosts)
# Versions checked: pi 0.73.1, omp 18.2.3 (omp 18.3.4 on npm names dependencies that are not published).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../../.." && pwd)
host=${1:-/tmp/osearch-real-hosts}
pi_version=${PI_VERSION:-0.73.1}
omp_version=${OMP_VERSION:-18.2.3}
mkdir -p "$host/home"
cd "$host"
[ -f package.json ] || npm init -y >/dev/null
npm install --no-audit --no-fund --omit=dev "@mariozechner/pi-coding-agent@$pi_version" \
    "@oh-my-pi/pi-coding-agent@$omp_version" @oven/bun-linux-x64 >/dev/null
export OSEARCH_BIN="${OSEARCH_BIN:-$repo/build/osearch}"
export OSEARCH_INDEX="$host/index"
export OSEARCH_SOURCES="pi=$repo/tests/data/mixed/pi/sessions,omp=$repo/tests/data/mixed/omp/sessions"
node "$here/pi_check.mjs" "$host" "$repo/integrations/omp"
bun="$host/node_modules/@oven/bun-linux-x64/bin/bun"
HOME="$host/home" "$bun" node_modules/@oh-my-pi/pi-coding-agent/src/cli.ts plugin link "$repo/integrations/omp" >/dev/null
cp "$here/omp_check.ts" "$host/omp_check.ts"
HOME="$host/home" "$bun" "$host/omp_check.ts"
