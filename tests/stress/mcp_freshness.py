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
import json, os, random, shutil, subprocess, sys, tempfile, time, uuid
HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(REPO, 'bench'))
from mcp_latency import Server
ap = argparse.ArgumentParser()
ap.add_argument("osearch")
ap.add_argument("--ops", type=int, default=200)
ap.add_argument("--seed", type=int, default=1)
a = ap.parse_args()
BIN, N, seed = os.path.abspath(a.osearch), a.ops, a.seed
rnd = random.Random(seed)
root = tempfile.mkdtemp(prefix="osearch-stress-")
src = root + "/src"; idx = root + "/idx"
shutil.copytree(os.path.join(REPO, "tests", "data", "claude"), src)
files = [os.path.join(d, f) for d, _, fs in os.walk(src) for f in fs if f.endswith(".jsonl") and "/subagents/" not in os.path.join(d, f)]
past = time.time() - 3600
for d, _, _ in os.walk(src): os.utime(d, (past, past))
common = ["--index", idx, "--source", "claude=" + src]
subprocess.run([BIN, "index", *common, "--format", "json"], check=True, capture_output=True)
s = Server([BIN, "mcp", *common])
def kw(word):
    r = s.rpc("tools/call", {"name": "search_keyword", "arguments": {"query": word, "limit": 5}})
    return json.loads(r["content"][0]["text"])
def line(sid, text):
    return json.dumps({"type": "user", "uuid": str(uuid.uuid4()), "parentUuid": None, "sessionId": sid,
                       "timestamp": "2026-11-05T10:00:00.000Z", "cwd": "/tmp", "message": {"role": "user", "content": text}}) + "\n"
words = []; bad = 0; ops = {}
for i in range(N):
    op = rnd.choice(["append"] * 6 + ["create", "touch", "chmod", "half", "sleep", "mkdir", "quiet", "other", "other"])
    ops[op] = ops.get(op, 0) + 1
    w = "zqs" + uuid.uuid4().hex[:10]
    if op == "append":
        f = rnd.choice(files); sid = os.path.basename(f)[:-6]
        open(f, "a").write(line(sid, "stress " + w)); words.append(w)
    elif op == "half":
        f = rnd.choice(files); sid = os.path.basename(f)[:-6]; l = line(sid, "stress " + w)
        open(f, "a").write(l[: len(l) // 2])
        if kw(w)["total"] != 0: print("half line found early", w); bad += 1
        open(f, "a").write(l[len(l) // 2:]); words.append(w)
    elif op in ("create", "mkdir"):
        d = os.path.dirname(rnd.choice(files))
        if op == "mkdir":
            d = os.path.join(src, "-stress-" + uuid.uuid4().hex[:6]); os.makedirs(d)
        sid = str(uuid.uuid4()); f = os.path.join(d, sid + ".jsonl")
        open(f, "w").write(line(sid, "stress " + w)); files.append(f); words.append(w)
    elif op == "other":  # another process appends and indexes
        f = rnd.choice(files); sid = os.path.basename(f)[:-6]
        open(f, "a").write(line(sid, "stress " + w)); words.append(w)
        subprocess.run([BIN, "index", *common, "--format", "json"], check=True, capture_output=True)
        f = rnd.choice(files); sid = os.path.basename(f)[:-6]
        w2 = "zqs" + uuid.uuid4().hex[:10]
        open(f, "a").write(line(sid, "stress " + w2)); words.append(w2)
    elif op == "touch":
        os.utime(rnd.choice(files))
    elif op == "chmod":
        os.chmod(rnd.choice(files), rnd.choice([0o600, 0o644]))
    elif op == "sleep":
        time.sleep(rnd.random() * 0.5)
    # freshness: the newest word, and a sample of older ones
    for x in ([words[-1]] if words else []) + rnd.sample(words, min(3, len(words))):
        if kw(x)["total"] < 1: print("MISSING", op, x); bad += 1
# final: the server's list equals a fresh build's
fresh = root + "/fresh"
subprocess.run([BIN, "index", "--full", "--index", fresh, "--source", "claude=" + src, "--format", "json"], check=True, capture_output=True)
s.rpc("tools/call", {"name": "list_sessions", "arguments": {"limit": 1}})
got = json.loads(subprocess.run([BIN, "--no-refresh", "list", "--limit", "1000", *common, "--format", "json"], check=True, capture_output=True, text=True).stdout)
exp = json.loads(subprocess.run([BIN, "--no-refresh", "list", "--limit", "1000", "--index", fresh, "--source", "claude=" + src, "--format", "json"], check=True, capture_output=True, text=True).stdout)
strip = lambda j: sorted((r["session_id"], r["message_count"], r["path"], r["title"]) for r in j["results"])
if strip(got) != strip(exp): print("LIST DIFFERS", len(got["results"]), len(exp["results"])); bad += 1
s.close()
print(f"seed {seed}: {N} changes {ops}, {len(words)} words, problems {bad}")
shutil.rmtree(root, ignore_errors=True)
sys.exit(1 if bad else 0)
