#!/usr/bin/env bash
# Installs the Debian 12 packages osearch builds and tests with, and nothing that is already there.
# Idempotent: a second run only checks dpkg and exits.
set -euo pipefail

packages=(
  build-essential cmake pkg-config
  libxapian-dev liblmdb-dev libsimdjson-dev libhyperscan-dev libpcre2-dev
  libzstd-dev libcli11-dev catch2 libbenchmark-dev libjemalloc-dev
  clang libclang-rt-14-dev ccache
  python3 ripgrep sqlite3
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

echo "install-deps: installing ${missing[*]}" >&2
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
