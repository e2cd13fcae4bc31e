#!/usr/bin/env python3
"""Grow a realistic Claude Code projects tree from real transcripts.

    python3 bench/gen_corpus.py --out DIR --mb N [--seed S] [--source ../shared/corpus/claude]

The output looks like ~/.claude/projects: <slug>/<sessionId>.jsonl, with subagent
transcripts under <slug>/<sessionId>/subagents/agent-<agentId>.jsonl (new layout) or
<slug>/agent-<agentId>.jsonl (old layout), and .meta.json sidecars.

Every output file is a copy of a real source file (synthetic `-fixture-*` projects are
skipped) in which, per copy "round":
  * every id (UUIDs, toolu_/msg_/req_ ids, agent ids) is replaced by a fresh one.  The
    replacement is a keyed hash of (seed, round, old id), so every reference within a
    round stays consistent across the lines *and* the files of that round
    (parentUuid, leafUuid, tool_use_id, sourceToolAssistantUUID, agentId, file names...);
  * ISO timestamps (2026-01-21T01:09:01.581Z) are shifted by a per-project (per round) offset;
  * the project root (cwd) is moved to one of 50..200 synthetic projects, and the slug
    directory and every occurrence of the root path are changed to match;
  * a few words of user/assistant text and thinking blocks are swapped for words drawn
    (frequency-weighted) from the corpus vocabulary.
Lines that do not parse are repaired when they are two glued objects and dropped
otherwise; every output line is valid JSON terminated by a newline.

The output is deterministic for a given (source, --mb, --seed).  Prints one line of JSON:
{"files":…, "bytes":…, "lines":…, "sessions":…, "projects":…, "seconds":…}.
"""

import argparse
import hashlib
import json
import multiprocessing
import os
import random
import re
import sys
import time
from collections import Counter
from datetime import datetime, timedelta, timezone

# The shared corpus lies beside the repository (../shared), as on developer machines and in CI.
DEFAULT_SOURCE = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "shared", "corpus", "claude"))

UUID_RE = r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"
# Id and timestamp rewriting is done with a few regex passes that each start with a literal,
# so that CPython's re can use its fast prefix search (a single generic token regex runs at
# ~6 MB/s; these run at 500+ MB/s).
#  * '-' pass: the tail of a UUID (its 8 leading hex chars are checked by hand) or the tail
#    of an ISO timestamp (its 4-digit year is checked by hand);
#  * toolu_/msg_/req_ passes: API ids;
#  * agent pass: 'agentId":"ID', 'agent-ID' (file names, paths) and 'agentId: ID' (Task
#    results); the id is only replaced when it is a known agent id.
DASH_RE = re.compile(
    r"-(?:(?P<u>[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})(?![0-9A-Za-z])"
    r"|(?P<t>(\d\d)-(\d\d)T(\d\d):(\d\d):(\d\d)(\.\d+)?Z))")
PID_RES = [re.compile(r"toolu_[A-Za-z0-9_]{10,}"), re.compile(r"msg_[A-Za-z0-9]{10,}"),
           re.compile(r"req_[A-Za-z0-9]{10,}")]
AGENT_RE = re.compile(r'agent(?:Id\\?"\s*:\s*\\?"|-|Id: )(?P<id>[A-Za-z0-9_-]+)')
AGENT_FIELD_RE = re.compile(r'"agentId\\?"\s*:\s*\\?"([A-Za-z0-9_-]+)')
HEXCH = frozenset("0123456789abcdef")
WORD_RE = re.compile(r"(?<![\w\\/.$@#-])[A-Za-z][a-z]{2,15}(?![\w/.(-])")
VOCAB_WORD_RE = re.compile(r"(?<![\w\\/.$@#-])[a-z]{3,15}(?![\w/.(-])")
B62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
HEX = "0123456789abcdef"

# Parts for synthetic project paths (plain English / tech words, no external source).
USERS = ["alex", "sam", "kim", "maria", "dev", "jo", "li", "noor", "pat", "ravi", "tess", "omar",
         "ines", "yuki", "lena", "marc", "ana", "ben", "chen", "dana"]
AREAS = ["work", "src", "projects", "code", "repos", "dev", "workspace", "git"]
NAME_A = ["atlas", "billing", "cedar", "delta", "ember", "falcon", "garden", "harbor", "iris",
          "juniper", "kepler", "lumen", "meridian", "nimbus", "orbit", "pixel", "quartz", "river",
          "summit", "tango", "umbra", "vector", "willow", "xenon", "yarrow", "zephyr", "acme",
          "blue", "copper", "data", "edge", "flux", "grid", "hive", "ink", "jet", "kite", "loom"]
NAME_B = ["api", "web", "cli", "service", "core", "app", "sdk", "infra", "docs", "worker",
          "gateway", "engine", "tools", "site", "server", "client", "lab", "ops", "bot", "ui"]


def slugify(path):
    return re.sub(r"[^A-Za-z0-9]", "-", path)


def hkey(*parts):
    return hashlib.blake2b("\x1f".join(str(p) for p in parts).encode(), digest_size=16).digest()


# ---------------------------------------------------------------------------------------
# Source scan (parent process, once)


class SrcFile:
    __slots__ = ("rel", "kind", "project", "group", "lines", "reword", "size", "stem_id", "meta")

    def __init__(self):
        self.meta = None


def parse_line(line):
    """Return a list of (text, obj) for a raw line; glued objects are split."""
    try:
        return [(line, json.loads(line))]
    except ValueError:
        pass
    out = []
    parts = line.split('}{"type":')
    if len(parts) > 1:
        pieces = [parts[0] + "}"] + ['{"type":' + p + "}" for p in parts[1:-1]] + ['{"type":' + parts[-1]]
        for p in pieces:
            try:
                out.append((p, json.loads(p)))
            except ValueError:
                return []
    return out


def has_prose(obj):
    if not isinstance(obj, dict) or obj.get("type") not in ("user", "assistant"):
        return False
    msg = obj.get("message")
    if not isinstance(msg, dict):
        return False
    c = msg.get("content")
    if isinstance(c, str):
        return bool(c)
    if isinstance(c, list):
        return any(isinstance(b, dict) and b.get("type") in ("text", "thinking") for b in c)
    return False


def prose_texts(obj):
    c = obj["message"]["content"]
    if isinstance(c, str):
        yield c
    else:
        for b in c:
            if isinstance(b, dict):
                if b.get("type") == "text" and isinstance(b.get("text"), str):
                    yield b["text"]
                elif b.get("type") == "thinking" and isinstance(b.get("thinking"), str):
                    yield b["thinking"]


def scan_source(source):
    files = []
    agent_ids = set()
    vocab = Counter()
    cwd_by_project = {}
    for project in sorted(os.listdir(source)):
        pdir = os.path.join(source, project)
        if project.startswith("-fixture") or not os.path.isdir(pdir):
            continue
        cwds = cwd_by_project.setdefault(project, Counter())
        for dp, dns, fns in os.walk(pdir):
            dns.sort()
            for fn in sorted(fns):
                if not fn.endswith(".jsonl"):
                    continue
                if "/workflows" in dp.replace(os.sep, "/"):
                    continue
                path = os.path.join(dp, fn)
                rel = os.path.relpath(path, pdir)
                stem = fn[:-6]
                f = SrcFile()
                f.rel = rel
                f.project = project
                parts = rel.split(os.sep)
                if len(parts) == 1 and not stem.startswith("agent-"):
                    f.kind, f.group, f.stem_id = "main", stem, stem
                elif len(parts) == 1:
                    f.kind, f.group, f.stem_id = "rootagent", None, stem[6:]
                    agent_ids.add(stem[6:])
                elif len(parts) == 3 and parts[1] == "subagents" and stem.startswith("agent-"):
                    f.kind, f.group, f.stem_id = "subagent", parts[0], stem[6:]
                    agent_ids.add(stem[6:])
                else:
                    continue
                meta = path[:-6] + ".meta.json"
                if os.path.exists(meta):
                    with open(meta, encoding="utf-8") as mf:
                        f.meta = mf.read()
                with open(path, "rb") as fh:
                    raw = fh.read()
                try:
                    text = raw.decode("utf-8")
                except UnicodeDecodeError:
                    text = raw.decode("utf-8", "replace")
                agent_ids.update(AGENT_FIELD_RE.findall(text))
                lines, reword = [], []
                for line in text.split("\n"):
                    if not line.strip():
                        continue
                    for ltxt, obj in parse_line(line):
                        lines.append(ltxt)
                        pr = has_prose(obj) and len(ltxt) < 2_000_000
                        reword.append(pr)
                        if isinstance(obj, dict):
                            if isinstance(obj.get("cwd"), str):
                                cwds[obj["cwd"]] += 1
                            if f.group is None and isinstance(obj.get("sessionId"), str):
                                f.group = obj["sessionId"]
                            if pr and obj.get("type") in ("user", "assistant") and not obj.get("isMeta"):
                                for t in prose_texts(obj):
                                    vocab.update(VOCAB_WORD_RE.findall(t[:20000]))
                if f.group is None:
                    f.group = stem
                f.lines = lines
                f.reword = reword
                f.size = sum(len(x.encode("utf-8")) + 1 for x in lines)
                files.append(f)
    roots = {}
    for project, cwds in cwd_by_project.items():
        if not cwds:
            continue
        match = [c for c in cwds if slugify(c) == project]
        if match:
            roots[project] = max(match, key=lambda c: cwds[c])
            continue
        top = cwds.most_common(1)[0][0]
        sep = "\\" if "\\" in top else "/"
        cands = [c for c in cwds if top == c or top.startswith(c.rstrip(sep) + sep)]
        roots[project] = min(cands, key=len)
    agent_ids.discard("")
    return files, agent_ids, vocab, roots


# ---------------------------------------------------------------------------------------
# Copying (workers)

G = {}  # filled before the pool forks: files, agent_ids, vocab_pool, roots, targets, seed


class Mapper:
    def __init__(self, seed, rnd):
        self.key = hkey("ids", seed, rnd)
        self.cache = {}

    def _digest(self, s):
        return hashlib.blake2b(s.encode(), key=self.key, digest_size=32).digest()

    def uuid(self, s):
        r = self.cache.get(s)
        if r is None:
            d = bytearray(self._digest(s)[:16])
            d[6] = (d[6] & 0x0F) | 0x40
            d[8] = (d[8] & 0x3F) | 0x80
            h = d.hex()
            r = f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"
            self.cache[s] = r
        return r

    def _stream(self, s, n):
        d = b""
        k = 0
        while len(d) < n:
            d += hashlib.blake2b(s.encode(), key=self.key, digest_size=64, salt=k.to_bytes(16, "little")).digest()
            k += 1
        return d

    def prefixed(self, s):
        r = self.cache.get(s)
        if r is None:
            keep = min(len(s), s.rfind("_") + 3)  # toolu_01 / msg_01 / req_01
            d = self._stream(s, len(s) - keep)
            r = s[:keep] + "".join(B62[d[k] % 62] for k in range(len(s) - keep))
            self.cache[s] = r
        return r

    def agent(self, s):
        r = self.cache.get(s)
        if r is None:
            m = re.match(r"^(.*?)([0-9a-f]+)$", s)
            head, hexpart = (m.group(1), m.group(2)) if m else ("", s)
            if not head and s.startswith("a") and len(s) > 8:
                head, hexpart = "a", s[1:]
            d = self._stream(s, len(hexpart))
            r = head + "".join(HEX[d[k] & 15] for k in range(len(hexpart)))
            self.cache[s] = r
        return r


def reword_text(text, rng, pool):
    ms = list(WORD_RE.finditer(text))
    n = len(ms)
    if n < 4:
        return text
    k = max(1, min(12, n * 3 // 100))
    picks = sorted(rng.sample(range(n), k))
    out, pos = [], 0
    for i in picks:
        m = ms[i]
        w = pool[rng.randrange(len(pool))]
        if m.group(0)[0].isupper():
            w = w.capitalize()
        out.append(text[pos:m.start()])
        out.append(w)
        pos = m.end()
    out.append(text[pos:])
    return "".join(out)


def reword_line(line, rng, pool):
    obj = json.loads(line)
    msg = obj["message"]
    c = msg["content"]
    if isinstance(c, str):
        msg["content"] = reword_text(c, rng, pool)
    else:
        for b in c:
            if isinstance(b, dict):
                t = b.get("type")
                if t == "text" and isinstance(b.get("text"), str):
                    b["text"] = reword_text(b["text"], rng, pool)
                elif t == "thinking" and isinstance(b.get("thinking"), str) and b["thinking"]:
                    b["thinking"] = reword_text(b["thinking"], rng, pool)
    s = json.dumps(obj, ensure_ascii=False, separators=(",", ":"))
    try:
        s.encode("utf-8")
    except UnicodeEncodeError:  # lone surrogates: escape them like JSON.stringify does
        s = json.dumps(obj, ensure_ascii=True, separators=(",", ":"))
    return s


def copy_file(task):
    rnd, idx = task
    files, agent_ids, pool, roots, targets, seed = (
        G["files"], G["agent_ids"], G["pool"], G["roots"], G["targets"], G["seed"])
    f = files[idx]
    mapper = Mapper(seed, rnd)
    rng = random.Random(hkey("reword", seed, rnd, f.project, f.rel))
    # time offset shared by all files of one source project in one round (sessions, their
    # subagents and resumed sessions keep their relative order and spacing)
    tr = random.Random(hkey("time", seed, rnd, f.project))
    offset = timedelta(seconds=tr.randrange(-420 * 86400, 5 * 86400))
    # target project shared by the files of one source project in one round
    pr = random.Random(hkey("proj", seed, rnd, f.project))
    old_root = roots.get(f.project)
    windows = bool(old_root and "\\" in old_root)
    new_root = targets[pr.randrange(len(targets))][1 if windows else 0]
    new_slug = slugify(new_root)
    reps = []
    if old_root:
        if len(old_root) >= 6:
            reps.append((json.dumps(old_root)[1:-1], json.dumps(new_root)[1:-1]))
            os_ = slugify(old_root)
            if len(os_) >= 8:
                reps.append((os_, new_slug))
        else:
            reps.append(('"cwd":' + json.dumps(old_root), '"cwd":' + json.dumps(new_root)))
        if f.project != slugify(old_root) and len(f.project) >= 8:
            reps.append((f.project, new_slug))

    ts_cache = {}

    def shift(y, m):
        key = y + m.group(0)
        r = ts_cache.get(key)
        if r is None:
            try:
                dt = datetime(int(y), int(m[3]), int(m[4]), int(m[5]), int(m[6]), int(m[7]),
                              tzinfo=timezone.utc) + offset
                r = dt.strftime("%Y-%m-%dT%H:%M:%S") + (m[8] or "") + "Z"
            except (ValueError, OverflowError):
                r = key
            ts_cache[key] = r
        return r

    def dash_pass(text):
        out, pos = [], 0
        for m in DASH_RE.finditer(text):
            st = m.start()
            if m.group("u"):
                head = text[st - 8:st]
                if st < 8 or not HEXCH.issuperset(head) or (st > 8 and text[st - 9].isalnum()):
                    continue
                out.append(text[pos:st - 8])
                out.append(mapper.uuid(head + m.group(0)))
            else:
                y = text[st - 4:st]
                if st < 4 or not y.isdigit() or (st > 4 and text[st - 5].isdigit()):
                    continue
                out.append(text[pos:st - 4])
                out.append(shift(y, m))
            pos = m.end()
        out.append(text[pos:])
        return "".join(out)

    def pid_sub(m):
        return mapper.prefixed(m.group(0))

    def agent_sub(m):
        aid = m.group("id")
        if aid not in agent_ids:
            return m.group(0)
        return m.group(0)[:m.start("id") - m.start()] + mapper.agent(aid)

    def rewrite(text):
        for a, b in reps:
            if a in text:
                text = text.replace(a, b)
        text = dash_pass(text)
        for rx in PID_RES:
            text = rx.sub(pid_sub, text)
        return AGENT_RE.sub(agent_sub, text)

    out = [reword_line(line, rng, pool) if rw else line for line, rw in zip(f.lines, f.reword)]
    out.append("")
    data = rewrite("\n".join(out)).encode("utf-8")

    if f.kind == "main":
        rel = mapper.uuid(f.stem_id) + ".jsonl" if re.fullmatch(UUID_RE, f.stem_id) else f.stem_id + ".jsonl"
        path = os.path.join(new_slug, rel)
    elif f.kind == "rootagent":
        path = os.path.join(new_slug, "agent-" + mapper.agent(f.stem_id) + ".jsonl")
    else:
        sid = mapper.uuid(f.group) if re.fullmatch(UUID_RE, f.group) else f.group
        path = os.path.join(new_slug, sid, "subagents", "agent-" + mapper.agent(f.stem_id) + ".jsonl")
    full = os.path.join(G["out"], path)
    os.makedirs(os.path.dirname(full), exist_ok=True)
    with open(full, "wb") as fh:
        fh.write(data)
    nfiles = 1
    if f.meta is not None:
        with open(full[:-6] + ".meta.json", "w", encoding="utf-8") as fh:
            fh.write(rewrite(f.meta))
    return nfiles, len(data), len(out) - 1, 1 if f.kind == "main" else 0, new_slug, (rnd, f.project, f.rel, path)


def make_targets(seed, n):
    rng = random.Random(hkey("targets", seed))
    seen, out = set(), []
    while len(out) < n:
        user, area = rng.choice(USERS), rng.choice(AREAS)
        name = rng.choice(NAME_A) + "-" + rng.choice(NAME_B)
        if rng.random() < 0.3:
            name += "-" + str(rng.randrange(2, 9))
        if name in seen:
            continue
        seen.add(name)
        base = "/Users" if rng.random() < 0.6 else "/home"
        posix = f"{base}/{user}/{area}/{name}"
        win = f"C:\\Users\\{user}\\{area}\\{name}" if rng.random() < 0.5 else f"D:\\{name}"
        out.append((posix, win))
    return out


def plan(files, target_bytes, seed):
    """Order of (round, file index) tasks; whole session groups are taken together.

    Rounds go over every session group in a seeded order; a group that would overshoot the
    target by more than 1% is skipped, so the total lands close to the target."""
    groups = {}
    for i, f in enumerate(files):
        groups.setdefault((f.project, f.group), []).append(i)
    keys = sorted(groups)
    gsize = {k: sum(files[i].size for i in groups[k]) for k in keys}
    tasks, total, rnd = [], 0, 0
    slack = target_bytes * 0.01
    while total < target_bytes - slack:
        order = keys[:]
        random.Random(hkey("order", seed, rnd)).shuffle(order)
        added = 0
        for k in order:
            if total + gsize[k] > target_bytes + slack:
                continue
            for i in groups[k]:
                tasks.append((rnd, i))
            total += gsize[k]
            added += 1
            if total >= target_bytes - slack:
                break
        rnd += 1
        if not added:
            break
    return tasks, rnd


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--mb", type=float, required=True, help="target size in MB (10^6 bytes of JSONL)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--source", default=DEFAULT_SOURCE)
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--manifest", help="write one JSON line per output file: round, source, destination")
    a = ap.parse_args()
    t0 = time.perf_counter()
    files, agent_ids, vocab, roots = scan_source(a.source)
    if not files:
        sys.exit(f"gen_corpus: no source transcripts under {a.source}")
    # frequency-weighted vocabulary pool (drop hapaxes; keep it bounded)
    words = [w for w, c in vocab.most_common(20000) if c >= 2]
    pool = []
    for w in words:
        pool.extend([w] * min(vocab[w], 200))
    if not pool:
        pool = ["data"]
    tasks, rounds = plan(files, a.mb * 1e6, a.seed)
    nsess = sum(1 for _, i in tasks if files[i].kind == "main")
    nproj = int(min(200, max(50, nsess // 8)))
    G.update(files=files, agent_ids=frozenset(agent_ids), pool=pool, roots=roots,
             targets=make_targets(a.seed, nproj), seed=a.seed, out=a.out)
    os.makedirs(a.out, exist_ok=True)
    # biggest files first for load balance; results do not depend on the order
    order = sorted(tasks, key=lambda t: -files[t[1]].size)
    tot = [0, 0, 0, 0]
    slugs = set()
    manifest = []

    def account(r):
        for k in range(4):
            tot[k] += r[k]
        slugs.add(r[4])
        manifest.append(r[5])

    if a.jobs > 1:
        ctx = multiprocessing.get_context("fork")
        with ctx.Pool(a.jobs) as p:
            for r in p.imap_unordered(copy_file, order, chunksize=4):
                account(r)
    else:
        for t in order:
            account(copy_file(t))
    if a.manifest:
        with open(a.manifest, "w", encoding="utf-8") as mf:
            for rnd, project, rel, dst in sorted(manifest):
                mf.write(json.dumps({"round": rnd, "source": os.path.join(project, rel), "dest": dst}) + "\n")
    print(json.dumps({"files": tot[0], "bytes": tot[1], "lines": tot[2], "sessions": tot[3],
                      "projects": len(slugs), "rounds": rounds,
                      "seconds": round(time.perf_counter() - t0, 2), "out": a.out, "seed": a.seed}))


if __name__ == "__main__":
    main()
