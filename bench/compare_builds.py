#!/usr/bin/env python3
"""Two osearch builds side by side on one corpus, with ripgrep as the peer: what did a change cost?

    python3 bench/compare_builds.py --old OLD/osearch --new build/osearch --corpus DIR [--reps 9]

Each build indexes the corpus into its own index (cold, timed once), then every query runs --reps
times per build, the builds and rg interleaved in each round so that the machine's drift hits all
of them alike. Queries use the default path a user calls (with the freshness check: a no-op
refresh), not --no-refresh. Prints one Markdown table of medians and new/old and new/rg ratios.
"""

import argparse
import json
import os
import shutil
import statistics
import subprocess
import tempfile
import time

QUERIES = [
    ("content literal", ["content", "TODO"], ["rg", "-l", "TODO"]),
    ("content literal-free", ["content", "[A-Z][a-z]+[0-9]{3}"], ["rg", "-l", "[A-Z][a-z]+[0-9]{3}"]),
    ("content -i -w", ["content", "-i", "-w", "error"], ["rg", "-l", "-i", "-w", "error"]),
    ("content \\w+Error", ["content", r"\w+Error"], ["rg", "-l", r"\w+Error"]),
    ("content -F brackets", ["content", "-F", "[0]"], ["rg", "-l", "-F", "[0]"]),
    ("keyword two words", ["keyword", "error handling"], None),
    ("keyword prefix", ["keyword", "test*"], None),
    ("keyword dense word", ["keyword", "the"], None),
    ("keyword short prefix", ["keyword", "migrat*"], None),
    ("list", ["list"], None),
    ("status", ["status"], None),
    ("index, nothing to do", ["index"], None),
]


def timed(cmd, env=None):
    t0 = time.perf_counter()
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    ms = (time.perf_counter() - t0) * 1000
    if r.returncode not in (0, 1) or (cmd[0] != "rg" and r.returncode != 0):
        raise SystemExit(f"{' '.join(cmd)} failed ({r.returncode}): {r.stderr.decode()[:300]}")
    return ms, r.stdout


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--old", required=True)
    ap.add_argument("--new", required=True)
    ap.add_argument("--corpus", required=True)
    ap.add_argument("--reps", type=int, default=9)
    a = ap.parse_args()
    work = tempfile.mkdtemp(prefix="osearch-compare-")
    try:
        builds = {"old": a.old, "new": a.new}
        base = {k: [b, "--index", os.path.join(work, k), "--source", f"claude={a.corpus}", "--format", "json"]
                for k, b in builds.items()}
        rows = []
        for k in builds:
            ms, out = timed(base[k] + ["index"])
            rows.append((f"cold index ({k})", ms, json.loads(out).get("messages")))
        print(f"| step | old ms | new ms | new/old | rg ms | new/rg | totals old/new |")
        print("|---|---:|---:|---:|---:|---:|---|")
        for name, args, rg in QUERIES:
            t = {"old": [], "new": [], "rg": []}
            totals = {}
            for _ in range(a.reps):
                for k in builds:
                    ms, out = timed(base[k] + args)
                    t[k].append(ms)
                    j = json.loads(out)
                    totals[k] = j.get("total", j.get("sessions"))
                if rg:
                    t["rg"].append(timed(rg + [a.corpus])[0])
            m = {k: statistics.median(v) for k, v in t.items() if v}
            rg_ms = f"{m['rg']:.1f}" if "rg" in m else "–"
            rg_ratio = f"{m['new'] / m['rg']:.2f}×" if "rg" in m else "–"
            print(f"| {name} | {m['old']:.1f} | {m['new']:.1f} | {m['new'] / m['old']:.2f}× | {rg_ms} | {rg_ratio} "
                  f"| {totals.get('old')} / {totals.get('new')} |")
        for name, ms, msgs in rows:
            print(f"| {name} | {ms:.0f} ms, {msgs} messages | | | | | |")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
