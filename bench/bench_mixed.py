"""The mixed-agent line of `make bench` (issue 8): Claude Code, omp, pi and Codex in one tree.

Steps (run_bench.py calls mixed_steps; every figure is measured side by side in the same run):

  mixed_ingest_per_agent  cold `osearch index --full` of each agent's quarter alone (equal sizes),
                          the four agents in a rotating order per round; MB/s by wall and by CPU
                          time, and per round the ratio agent MB/s / Claude MB/s (>= 1: not slower)
  mixed_index_full        cold index of the whole tree (four --source roots), interleaved with
                          the python json.loads scan of the same tree (paired ratios)
  mixed_keyword           two-word queries drawn from each agent's prose, on the default path
                          (a refresh first, no --no-refresh), interleaved per query with
                          `rg -l -i -w -e A -e B` over the same tree
  mixed_status            `osearch status`: sessions and messages per agent
"""

import hashlib
import json
import os
import random
import shutil
import statistics
import sys
from collections import Counter

from bench_util import du, med, parse_json, pct, r3, run, slim, summarize
from bench_corpus import BASELINE_CODE, STOP, WORD, jsonl_files

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import gen_mixed_corpus as gm  # noqa: E402

AGENTS = gm.AGENTS


def ensure_mixed_corpus(out, mb, seed, log):
    corpus = os.path.join(out, f"mixed-{mb:g}mb")
    stamp = corpus + ".stamp"
    sha = hashlib.sha1()
    for fn in ("gen_mixed_corpus.py", "gen_corpus.py"):
        sha.update(open(os.path.join(HERE, fn), "rb").read())
    want = {"mb": mb, "seed": seed, "generator_sha1": sha.hexdigest()}
    if os.path.exists(stamp) and os.path.isdir(corpus):
        try:
            st = json.load(open(stamp))
            if all(st.get(k) == v for k, v in want.items()) and st.get("bytes") == sum(
                    os.path.getsize(f) for f in jsonl_files(corpus)):
                log(f"mixed corpus: reusing {corpus} ({st['bytes'] / 1e6:.1f} MB)")
                return corpus, st
        except (OSError, ValueError, KeyError):
            pass
        log("mixed corpus: stamp does not match, regenerating")
    if os.path.exists(stamp):
        os.remove(stamp)
    shutil.rmtree(corpus, ignore_errors=True)
    log(f"mixed corpus: generating {mb:g} MB into {corpus}")
    r = run([sys.executable, os.path.join(HERE, "gen_mixed_corpus.py"), "--out", corpus, "--mb", str(mb),
             "--seed", str(seed)], timeout=3600)
    if not r["ok"]:
        raise RuntimeError(f"gen_mixed_corpus failed: {r.get('error')}")
    st = dict(want)
    st.update(parse_json(r["stdout"]) or {})
    st["generated_wall_s"] = round(r["wall_ms"] / 1000, 2)
    st["bytes"] = sum(os.path.getsize(f) for f in jsonl_files(corpus))
    with open(stamp, "w") as fh:
        json.dump(st, fh)
    log(f"mixed corpus: {st['bytes'] / 1e6:.1f} MB, {st.get('files')} files in {st['generated_wall_s']} s")
    return corpus, st


def agent_prose(agent, root, max_bytes):
    """Prose texts of one agent's part, for queries."""
    out, used = [], 0
    for path in jsonl_files(root):
        if used > max_bytes:
            break
        with open(path, encoding="utf-8", errors="replace") as fh:
            for line in fh:
                used += len(line)
                if agent == "claude":
                    try:
                        obj = json.loads(line)
                    except ValueError:
                        continue
                    if not isinstance(obj, dict) or obj.get("type") not in ("user", "assistant") or obj.get("isMeta"):
                        continue
                    c = (obj.get("message") or {}).get("content")
                    texts = [c] if isinstance(c, str) else [b.get("text") for b in c or []
                                                            if isinstance(b, dict) and b.get("type") == "text"]
                    out.extend(t for t in texts if isinstance(t, str) and t)
                else:
                    out.extend(gm.prose_texts(agent, line))
    return out


def pair_queries(texts, n, seed):
    """n distinct two-word queries, each pair taken from one message (so it matches that agent).

    Words are drawn below the 15 most frequent of the sample, as in the Claude line; the small
    Codex samples have too little prose for a frequency band, so any co-occurring pair counts."""
    sets = [sorted({w for w in WORD.findall(t.lower()) if w not in STOP}) for t in texts]
    df = Counter(w for ws in sets for w in ws)
    top = {w for w, _ in df.most_common(15)}
    sets = [ws for ws in ([w for w in ws if w not in top] for ws in sets) if len(ws) >= 2]
    rng = random.Random(seed)
    out, seen = [], set()
    for _ in range(n * 50):
        if len(out) >= n or not sets:
            break
        a, b = rng.sample(sets[rng.randrange(len(sets))], 2)
        if (a, b) not in seen and (b, a) not in seen:
            seen.add((a, b))
            out.append([a, b])
    return out


def mixed_steps(args, osearch, env, log, step, R):
    q = args.quick
    reps = {"rounds": 1 if q else 3, "pairs": 1 if q else 3, "queries": 20 if q else 60}
    corpus, st = ensure_mixed_corpus(args.out, args.mixed_mb, args.seed, log)
    roots = {a: gm.agent_root(corpus, a) for a in AGENTS}
    part_bytes = {a: sum(os.path.getsize(f) for f in jsonl_files(roots[a])) for a in AGENTS}
    all_src = [x for a in AGENTS for x in ("--source", f"{a}={roots[a]}")]
    R["meta"]["mixed"] = {"corpus": corpus, "bytes": st.get("bytes"), "files": st.get("files"),
                          "parts": {a: {**(st.get("agents") or {}).get(a, {}), "bytes": part_bytes[a]} for a in AGENTS},
                          "repetitions": reps}
    idx = os.path.join(args.out, f"index-mixed-{args.mixed_mb:g}mb")

    def per_agent():
        runs = {a: [] for a in AGENTS}
        for rnd in range(reps["rounds"]):
            order = AGENTS[rnd % 4:] + AGENTS[:rnd % 4]
            for a in order:
                d = os.path.join(args.out, f"index-mixed-part-{a}")
                shutil.rmtree(d, ignore_errors=True)
                r = run([osearch, "index", "--full", "--index", d, "--source", f"{a}={roots[a]}", "--format", "json"],
                        env=env, timeout=3600)
                r["summary"] = parse_json(r.get("stdout", ""))
                r["round"] = rnd
                # the text log holds every message's decoded text once: the work the index does per byte
                r["text_log_bytes"] = sum(os.path.getsize(os.path.join(d, f)) for f in os.listdir(d)
                                          if f.startswith("text-") and f.endswith(".log")) if os.path.isdir(d) else 0
                r["index_bytes"] = du(d)[0] if os.path.isdir(d) else 0
                runs[a].append(r)
                shutil.rmtree(d, ignore_errors=True)
        out = {"agents": {}}
        for a in AGENTS:
            ok = [r for r in runs[a] if r.get("ok")]
            s = summarize(runs[a])
            cpu = [r["user_s"] + r["sys_s"] for r in ok]
            s["cpu_median_s"] = r3(med(cpu))
            s["bytes"] = part_bytes[a]
            if s["median_ms"]:
                s["mb_per_s"] = round(part_bytes[a] / 1e6 / (s["median_ms"] / 1000), 1)
            if s["cpu_median_s"]:
                s["mb_per_cpu_s"] = round(part_bytes[a] / 1e6 / s["cpu_median_s"], 1)
            summ = ok[-1]["summary"] if ok and isinstance(ok[-1].get("summary"), dict) else {}
            s["summary"] = {k: summ.get(k) for k in ("files_seen", "sessions", "messages", "tool_calls", "bad_lines",
                                                     "oversized_lines", "files_unreadable", "bytes_read")}
            s["text_log_bytes"] = ok[-1].get("text_log_bytes") if ok else None
            s["index_bytes"] = ok[-1].get("index_bytes") if ok else None
            if s["median_ms"] and s["text_log_bytes"]:
                s["text_mb_per_s"] = round(s["text_log_bytes"] / 1e6 / (s["median_ms"] / 1000), 2)
            s["raw"] = [slim(r) for r in runs[a]]
            out["agents"][a] = s
        # paired: in each round, agent MB/s over Claude's MB/s (>= 1 means not slower per byte)
        for a in AGENTS[1:]:
            wall, cpu = [], []
            for c, x in zip(runs["claude"], runs[a]):
                if c.get("ok") and x.get("ok"):
                    wall.append((part_bytes[a] / x["wall_ms"]) / (part_bytes["claude"] / c["wall_ms"]))
                    cpu.append((part_bytes[a] / (x["user_s"] + x["sys_s"]))
                               / (part_bytes["claude"] / (c["user_s"] + c["sys_s"])))
            s = out["agents"][a]
            s["speed_vs_claude_wall"] = [round(v, 2) for v in wall]
            s["speed_vs_claude_wall_median"] = round(statistics.median(wall), 2) if wall else None
            s["speed_vs_claude_cpu"] = [round(v, 2) for v in cpu]
            s["speed_vs_claude_cpu_median"] = round(statistics.median(cpu), 2) if cpu else None
            # the same per byte of decoded text (text log), to separate the adapters from the text volume
            tx = [(x["text_log_bytes"] / x["wall_ms"]) / (c["text_log_bytes"] / c["wall_ms"])
                  for c, x in zip(runs["claude"], runs[a])
                  if c.get("ok") and x.get("ok") and c.get("text_log_bytes") and x.get("text_log_bytes")]
            s["text_speed_vs_claude_wall"] = [round(v, 2) for v in tx]
            s["text_speed_vs_claude_wall_median"] = round(statistics.median(tx), 2) if tx else None
        return out
    step("mixed_ingest_per_agent", per_agent)

    base_runs, full_runs = [], []
    for _ in range(reps["pairs"]):
        base_runs.append(run([sys.executable, "-c", BASELINE_CODE, corpus], timeout=3600))
        shutil.rmtree(idx, ignore_errors=True)
        full_runs.append(run([osearch, "index", "--full", "--index", idx, *all_src, "--format", "json"],
                             env=env, timeout=7200))

    def full():
        s = summarize(full_runs)
        b = summarize(base_runs)
        s["python_baseline"] = {k: b.get(k) for k in ("median_ms", "walls_ms", "ok", "runs")}
        s["summary"] = parse_json(full_runs[-1].get("stdout", ""))
        cb = st.get("bytes") or 0
        if s["median_ms"]:
            s["mb_per_s"] = round(cb / 1e6 / (s["median_ms"] / 1000), 1)
        ratios = [f["wall_ms"] / p["wall_ms"] for p, f in zip(base_runs, full_runs) if p.get("ok") and f.get("ok")]
        s["paired_ratios"] = [round(x, 2) for x in ratios]
        s["paired_ratio_median"] = round(statistics.median(ratios), 2) if ratios else None
        alloc, _ = du(idx) if os.path.isdir(idx) else (0, 0)
        s["index_bytes"] = alloc
        s["index_to_corpus"] = round(alloc / cb, 3) if cb else None
        s["raw"] = [slim(r) for r in full_runs]
        return s
    step("mixed_index_full", full)

    def noop():  # what the default path of every query pays first
        runs = [run([osearch, "index", "--index", idx, *all_src, "--format", "json"], env=env, timeout=600)
                for _ in range(3 if q else 7)]
        s = summarize(runs)
        s["summary"] = parse_json(runs[-1].get("stdout", ""))
        return s
    step("mixed_index_noop", noop)

    def keyword():
        per_agent_n = max(1, reps["queries"] // 4)
        queries = []
        for i, a in enumerate(AGENTS):
            qs = pair_queries(agent_prose(a, roots[a], 20_000_000), per_agent_n, args.seed + i)
            queries.extend((a, ws) for ws in qs)
        kw = lambda ws: [osearch, "keyword", *ws, "--index", idx, *all_src,  # noqa: E731
                         "--format", "json", "--limit", "20"]
        rgc = lambda ws: ["rg", "-l", "-i", "-w", "-e", ws[0], "-e", ws[1], corpus]  # noqa: E731
        run(kw(queries[0][1]), env=env, timeout=120)  # warm-up
        run(rgc(queries[0][1]), timeout=300)
        per = []
        for a, ws in queries:
            r = run(kw(ws), env=env, timeout=120)
            g = run(rgc(ws), timeout=300, keep_stdout=True)
            j = parse_json(r.get("stdout", "")) if r.get("ok") else None
            hits = (j.get("results") or j.get("hits") or []) if isinstance(j, dict) else []
            ix = j.get("index") if isinstance(j, dict) else {}
            per.append({"query": " ".join(ws), "from": a, "ok": r["ok"], "wall_ms": r["wall_ms"],
                        "total": j.get("total") if isinstance(j, dict) else None,
                        "took_ms": j.get("took_ms") if isinstance(j, dict) else None,
                        "refreshed_files": (ix or {}).get("refreshed_files"), "stale": (ix or {}).get("stale"),
                        "agents_in_hits": sorted({h.get("agent") for h in hits if isinstance(h, dict)} - {None}),
                        "rg_ok": g.get("rc") in (0, 1), "rg_ms": g["wall_ms"],
                        "rg_files": len(g.get("stdout", "").splitlines()) if g.get("rc") == 0 else 0,
                        "error": r.get("error")})
        walls = [p["wall_ms"] for p in per if p["ok"]]
        rgs = [p["rg_ms"] for p in per if p["rg_ok"]]
        ratios = [p["wall_ms"] / p["rg_ms"] for p in per if p["ok"] and p["rg_ok"] and p["rg_ms"]]
        s = {"queries": len(per), "ok": len(walls), "median_ms": r3(med(walls)), "p99_ms": r3(pct(walls, 99)),
             "rg_median_ms": r3(med(rgs)), "rg_p99_ms": r3(pct(rgs, 99)),
             "ratio_of_medians": round(med(walls) / med(rgs), 3) if walls and rgs else None,
             "paired_ratio_median": round(statistics.median(ratios), 3) if ratios else None,
             "engine_took_median_ms": r3(med([p["took_ms"] for p in per if isinstance(p["took_ms"], (int, float))])),
             "zero_result_queries": sum(1 for p in per if p["ok"] and p["total"] == 0),
             "by_source_agent": {}, "per_query": per}
        for a in AGENTS:
            mine = [p for p in per if p["from"] == a and p["ok"]]
            s["by_source_agent"][a] = {
                "queries": len(mine), "median_ms": r3(med([p["wall_ms"] for p in mine])),
                "found_in_own_agent": sum(1 for p in mine if a in p["agents_in_hits"]),
                "zero_results": sum(1 for p in mine if p["total"] == 0)}
        errs = [p["error"] for p in per if not p["ok"]]
        if errs:
            s["errors"] = errs[:3]
        return s
    step("mixed_keyword", keyword)

    def status():
        r = run([osearch, "status", "--index", idx, *all_src, "--format", "json"], env=env, timeout=120)
        return {"ok": r["ok"], "output": parse_json(r.get("stdout", "")), "error": r.get("error")}
    step("mixed_status", status)
    if not args.keep_index:
        shutil.rmtree(idx, ignore_errors=True)
