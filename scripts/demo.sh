#!/usr/bin/env bash
# `make demo`: index the user's real transcripts (Claude Code, omp, pi, Codex) when any exist, else
# the small real samples shipped in tests/data, then show status and one keyword, content and list query.
set -euo pipefail
bin=${1:-build/osearch}
root=$(cd "$(dirname "$0")/.." && pwd)
claude_projects="${CLAUDE_CONFIG_DIR:-$HOME/.claude}/projects"

args=()
have_any=
for d in "$claude_projects" "$HOME/.omp/agent/sessions" "$HOME/.pi/agent/sessions" "${CODEX_HOME:-$HOME/.codex}/sessions"; do
  if [ -d "$d" ] && [ -n "$(find "$d" -name '*.jsonl*' -print -quit 2>/dev/null)" ]; then have_any=1; fi
done
if [ -n "$have_any" ]; then
  echo "== indexing your transcripts (the default sources: osearch status lists them)"
else
  echo "== no transcripts found: indexing the samples in tests/data (Claude Code, omp, pi, Codex)"
  args=(--index "$root/build/demo-index" --source "claude=$root/tests/data/claude"
        --source "omp=$root/tests/data/omp/.omp/agent/sessions" --source "pi=$root/tests/data/pi/.pi/agent/sessions"
        --source "codex=$root/tests/data/codex/.codex")
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
for agent in omp pi codex; do run list --agent "$agent" --limit 1 --format text; done
