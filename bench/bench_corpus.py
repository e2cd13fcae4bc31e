"""Benchmark corpus: generation/reuse, query sampling, appends for the refresh step."""

import hashlib
import json
import os
import random
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import uuid as uuidlib
from collections import Counter
from datetime import datetime, timezone

from bench_util import *  # noqa: F401,F403
import sqlite_fts5_peer as peer  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))

STOP = set("""
about above after again against also because been before being below between both cannot could
does doing down during each from further have having here how into itself just more most must
need only other ought over same should some such than that their theirs them then there these
they this those through under until very want what when where which while whom will with would
your yours yourself like make made sure look lets let's it's i'll we'll don't doesn't i'm that's
there's here's will can't won't isn't aren't didn't you're we're they're
""".split())

def jsonl_files(corpus):
    out = []
    for dp, dns, fns in os.walk(corpus):
        dns.sort()
        for fn in sorted(fns):
            if fn.endswith(".jsonl"):
                out.append(os.path.join(dp, fn))
    return out


# ---------------------------------------------------------------------------------------
# corpus

def ensure_corpus(args, log):
    mb = args.corpus_mb
    name = f"corpus-{mb:g}mb"
    corpus = os.path.join(args.out, name)
    stamp = corpus + ".stamp"
    want = {"mb": mb, "seed": args.seed, "source": os.path.abspath(args.source),
            "generator_sha1": hashlib.sha1(open(os.path.join(HERE, "gen_corpus.py"), "rb").read()).hexdigest()}
    if os.path.exists(stamp) and os.path.isdir(corpus):
        try:
            st = json.load(open(stamp))
            files = jsonl_files(corpus)
            total = sum(os.path.getsize(f) for f in files)
            if all(st.get(k) == v for k, v in want.items()) and st.get("bytes") == total:
                log(f"corpus: reusing {corpus} ({total / 1e6:.1f} MB)")
                return corpus, st
            log("corpus: stamp does not match, regenerating")
        except (OSError, ValueError):
            pass
    if os.path.exists(stamp):
        os.remove(stamp)
    shutil.rmtree(corpus, ignore_errors=True)
    log(f"corpus: generating {mb:g} MB into {corpus}")
    r = run([sys.executable, os.path.join(HERE, "gen_corpus.py"), "--out", corpus, "--mb", str(mb),
             "--seed", str(args.seed), "--source", args.source], timeout=3600)
    if not r["ok"]:
        raise SystemExit(f"gen_corpus failed: {r.get('error')}")
    st = dict(want)
    st.update(parse_json(r["stdout"]) or {})
    st["generated_wall_s"] = round(r["wall_ms"] / 1000, 2)
    st["bytes"] = sum(os.path.getsize(f) for f in jsonl_files(corpus))
    with open(stamp, "w") as fh:
        json.dump(st, fh)
    log(f"corpus: {st.get('bytes', 0) / 1e6:.1f} MB, {st.get('files')} files in {st['generated_wall_s']} s")
    return corpus, st


BASELINE_CODE = r"""
import json, os, sys, time
n = bad = b = 0
for dp, dns, fns in os.walk(sys.argv[1]):
    for fn in fns:
        if not fn.endswith('.jsonl'):
            continue
        with open(os.path.join(dp, fn), 'rb') as fh:
            for line in fh:
                b += len(line)
                if not line.strip():
                    continue
                try:
                    json.loads(line)
                    n += 1
                except ValueError:
                    bad += 1
print(json.dumps({'lines': n, 'bad': bad, 'bytes': b}))
"""


# ---------------------------------------------------------------------------------------
# query and pattern selection

def sample_prose(corpus, max_bytes, seed):
    """Lowercase word lists of user/assistant prose messages from a deterministic file sample."""
    files = jsonl_files(corpus)
    random.Random(seed).shuffle(files)
    msgs, used = [], 0
    for path in files:
        if used > max_bytes:
            break
        with open(path, "rb") as fh:
            for raw in fh:
                used += len(raw)
                if b'"text"' not in raw and b'"content":"' not in raw:
                    continue
                try:
                    obj = json.loads(raw)
                except ValueError:
                    continue
                if not isinstance(obj, dict) or obj.get("type") not in ("user", "assistant") or obj.get("isMeta"):
                    continue
                msg = obj.get("message")
                text = peer.extract_text(msg.get("content")) if isinstance(msg, dict) else None
                if text:
                    msgs.append(text)
    return msgs


WORD = re.compile(r"(?<![\w./-])[a-z]{4,14}(?![\w/'’-])")
CAMEL = re.compile(r"\b[a-z]{3,}[A-Z][a-z]+[A-Za-z]*\b")


def make_queries(msgs, n, seed):
    df = Counter()
    per_msg = []
    for t in msgs:
        ws = {w for w in WORD.findall(t.lower()) if w not in STOP}
        per_msg.append(ws)
        df.update(ws)
    ranked = [w for w, _ in df.most_common()]
    # mid/high frequency band: skip the 15 most common words, keep the next ~600
    band = set(ranked[15:615])
    rng = random.Random(seed)
    queries, seen = [], set()
    candidates = [sorted(ws & band) for ws in per_msg]
    candidates = [c for c in candidates if len(c) >= 2]
    tries = 0
    while candidates and len(queries) < n and tries < n * 50:
        tries += 1
        c = candidates[rng.randrange(len(candidates))]
        a, b = rng.sample(c, 2)
        key = tuple(sorted((a, b)))
        if key in seen:
            continue
        seen.add(key)
        queries.append([a, b])
    # fall back to independent pairs from the band if the sample was small
    bl = sorted(band) or ["error", "file"]
    while len(queries) < n:
        queries.append([rng.choice(bl), rng.choice(bl)])
    return queries, {w: df[w] for q in queries for w in q}


def pick_literal_regex(corpus, msgs):
    r = run(["rg", "-c", "-m", "1", "stateStore", corpus], timeout=600)
    if r.get("rc") == 0 and r.get("stdout", "").strip():
        return r"stateStore\w*"
    c = Counter()
    for t in msgs:
        c.update(CAMEL.findall(t))
    for ident, cnt in c.most_common():
        if 20 <= cnt and len(ident) >= 8:
            return re.escape(ident[:8]) + r"\w*"
    return r"function\w*"


# ---------------------------------------------------------------------------------------
# appending new lines for the refresh step

def append_lines(corpus, rng, target_bytes, sources, state):
    """Append ~target_bytes of copies of user/assistant lines to a few sessions."""
    mains = state.setdefault("mains", None)
    if mains is None:
        mains = sorted(p for p in jsonl_files(corpus)
                       if not os.path.basename(p).startswith("agent-") and "/subagents/" not in p
                       and os.path.getsize(p) > 20_000)
        state["mains"] = mains
    if not mains or not sources:
        raise RuntimeError("no session files or source lines to append")
    targets = rng.sample(mains, min(4, len(mains)))
    per = target_bytes // len(targets)
    total = 0
    for path in targets:
        if path not in state["orig_size"]:
            state["orig_size"][path] = os.path.getsize(path)
        sid = os.path.basename(path)[:-6]
        # the last uuid of the file becomes the parent of the first new line
        parent = cwd = None
        with open(path, "rb") as fh:
            fh.seek(max(0, os.path.getsize(path) - 400_000))
            for raw in fh:
                m = re.search(rb'"uuid":"([0-9a-f-]{36})"', raw)
                if m:
                    parent = m.group(1).decode()
                m = re.search(rb'"cwd":("(?:[^"\\]|\\.)*")', raw)
                if m:
                    cwd = json.loads(m.group(1))
        buf = []
        size = 0
        while size < per:
            obj = json.loads(sources[rng.randrange(len(sources))])
            new = str(uuidlib.UUID(int=rng.getrandbits(128), version=4))
            obj["uuid"] = new
            obj["parentUuid"] = parent
            obj["sessionId"] = sid
            obj["isSidechain"] = False
            obj.pop("agentId", None)
            if cwd is not None:
                obj["cwd"] = cwd
            obj["timestamp"] = now_iso()
            if isinstance(obj.get("message"), dict) and obj["message"].get("id"):
                obj["message"]["id"] = "msg_01" + uuidlib.UUID(int=rng.getrandbits(128)).hex[:22]
            obj.pop("requestId", None)
            parent = new
            line = json.dumps(obj, ensure_ascii=False, separators=(",", ":")) + "\n"
            buf.append(line)
            size += len(line.encode("utf-8"))
        with open(path, "ab") as fh:
            fh.write("".join(buf).encode("utf-8"))
        total += size
    return total, [os.path.relpath(p, corpus) for p in targets]


def source_lines(corpus, seed, want=400):
    files = jsonl_files(corpus)
    random.Random(seed + 7).shuffle(files)
    out = []
    files = [p for p in files if "/subagents/" not in p and not os.path.basename(p).startswith("agent-")]
    for path in files[:200]:
        with open(path, "rb") as fh:
            for raw in fh:
                if len(raw) > 30_000 or (b'"type":"user"' not in raw and b'"type":"assistant"' not in raw):
                    continue
                try:
                    obj = json.loads(raw)
                except ValueError:
                    continue
                if isinstance(obj, dict) and obj.get("type") in ("user", "assistant") and obj.get("uuid"):
                    out.append(raw.decode("utf-8", "replace"))
        if len(out) >= want:
            break
    return out


# ---------------------------------------------------------------------------------------
