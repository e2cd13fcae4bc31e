#!/usr/bin/env python3
"""Known-item retrieval benchmark (issue 9): does the session a person remembers come back first?

    python3 bench/known_item.py --osearch build/osearch --corpus-claude DIR [--corpus-omp DIR]
        [--corpus-pi DIR] [--corpus-codex DIR] [--source KIND=DIR ...] --out OUTDIR
        [--seed 1] [--per-kind 120] [--work DIR] [--label NAME] [--no-diagnose]
        [--spelling as-written|respelled] [--reuse-index]

1. extracts text units from the transcripts with python (bench/known_item_extract.py);
2. generates known-item queries with a fixed seed (bench/known_item_core.py says exactly how),
   spelled as the text writes them (--spelling as-written, the default) or as a person who remembers
   them types them (--spelling respelled: lower case, no accents, a piece of a camelCase identifier;
   bench/known_item_respell.py); both systems get the same words, the targets are the same;
3. ranks sessions with a SQLite FTS5 table it builds itself (unicode61, bm25, best unit per session);
4. indexes the corpus with osearch once, then runs every query through the CLI on the default path
   (`osearch keyword WORDS --index IDX --source … --limit 10 --format json`, no --no-refresh);
5. scores recall@1, recall@5 and MRR@10 per kind and overall for both, with latencies.

Writes OUTDIR/known_item.json (all figures), OUTDIR/known_item.md (tables), OUTDIR/queries.jsonl
(every query with both ranks) and OUTDIR/misses.jsonl (every query osearch misses at rank 1, with
osearch's top 3, the FTS5 rank and a diagnosis made with a few more osearch calls).
"""

import argparse
import json
import os
import shutil
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import known_item_core as core  # noqa: E402
import known_item_extract as extract  # noqa: E402
import known_item_respell as respell  # noqa: E402
from bench_util import parse_json, run  # noqa: E402
from known_item_diagnose import diagnose  # noqa: E402
from known_item_report import render_md  # noqa: E402


def parse_sources(args):
    sources = []
    for agent in extract.AGENTS:
        d = getattr(args, f"corpus_{agent}")
        if d:
            sources.append((agent, os.path.abspath(d)))
    for spec in args.source or []:
        kind, sep, d = spec.partition("=")
        if not sep or kind not in extract.AGENTS:
            raise SystemExit(f"--source wants KIND=DIR with KIND one of {', '.join(extract.AGENTS)}: {spec!r}")
        sources.append((kind, os.path.abspath(d)))
    if not sources:
        raise SystemExit("give at least one corpus (--corpus-claude DIR, … or --source KIND=DIR)")
    return sources


def hits_of(result):
    j = parse_json(result.get("stdout", "")) if result.get("ok") else None
    rows = j.get("results") if isinstance(j, dict) else None
    if not isinstance(rows, list):
        return None, None
    return [[r.get("agent"), r.get("session_id")] for r in rows if isinstance(r, dict)], j


def osearch_env():
    env = dict(os.environ)
    env.pop("OSEARCH_SOURCES", None)
    env.pop("OSEARCH_INDEX", None)
    env["NO_COLOR"] = "1"
    return env


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--osearch", required=True)
    for agent in extract.AGENTS:
        ap.add_argument(f"--corpus-{agent}", metavar="DIR")
    ap.add_argument("--source", action="append", metavar="KIND=DIR", help="osearch's spelling, repeatable")
    ap.add_argument("--out", required=True)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--per-kind", type=int, default=120)
    ap.add_argument("--work", help="where the osearch index and the FTS5 db go (default: a temp dir)")
    ap.add_argument("--label", default="", help="a name for the corpus in the report")
    ap.add_argument("--no-diagnose", action="store_true", help="skip the extra osearch calls behind misses")
    ap.add_argument("--spelling", choices=SPELLINGS, default="as-written",
                    help="query words as the text writes them, or as a person types them (respelled)")
    ap.add_argument("--reuse-index", action="store_true",
                    help="keep an osearch index already in --work (it is refreshed, not rebuilt)")
    args = ap.parse_args(argv)
    sources = parse_sources(args)
    osearch = os.path.abspath(args.osearch)
    os.makedirs(args.out, exist_ok=True)
    t_start = time.perf_counter()

    def log(msg):
        print(f"[known-item {time.perf_counter() - t_start:7.1f}s] {msg}", file=sys.stderr, flush=True)

    work = args.work or tempfile.mkdtemp(prefix="osearch-known-item-")
    os.makedirs(work, exist_ok=True)
    idx = os.path.join(work, "index")
    db_path = os.path.join(work, "fts5.sqlite")
    env = osearch_env()
    src_args = [x for agent, d in sources for x in ("--source", f"{agent}={d}")]
    R = {"meta": {"label": args.label, "sources": [[a, d] for a, d in sources], "osearch": osearch,
                  "seed": args.seed, "per_kind": args.per_kind, "spelling": args.spelling,
                  "python": sys.version.split()[0]}}
    try:
        log("extracting units ...")
        t0 = time.perf_counter()
        units, stats = extract.extract(sources)
        R["extraction"] = {"seconds": round(time.perf_counter() - t0, 2), "per_agent": stats,
                           "units_per_kind": {k: sum(1 for u in units if u[2] == k) for k in core.KINDS}}
        if any(s.get("zst_files_skipped") for s in stats.values()):
            log("note: .jsonl.zst rollouts skipped (python has no zstd module); osearch reads them")
        queries, gen = core.generate(units, seed=args.seed, per_kind=args.per_kind)
        if args.spelling == "respelled":
            gen["respell"] = respell.respell(queries, units, args.seed, gen["df_lo"], gen["df_hi"])
        R["generation"] = gen
        R["generation"]["queries_per_kind"] = {k: sum(1 for q in queries if q["kind"] == k) for k in core.KINDS}
        log(f"{len(units)} units in {gen['sessions']} sessions; df band {gen['df_lo']}..{gen['df_hi']} sessions; "
            f"{len(queries)} queries")

        log("building the SQLite FTS5 baseline ...")
        t0 = time.perf_counter()
        fts = core.Fts5Baseline(units, db_path)
        R["fts5"] = {"build_seconds": round(time.perf_counter() - t0, 2)}
        fts_ms = []
        for q in queries:
            t0 = time.perf_counter()
            hits = fts.search(q["words"])
            fts_ms.append((time.perf_counter() - t0) * 1000)
            q["fts5_top"] = hits[:3]
            q["fts5_rank"] = core.first_rank(hits, q["targets"])
        del units

        log("osearch index ...")
        reused = args.reuse_index and os.path.isdir(idx)
        R["osearch_index_reused"] = reused
        if not reused:
            shutil.rmtree(idx, ignore_errors=True)
        r = run([osearch, "index", "--index", idx, *src_args, "--format", "json"], env=env, timeout=7200)
        R["osearch_index"] = {"ok": r["ok"], "wall_ms": r["wall_ms"], "summary": parse_json(r.get("stdout", "")),
                              "error": r.get("error")}
        if not r["ok"]:
            raise RuntimeError(f"osearch index failed: {r.get('error')}")
        lst = run([osearch, "list", "--index", idx, *src_args, "--no-refresh", "--limit", "100000",
                   "--format", "json"], env=env, timeout=600)
        listed, _ = hits_of(lst)
        if listed is None:
            R["osearch_index"]["list_error"] = (lst.get("error") or "no results array")[:300]
        else:
            known = {tuple(x) for x in listed}
            missing = sorted({tuple(t) for q in queries for t in q["targets"]} - known)
            R["osearch_index"]["listed_sessions"] = len(known)
            R["osearch_index"]["target_sessions_unknown_to_osearch"] = [list(m) for m in missing[:50]]

        log(f"running {len(queries)} queries through the osearch CLI ...")
        os_ms, errors = [], []
        for i, q in enumerate(queries):
            cmd = [osearch, "keyword", *q["words"], "--index", idx, *src_args, "--limit", "10", "--format", "json"]
            r = run(cmd, env=env, timeout=300)
            hits, j = hits_of(r)
            if hits is None:
                errors.append({"query": q["query"], "error": (r.get("error") or "no results array")[:300]})
                hits = []
            else:
                os_ms.append(r["wall_ms"])
            q["osearch_ms"] = r["wall_ms"]
            q["osearch_total"] = j.get("total") if isinstance(j, dict) else None
            q["osearch_top"] = [dict(zip(("agent", "session_id"), h)) | {
                "content_type": x.get("content_type"), "role": x.get("role"), "score": x.get("score"),
                "snippet": (x.get("snippet") or "")[:200]} for h, x in zip(hits[:3], (j or {}).get("results", []))]
            q["osearch_rank"] = core.first_rank(hits, q["targets"])
            if (i + 1) % 100 == 0:
                log(f"  {i + 1}/{len(queries)}")
        R["errors"] = errors[:20]
        R["osearch_errors"] = len(errors)

        R["scores"] = {"osearch": core.score_by_kind(queries, "osearch_rank"),
                       "fts5": core.score_by_kind(queries, "fts5_rank")}
        if args.spelling == "respelled":
            R["scores_by_rewrite"] = scores_by_rewrite(queries)
        R["latency"] = {"osearch_cli": core.latency(os_ms), "fts5_in_process": core.latency(fts_ms)}

        misses = [q for q in queries if q["osearch_rank"] != 1]
        if not args.no_diagnose and misses:
            log(f"diagnosing {len(misses)} misses ...")
            for q in misses:
                q["diagnosis"] = diagnose(osearch, idx, src_args, env, q)
                if q.get("osearch_top"):  # the units FTS5 would rank for the target and osearch's first
                    top = q["osearch_top"][0]
                    q["diagnosis"]["fts5_best_unit"] = {
                        "target": fts.best_unit(q["words"], q["diagnosis"]["target"]),
                        "osearch_first": fts.best_unit(q["words"], (top["agent"], top["session_id"]))}
                    q["diagnosis"]["category"] = refine(q["diagnosis"])
        fts.db.close()
        R["miss_categories"] = {}
        for q in misses:
            c = (q.get("diagnosis") or {}).get("category", "undiagnosed")
            R["miss_categories"][c] = R["miss_categories"].get(c, 0) + 1
        with open(os.path.join(args.out, "misses.jsonl"), "w", encoding="utf-8") as fh:
            for q in misses:
                fh.write(json.dumps(miss_record(q), ensure_ascii=False) + "\n")
        with open(os.path.join(args.out, "queries.jsonl"), "w", encoding="utf-8") as fh:
            for q in queries:
                keys = ("id", "kind", "query", *(("written", "rewrites") if "written" in q else ()), "targets",
                        "osearch_rank", "fts5_rank", "osearch_ms")
                fh.write(json.dumps({k: q.get(k) for k in keys}, ensure_ascii=False) + "\n")
    except Exception as e:  # noqa: BLE001 - report what was measured, then fail
        R["error"] = f"{type(e).__name__}: {e}"
        log(R["error"])
    finally:
        if not args.work:
            shutil.rmtree(work, ignore_errors=True)
        else:
            for p in (db_path,):
                if os.path.exists(p):
                    os.remove(p)
    R["meta"]["total_seconds"] = round(time.perf_counter() - t_start, 1)
    with open(os.path.join(args.out, "known_item.json"), "w", encoding="utf-8") as fh:
        json.dump(R, fh, indent=1, ensure_ascii=False)
    md = render_md(R)
    with open(os.path.join(args.out, "known_item.md"), "w", encoding="utf-8") as fh:
        fh.write(md)
    print(md)
    return 1 if R.get("error") else 0


SPELLINGS = ("as-written", "respelled")


def scores_by_rewrite(queries):
    """Both systems per class of query (respelled only): each query in the class of its strongest rewrite."""
    out = {}
    for label in respell.QUERY_CLASSES:
        mine = [q for q in queries if respell.query_class(q["rewrites"]) == label]
        if mine:
            out[label] = {"osearch": core.score([q["osearch_rank"] for q in mine]),
                          "fts5": core.score([q["fts5_rank"] for q in mine])}
    return out


def refine(d):
    """A ranking miss in more words, from the units FTS5 finds for the target and for osearch's first."""
    cat, ev = d.get("category", ""), d.get("fts5_best_unit") or {}
    t, o = ev.get("target"), ev.get("osearch_first")
    if not cat.startswith("ranking: osearch ranks the target below") or not t or not o:
        return cat
    if o["chars"] > 1.5 * t["chars"] and sum(o["tf"]) > sum(t["tf"]):
        return cat + " (behind a longer message with more occurrences of the words)"
    if o["bm25"] == t["bm25"]:
        return cat + " (FTS5 scores both alike: a tie)"
    return cat


def miss_record(q):
    text = q["text"]
    return {"id": q["id"], "kind": q["kind"], "query": q["query"], "targets": q["targets"],
            **({"written": q["written"], "rewrites": q["rewrites"]} if "written" in q else {}),
            "osearch_rank": q["osearch_rank"], "osearch_total": q.get("osearch_total"),
            "fts5_rank": q["fts5_rank"], "osearch_top3": q.get("osearch_top"), "fts5_top3": q.get("fts5_top"),
            "diagnosis": q.get("diagnosis"), "text_chars": len(text),
            "text": text if len(text) <= 1500 else text[:1500] + "…"}


if __name__ == "__main__":
    sys.exit(main())
