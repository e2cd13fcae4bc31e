#!/usr/bin/env python3
"""Query latency on the default path with and without a live `osearch index --watch` (issue 13).

    python3 bench/watch_latency.py --osearch build/osearch --index DIR --corpus DIR [--runs 21]

For `keyword` and `list` it reports the median and p90 CLI wall time of --runs calls in three states:
  watcher   a live watcher vouches for the index (the query skips its stat walk)
  walk      no watcher: the query's quick check stats every transcript (the default path before issue 13)
  no-refresh  --no-refresh (no freshness at all: the floor)
then the no-op `osearch index` (the walk alone, plus process start), and how long an appended line takes to be
found by `--no-refresh keyword` with the watcher running (median of 5). Prints one JSON object.
The corpus is left as it was: the appended lines are cut off again at the end.
"""
import argparse
import json
import os
import signal
import statistics
import subprocess
import time
import uuid


def timed(cmd, runs):
    out = []
    for _ in range(runs + 2):
        t = time.perf_counter()
        r = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        out.append((time.perf_counter() - t) * 1000)
        if r.returncode != 0:
            raise SystemExit(f"{' '.join(cmd)} exited {r.returncode}")
    out = sorted(out[2:])  # two warm-up calls
    return {"median_ms": round(statistics.median(out), 2), "p90_ms": round(out[int(len(out) * 0.9) - 1], 2)}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--osearch", required=True)
    ap.add_argument("--index", required=True)
    ap.add_argument("--corpus", required=True)
    ap.add_argument("--runs", type=int, default=21)
    a = ap.parse_args()
    base = [a.osearch, "--index", a.index, "--source", "claude=" + a.corpus, "--format", "json"]
    queries = {"keyword": ["keyword", "--limit", "10", "error", "handling"], "list": ["list", "--limit", "10"]}
    files = sorted(os.path.join(d, f) for d, _, fs in os.walk(a.corpus) for f in fs if f.endswith(".jsonl"))
    result = {"transcripts": len(files), "corpus_bytes": sum(os.path.getsize(f) for f in files)}
    subprocess.run(base + ["index"], stdout=subprocess.DEVNULL, check=True)  # current before measuring

    for name, q in queries.items():
        result[f"{name}_walk"] = timed(base + q, a.runs)
        result[f"{name}_no_refresh"] = timed(base + ["--no-refresh"] + q, a.runs)
    result["index_noop"] = timed(base + ["index"], a.runs)

    watcher = subprocess.Popen(base + ["index", "--watch", "--quiet"], stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL)
    target = files[len(files) // 2]
    size = os.path.getsize(target)
    try:
        time.sleep(3)  # its first pass, and a directory older than 2 s
        for name, q in queries.items():
            result[f"{name}_watcher"] = timed(base + q, a.runs)
        sid = os.path.basename(target)[:-len(".jsonl")]
        found = []
        for k in range(5):
            word = "wl" + uuid.uuid4().hex[:12]
            line = json.dumps({"type": "user", "uuid": str(uuid.uuid4()), "sessionId": sid,
                               "timestamp": "2026-01-19T05:00:00.000Z", "cwd": "/tmp",
                               "message": {"role": "user", "content": "watch latency " + word}})
            t = time.perf_counter()
            with open(target, "a") as fh:
                fh.write(line + "\n")
            while True:
                r = subprocess.run(base + ["--no-refresh", "keyword", word], capture_output=True, text=True)
                if json.loads(r.stdout).get("total", 0) > 0:
                    break
                if time.perf_counter() - t > 30:
                    raise SystemExit("an appended line was not found within 30 s")
            found.append((time.perf_counter() - t) * 1000)
            time.sleep(0.3)
        result["append_to_found_ms"] = round(statistics.median(found), 1)
    finally:
        watcher.send_signal(signal.SIGTERM)
        watcher.wait(timeout=60)
        with open(target, "r+b") as fh:
            fh.truncate(size)
        subprocess.run(base + ["index"], stdout=subprocess.DEVNULL)
    print(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
