#!/usr/bin/env python3
"""Every query command on the default path, two osearch binaries interleaved on one index.

    python3 bench/cmds_default_path.py --old OLD_BIN --new NEW_BIN --index DIR --source claude=DIR [--runs 15]
        [--no-refresh] [--old-index DIR]

--old-index gives the old binary an index of its own, built from the same sources: an index of another
schema would be rebuilt by the binary that does not know it.

The sessions (the one with the most messages, one of 150-250), the uuid (a late message of the big session) and
the file path (the most touched) are picked from the index itself, so the same run works on any corpus. Each
command runs --runs times per binary after 2 warm-ups, the two binaries alternating in each round; the table is
medians in ms, their ratio (new / old), and the p99 of each (nearest rank). Used for docs/BENCHMARKS.md, "The stat walk beside the query".
"""
import argparse
import json
import statistics
import subprocess
import time


def p99(samples):
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, max(0, -(-99 * len(ordered) // 100) - 1))]


def run_json(binary, args, index_args):
    out = subprocess.run([binary] + args + index_args + ["--no-refresh"], capture_output=True, check=True).stdout
    return json.loads(out)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--old", required=True)
    ap.add_argument("--new", required=True)
    ap.add_argument("--index", required=True)
    ap.add_argument("--source", required=True)
    ap.add_argument("--runs", type=int, default=15)
    ap.add_argument("--no-refresh", action="store_true")
    ap.add_argument("--old-index")
    a = ap.parse_args()
    index_args = ["--index", a.index, "--source", a.source]
    args_of = {a.new: index_args, a.old: ["--index", a.old_index or a.index, "--source", a.source]}

    sessions = sorted(run_json(a.new, ["list", "--limit", "100000"], index_args)["results"],
                      key=lambda s: -s["message_count"])
    big = sessions[0]
    med = next((s for s in sessions if 150 <= s["message_count"] <= 250), sessions[len(sessions) // 2])
    late = run_json(a.new, ["thread", big["session_id"], "--offset", str(max(0, big["message_count"] - 40)),
                            "--limit", "1"], index_args)["messages"][0]["uuid"]
    top_file = run_json(a.new, ["stats", "files", "--limit", "1"], index_args)["rows"][0]["file"]
    name = top_file.replace("\\", "/").rsplit("/", 1)[-1]

    cmds = {
        "list": ["list"], "keyword": ["keyword", "error handling"],
        f"thread ({big['message_count']} messages)": ["thread", big["session_id"]],
        f"thread ({med['message_count']} messages)": ["thread", med["session_id"]],
        "context UUID": ["context", late], "trace UUID": ["trace", late],
        f"files {name}": ["files", name], "failures": ["failures"], "failures --tool Bash": ["failures", "--tool", "Bash"],
        "stats tokens": ["stats", "tokens"], "stats tools": ["stats", "tools"], "stats files": ["stats", "files"],
        "stats models": ["stats", "models"], "stats daily": ["stats", "daily"],
        "subagents": ["subagents"], "workflows": ["workflows"], "overview": ["overview"], "status": ["status"],
    }
    extra = ["--no-refresh"] if a.no_refresh else []
    print("| command | old median ms | new median ms | new/old | old p99 | new p99 |\n|---|---:|---:|---:|---:|---:|")
    for label, args in cmds.items():
        times = {a.old: [], a.new: []}
        for i in range(a.runs + 2):
            for binary in ((a.old, a.new) if i % 2 == 0 else (a.new, a.old)):
                start = time.perf_counter()
                r = subprocess.run([binary] + args + args_of[binary] + extra, stdout=subprocess.DEVNULL,
                                   stderr=subprocess.DEVNULL)
                took = (time.perf_counter() - start) * 1000
                if r.returncode != 0:
                    raise SystemExit(f"{label}: {binary} exited {r.returncode}")
                if i >= 2:
                    times[binary].append(took)
        old, new = statistics.median(times[a.old]), statistics.median(times[a.new])
        print(f"| {label} | {old:.1f} | {new:.1f} | {new / old:.2f} | {p99(times[a.old]):.1f} | {p99(times[a.new]):.1f} |")


if __name__ == "__main__":
    main()
