#!/usr/bin/env python3
"""A randomized check of a warm `osearch mcp`'s freshness (mcp/reader_cache, engine/index/source_gate).

    python3 tests/stress/mcp_freshness.py build/osearch [--ops 200] [--seed 1]

On a copy of tests/data/claude it applies random changes between tool calls — lines appended to transcripts,
half a line then its end, new transcripts in old and new project directories, touch, chmod, pauses, and another
process appending and indexing — and after each change asks the server for the newest word written (and a
sample of older ones): every one must be found at once. At the end the server's index must list what a fresh
`index --full` of the same sources lists. Prints the problems found (0 expected) and exits 1 on any.
Not part of `make test` (a minute per 200 changes); run it after touching the gate.
"""
import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
import uuid

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(REPO, "bench"))
from mcp_latency import Server  # noqa: E402

CHANGES = ["append"] * 6 + ["create", "touch", "chmod", "half", "sleep", "mkdir", "quiet", "other", "other"]


def user_line(session_id, text):
    return json.dumps({"type": "user", "uuid": str(uuid.uuid4()), "parentUuid": None, "sessionId": session_id,
                       "timestamp": "2026-11-05T10:00:00.000Z", "cwd": "/tmp",
                       "message": {"role": "user", "content": text}}) + "\n"


def session_of(path):
    return os.path.basename(path)[: -len(".jsonl")]


def append(path, text):
    with open(path, "a") as f:
        f.write(text)


def sorted_sessions(listed):
    return sorted((r["session_id"], r["message_count"], r["path"], r["title"]) for r in listed["results"])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("osearch")
    ap.add_argument("--ops", type=int, default=200)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    osearch = os.path.abspath(a.osearch)
    rnd = random.Random(a.seed)
    root = tempfile.mkdtemp(prefix="osearch-stress-")
    src, idx = root + "/src", root + "/idx"
    shutil.copytree(os.path.join(REPO, "tests", "data", "claude"), src)
    files = [os.path.join(d, f) for d, _, fs in os.walk(src) for f in fs
             if f.endswith(".jsonl") and "/subagents/" not in os.path.join(d, f)]
    an_hour_ago = time.time() - 3600  # a record is kept only for directories whose mtime has settled
    for d, _, _ in os.walk(src):
        os.utime(d, (an_hour_ago, an_hour_ago))
    common = ["--index", idx, "--source", "claude=" + src]
    index = [osearch, "index", *common, "--format", "json"]
    subprocess.run(index, check=True, capture_output=True)
    server = Server([osearch, "mcp", *common])

    def total(word):
        r = server.rpc("tools/call", {"name": "search_keyword", "arguments": {"query": word, "limit": 5}})
        return json.loads(r["content"][0]["text"])["total"]

    words, problems, counts = [], 0, {}
    for _ in range(a.ops):
        change = rnd.choice(CHANGES)
        counts[change] = counts.get(change, 0) + 1
        word = "zqs" + uuid.uuid4().hex[:10]
        if change == "append":
            f = rnd.choice(files)
            append(f, user_line(session_of(f), "stress " + word))
            words.append(word)
        elif change == "half":
            f = rnd.choice(files)
            line = user_line(session_of(f), "stress " + word)
            append(f, line[: len(line) // 2])
            if total(word) != 0:
                print("a half-written line was found", word)
                problems += 1
            append(f, line[len(line) // 2:])
            words.append(word)
        elif change in ("create", "mkdir"):
            d = os.path.dirname(rnd.choice(files))
            if change == "mkdir":
                d = os.path.join(src, "-stress-" + uuid.uuid4().hex[:6])
                os.makedirs(d)
            sid = str(uuid.uuid4())
            f = os.path.join(d, sid + ".jsonl")
            append(f, user_line(sid, "stress " + word))
            files.append(f)
            words.append(word)
        elif change == "other":  # another process appends and indexes, then a line it did not see
            f = rnd.choice(files)
            append(f, user_line(session_of(f), "stress " + word))
            words.append(word)
            subprocess.run(index, check=True, capture_output=True)
            f = rnd.choice(files)
            later = "zqs" + uuid.uuid4().hex[:10]
            append(f, user_line(session_of(f), "stress " + later))
            words.append(later)
        elif change == "touch":
            os.utime(rnd.choice(files))
        elif change == "chmod":
            os.chmod(rnd.choice(files), rnd.choice([0o600, 0o644]))
        elif change == "sleep":
            time.sleep(rnd.random() * 0.5)
        for w in ([words[-1]] if words else []) + rnd.sample(words, min(3, len(words))):
            if total(w) < 1:
                print("not found after", change, w)
                problems += 1

    fresh = root + "/fresh"
    subprocess.run([osearch, "index", "--full", "--index", fresh, "--source", "claude=" + src, "--format", "json"],
                   check=True, capture_output=True)
    server.rpc("tools/call", {"name": "list_sessions", "arguments": {"limit": 1}})  # its last refresh
    listing = ["--no-refresh", "list", "--limit", "1000", "--format", "json"]
    served = json.loads(subprocess.run([osearch, *listing, *common], check=True, capture_output=True, text=True).stdout)
    built = json.loads(subprocess.run([osearch, *listing, "--index", fresh, "--source", "claude=" + src],
                                      check=True, capture_output=True, text=True).stdout)
    if sorted_sessions(served) != sorted_sessions(built):
        print("the server's list differs from a fresh build's:", len(served["results"]), len(built["results"]))
        problems += 1
    server.close()
    shutil.rmtree(root, ignore_errors=True)
    print(f"seed {a.seed}: {a.ops} changes {counts}, {len(words)} words, problems {problems}")
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
