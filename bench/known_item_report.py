"""Markdown tables of the known-item benchmark (bench/known_item.py)."""

from known_item_core import KINDS


def _f(x, pct=True):
    if x is None:
        return "—"
    return f"{100 * x:.1f}%" if pct else f"{x:.3f}"


def _ms(x):
    return "—" if x is None else (f"{x:.0f} ms" if x >= 100 else f"{x:.1f} ms" if x >= 1 else f"{x:.2f} ms")


def score_table(R):
    so, sf = R.get("scores", {}).get("osearch", {}), R.get("scores", {}).get("fts5", {})
    L = ["| kind | queries | osearch R@1 | osearch R@5 | osearch MRR@10 | FTS5 R@1 | FTS5 R@5 | FTS5 MRR@10 |",
         "|---|---:|---:|---:|---:|---:|---:|---:|"]
    for kind in (*KINDS, "overall"):
        o, f = so.get(kind), sf.get(kind)
        if not o:
            continue
        name = f"**{kind}**" if kind == "overall" else kind
        L.append(f"| {name} | {o['queries']} | {_f(o['recall@1'])} | {_f(o['recall@5'])} | {_f(o['mrr@10'], False)} | "
                 f"{_f(f['recall@1'])} | {_f(f['recall@5'])} | {_f(f['mrr@10'], False)} |")
    return L


def rewrite_table(R):
    """Respelled runs: both systems over the queries holding a word rewritten each way."""
    by = R.get("scores_by_rewrite") or {}
    if not by:
        return []
    L = ["| queries by strongest rewrite | queries | osearch R@1 | osearch R@5 | FTS5 R@1 | FTS5 R@5 |",
         "|---|---:|---:|---:|---:|---:|"]
    for label, s in by.items():
        o, f = s["osearch"], s["fts5"]
        L.append(f"| {label} | {o['queries']} | {_f(o['recall@1'])} | {_f(o['recall@5'])} | {_f(f['recall@1'])} | "
                 f"{_f(f['recall@5'])} |")
    return L + [""]


def render_md(R, heading="#"):
    m, g = R.get("meta", {}), R.get("generation", {})
    title = f"{heading} Known-item retrieval" + (f": {m['label']}" if m.get("label") else "")
    L = [title, ""]
    L.append("Sources: " + ", ".join(f"{a}=`{d}`" for a, d in m.get("sources", [])) + ".")
    if g:
        L.append(f"{g.get('units')} units in {g.get('sessions')} sessions; candidate words in "
                 f"{g.get('df_lo')}..{g.get('df_hi')} sessions; seed {g.get('seed')}, up to {g.get('per_kind')} "
                 f"queries per kind; words dropped as operators: {g.get('words_dropped', {}).get('operator', 0)}.")
    if m.get("spelling") == "respelled":
        rw = g.get("respell") or {}
        L.append("Query words **respelled** as a person types them (bench/known_item_respell.py): lower case, no "
                 "accents, and half of the camelCase identifiers replaced by a piece; query words by rewrite: "
                 + ", ".join(f"{k} {v}" for k, v in sorted(rw.items())) + ".")
    else:
        L.append("Query words as the text writes them (`--spelling as-written`).")
    ex = R.get("extraction", {}).get("per_agent", {})
    skipped = sum(s.get("zst_files_skipped", 0) for s in ex.values())
    if skipped:
        L.append(f"{skipped} Codex `.jsonl.zst` rollouts were skipped by the extraction (no zstd in python).")
    L.append("")
    L.extend(score_table(R))
    L.append("")
    L.extend(rewrite_table(R))
    lat = R.get("latency", {})
    o, f = lat.get("osearch_cli", {}), lat.get("fts5_in_process", {})
    if o:
        L.append(f"Latency: osearch CLI (default path, process start included) median {_ms(o.get('median_ms'))}, "
                 f"p95 {_ms(o.get('p95_ms'))} over {o.get('n')} queries; SQLite FTS5 in-process median "
                 f"{_ms(f.get('median_ms'))}, p95 {_ms(f.get('p95_ms'))}.")
    ix = R.get("osearch_index", {})
    if ix.get("summary"):
        s = ix["summary"]
        L.append(f"osearch index: {s.get('sessions')} sessions, {s.get('messages')} messages in "
                 f"{_ms(ix.get('wall_ms'))}.")
    if ix.get("target_sessions_unknown_to_osearch"):
        L.append(f"**Target sessions osearch does not list**: {ix['target_sessions_unknown_to_osearch'][:5]}")
    cats = R.get("miss_categories") or {}
    if cats:
        L.append("")
        L.append("osearch misses at rank 1, by diagnosis (misses.jsonl): "
                 + "; ".join(f"{c}: {n}" for c, n in sorted(cats.items(), key=lambda x: -x[1])) + ".")
    if R.get("osearch_errors"):
        L.append(f"\n**{R['osearch_errors']} osearch calls failed**, e.g. {R['errors'][:2]}")
    if R.get("error"):
        L.append(f"\n**Error**: {R['error']}")
    L.append("")
    return "\n".join(L)
