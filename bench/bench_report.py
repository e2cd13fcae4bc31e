"""Renders bench/out/results.{json,md} from the figures run_bench.py collected."""

import json
import os

from known_item_bench import render_known_item

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
        fh.write(render_md(R) + render_known_item(R))


def render_md(R):
    m, S = R["meta"], R["steps"]
    cb = m.get("corpus_bytes") or 0
    L = []
    L.append("# osearch benchmark\n")
    if m.get("corpus"):
        L.append(f"- corpus: `{m.get('corpus')}` — {cb / 1e6:.1f} MB, {m.get('corpus_files')} files, "
                 f"{(m.get('corpus_stamp') or {}).get('lines', '?')} lines, "
                 f"{(m.get('corpus_stamp') or {}).get('sessions', '?')} sessions, "
                 f"{(m.get('corpus_stamp') or {}).get('projects', '?')} projects (bench/gen_corpus.py, seed {(m.get('corpus_stamp') or {}).get('seed')})")
    L.append(f"- machine: {m.get('cpus')} CPUs, {m.get('platform')}, Python {m.get('python')}, {m.get('rg_version') or 'rg ?'}")
    L.append(f"- osearch: `{m.get('osearch')}` {m.get('osearch_version') or '(version unknown)'}; git {m.get('git_rev')}"
             + ("; **quick mode**" if m.get("quick") else ""))
    la = [m.get("loadavg_at_start"), m.get("loadavg_at_end")]
    L.append(f"- started {m.get('started_at')}; total {m.get('total_seconds', '…')} s; page cache warm for all steps; "
             f"load average (1/5/15 min) at start {la[0]}, at end {la[1]}\n")
    if m.get("commands_only"):
        return "\n".join(L + render_commands(S.get("commands")))
    if not m.get("corpus"):  # --mixed-only
        return "\n".join(L + (render_mixed(R) if m.get("mixed") else []))

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
        if p.get("osearch_first_call_ms") is not None:  # the compile a cached Hyperscan database saves
            L.append(f"| content `{p.get('pattern')}`, first call (pattern not cached) | {fmt_ms(p.get('osearch_first_call_ms'))} | — | "
                     f"`rg -l` | {fmt_ms(r.get('median_ms'))} | — | {fmt_ratio(p.get('osearch_first_call_ms'), r.get('median_ms'))} |")
    li = S.get("list", {})
    L.append(f"| list (--format json) | {fmt_ms(li.get('median_ms'))} | {fmt_ms(li.get('p99_ms'))} | — | — | — | — |")
    L.append("")
    L.extend(render_commands(S.get("commands")))
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
    if m.get("mixed"):
        L.extend(render_mixed(R))
    L.append("Medians are over repeated runs (keyword: over distinct queries, after one warm-up). Wall times include "
             "process start-up. Raw figures: results.json.\n")
    return "\n".join(L)


def render_mixed(R):
    """The mixed-agent section (bench/bench_mixed.py)."""
    mm, S = R["meta"]["mixed"], R["steps"]
    parts = mm.get("parts") or {}
    L = ["## Mixed agents: Claude Code + omp + pi + Codex (issue 8)\n",
         f"- corpus: `{mm.get('corpus')}` — {(mm.get('bytes') or 0) / 1e6:.1f} MB, {mm.get('files')} files; parts: "
         + ", ".join(f"{a} {(p.get('bytes') or 0) / 1e6:.1f} MB / {p.get('files')} files" for a, p in parts.items())
         + " (bench/gen_mixed_corpus.py)\n"]
    pa = (S.get("mixed_ingest_per_agent") or {}).get("agents") or {}
    if pa:
        L.append("| cold `index --full` of one part | median wall | MB/s (wall) | MB/s (CPU) | sessions | messages | "
                 "decoded text | index ÷ part | MB/s ÷ Claude's, wall (per round) | CPU (per round) | "
                 "text MB/s ÷ Claude's |")
        L.append("|---|---:|---:|---:|---:|---:|---:|---:|---|---|---:|")
        for a, x in pa.items():
            sm = x.get("summary") or {}
            w = x.get("speed_vs_claude_wall")
            c = x.get("speed_vs_claude_cpu")
            L.append(f"| {a} | {fmt_ms(x.get('median_ms'))} | {x.get('mb_per_s', '—')} | {x.get('mb_per_cpu_s', '—')} | "
                     f"{sm.get('sessions', '—')} | {sm.get('messages', '—')} | "
                     f"{(x.get('text_log_bytes') or 0) / 1e6:.1f} MB | "
                     f"{round((x.get('index_bytes') or 0) / x['bytes'], 2) if x.get('bytes') else '—'}× | "
                     + (f"**{x.get('speed_vs_claude_wall_median')}×** ({', '.join(map(str, w))})" if w else "—") + " | "
                     + (f"**{x.get('speed_vs_claude_cpu_median')}×** ({', '.join(map(str, c))})" if c else "—")
                     + f" | {x.get('text_speed_vs_claude_wall_median') or '—'}{'×' if x.get('text_speed_vs_claude_wall_median') else ''}"
                     + f" {err_of(x)} |")
        L.append("")
    f = S.get("mixed_index_full") or {}
    k = S.get("mixed_keyword") or {}
    if f or k:
        pb = f.get("python_baseline") or {}
        L.append("| mixed tree | osearch median | osearch p99 | peer | peer median | osearch/peer |")
        L.append("|---|---:|---:|---|---:|---:|")
        L.append(f"| cold `index --full`, four sources ({f.get('ok', 0)}/{f.get('runs', 0)} ok, {f.get('mb_per_s', '—')} MB/s, "
                 f"peak RSS {mb_(f.get('peak_rss_mb'))}, index {f.get('index_to_corpus', '—')}× corpus) | "
                 f"{fmt_ms(f.get('median_ms'))} | — | python `json.loads` scan, interleaved | {fmt_ms(pb.get('median_ms'))} | "
                 f"**{f.get('paired_ratio_median', '—')}×** paired ({', '.join(f'{r}×' for r in f.get('paired_ratios') or [])}) "
                 f"{err_of(f)} |")
        n = S.get("mixed_index_noop") or {}
        L.append(f"| no-op refresh, four sources ({n.get('ok', 0)}/{n.get('runs', 0)} ok) | {fmt_ms(n.get('median_ms'))} | "
                 f"{fmt_ms(n.get('p99_ms'))} | — | — | — |")
        L.append(f"| keyword, {k.get('queries', '?')} two-word queries, default path (refresh first) | "
                 f"{fmt_ms(k.get('median_ms'))} | {fmt_ms(k.get('p99_ms'))} | `rg -l -i -w -e A -e B` over the tree | "
                 f"{fmt_ms(k.get('rg_median_ms'))} | **{k.get('ratio_of_medians', '—')}×** (paired median "
                 f"{k.get('paired_ratio_median', '—')}×; engine took_ms median {fmt_ms(k.get('engine_took_median_ms'))}) "
                 f"{err_of(k)} |")
        L.append("")
        by = k.get("by_source_agent") or {}
        if by:
            L.append("Keyword queries by the agent whose prose they were drawn from: "
                     + "; ".join(f"{a}: {v.get('queries')} queries, median {fmt_ms(v.get('median_ms'))}, "
                                 f"own agent in the top 20 for {v.get('found_in_own_agent')}, "
                                 f"no result {v.get('zero_results')}" for a, v in by.items()) + ".\n")
    st = (S.get("mixed_status") or {}).get("output")
    if isinstance(st, dict):
        L.append(f"`osearch status` on the mixed index: {st.get('sessions')} sessions, {st.get('messages')} messages; "
                 f"per agent {json.dumps(st.get('agents'))}.\n")
    return L


def render_commands(c):
    """The query-commands section (issue 10, bench/bench_commands.py)."""
    if not c:
        return []
    if c.get("error"):
        return ["## Query commands (issue 10)\n", f"- {err_of(c)}\n"]
    t = c.get("targets") or {}
    sc = c.get("scale") or {}
    L = ["## Query commands (issue 10)\n",
         f"CLI wall, {c.get('runs_per_mode')} runs per mode after one warm-up, default path (refreshes first) and "
         f"`--no-refresh` interleaved, `--format json`. Targets picked from the index (seeded): largest session "
         f"`{t.get('big_session')}` ({t.get('big_session_messages')} messages, {t.get('thread_returned')} returned by "
         f"thread), median session `{t.get('median_session')}` ({t.get('median_session_messages')} messages), "
         f"deep message `{t.get('deep_uuid')}` (trace chain {t.get('deep_uuid_chain')}, end {t.get('deep_uuid_chain_end')}), "
         f"most-touched path `{t.get('top_path')}` ({t.get('top_path_tool_calls')} tool calls name it), suffix "
         f"`{t.get('top_suffix')}`.\n",
         "| command | default median | default p99 | --no-refresh median | --no-refresh p99 | CPU (user+sys), default / "
         "--no-refresh | above `--version` (paired), default / --no-refresh | engine took_ms, default / --no-refresh | "
         "results | output | ≤ 20 ms |",
         "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|"]
    for name, f in (c.get("floor") or {}).items():
        L.append(f"| floor: `{name}` | {fmt_ms(f.get('median_ms'))} | {fmt_ms(f.get('p99_ms'))} | | | "
                 f"{fmt_ms(f.get('cpu_median_ms'))} | {fmt_ms(f.get('above_version_ms'))} | | | | |")
    for r in c.get("commands") or []:
        if r.get("skipped"):
            L.append(f"| {r['name']} | {r['skipped']} | | | | | | | | | |")
            continue
        d, n = r.get("default") or {}, r.get("no_refresh") or {}
        ok = d.get("median_ms") is not None and d["median_ms"] <= 20
        L.append(f"| {r['name']} | {fmt_ms(d.get('median_ms'))} | {fmt_ms(d.get('p99_ms'))} | "
                 f"{fmt_ms(n.get('median_ms'))} | {fmt_ms(n.get('p99_ms'))} | "
                 f"{fmt_ms(d.get('cpu_median_ms'))} / {fmt_ms(n.get('cpu_median_ms'))} | "
                 f"{fmt_ms(r.get('default_above_floor_ms'))} / {fmt_ms(r.get('no_refresh_above_floor_ms'))} | "
                 f"{fmt_ms(r.get('engine_took_ms'))} / {fmt_ms(r.get('engine_took_ms_no_refresh'))} | "
                 f"{r.get('returned', '—')}/{r.get('total', '—')} | {(r.get('output_bytes') or 0) / 1e3:.1f} kB | "
                 f"{'yes' if ok else '**no**'} {err_of(d) or err_of(n)} |")
    L.append("")
    big = {r["name"]: r for r in c.get("commands") or [] if not r.get("skipped")}
    rows = sc.get("commands") or []
    if rows:
        t2 = sc.get("targets") or {}
        L.append(f"Scale check (cost must not grow with the number of sessions): the same argv on a corpus a quarter "
                 f"the size ({sc.get('sessions')} sessions, {sc.get('messages')} messages) and on the full one, "
                 f"interleaved; targets picked in the quarter corpus by the same rules (session `{t2.get('big_session')}`, "
                 f"message `{t2.get('deep_uuid')}`, path `{t2.get('top_path')}`; project paths are assigned per corpus, so "
                 f"a path's hits differ).\n")
        L.append("| command | quarter: default | quarter: --no-refresh | full: default | full: --no-refresh | "
                 "full ÷ quarter (--no-refresh) | results (quarter / full) | output (quarter / full) |")
        L.append("|---|---:|---:|---:|---:|---:|---|---|")
        for r in rows:
            if r.get("skipped"):
                L.append(f"| {r['name']} | {r['skipped']} | | | | | | |")
                continue
            qd, qn, fd, fn = (r.get(k) or {} for k in ("default", "no_refresh", "full_default", "full_no_refresh"))
            L.append(f"| {r['name']} | {fmt_ms(qd.get('median_ms'))} | {fmt_ms(qn.get('median_ms'))} | "
                     f"{fmt_ms(fd.get('median_ms'))} | {fmt_ms(fn.get('median_ms'))} | "
                     f"{fmt_ratio(fn.get('median_ms'), qn.get('median_ms'))} | {r.get('total', '—')} / "
                     f"{r.get('full_total', '—')} | {(r.get('output_bytes') or 0) / 1e3:.0f} / "
                     f"{(r.get('full_output_bytes') or 0) / 1e3:.0f} kB {err_of(fn) or r.get('full_error') or ''} |")
        L.append("")
    p = c.get("peers") or {}
    if p.get("skipped") or p.get("error"):
        L.append(f"SQLite peer: {p.get('skipped') or p.get('error')}\n")
        return L
    L.append("| peer (SQLite `messages` table of bench/sqlite_fts5_peer.py) | rows | in-process median | p99 | "
             "`sqlite3` CLI median | p99 | osearch default / peer CLI | osearch --no-refresh / peer CLI |")
    L.append("|---|---:|---:|---:|---:|---:|---:|---:|")
    pairs = [("thread_big", "thread, largest session", "`WHERE session_id=? ORDER BY ts`, index on (session_id, ts)"),
             ("thread_big_no_index", "thread, largest session", "the same, `NOT INDEXED` (the peer as built: a scan)"),
             ("thread_median", "thread, median session", "median session, indexed"),
             ("thread_median_no_index", "thread, median session", "median session, `NOT INDEXED`"),
             ("files_top_path", "files, absolute path", "`text LIKE '%path%'` over every message's text"),
             ("files_top_suffix", "files, suffix", "`text LIKE '%suffix%'`")]
    for key, cmd, what in pairs:
        x = p.get(key)
        if not x:
            continue
        ip, cl = x.get("in_process") or {}, x.get("cli") or {}
        o = (big.get(cmd) or {}).get("default") or {}
        on = (big.get(cmd) or {}).get("no_refresh") or {}
        L.append(f"| {cmd}: {what} | {x.get('rows')} | {fmt_ms(ip.get('median_ms'))} | {fmt_ms(ip.get('p99_ms'))} | "
                 f"{fmt_ms(cl.get('median_ms'))} | {fmt_ms(cl.get('p99_ms'))} | {fmt_ratio(o.get('median_ms'), cl.get('median_ms'))} | "
                 f"{fmt_ratio(on.get('median_ms'), cl.get('median_ms'))} |")
    cc = p.get("stats_ccusage") or {}
    if cc.get("ccusage"):
        t, o = cc["ccusage"], cc.get("osearch_stats_tokens_by_session") or {}
        L.append(f"| stats tokens --by session: `ccusage {cc.get('ccusage_cmd', '')}` (reads every transcript) | — | — | — | "
                 f"{fmt_ms(t.get('median_ms'))} | {fmt_ms(t.get('p99_ms'))} | "
                 f"{fmt_ratio(o.get('median_ms'), t.get('median_ms'))} (osearch {fmt_ms(o.get('median_ms'))}) | |")
    else:
        L.append(f"| stats: ccusage | {cc.get('skipped') or cc.get('error') or '—'} | | | | | | |")
    L.append("")
    return L
