#!/usr/bin/env python3
"""SQLite FTS5 baseline shaped like the Obelisk peer (see ../shared/notes/obelisk.md §2d, §2j).

    python3 bench/sqlite_fts5_peer.py --corpus DIR --db FILE build
    python3 bench/sqlite_fts5_peer.py --corpus DIR --db FILE query WORD...
    python3 bench/sqlite_fts5_peer.py --db FILE query-many --queries FILE [--repeat N]

Schema: messages(uuid, session_id, ts, role, text) plus an FTS5 external-content table
messages_fts(uuid UNINDEXED, session_id UNINDEXED, text) with the unicode61 tokenizer.
Every `user`/`assistant` line that has a uuid becomes a row; `text` is the string content,
or the `text` of text blocks and the `thinking` of thinking blocks joined with "\\n", cut at
10,000 characters (NULL when there is none).  The whole build is one transaction.

Output is JSON: build -> {seconds, messages, db_bytes, ...}; query -> {ms, hits};
query-many -> {n, median_ms, p99_ms, ...} (in-process timings, connection opened once).
"""

import argparse
import json
import os
import sqlite3
import statistics
import sys
import time

MAX_TEXT = 10_000

SCHEMA = """
CREATE TABLE messages(
  rowid INTEGER PRIMARY KEY,
  uuid TEXT NOT NULL UNIQUE,
  session_id TEXT,
  ts TEXT,
  role TEXT,
  text TEXT
);
CREATE VIRTUAL TABLE messages_fts USING fts5(
  uuid UNINDEXED, session_id UNINDEXED, text,
  content='messages', content_rowid='rowid', tokenize='unicode61'
);
"""

UPSERT = """
INSERT INTO messages(uuid, session_id, ts, role, text) VALUES (?, ?, ?, ?, ?)
ON CONFLICT(uuid) DO UPDATE SET session_id=excluded.session_id, ts=excluded.ts,
  role=excluded.role, text=excluded.text
"""

SEARCH = """
SELECT m.uuid, m.session_id, m.ts, m.role, bm25(messages_fts) AS score,
       snippet(messages_fts, 2, '', '', '…', 24) AS snippet
FROM messages_fts JOIN messages m ON m.rowid = messages_fts.rowid
WHERE messages_fts MATCH ? ORDER BY rank LIMIT ?
"""


def extract_text(content):
    if isinstance(content, str):
        return content[:MAX_TEXT]
    if isinstance(content, list):
        parts = []
        for b in content:
            if not isinstance(b, dict):
                continue
            t = b.get("type")
            if t == "text" and isinstance(b.get("text"), str):
                parts.append(b["text"])
            elif t == "thinking" and isinstance(b.get("thinking"), str):
                parts.append(b["thinking"])
        if parts:
            return "\n".join(parts)[:MAX_TEXT]
    return None


def iter_units(corpus):
    """Yield (path, session_id or None) for every transcript file (None: use the line's sessionId)."""
    for project in sorted(os.listdir(corpus)):
        pdir = os.path.join(corpus, project)
        if not os.path.isdir(pdir):
            continue
        for dp, dns, fns in os.walk(pdir):
            dns.sort()
            rel = os.path.relpath(dp, pdir).split(os.sep)
            for fn in sorted(fns):
                if not fn.endswith(".jsonl"):
                    continue
                path = os.path.join(dp, fn)
                if rel == ["."]:
                    yield path, (None if fn.startswith("agent-") else fn[:-6])
                elif len(rel) >= 2 and rel[1] == "subagents":
                    yield path, rel[0]
                else:
                    yield path, None


def parse_objects(line):
    try:
        yield json.loads(line)
        return
    except ValueError:
        pass
    parts = line.split('}{"type":')
    if len(parts) < 2:
        return
    pieces = [parts[0] + "}"] + ['{"type":' + p + "}" for p in parts[1:-1]] + ['{"type":' + parts[-1]]
    for p in pieces:
        try:
            yield json.loads(p)
        except ValueError:
            pass


def rows(corpus, stats):
    for path, sid in iter_units(corpus):
        stats["files"] += 1
        with open(path, "rb") as fh:
            for raw in fh:
                if not raw.strip():
                    continue
                # cheap pre-filter, as a line without these markers can never be a message row
                if b'"user"' not in raw and b'"assistant"' not in raw:
                    continue
                line = raw.decode("utf-8", "replace")
                for obj in parse_objects(line):
                    if not isinstance(obj, dict) or obj.get("type") not in ("user", "assistant"):
                        continue
                    uuid = obj.get("uuid")
                    if not uuid:
                        continue
                    msg = obj.get("message") if isinstance(obj.get("message"), dict) else {}
                    yield (uuid, sid or obj.get("sessionId"), obj.get("timestamp"),
                           msg.get("role") or obj.get("type"), extract_text(msg.get("content")))


def build(corpus, db):
    t0 = time.perf_counter()
    for suffix in ("", "-wal", "-shm"):
        if os.path.exists(db + suffix):
            os.remove(db + suffix)
    con = sqlite3.connect(db, isolation_level=None)
    con.execute("PRAGMA journal_mode=WAL")
    con.execute("PRAGMA synchronous=NORMAL")
    con.executescript(SCHEMA)
    stats = {"files": 0}
    con.execute("BEGIN IMMEDIATE")
    con.executemany(UPSERT, rows(corpus, stats))
    t_insert = time.perf_counter() - t0
    con.execute("INSERT INTO messages_fts(messages_fts) VALUES('rebuild')")
    con.execute("COMMIT")
    con.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    n = con.execute("SELECT count(*) FROM messages").fetchone()[0]
    con.close()
    secs = time.perf_counter() - t0
    size = sum(os.path.getsize(db + s) for s in ("", "-wal", "-shm") if os.path.exists(db + s))
    return {"seconds": round(secs, 3), "insert_seconds": round(t_insert, 3),
            "fts_rebuild_seconds": round(secs - t_insert, 3), "messages": n,
            "files": stats["files"], "db_bytes": size}


def fts_query(words):
    """Words -> FTS5 query: each word double-quoted, implicitly ANDed."""
    return " ".join('"' + w.replace('"', '""') + '"' for w in words if w)


class Searcher:
    def __init__(self, db):
        self.con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)

    def search(self, words, limit=20):
        cur = self.con.execute(SEARCH, (fts_query(words), limit))
        return [{"uuid": u, "session_id": s, "time": ts, "role": r, "score": sc, "snippet": sn}
                for u, s, ts, r, sc, sn in cur.fetchall()]


def pct(values, p):
    v = sorted(values)
    if not v:
        return None
    k = min(len(v) - 1, max(0, int(round(p / 100.0 * len(v) + 0.5)) - 1))
    return v[k]


def query_many(db, queries, repeat=1, limit=20):
    s = Searcher(db)
    times, hits = [], []
    for _ in range(repeat):
        for q in queries:
            t0 = time.perf_counter()
            res = s.search(q, limit)
            times.append((time.perf_counter() - t0) * 1000)
            hits.append(len(res))
    return {"n": len(times), "median_ms": round(statistics.median(times), 3) if times else None,
            "p99_ms": round(pct(times, 99), 3) if times else None,
            "mean_ms": round(statistics.fmean(times), 3) if times else None,
            "max_ms": round(max(times), 3) if times else None,
            "zero_hit_queries": sum(1 for h in hits if h == 0), "times_ms": [round(t, 3) for t in times]}


def main():
    ap = argparse.ArgumentParser(description="SQLite FTS5 (Obelisk-shaped) baseline")
    ap.add_argument("--corpus", help="Claude projects dir (for build)")
    ap.add_argument("--db", required=True)
    sub = ap.add_subparsers(dest="cmd", required=True)
    sub.add_parser("build")
    q = sub.add_parser("query")
    q.add_argument("words", nargs="+")
    q.add_argument("--limit", type=int, default=20)
    qm = sub.add_parser("query-many")
    qm.add_argument("--queries", required=True, help="file with one query (space separated words) per line")
    qm.add_argument("--repeat", type=int, default=1)
    qm.add_argument("--limit", type=int, default=20)
    a = ap.parse_args()
    if a.cmd == "build":
        if not a.corpus:
            ap.error("build needs --corpus")
        print(json.dumps(build(a.corpus, a.db)))
    elif a.cmd == "query":
        t0 = time.perf_counter()
        hits = Searcher(a.db).search(a.words, a.limit)
        print(json.dumps({"ms": round((time.perf_counter() - t0) * 1000, 3), "hits": hits},
                         ensure_ascii=False))
    else:
        with open(a.queries, encoding="utf-8") as fh:
            queries = [l.split() for l in fh if l.strip()]
        print(json.dumps(query_many(a.db, queries, a.repeat, a.limit)))


if __name__ == "__main__":
    sys.exit(main())
