"""Renders bench/out/results.{json,md} from the figures run_bench.py collected."""

import json
import os

def fmt_ms(x):
    if x is None:
        return "—"
    if x >= 10_000:
        return f"{x / 1000:.1f} s"
    if x >= 100:
        return f"{x:.0f} ms"
    return f"{x:.1f} ms"


def mb_(x):
    return "—" if x is None else f"{x:.0f} MB"


def fmt_ratio(a, b):
    if a is None or b is None or not b:
        return "—"
    return f"{a / b:.2f}×"


def err_of(s):
    if not isinstance(s, dict):
        return ""
    e = s.get("error") or (s.get("errors") or [None])[0]
    if not e:
        return ""
    e = str(e).strip().replace("\n", " ").replace("|", "\\|")
    return "error: " + (e[:120] + "…" if len(e) > 120 else e)


def write_results(out, R):
    with open(os.path.join(out, "results.json"), "w", encoding="utf-8") as fh:
        json.dump(R, fh, indent=1, ensure_ascii=False)
    with open(os.path.join(out, "results.md"), "w", encoding="utf-8") as fh:
        fh.write(render_md(R))


def render_md(R):
    m, S = R["meta"], R["steps"]
    cb = m.get("corpus_bytes") or 0
    L = []
    L.append("# osearch benchmark\n")
    L.append(f"- corpus: `{m.get('corpus')}` — {cb / 1e6:.1f} MB, {m.get('corpus_files')} files, "
             f"{(m.get('corpus_stamp') or {}).get('lines', '?')} lines, "
             f"{(m.get('corpus_stamp') or {}).get('sessions', '?')} sessions, "
             f"{(m.get('corpus_stamp') or {}).get('projects', '?')} projects (bench/gen_corpus.py, seed {(m.get('corpus_stamp') or {}).get('seed')})")
    L.append(f"- machine: {m.get('cpus')} CPUs, {m.get('platform')}, Python {m.get('python')}, {m.get('rg_version') or 'rg ?'}")
    L.append(f"- osearch: `{m.get('osearch')}` {m.get('osearch_version') or '(version unknown)'}; git {m.get('git_rev')}"
             + ("; **quick mode**" if m.get("quick") else ""))
    L.append(f"- started {m.get('started_at')}; total {m.get('total_seconds', '…')} s; page cache warm for all steps\n")

    L.append("## Indexing\n")
    L.append("| step | median | p99 | runs ok | peak RSS | notes |")
    L.append("|---|---:|---:|---:|---:|---|")
    b = S.get("python_json_baseline", {})
    L.append(f"| python `json.loads` every line (peer) | {fmt_ms(b.get('median_ms'))} | — | {b.get('ok', 0)}/{b.get('runs', 0)} | "
             f"{mb_(b.get('peak_rss_mb'))} | {b.get('mb_per_s', '—')} MB/s {err_of(b)} |")
    f = S.get("index_full", {})
    paired = f.get("paired_ratios") or []
    note = (f"{f.get('mb_per_s', '—')} MB/s; **{f.get('paired_ratio_median', '—')}× the json.loads scan** (median of "
            f"{len(paired)} interleaved pairs: {', '.join(f'{r}×' for r in paired)}; ratio of medians "
            f"{fmt_ratio(f.get('median_ms'), b.get('median_ms'))}); "
            f"index {((f.get('index_bytes') or 0) / 1e6):.1f} MB = {f.get('index_to_corpus', '—')}× corpus")
    L.append(f"| osearch index --full (fresh dir) | {fmt_ms(f.get('median_ms'))} | — | {f.get('ok', 0)}/{f.get('runs', 0)} | "
             f"{mb_(f.get('peak_rss_mb'))} | {note} {err_of(f)} |")
    sq = S.get("keyword_sqlite_fts5", {})
    sb = sq.get("build") or {}
    L.append(f"| SQLite FTS5 build (peer, Python) | {fmt_ms(sq.get('build_wall_ms'))} | — | — | {mb_(sq.get('build_peak_rss_mb'))} | "
             f"{sb.get('messages', '—')} messages, db {((sb.get('db_bytes') or 0) / 1e6):.1f} MB "
             f"({round((sb.get('db_bytes') or 0) / cb, 3) if cb else '—'}× corpus); osearch/peer "
             f"{fmt_ratio(f.get('median_ms'), sq.get('build_wall_ms'))} {err_of(sq)} |")
    n = S.get("index_noop", {})
    L.append(f"| osearch index, no-op refresh | {fmt_ms(n.get('median_ms'))} | {fmt_ms(n.get('p99_ms'))} | {n.get('ok', 0)}/{n.get('runs', 0)} | "
             f"{mb_(n.get('peak_rss_mb'))} | {err_of(n)} |")
    a = S.get("index_append_1mb", {})
    ab = [x.get("bytes", 0) for x in a.get("appended", [])]
    L.append(f"| osearch index after appending ~1 MB | {fmt_ms(a.get('median_ms'))} | {fmt_ms(a.get('p99_ms'))} | {a.get('ok', 0)}/{a.get('runs', 0)} | "
             f"{mb_(a.get('peak_rss_mb'))} | {(sum(ab) / len(ab) / 1e6) if ab else 0:.2f} MB appended to 4 sessions per run {err_of(a)} |")
    L.append("")

    L.append("## Queries\n")
    L.append("| query | osearch median | osearch p99 | peer | peer median | peer p99 | osearch/peer |")
    L.append("|---|---:|---:|---|---:|---:|---:|")
    k = S.get("keyword_osearch", {})
    ip = sq.get("in_process") or {}
    cli = sq.get("cli") or {}
    L.append(f"| keyword, {k.get('queries', '?')} two-word queries (CLI wall) | {fmt_ms(k.get('median_ms'))} | {fmt_ms(k.get('p99_ms'))} | "
             f"SQLite FTS5 CLI wall ({cli.get('runs', 0)} queries) | {fmt_ms(cli.get('median_ms'))} | {fmt_ms(cli.get('p99_ms'))} | "
             f"{fmt_ratio(k.get('median_ms'), cli.get('median_ms'))} |")
    L.append(f"| keyword, engine `took_ms` vs in-process | {fmt_ms(k.get('engine_took_median_ms'))} | {fmt_ms(k.get('engine_took_p99_ms'))} | "
             f"SQLite FTS5 in-process | {fmt_ms(ip.get('median_ms'))} | {fmt_ms(ip.get('p99_ms'))} | "
             f"{fmt_ratio(k.get('engine_took_median_ms'), ip.get('median_ms'))} |")
    kip = k.get("in_process") or {}
    L.append(f"| keyword in-process (`bench/query_latency`, {kip.get('runs', 0)} runs) | {fmt_ms(kip.get('median_ms'))} | {fmt_ms(kip.get('p99_ms'))} | "
             f"SQLite FTS5 in-process | {fmt_ms(ip.get('median_ms'))} | {fmt_ms(ip.get('p99_ms'))} | "
             f"{fmt_ratio(kip.get('median_ms'), ip.get('median_ms'))} |")
    for p in (S.get("content_vs_rg", {}).get("patterns") or []):
        o, r = p.get("osearch", {}), p.get("rg", {})
        L.append(f"| content `{p.get('pattern')}` ({p.get('name')}) | {fmt_ms(o.get('median_ms'))} | {fmt_ms(o.get('p99_ms'))} | "
                 f"`rg -l` ({p.get('rg_files', '?')} files) | {fmt_ms(r.get('median_ms'))} | {fmt_ms(r.get('p99_ms'))} | "
                 f"{fmt_ratio(o.get('median_ms'), r.get('median_ms'))} |")
    li = S.get("list", {})
    L.append(f"| list (--format json) | {fmt_ms(li.get('median_ms'))} | {fmt_ms(li.get('p99_ms'))} | — | — | — | — |")
    L.append("")
    errs = []
    for name, s in S.items():
        e = err_of(s)
        if e:
            errs.append(f"- `{name}`: {e}")
        for p in (s.get("patterns") or []) if isinstance(s, dict) else []:
            e = err_of(p.get("osearch")) or (("error: " + str(p["osearch_error"])[:120]) if p.get("osearch_error") else "")
            if e:
                errs.append(f"- `{name}` `{p.get('pattern')}`: {e}")
    if k.get("zero_result_queries"):
        errs.append(f"- keyword: {k['zero_result_queries']} of {k.get('ok')} queries returned no result")
    if errs:
        L.append("## Failures and warnings\n")
        L.extend(errs)
        L.append("")
    st = S.get("status", {})
    if st.get("output") is not None:
        L.append("## osearch status\n")
        L.append("```json")
        L.append(json.dumps(st["output"], indent=1, ensure_ascii=False)[:4000] if not isinstance(st["output"], str)
                 else st["output"][:4000])
        L.append("```\n")
    L.append("Medians are over repeated runs (keyword: over distinct queries, after one warm-up). Wall times include "
             "process start-up. Raw figures: results.json.\n")
    return "\n".join(L)
