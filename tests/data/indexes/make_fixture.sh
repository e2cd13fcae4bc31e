#!/bin/bash
# Writes the fixture index of one schema version: tests/data/indexes/schema-N/ (README.md there).
#
#   make_fixture.sh OSEARCH_BINARY N COMMIT
#
# OSEARCH_BINARY is the osearch built from COMMIT, whose kSchemaVersion is N. It indexes three small
# Claude sessions of tests/data/claude, one of whose files is then deleted (an archived session),
# adds an opaque entry to the legacy `memories` table, and copies the index compacted (mdb_copy -c,
# from lmdb-utils). expected.tsv records what that osearch answered, for tests/schema_upgrade_test.cpp.
set -euo pipefail
bin=$(realpath "$1")
schema=$2
commit=$(git -C "$(dirname "$0")" rev-parse "$3")
subject=$(git -C "$(dirname "$0")" log -1 --format=%s "$commit" | cut -c1-120)
here=$(cd "$(dirname "$0")" && pwd)
data=$(cd "$here/.." && pwd)/claude
out=$here/schema-$schema

# session file (relative to tests/data/claude), a keyword it answers, a fixed string in its text
sessions=(
  "D--oh-my-posh/88e16f61-d1b7-47a3-84f1-057e0f96521a.jsonl|gotcha|reserved DOS device name"
  "sample-project/1af7fc5e-8455-4414-9ccd-011d40f70b2a.jsonl|cursorrules|Analyzing codebase structure"
  "-Users-alex-workspace-cli/1b3e6441-62e3-4b41-8a0c-9d252f531f7a.jsonl|codeowners|cli-maintainers"
)
archived=sample-project/1af7fc5e-8455-4414-9ccd-011d40f70b2a.jsonl  # the richest: tool calls, an error, a command

work=$(mktemp -d /tmp/osearch-fixture.XXXXXX)
trap 'rm -rf "$work"' EXIT
for s in "${sessions[@]}"; do
  rel=${s%%|*}
  mkdir -p "$work/src/${rel%/*}"
  cp "$data/$rel" "$work/src/$rel"
done
os() { "$bin" --index "$work/idx" --source "claude=$work/src" "$@"; }
os --format json index >/dev/null
rm "$work/src/$archived"
os --format json index >/dev/null

printf '# what the osearch of schema %s answered for this index (make_fixture.sh)\n' "$schema" >"$work/expected.tsv"
printf 'schema\t%s\n' "$schema" >>"$work/expected.tsv"
for s in "${sessions[@]}"; do
  rel=${s%%|*}
  rest=${s#*|}
  word=${rest%%|*}
  fixed=${rest#*|}
  sid=${rel##*/}; sid=${sid%.jsonl}
  list=$(os --no-refresh --format json list --session "$sid")
  count=$(grep -o '"message_count":[0-9]*' <<<"$list" | head -1 | cut -d: -f2)
  deleted=$(grep -o '"source_deleted":[a-z]*' <<<"$list" | head -1 | cut -d: -f2)
  [ -n "$count" ] || { echo "session $sid not listed" >&2; exit 1; }
  os --no-refresh --format json keyword "$word" | grep -q "$sid" || { echo "keyword $word does not find $sid" >&2; exit 1; }
  os --no-refresh --format json content -F "$fixed" | grep -q "$sid" || { echo "content $fixed does not find $sid" >&2; exit 1; }
  printf 'session\t%s\t%s\t%s\t%s\t%s\n' "$sid" "$count" "$word" "$fixed" "$deleted" >>"$work/expected.tsv"
done

# The legacy `memories` table (before memories had an env of their own): opaque bytes, carried as they are.
mem_key="legacy-memory-$schema"
mem_value="a note written by hand before schema $((schema + 1)); it must survive every upgrade"
env=$(cat "$work/idx/records.current" 2>/dev/null || echo records)
printf '%s\n%s\n' "$mem_key" "$mem_value" | mdb_load -T -s memories "$work/idx/$env"
printf 'memory\t%s\t%s\n' "$mem_key" "$mem_value" >>"$work/expected.tsv"

rm -rf "$out"
mkdir -p "$out"
for part in "$work/idx"/*; do
  name=$(basename "$part")
  case "$name" in
    writer.lock|cache) ;;  # cache: compiled patterns, derived and per machine
    records|records-*)
      if [ -f "$part/data.mdb" ]; then mkdir -p "$out/$name" && mdb_copy -c "$part" "$out/$name"; fi ;;
    *) cp -r "$part" "$out/$name" ;;
  esac
done
rm -f "$out"/*/lock.mdb
cp "$work/expected.tsv" "$out/expected.tsv"
cat >"$out/README.md" <<README
# Index fixture: schema $schema

An index written by the osearch of commit \`$commit\` ($subject), whose \`kSchemaVersion\` is $schema.
\`tests/schema_upgrade_test.cpp\` opens a copy with the current build and checks every session and the memory
below against \`expected.tsv\` (what that osearch answered).

Made on $(date -u +%Y-%m-%d) with:

\`\`\`sh
git worktree add /tmp/old-$schema $commit
cd /tmp/old-$schema && cmake -S . -B b -DCMAKE_BUILD_TYPE=Release -DOSEARCH_BENCH=OFF && cmake --build b --target osearch
tests/data/indexes/make_fixture.sh /tmp/old-$schema/b/osearch $schema $commit   # from the current checkout
\`\`\`

- Sessions (from \`tests/data/claude\`, see PROVENANCE.md there): \`D--oh-my-posh/88e16f61…\`,
  \`sample-project/1af7fc5e…\` (deleted after the first run: archived, \`source_deleted\`) and
  \`-Users-alex-workspace-cli/1b3e6441…\`. The source dir was a temp dir that no longer exists, so under the test
  all three are archived (none of their files exists).
- The legacy \`memories\` table holds one opaque entry (\`mdb_load -T -s memories\`).
- The records env was copied with \`mdb_copy -c\` (compacted); \`lock.mdb\` and \`writer.lock\` are left out.
README
du -sh "$out"
