#!/usr/bin/env bash
# `make demo`: index the user's real Claude Code transcripts when they exist, else the small real
# sample shipped in tests/data/claude, then show status and one keyword, content and list query.
set -euo pipefail
bin=${1:-build/osearch}
root=$(cd "$(dirname "$0")/.." && pwd)
claude_projects="${CLAUDE_CONFIG_DIR:-$HOME/.claude}/projects"

args=()
if [ -d "$claude_projects" ] && [ -n "$(find "$claude_projects" -name '*.jsonl' -print -quit 2>/dev/null)" ]; then
  echo "== indexing your transcripts in $claude_projects"
else
  echo "== no transcripts in $claude_projects: indexing the sample corpus in tests/data/claude"
  args=(--index "$root/build/demo-index" --source "claude=$root/tests/data/claude")
fi

run() {
  echo
  echo "\$ osearch $*"
  "$bin" "$@" "${args[@]}"
}

run index
run status
run keyword error --limit 3 --format text
run content 'TODO|FIXME|[A-Z][a-z]+Error' --limit 3 --format text
run list --limit 5 --format text
