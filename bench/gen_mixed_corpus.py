#!/usr/bin/env python3
"""Grow a mixed-agent corpus (Claude Code, omp, pi, Codex) from the real samples.

    python3 bench/gen_mixed_corpus.py --out DIR --mb N [--seed S] [--agents claude,omp,pi,codex]

Each agent gets about a quarter of the N MB, laid out as the agent lays out its own tree:

    DIR/claude/<slug>/<sessionId>.jsonl …                       (bench/gen_corpus.py, unchanged)
    DIR/omp/.omp/agent/sessions/<encoded cwd>/<fileTs>_<id>.jsonl  (256-byte title slot line first)
    DIR/pi/.pi/agent/sessions/--<cwd>--/<fileTs>_<id>.jsonl
    DIR/codex/.codex/sessions/YYYY/MM/DD/rollout-<time>-<id>.jsonl (session_meta first)

omp, pi and Codex files are copies of the real samples, grown the way gen_corpus.py grows the
Claude tree.  Per copy ("round" of a source file):
  * every UUID is replaced by a keyed hash of (seed, agent, round, file, old UUID), so the
    header id / first session_meta id, parent links and the file name stay consistent; a
    session id that is not a UUID (a Codex test rollout) is replaced by a fresh UUID as well;
  * ISO timestamps and epoch-millisecond "timestamp" fields are shifted by one offset per copy;
  * the cwd moves to one of the synthetic projects (every occurrence of the old root changes);
  * a few words of user/assistant text, thinking and reasoning are swapped for words drawn
    (frequency-weighted) from the omp/pi/Codex samples' prose; Codex prose strings under 8
    words (the samples hold fixture text) get 4-12 such words appended.
Line lengths of omp's title slot are kept (the slot is rewritten in place by omp).  Output is
deterministic for (sources, --mb, --seed).  Prints one line of JSON with per-agent figures.
"""

import argparse
import json
import os
import random
import re
import subprocess
import sys
import time
from collections import Counter
from datetime import datetime, timedelta, timezone

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from gen_corpus import (VOCAB_WORD_RE, hkey, make_targets, reword_text)  # noqa: E402

SHARED = os.path.normpath(os.path.join(HERE, "..", "..", "shared", "corpus"))
REPO_DATA = os.path.normpath(os.path.join(HERE, "..", "tests", "data"))
AGENTS = ("claude", "omp", "pi", "codex")
# where each agent's own tree starts below DIR/<agent>, i.e. what --source KIND=DIR is given
ROOT_OF = {"claude": "", "omp": ".omp/agent/sessions", "pi": ".pi/agent/sessions", "codex": ".codex/sessions"}

UUID_RE = re.compile(r"(?<![0-9A-Za-z])[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}(?![0-9A-Za-z])")
ISO_RE = re.compile(r"(?<!\d)(\d{4})-(\d\d)-(\d\d)T(\d\d):(\d\d):(\d\d)(\.\d+)?Z")
EPOCH_MS_RE = re.compile(r'"timestamp":(1\d{12})(?!\d)')


def agent_root(out, agent):
    return os.path.join(out, agent, ROOT_OF[agent]) if ROOT_OF[agent] else os.path.join(out, agent)


def jsonl_under(*roots):
    """Source .jsonl files, first occurrence of each file name wins (tests/data repeats the samples)."""
    seen, out = set(), []
    for root in roots:
        for dp, dns, fns in os.walk(root):
            dns.sort()
            for fn in sorted(fns):
                if fn.endswith(".jsonl") and fn not in seen:
                    seen.add(fn)
                    out.append(os.path.join(dp, fn))
    return out


# ---------------------------------------------------------------------------------------
# prose: which strings of a parsed line are user/assistant words (reworded, and sampled for queries)

def prose_slots(agent, obj):
    """(container, key) pairs of the prose strings in one parsed line."""
    if not isinstance(obj, dict):
        return []
    out = []
    if agent in ("omp", "pi"):
        msg = obj.get("message") if obj.get("type") == "message" else None
        if not isinstance(msg, dict) or msg.get("role") not in ("user", "assistant"):
            return []
        c = msg.get("content")
        if isinstance(c, str):
            return [(msg, "content")]
        for b in c if isinstance(c, list) else []:
            if isinstance(b, dict) and b.get("type") in ("text", "thinking"):
                key = b["type"]
                if isinstance(b.get(key), str):
                    out.append((b, key))
        return out
    p = obj.get("payload")
    if not isinstance(p, dict):
        return []
    t = p.get("type")
    if obj.get("type") == "event_msg" and t in ("user_message", "agent_message") and isinstance(p.get("message"), str):
        return [(p, "message")]
    if obj.get("type") == "event_msg" and t == "agent_reasoning" and isinstance(p.get("text"), str):
        return [(p, "text")]
    if obj.get("type") == "response_item" and t in ("message", "reasoning"):
        for key in ("content", "summary"):
            for b in p.get(key) or [] if isinstance(p.get(key), list) else []:
                if isinstance(b, dict) and isinstance(b.get("text"), str):
                    out.append((b, "text"))
    return out


def prose_texts(agent, line):
    try:
        obj = json.loads(line)
    except ValueError:
        return []
    return [c[k] for c, k in prose_slots(agent, obj)]


# ---------------------------------------------------------------------------------------
# one source file

class Source:
    def __init__(self, agent, path):
        self.agent = agent
        with open(path, "rb") as fh:
            self.text = fh.read().decode("utf-8", "replace")
        self.lines = [x for x in self.text.split("\n") if x.strip()]
        self.size = sum(len(x.encode("utf-8")) + 1 for x in self.lines)
        self.header = None
        for line in self.lines[:3]:
            obj = json.loads(line)
            if obj.get("type") in ("session", "session_meta"):
                self.header = obj.get("payload") if obj.get("type") == "session_meta" else obj
                break
        if not isinstance(self.header, dict):
            raise ValueError(f"{path}: no session header in the first lines")
        self.sid = str(self.header.get("id"))
        self.cwd = self.header.get("cwd") if isinstance(self.header.get("cwd"), str) else None
        self.reword = [bool(prose_slots(agent, json.loads(x))) for x in self.lines]


def keyed_uuid(key, old):
    d = bytearray(hkey(key, old))
    d[6] = (d[6] & 0x0F) | 0x40
    d[8] = (d[8] & 0x3F) | 0x80
    h = d.hex()
    return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"


def omp_dir(cwd):
    parts = cwd.strip("/").split("/")
    if len(parts) >= 2 and parts[0] in ("Users", "home"):  # under $HOME: "-" + relative path
        return "-" + "-".join(parts[2:])
    if parts and parts[0] == "tmp":
        return "-tmp-" + "-".join(parts[1:])
    return "--" + re.sub(r"[/\\:]", "-", cwd.lstrip("/\\")) + "--"


def pi_dir(cwd):
    return "--" + re.sub(r"[/\\:]", "-", cwd.lstrip("/\\")) + "--"


def file_ts(iso):
    return iso.replace(":", "-").replace(".", "-")


def copy_source(src, rnd, seed, pool, targets):
    """Text and relative path of one copy of src."""
    key = ("mixed", seed, src.agent, rnd, src.sid)
    offset = timedelta(seconds=random.Random(hkey("time", *key)).randrange(-420 * 86400, 5 * 86400))
    off_ms = int(offset.total_seconds() * 1000)
    new_cwd = targets[random.Random(hkey("proj", *key)).randrange(len(targets))][0]
    new_sid = keyed_uuid(key, src.sid)

    def shift_iso(m):
        try:
            dt = datetime(int(m[1]), int(m[2]), int(m[3]), int(m[4]), int(m[5]), int(m[6]), tzinfo=timezone.utc) + offset
        except (ValueError, OverflowError):
            return m.group(0)
        return dt.strftime("%Y-%m-%dT%H:%M:%S") + (m[7] or "") + "Z"

    lines = []
    for i, line in enumerate(src.lines):
        t = UUID_RE.sub(lambda m: keyed_uuid(key, m.group(0)), line)
        if not UUID_RE.fullmatch(src.sid):
            t = t.replace(json.dumps(src.sid), json.dumps(new_sid))
        t = ISO_RE.sub(shift_iso, t)
        t = EPOCH_MS_RE.sub(lambda m: f'"timestamp":{int(m[1]) + off_ms}', t)
        if src.cwd and len(src.cwd) >= 4:
            t = t.replace(json.dumps(src.cwd)[1:-1], json.dumps(new_cwd)[1:-1])
        if src.reword[i]:
            obj = json.loads(t)
            for c, k in prose_slots(src.agent, obj):
                # seeded by the text too: Codex writes the same words twice (event_msg and
                # response_item), and both copies must stay equal or a query misses the one indexed
                rt = random.Random(hkey("reword", *key, c[k]))
                c[k] = reword_text(c[k], rt, pool)
                if src.agent == "codex" and len(c[k].split()) < 8:
                    # the Codex samples' prose is fixture text ("List the files"): without words of
                    # its own the Codex part would index as a few hundred distinct terms
                    c[k] += " " + " ".join(pool[rt.randrange(len(pool))] for _ in range(rt.randrange(4, 13)))
            try:
                t = json.dumps(obj, ensure_ascii=False, separators=(",", ":"))
                t.encode("utf-8")
            except UnicodeEncodeError:  # lone surrogates: escape them like JSON.stringify does
                t = json.dumps(obj, ensure_ascii=True, separators=(",", ":"))
        if i == 0 and src.agent == "omp" and len(t) != len(line):
            raise ValueError("omp title slot changed length")
        lines.append(t)
    text = "\n".join(lines) + "\n"

    header = json.loads(lines[0] if src.agent != "omp" else lines[1])
    if src.agent == "codex":
        sid = header["payload"]["id"]
        ts = header["payload"].get("timestamp") or header.get("timestamp")
        day = ts[:10].split("-")
        rel = os.path.join(*day, f"rollout-{ts[:19].replace(':', '-')}-{sid}.jsonl")
    else:
        sid, ts = header["id"], header["timestamp"]
        d = omp_dir(new_cwd) if src.agent == "omp" else pi_dir(new_cwd)
        rel = os.path.join(d, f"{file_ts(ts)}_{sid}.jsonl")
    return text, rel


def vocab_pool(sources):
    """Frequency-weighted words of the samples' prose (shared by the three agents)."""
    vocab = Counter()
    for s in sources:
        for line, rw in zip(s.lines, s.reword):
            if rw:
                for t in prose_texts(s.agent, line):
                    vocab.update(VOCAB_WORD_RE.findall(t[:20000]))
    return [w for w, c in vocab.most_common(20000) if c >= 2 for _ in range(min(c, 200))] or ["data"]


def grow_agent(agent, srcs, out_root, target_bytes, seed, pool):
    targets = make_targets(seed + AGENTS.index(agent), 60)
    total = files = rnd = 0
    slack = target_bytes * 0.01
    while total < target_bytes - slack:
        added = 0
        for i in random.Random(hkey("order", seed, agent, rnd)).sample(range(len(srcs)), len(srcs)):
            if total + srcs[i].size > target_bytes + slack:
                continue
            text, rel = copy_source(srcs[i], rnd, seed, pool, targets)
            path = os.path.join(out_root, rel)
            if os.path.exists(path):
                raise ValueError(f"duplicate output file {path}")
            os.makedirs(os.path.dirname(path), exist_ok=True)
            data = text.encode("utf-8")
            with open(path, "wb") as fh:
                fh.write(data)
            total += len(data)
            added += 1
            files += 1
        if not added:
            break
        rnd += 1
    return {"files": files, "sessions": files, "bytes": total, "rounds": rnd, "source_files": len(srcs)}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--mb", type=float, required=True, help="total size; each agent gets a quarter")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--agents", default=",".join(AGENTS))
    ap.add_argument("--claude-source", default=os.path.join(SHARED, "claude"))
    ap.add_argument("--omp-source", action="append", default=None)
    ap.add_argument("--pi-source", action="append", default=None)
    ap.add_argument("--codex-source", action="append", default=None)
    a = ap.parse_args()
    agents = [x for x in a.agents.split(",") if x]
    share = a.mb * 1e6 / len(agents)
    defaults = {"omp": [os.path.join(SHARED, "omp")],
                # tests/data/pi holds the samples plus a session written by pi's own session code
                "pi": [os.path.join(REPO_DATA, "pi"), os.path.join(SHARED, "pi")],
                "codex": [os.path.join(SHARED, "codex")]}
    t0 = time.perf_counter()
    res = {"mb": a.mb, "seed": a.seed, "agents": {}}
    srcs = {}
    for agent in AGENTS[1:]:
        paths = jsonl_under(*(getattr(a, f"{agent}_source") or defaults[agent]))
        if agent in agents and not paths:
            sys.exit(f"gen_mixed_corpus: no {agent} samples found")
        srcs[agent] = [Source(agent, p) for p in paths]
    pool = vocab_pool([s for v in srcs.values() for s in v])
    for agent in agents:
        root = agent_root(a.out, agent)
        if agent == "claude":
            r = subprocess.run([sys.executable, os.path.join(HERE, "gen_corpus.py"), "--out", root,
                                "--mb", str(share / 1e6), "--seed", str(a.seed), "--source", a.claude_source],
                               capture_output=True, text=True, check=True)
            st = json.loads(r.stdout.strip().splitlines()[-1])
            res["agents"][agent] = {k: st.get(k) for k in ("files", "bytes", "lines", "sessions")}
        else:
            res["agents"][agent] = grow_agent(agent, srcs[agent], root, share, a.seed, pool)
        res["agents"][agent]["root"] = root
    res["bytes"] = sum(v["bytes"] for v in res["agents"].values())
    res["files"] = sum(v["files"] for v in res["agents"].values())
    res["seconds"] = round(time.perf_counter() - t0, 2)
    print(json.dumps(res))


if __name__ == "__main__":
    main()
