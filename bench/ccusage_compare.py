#!/usr/bin/env python3
"""Per-session token agreement between ccusage and `osearch stats tokens --by session`.

    bench/ccusage_compare.py --claude-config-dir DIR [--osearch build/osearch] [--ccusage ccusage]
    bench/ccusage_compare.py --codex-home DIR | --pi-agent-dir DIR [--pi-kind pi|omp] ...

DIR holds `projects/` (what CLAUDE_CONFIG_DIR names). ccusage runs as
`ccusage claude session --json --offline -z UTC` (its session totals are the oracle; its daily
report counts differently). osearch indexes DIR/projects into a fresh index. For each session the
four counts (input, output, cache creation, cache read) are compared; the report lists how many
sessions agree exactly, the totals on both sides and the sessions that differ. The same is done per
project: ccusage reports an old-layout root `agent-*.jsonl` file as a session of its own, osearch
counts it in the session whose `sessionId` its lines carry, so per-project sums show whether the
counting agrees where the session attribution differs.
With --codex-home (CODEX_HOME) or --pi-agent-dir (PI_AGENT_DIR; an omp tree with --pi-kind omp)
the same per-session comparison runs on `ccusage codex|pi session`; a ccusage session id (a Codex
rollout path) matches the osearch session id it ends with.
Not part of ctest: CI does not install ccusage (`npm install -g ccusage@20.0.24`).
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

FIELDS = [("input", "inputTokens"), ("output", "outputTokens"),
          ("cache_creation", "cacheCreationTokens"), ("cache_read", "cacheReadTokens")]


def run_ccusage(ccusage, config_dir):
    env = dict(os.environ, CLAUDE_CONFIG_DIR=config_dir)
    out = subprocess.run(ccusage + ["claude", "session", "--json", "--offline", "-z", "UTC"],
                         env=env, check=True, capture_output=True, text=True).stdout
    sessions, projects = {}, {}
    for s in json.loads(out).get("sessions", []):
        for table, key in ((sessions, s["sessionId"]), (projects, s.get("projectPath", ""))):
            row = table.setdefault(key, {k: 0 for k, _ in FIELDS})
            for ours, theirs in FIELDS:
                row[ours] += int(s.get(theirs, 0))
    return sessions, projects, json.loads(out).get("sessions", [])


def reattributed(config_dir, ccusage_rows):
    """ccusage's sessions with each old-layout root agent file (<project>/agent-*.jsonl) moved into the
    session its lines name, as osearch attributes it (the file is read only for that sessionId)."""
    sessions = {}
    for s in ccusage_rows:
        sid = s["sessionId"]
        path = os.path.join(config_dir, "projects", s.get("projectPath", ""), sid + ".jsonl")
        if sid.startswith("agent-") and os.path.isfile(path):
            with open(path, encoding="utf-8", errors="replace") as f:
                for line in f:
                    try:
                        named = json.loads(line).get("sessionId")
                    except (ValueError, AttributeError):
                        continue
                    if named:
                        sid = named
                        break
        row = sessions.setdefault(sid, {k: 0 for k, _ in FIELDS})
        for ours, theirs in FIELDS:
            row[ours] += int(s.get(theirs, 0))
    return sessions


def run_osearch(osearch, config_dir, index_dir):
    base = [osearch, "--index", index_dir, "--source", "claude=" + os.path.join(config_dir, "projects")]
    subprocess.run(base + ["-q", "index"], check=True, capture_output=True)
    tables = []
    for by in ("session", "project"):
        out = subprocess.run(base + ["--format", "json", "--no-refresh", "stats", "tokens", "--by", by,
                                     "--limit", "100000"], check=True, capture_output=True, text=True).stdout
        tables.append({r[by]: {k: int(r[k]) for k, _ in FIELDS} for r in json.loads(out)["rows"]})
    return tables


def compare(what, theirs, ours, show):
    both = sorted(set(theirs) | set(ours))
    zero = {k: 0 for k, _ in FIELDS}
    differ = [(key, theirs.get(key, zero), ours.get(key, zero)) for key in both
              if theirs.get(key, zero) != ours.get(key, zero)]
    tot = lambda side: {k: sum(s[k] for s in side.values()) for k, _ in FIELDS}
    print(f"{what}: ccusage {len(theirs)}, osearch {len(ours)}, union {len(both)}")
    print(f"  agree exactly (all four counts): {len(both) - len(differ)}/{len(both)}")
    print(f"  ccusage totals: {tot(theirs)}")
    print(f"  osearch totals: {tot(ours)}")
    for key, t, o in differ[:show]:
        diff = {k: o[k] - t[k] for k, _ in FIELDS if o[k] != t[k]}
        print(f"    {key}: osearch - ccusage = {diff}")
    if len(differ) > show:
        print(f"    … {len(differ) - show} more")
    return len(differ)


def osearch_sessions(osearch, kind, root, index_dir):
    base = [osearch, "--index", index_dir, "--source", f"{kind}={root}"]
    subprocess.run(base + ["-q", "index"], check=True, capture_output=True)
    out = subprocess.run(base + ["--format", "json", "--no-refresh", "stats", "tokens", "--by", "session",
                                 "--limit", "100000"], check=True, capture_output=True, text=True).stdout
    return {r["session"]: {k: int(r[k]) for k, _ in FIELDS} for r in json.loads(out)["rows"]}


def other_agent(a, tmp):
    """Codex or pi/omp: ccusage's session report against osearch's, sessions matched by id suffix."""
    if a.codex_home:
        env, cmd, kind, root = "CODEX_HOME", "codex", "codex", os.path.join(a.codex_home, "sessions")
        home = a.codex_home
    else:
        env, cmd, kind, root = "PI_AGENT_DIR", "pi", a.pi_kind, os.path.join(a.pi_agent_dir, "sessions")
        home = a.pi_agent_dir
    out = subprocess.run(a.ccusage.split() + [cmd, "session", "--json", "--offline", "-z", "UTC"],
                         env=dict(os.environ, **{env: home}), check=True, capture_output=True, text=True).stdout
    ours = osearch_sessions(a.osearch, kind, root, a.index or os.path.join(tmp, "idx"))
    theirs = {}
    for s in json.loads(out).get("sessions", []):
        sid = next((o for o in ours if s["sessionId"].endswith(o)), s["sessionId"])
        row = theirs.setdefault(sid, {k: 0 for k, _ in FIELDS})
        for k, their_key in FIELDS:
            row[k] += int(s.get(their_key, 0))
    return compare(f"{kind} sessions", theirs, ours, a.show)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--claude-config-dir")
    ap.add_argument("--codex-home")
    ap.add_argument("--pi-agent-dir")
    ap.add_argument("--pi-kind", default="pi", choices=["pi", "omp"], help="what --pi-agent-dir holds")
    ap.add_argument("--osearch", default="build/osearch")
    ap.add_argument("--ccusage", default="ccusage", help="command (split on spaces), e.g. 'npx ccusage@20.0.24'")
    ap.add_argument("--index", help="index dir (default: a fresh temporary one)")
    ap.add_argument("--show", type=int, default=20, help="differing sessions to list")
    a = ap.parse_args()
    if a.codex_home or a.pi_agent_dir:
        with tempfile.TemporaryDirectory() as tmp:
            return 0 if not other_agent(a, tmp) else 1
    if not a.claude_config_dir:
        ap.error("one of --claude-config-dir, --codex-home, --pi-agent-dir is required")

    their_sessions, their_projects, their_rows = run_ccusage(a.ccusage.split(), a.claude_config_dir)
    with tempfile.TemporaryDirectory() as tmp:
        our_sessions, our_projects = run_osearch(a.osearch, a.claude_config_dir, a.index or os.path.join(tmp, "idx"))
    differ = compare("sessions", their_sessions, our_sessions, a.show)
    compare("sessions, root agent files moved to the session their lines name",
            reattributed(a.claude_config_dir, their_rows), our_sessions, a.show)
    differ += compare("projects", their_projects, our_projects, a.show)
    return 0 if not differ else 1


if __name__ == "__main__":
    sys.exit(main())
