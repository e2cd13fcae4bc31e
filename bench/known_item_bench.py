"""The known-item line of `make bench` (issue 9): bench/known_item.py on the shared real corpus and on
a generated mixed-agent corpus (bench/gen_mixed_corpus.py, --known-item-mb, default
$OSEARCH_BENCH_KNOWN_ITEM_MB or 60), each with the query words as the text writes them and again
respelled as a person types them (--spelling respelled, on the same osearch index). Each run writes
OUT/known-item-<name>[-respelled]/ (known_item.json, known_item.md, misses.jsonl, queries.jsonl);
the figures also go into results.json / results.md.
"""

import json
import os
import shutil
import sys

from bench_util import run
from known_item_report import render_md

HERE = os.path.dirname(os.path.abspath(__file__))
SHARED = os.path.normpath(os.path.join(HERE, "..", "..", "shared", "corpus"))
# where each agent's sessions start below the shared corpus (and below a generated mixed corpus)
SHARED_ROOTS = {"claude": "claude", "omp": "omp/.omp/agent/sessions", "pi": "pi/.pi/agent/sessions",
                "codex": "codex/.codex/sessions"}


def shared_sources(base=SHARED):
    return [(a, os.path.join(base, rel)) for a, rel in SHARED_ROOTS.items() if os.path.isdir(os.path.join(base, rel))]


def run_known_item(osearch, sources, out, seed, label, log, per_kind=120, keep_index=False, spelling="as-written",
                   work=None):
    """One benchmark run as a child process; its known_item.json as the step's figures. With `work`
    given, the osearch index there is reused (refreshed) and left for the caller."""
    os.makedirs(out, exist_ok=True)
    cmd = [sys.executable, os.path.join(HERE, "known_item.py"), "--osearch", osearch, "--out", out,
           "--seed", str(seed), "--per-kind", str(per_kind), "--label", label, "--spelling", spelling,
           "--work", work or os.path.join(out, "work")]
    if work:
        cmd.append("--reuse-index")
    for agent, d in sources:
        cmd += ["--source", f"{agent}={d}"]
    log(f"known-item ({label}): {' '.join(cmd)}")
    r = run(cmd, timeout=7200, keep_stdout=False)
    if not keep_index and not work:
        shutil.rmtree(os.path.join(out, "work"), ignore_errors=True)
    try:
        with open(os.path.join(out, "known_item.json"), encoding="utf-8") as fh:
            res = json.load(fh)
    except (OSError, ValueError) as e:
        return {"error": f"no known_item.json: {e}; {r.get('error') or ''}"[:500]}
    s = {"out": out, "wall_ms": r["wall_ms"], "result": res}
    if not r["ok"]:
        s["error"] = (res.get("error") or r.get("error") or "failed")[:500]
    return s


def both_spellings(osearch, src, out, seed, label, log, keep_index, step, name):
    """The as-written queries (OUT/) and the respelled ones (OUT-respelled/) on one osearch index,
    as two steps `name` and `name`_respelled."""
    work = os.path.join(out, "work")
    step(name, lambda: run_known_item(osearch, src, out, seed, label, log, work=work))
    step(name + "_respelled", lambda: run_known_item(osearch, src, out + "-respelled", seed, label + ", respelled",
                                                     log, spelling="respelled", work=work))
    if not keep_index:
        shutil.rmtree(work, ignore_errors=True)


def known_item_steps(args, osearch, log, step):
    seed = args.seed
    src = shared_sources()
    if src:
        both_spellings(osearch, src, os.path.join(args.out, "known-item-shared"), seed, "shared corpus", log,
                       args.keep_index, step, "known_item_shared")
    else:
        log(f"known-item: no shared corpus at {SHARED}, skipped")
        step("known_item_shared", lambda: {"skipped": f"no shared corpus at {SHARED}"})

    def generated_sources():
        from bench_mixed import ensure_mixed_corpus  # generates (or reuses) the mixed-agent tree
        import gen_mixed_corpus as gm
        corpus, _ = ensure_mixed_corpus(args.out, args.known_item_mb, seed, log)
        return [(a, gm.agent_root(corpus, a)) for a in gm.AGENTS if os.path.isdir(gm.agent_root(corpus, a))]
    try:
        gen_src = generated_sources()
    except Exception as e:  # noqa: BLE001 - the step reports it, as it did when generation ran inside it
        err = f"{type(e).__name__}: {e}"
        step("known_item_generated", lambda: {"error": f"generated corpus: {err}"[:500]})
        return
    both_spellings(osearch, gen_src, os.path.join(args.out, f"known-item-mixed-{args.known_item_mb:g}mb"), seed,
                   f"generated mixed corpus, {args.known_item_mb:g} MB", log, args.keep_index, step,
                   "known_item_generated")


def render_known_item(R):
    """results.md sections for the known-item steps ('' when none ran)."""
    L = []
    for name, s in (R.get("steps") or {}).items():
        if not name.startswith("known_item_") or not isinstance(s, dict):
            continue
        if s.get("skipped"):
            L.append(f"## Known-item retrieval ({name})\n\nskipped: {s['skipped']}\n")
        elif isinstance(s.get("result"), dict):
            L.append(render_md(s["result"], heading="##"))
            L.append(f"Per-query detail and misses: `{s.get('out')}/`.\n")
        elif s.get("error"):
            L.append(f"## Known-item retrieval ({name})\n\n**error**: {s['error']}\n")
    return ("\n" + "\n".join(L)) if L else ""
