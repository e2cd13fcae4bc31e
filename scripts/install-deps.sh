#!/usr/bin/env bash
# Installs the Debian 12 packages osearch builds and tests with, and nothing that is already there.
# Idempotent: a second run only checks dpkg (and that tests/mcp/node_modules exists) and exits.
set -euo pipefail

packages=(
  build-essential cmake pkg-config
  libxapian-dev liblmdb-dev libsimdjson-dev libhyperscan-dev libpcre2-dev
  libzstd-dev libcli11-dev catch2 libbenchmark-dev libjemalloc-dev
  clang libclang-rt-14-dev ccache
  python3 ripgrep sqlite3 strace
  libcpp-httplib-dev chromium
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
apt_install() {
  echo "install-deps: installing $*" >&2
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "$@"
}

if [ ${#missing[@]} -gt 0 ]; then
  apt_install "${missing[@]}"
fi

# The MCP client test (tests/mcp): the npm packages its package-lock.json pins, and node and npm
# from Debian when they are missing.
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# The web app's browser test (tests/web): puppeteer-core, which drives Debian's chromium.
for node_test in tests/mcp tests/web; do
  if [ ! -d "$repo/$node_test/node_modules" ]; then
    node_packages=()
    command -v node >/dev/null || node_packages+=(nodejs)
    command -v npm >/dev/null || node_packages+=(npm)
    if [ ${#node_packages[@]} -gt 0 ]; then apt_install "${node_packages[@]}"; fi
    npm ci --prefix "$repo/$node_test" --no-audit --no-fund --loglevel=error >&2
  fi
done
