"""Issue-10 query commands (thread, context, trace, files, failures, later stats/subagents/workflows/overview):
CLI wall per command on the default path (with freshness) and with --no-refresh, a scale check on a corpus a
quarter the size, and SQLite peers measured in the same run.

Called from run_bench.py (the `commands` step of the Claude line, after `list`); `--commands-only` runs just it,
reusing OUT/corpus-<N>mb, OUT/index-<N>mb and OUT/fts5-<N>mb.sqlite when present.

Targets are picked from the index itself (osearch list / thread output), deterministically for --seed:
  big_session     the session with the most messages (ties: a seeded choice among them)
  median_session  the middle session by message count
  deep_uuid       of 8 seeded messages from the last tenth of big_session, the one with the longest trace chain
  top_path        the absolute path most tool calls name (file_path of every tool call of every session)
  top_suffix      the last two components of top_path (`src/x.rs` style)
A command whose subcommand `osearch --help` does not list is reported as "not built".
"""

import os
import shutil
import tempfile
import random
import sqlite3
import statistics
import time
from collections import Counter

from bench_util import med, parse_json, pct, r3, run

RUNS = 21  # timed runs per command and mode, after one warm-up

# (name, subcommand and its arguments; --index/--source/--format are appended). Adding a command is one line;
# {placeholders} are targets. A subcommand `osearch --help` does not list is reported "not built".
COMMANDS = [
    ("thread, largest session", ["thread", "{big_session}"]),
    ("thread, median session", ["thread", "{median_session}"]),
    ("context, deep message", ["context", "{deep_uuid}"]),
    ("trace, deep message", ["trace", "{deep_uuid}"]),
    ("files, absolute path", ["files", "{top_path}"]),
    ("files, suffix", ["files", "{top_suffix}"]),
    ("failures", ["failures"]),
    ("failures --tool Bash", ["failures", "--tool", "Bash"]),
    ("stats tokens", ["stats", "tokens"]),
    ("stats tools", ["stats", "tools"]),
    ("stats files", ["stats", "files"]),
    ("stats models", ["stats", "models"]),
    ("stats daily", ["stats", "daily"]),
    ("subagents", ["subagents"]),
    ("workflows", ["workflows"]),
    ("overview", ["overview"]),
]
# Commands scoped to one session or file: their cost must not grow with the number of sessions.
SCALE_COMMANDS = ["thread, largest session", "context, deep message", "trace, deep message",
                  "files, absolute path", "files, suffix"]


def built_subcommands(osearch, env):
    """The subcommand names `osearch --help` lists."""
    r = run([osearch, "--help"], env=env, timeout=30)
    names, in_subs = set(), False
    for line in r.get("stdout", "").splitlines():
        if line.strip().startswith("Subcommands:"):
            in_subs = True
        elif in_subs and line.startswith("  ") and line.strip():
            names.add(line.split()[0])
    return names


# ---------------------------------------------------------------------------------------
# targets

def _json_of(osearch, base, argv, env):
    r = run([osearch, *argv, *base, "--no-refresh", "--format", "json"], env=env, timeout=600)
    if not r.get("ok"):
        raise RuntimeError(f"{' '.join(argv[:2])}: {r.get('error')}")
    return parse_json(r.get("stdout", ""))


def deep_message(osearch, base, env, rng, uuids, probes=8):
    """Of `probes` seeded messages from the last tenth of the big session, the one whose trace chain is longest
    (the chain as the index links it: thread output omits the meta lines a chain passes through)."""
    tail = uuids[len(uuids) - max(1, len(uuids) // 10):]
    best = {}
    for u in sorted(rng.sample(tail, min(probes, len(tail)))):
        j = _json_of(osearch, base, ["trace", u], env) or {}
        m = (j.get("matches") or [{}])[0]
        n = len(m.get("chain") or [])
        if n > best.get("deep_uuid_chain", -1):
            best = {"deep_uuid": u, "deep_uuid_chain": n, "deep_uuid_chain_end": m.get("chain_end")}
    best["deep_uuid_probes"] = min(probes, len(tail))
    return best


def suffix_of(path):
    parts = [p for p in path.replace("\\", "/").split("/") if p]
    return "/".join(parts[-2:]) if len(parts) >= 3 else parts[-1]


def pick_targets(osearch, base, env, seed):
    rng = random.Random(seed)
    t = {"picked_from": "osearch list + thread output (--no-refresh)"}
    sessions = (_json_of(osearch, base, ["list", "--limit", "100000"], env) or {}).get("results") or []
    if not sessions:
        raise RuntimeError("list returned no sessions")
    by_size = sorted(sessions, key=lambda s: (s.get("message_count") or 0, s["session_id"]))
    top = by_size[-1].get("message_count") or 0
    ties = sorted(s["session_id"] for s in by_size if (s.get("message_count") or 0) == top)
    t["big_session"] = rng.choice(ties)
    t["big_session_messages"] = top
    t["big_session_ties"] = len(ties)
    mid = by_size[len(by_size) // 2]
    t["median_session"], t["median_session_messages"] = mid["session_id"], mid.get("message_count")
    t["sessions"] = len(sessions)

    paths, scanned, big_uuids = Counter(), 0, []
    for s in sorted(sessions, key=lambda s: s["session_id"]):
        j = _json_of(osearch, base, ["thread", s["session_id"], "--max-chars", "1"], env) or {}
        msgs = j.get("messages") or []
        scanned += 1
        for m in msgs:
            for tc in m.get("tool_calls") or []:
                if (tc.get("file_path") or "").startswith("/"):
                    paths[tc["file_path"]] += 1
        if s["session_id"] == t["big_session"]:
            big_uuids = [m["uuid"] for m in msgs if m.get("uuid")]
            t["thread_returned"] = len(msgs)
    t["sessions_scanned_for_paths"] = scanned
    t.update(deep_message(osearch, base, env, rng, big_uuids))
    if paths:
        best = max(paths.values())
        t["top_path"] = rng.choice(sorted(p for p, n in paths.items() if n == best))
        t["top_path_tool_calls"] = best
        t["top_suffix"] = suffix_of(t["top_path"])
    return t


# ---------------------------------------------------------------------------------------
# timing

def _argv(template, targets):
    out = []
    for a in template:
        if a.startswith("{") and a.endswith("}"):
            if a[1:-1] not in targets:
                return None
            a = targets[a[1:-1]]
        out.append(a)
    return out


def _stats(runs):
    ok = [r for r in runs if r.get("ok")]
    walls = [r["wall_ms"] for r in ok]
    cpus = [1000 * ((r.get("user_s") or 0) + (r.get("sys_s") or 0)) for r in ok]
    s = {"runs": len(runs), "ok": len(ok), "median_ms": r3(med(walls)), "p99_ms": r3(pct(walls, 99)),
         "min_ms": r3(min(walls)) if walls else None, "walls_ms": walls,
         "cpu_median_ms": r3(med(cpus)), "sys_median_ms": r3(med([1000 * (r.get("sys_s") or 0) for r in ok])),
         "peak_rss_mb": max((r.get("maxrss_mb") or 0) for r in ok) if ok else None}
    errs = [r.get("error") for r in runs if not r.get("ok")]
    if errs:
        s["errors"] = [str(e)[:300] for e in errs[:2]]
    return s


def time_floor(osearch, base, env, runs=RUNS):
    """What every command pays before its own work, measured in the same run: a process that does nothing
    (/bin/true), osearch loading its libraries and parsing arguments (--version), and opening the index
    (`status --no-refresh`); the default path adds the refresh (`index`, a no-op on an unchanged corpus)."""
    cmds = {"/bin/true": ["/bin/true"], "osearch --version": [osearch, "--version"],
            "status --no-refresh": [osearch, "status", *base, "--no-refresh", "--format", "json"],
            "index (no-op refresh)": [osearch, "index", *base, "--format", "json"]}
    for cmd in cmds.values():
        run(cmd, env=env, timeout=600, keep_stdout=False)
    got = interleaved(cmds, env, runs)
    out = {k: _stats(v) for k, v in got.items()}
    for k, v in got.items():
        out[k]["above_version_ms"] = paired_excess(v, got["osearch --version"])
    return out


def time_append_refresh(osearch, base, corpus, env, runs=RUNS):
    """The path an agent's call takes while its own session is being written: one line appended to one
    transcript before each run of `list --limit 1` (its refresh reads that line: the quick check's targeted
    plan). The transcript is cut back to its size afterwards and the index refreshed (a full re-read of it)."""
    paths = sorted(os.path.join(d, f) for d, _, fs in os.walk(corpus) for f in fs if f.endswith(".jsonl"))
    if not paths:
        return {"skipped": "no transcript"}
    path = paths[len(paths) // 2]
    size = os.path.getsize(path)
    with open(path, "rb") as f:
        lines = f.read().splitlines(keepends=True)
    line = next((l for l in reversed(lines) if l.endswith(b"\n")), None)
    if line is None:
        return {"skipped": "no complete line to repeat"}
    cmd = [osearch, "list", "--limit", "1", *base, "--format", "json"]
    got, read = [], []
    try:
        for i in range(runs + 1):
            with open(path, "ab") as f:
                f.write(line)
            r = run(cmd, env=env, timeout=600)
            j = parse_json(r.get("stdout", "")) if r.get("ok") else None
            read.append((j or {}).get("index", {}).get("refreshed_files"))
            if i:  # (the first is the warm-up)
                got.append(r)
    finally:
        os.truncate(path, size)
        run([osearch, "index", *base, "--format", "json"], env=env, timeout=3600, keep_stdout=False)
    return {"argv": cmd[1:4], "transcript_bytes": size, "refreshed_files": sorted(set(x for x in read if x is not None)),
            **_stats(got)}


def interleaved(variants, env, runs=RUNS):
    """Each variant (name -> argv) once per round, `runs` rounds: the machine's drift hits them all alike."""
    got = {name: [] for name in variants}
    for _ in range(runs):
        for name, cmd in variants.items():
            got[name].append(run(cmd, env=env, timeout=600, keep_stdout=False))
    return got


def paired_excess(runs, floor_runs):
    """Median over rounds of (this run's wall - the same round's `osearch --version` wall)."""
    d = [a["wall_ms"] - b["wall_ms"] for a, b in zip(runs, floor_runs) if a.get("ok") and b.get("ok")]
    return r3(statistics.median(d)) if d else None


def time_command(osearch, base, argv, env, runs=RUNS, full_base=None):
    """One warm-up, then `runs` rounds of: the default path, --no-refresh and `osearch --version` (the process
    floor, paired per round). With full_base, the same argv on that index too (the scale check)."""
    cmd = [osearch, *argv, *base, "--format", "json"]
    warm = run(cmd, env=env, timeout=600)
    warm_nr = run([*cmd, "--no-refresh"], env=env, timeout=600)
    variants = {"default": cmd, "no_refresh": [*cmd, "--no-refresh"], "floor": [osearch, "--version"]}
    if full_base:
        fcmd = [osearch, *argv, *full_base, "--format", "json"]
        warm_full = run([*fcmd, "--no-refresh"], env=env, timeout=600)
        run(fcmd, env=env, timeout=600, keep_stdout=False)
        variants.update({"full_default": fcmd, "full_no_refresh": [*fcmd, "--no-refresh"]})
    got = interleaved(variants, env, runs)
    j = parse_json(warm.get("stdout", "")) if warm.get("ok") else None
    e = {"argv": argv, **{k: _stats(v) for k, v in got.items()},
         "default_above_floor_ms": paired_excess(got["default"], got["floor"]),
         "no_refresh_above_floor_ms": paired_excess(got["no_refresh"], got["floor"]),
         "output_bytes": warm.get("stdout_bytes"), "warmup_error": None if warm.get("ok") else warm.get("error")}
    if isinstance(j, dict):
        e["total"], e["returned"], e["engine_took_ms"] = j.get("total"), j.get("returned"), j.get("took_ms")
        jn = parse_json(warm_nr.get("stdout", "")) if warm_nr.get("ok") else None
        e["engine_took_ms_no_refresh"] = jn.get("took_ms") if isinstance(jn, dict) else None
        ms = j.get("matches")
        if isinstance(ms, list) and ms and isinstance(ms[0], dict) and isinstance(ms[0].get("chain"), list):
            e["chain_length"], e["chain_end"] = len(ms[0]["chain"]), ms[0].get("chain_end")
    if full_base:
        jf = parse_json(warm_full.get("stdout", "")) if warm_full.get("ok") else None
        e["full_total"] = jf.get("total") if isinstance(jf, dict) else None
        e["full_output_bytes"] = warm_full.get("stdout_bytes")
        e["full_error"] = None if warm_full.get("ok") else warm_full.get("error")
    return e


# ---------------------------------------------------------------------------------------
# SQLite peers (the messages table of bench/sqlite_fts5_peer.py)

PEER_THREAD = "SELECT uuid, session_id, ts, role, text FROM messages{hint} WHERE session_id = ? ORDER BY ts"
PEER_FILES = "SELECT uuid, session_id, ts, role, text FROM messages WHERE text LIKE ? ESCAPE '\\' ORDER BY ts"


def like_pattern(path):
    return "%" + path.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"


def _sql_literal(v):
    return "'" + str(v).replace("'", "''") + "'"


def peer_measure(db, sql, param, runs=RUNS):
    """In-process (connection open once, rows fetched) and sqlite3 CLI wall (-json output captured)."""
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    rows = con.execute(sql, (param,)).fetchall()  # warm-up
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        con.execute(sql, (param,)).fetchall()
        times.append((time.perf_counter() - t0) * 1000)
    con.close()
    cli_sql = sql.replace("?", _sql_literal(param), 1)
    cli = ["sqlite3", "-readonly", "-json", db, cli_sql]
    run(cli, timeout=600, keep_stdout=False)
    cruns = [run(cli, timeout=600, keep_stdout=False) for _ in range(runs)]
    return {"sql": sql, "param": param, "rows": len(rows),
            "in_process": {"median_ms": r3(statistics.median(times)), "p99_ms": r3(pct(times, 99))},
            "cli": _stats(cruns), "cli_output_bytes": cruns[-1].get("stdout_bytes") if cruns else None}


def peer_steps(db, targets):
    if not db or not os.path.exists(db):
        return {"skipped": "no SQLite peer db (run without --skip-sqlite)"}
    # Obelisk keeps an index for its timeline; the FTS5 peer's build has none, so add one and time both plans.
    con = sqlite3.connect(db)
    t0 = time.perf_counter()
    con.execute("CREATE INDEX IF NOT EXISTS messages_session_ts ON messages(session_id, ts)")
    con.commit()
    con.close()
    out = {"session_index_build_ms": r3((time.perf_counter() - t0) * 1000)}
    for key, sid in (("thread_big", targets.get("big_session")), ("thread_median", targets.get("median_session"))):
        if sid:
            out[key] = peer_measure(db, PEER_THREAD.format(hint=""), sid)
            out[key + "_no_index"] = peer_measure(db, PEER_THREAD.format(hint=" NOT INDEXED"), sid)
    for key in ("top_path", "top_suffix"):
        if targets.get(key):
            out["files_" + key] = peer_measure(db, PEER_FILES, like_pattern(targets[key]))
    return out


# ---------------------------------------------------------------------------------------
# the step

def ensure_index(osearch, idx, src, env, log):
    if os.path.isdir(idx) and os.listdir(idx):
        # Brought current first: an index written by another schema is rebuilt by a plain run.
        r = run([osearch, "index", "--index", idx, *src, "--format", "json"], env=env, timeout=7200)
        if not r.get("ok"):
            raise RuntimeError(f"index (reused dir) failed: {r.get('error')}")
        return {"reused": True, "refresh_wall_ms": r["wall_ms"]}
    log(f"commands: building {idx}")
    r = run([osearch, "index", "--full", "--index", idx, *src, "--format", "json"], env=env, timeout=7200)
    if not r.get("ok"):
        raise RuntimeError(f"index --full failed: {r.get('error')}")
    return {"reused": False, "wall_ms": r["wall_ms"], "summary": parse_json(r.get("stdout", ""))}


def commands_step(args, osearch, env, log, corpus, idx, db, small=None):
    """small: (corpus, idx) of the quarter-size corpus for the scale check, or None."""
    base = ["--index", idx, "--source", f"claude={corpus}"]
    runs = 7 if args.quick else RUNS
    res = {"index": ensure_index(osearch, idx, base[2:], env, log), "runs_per_mode": runs}
    built = built_subcommands(osearch, env)
    res["built_subcommands"] = sorted(built)
    res["floor"] = time_floor(osearch, base, env, runs)
    log("commands: list after an append (targeted refresh) ...")
    res["append_refresh"] = time_append_refresh(osearch, base, corpus, env, runs)
    log("commands: picking targets ...")
    targets = pick_targets(osearch, base, env, args.seed)
    res["targets"] = targets
    rows = []
    for name, template in COMMANDS:
        row = {"name": name}
        argv = _argv(template, targets)
        if template[0] not in built:
            row["skipped"] = "not built"
        elif argv is None:
            row["skipped"] = "no target in this corpus"
        else:
            log(f"commands: {name}")
            row.update(time_command(osearch, base, argv, env, runs))
        rows.append(row)
    res["commands"] = rows
    log("commands: SQLite peers ...")
    try:
        res["peers"] = peer_steps(db, targets)
    except Exception as e:  # noqa: BLE001 - a failing peer must not lose the osearch figures
        res["peers"] = {"error": f"{type(e).__name__}: {e}"}
    res["peers"]["stats_ccusage"] = ccusage_peer(osearch, base, env, args)
    if small:
        res["scale"] = scale_check(args, osearch, env, log, small, base, built, runs)
    return res


def find_ccusage():
    """ccusage 20.0.24 (npm): $OSEARCH_CCUSAGE, else on PATH, else the copy bench/ccusage_compare.py's notes use."""
    for c in (os.environ.get("OSEARCH_CCUSAGE"), shutil.which("ccusage"), "/tmp/ccu/node_modules/.bin/ccusage"):
        if c and os.path.exists(c):
            return c
    return None


def ccusage_peer(osearch, base, env, args, runs=5):
    """Per-session token totals of the whole corpus: `ccusage claude session --json --offline -z UTC` (it reads
    every transcript on each call) against `osearch stats tokens --by session` on the default path, both CLI wall.
    The corpus is the Claude line's projects tree; ccusage finds it as <CLAUDE_CONFIG_DIR>/projects."""
    ccusage = find_ccusage()
    if not ccusage:
        return {"skipped": "ccusage not installed (npm install -g ccusage@20.0.24, or set OSEARCH_CCUSAGE)"}
    corpus = next((b.split("=", 1)[1] for b in base if b.startswith("claude=")), None)
    if not corpus:
        return {"skipped": "no claude source in this line"}
    with tempfile.TemporaryDirectory(prefix="ccusage-") as cfg:
        os.symlink(os.path.abspath(corpus), os.path.join(cfg, "projects"))
        cenv = dict(env or os.environ, CLAUDE_CONFIG_DIR=cfg)
        cmd = [ccusage, "claude", "session", "--json", "--offline", "-z", "UTC"]
        warm = run(cmd, env=cenv, timeout=1800)
        if not warm.get("ok"):
            return {"error": warm.get("error")}
        ours = [osearch, "stats", "tokens", "--by", "session", "--limit", "100000", *base, "--format", "json"]
        their_runs, our_runs = [], []
        for _ in range(runs):  # interleaved, so both see the same machine
            their_runs.append(run(cmd, env=cenv, timeout=1800, keep_stdout=False))
            our_runs.append(run(ours, env=env, timeout=600, keep_stdout=False))
        theirs, mine = _stats(their_runs), _stats(our_runs)
        out = {"ccusage": theirs, "osearch_stats_tokens_by_session": mine, "runs": runs,
               "ccusage_cmd": " ".join(cmd[1:])}
        if theirs.get("median_ms") and mine.get("median_ms"):
            out["ratio_ccusage_over_osearch"] = round(theirs["median_ms"] / mine["median_ms"], 1)
        return out


def scale_check(args, osearch, env, log, small, big_base, built, runs):
    """The session/file-scoped commands with the same argv on both corpora, interleaved: targets picked (same
    rules) in the quarter-size corpus, whose rounds the full corpus repeats with the same ids (project paths are
    assigned per corpus, so a path's hits differ: both totals are reported)."""
    corpus, idx = small
    base = ["--index", idx, "--source", f"claude={corpus}"]
    out = {"corpus": corpus, "index": ensure_index(osearch, idx, base[2:], env, log)}
    st = _json_of(osearch, base, ["status"], env) or {}
    out["sessions"], out["messages"] = st.get("sessions"), st.get("messages")
    out["targets"] = pick_targets(osearch, base, env, args.seed)
    rows = []
    for name, template in COMMANDS:
        if name not in SCALE_COMMANDS or template[0] not in built:
            continue
        argv = _argv(template, out["targets"])
        if argv is None:
            rows.append({"name": name, "skipped": "no target"})
            continue
        log(f"commands (scale): {name}")
        rows.append({"name": name, **time_command(osearch, base, argv, env, runs, full_base=big_base)})
    out["commands"] = rows
    return out


# ---------------------------------------------------------------------------------------
# entry point from run_bench.py

def small_paths(args):
    mb = args.corpus_mb / 4
    return mb, os.path.join(args.out, f"index-{mb:g}mb")


def commands_line(args, osearch, env, log, corpus, idx):
    """The `commands` step: corpus of --corpus-mb (given) and one a quarter the size (same seed) for the scale
    check; the SQLite peer db OUT/fts5-<N>mb.sqlite (built here when missing, unless --skip-sqlite)."""
    import argparse
    import sys
    from bench_corpus import ensure_corpus

    db = os.path.join(args.out, f"fts5-{args.corpus_mb:g}mb.sqlite")
    built_peer = None
    if not args.skip_sqlite and not os.path.exists(db):
        log("commands: building the SQLite peer db")
        here = os.path.dirname(os.path.abspath(__file__))
        b = run([sys.executable, os.path.join(here, "sqlite_fts5_peer.py"), "--corpus", corpus, "--db", db, "build"],
                timeout=7200)
        built_peer = parse_json(b.get("stdout", "")) if b.get("ok") else {"error": b.get("error")}
    small_mb, small_idx = small_paths(args)
    small_args = argparse.Namespace(**{**vars(args), "corpus_mb": small_mb})
    small_corpus, small_stamp = ensure_corpus(small_args, log)
    res = commands_step(args, osearch, env, log, corpus, idx, None if args.skip_sqlite else db,
                        small=(small_corpus, small_idx))
    res["scale"]["corpus_stamp"] = small_stamp
    if built_peer is not None:
        res["peer_build"] = built_peer
    return res


def commands_cleanup(args):
    import shutil
    shutil.rmtree(small_paths(args)[1], ignore_errors=True)
