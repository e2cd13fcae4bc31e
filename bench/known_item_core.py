"""Query generation, the SQLite FTS5 baseline and scoring of the known-item benchmark.

Queries (simulated known-item queries, Azzopardi, de Rijke & Balog, SIGIR 2007):
  * words: re.findall(r"\\w+") over a unit's text, each stripped of leading/trailing '_';
    words under 2 characters, pure digit strings and the query operators OR, AND, NOT are
    dropped (\\w never holds '-' or ':', so no word starts with '-' or holds a field prefix);
  * a word's key is its casefold with diacritics removed (NFKD, combining marks dropped): two
    spellings that differ in case or accents are one word;
  * document frequency (df) = number of sessions whose units hold the word's key;
  * a word is a candidate when lo <= df <= hi with lo = max(2, ceil(2% of sessions)) and
    hi = max(lo, floor(5% of sessions)): on a corpus of under 100 sessions the band is 2 sessions;
  * per kind, units are visited in a seeded random order; each draws k (uniform in 2..4) and takes
    k distinct candidate keys of the unit at random, or is skipped when it has fewer; a unit whose
    text was already used is skipped; visiting stops at --per-kind queries;
  * the query is the words as the text spells them at their first appearance, in text order;
  * targets = every session holding a unit (of any kind) with exactly that text.
"""

import math
import random
import re
import sqlite3
import statistics
import unicodedata
from collections import defaultdict

WORD_RE = re.compile(r"\w+")
OPERATORS = frozenset({"OR", "AND", "NOT"})
KINDS = ("user_prompt", "assistant_text", "thinking", "tool_input", "tool_output", "summary")


def fold(word):
    """Case- and diacritics-insensitive key of a word."""
    nfkd = unicodedata.normalize("NFKD", word.casefold())
    return "".join(c for c in nfkd if not unicodedata.combining(c))


def words(text, dropped=None):
    """(word as written, key) pairs of a text, in order; `dropped` counts why words were left out."""
    out = []
    for raw in WORD_RE.findall(text):
        w = raw.strip("_")
        if len(w) < 2:
            continue
        if w.isdigit():
            continue
        if w in OPERATORS:
            if dropped is not None:
                dropped["operator"] = dropped.get("operator", 0) + 1
            continue
        out.append((w, fold(w)))
    return out


def df_band(n_sessions, lo_frac=0.02, hi_frac=0.05, floor=2):
    lo = max(floor, math.ceil(lo_frac * n_sessions))
    hi = max(lo, math.floor(hi_frac * n_sessions))
    return lo, hi


def session_df(units, dropped=None):
    """key -> number of sessions holding it. units: (agent, session_id, kind, text)."""
    per = defaultdict(set)
    for agent, sid, _, text in units:
        per[(agent, sid)].update(k for _, k in words(text, dropped))
    df = defaultdict(int)
    for keys in per.values():
        for k in keys:
            df[k] += 1
    return df, len(per)


def generate(units, seed=1, per_kind=120, kinds=KINDS):
    """Queries: dicts {id, kind, words, query, targets, text}. Deterministic for (units, seed)."""
    dropped = {}
    df, n_sessions = session_df(units, dropped)
    lo, hi = df_band(n_sessions)
    holders = defaultdict(set)
    for agent, sid, _, text in units:
        holders[text].add((agent, sid))
    by_kind = defaultdict(list)
    for u in units:
        by_kind[u[2]].append(u)
    queries, used = [], set()
    for ki, kind in enumerate(kinds):
        rng = random.Random(seed * 1009 + ki)
        pool = sorted(by_kind.get(kind, []), key=lambda u: (u[0], u[1], u[3]))
        order = list(range(len(pool)))
        rng.shuffle(order)
        made = 0
        for i in order:
            if made >= per_kind:
                break
            agent, sid, _, text = pool[i]
            k = rng.randint(2, 4)
            if text in used:
                continue
            first = {}
            for w, key in words(text):
                if lo <= df.get(key, 0) <= hi and key not in first:
                    first[key] = (len(first), w)
            if len(first) < k:
                continue
            used.add(text)
            keys = sorted(first, key=lambda key: first[key][0])
            picked = sorted(rng.sample(keys, k), key=lambda key: first[key][0])
            ws = [first[key][1] for key in picked]
            queries.append({"id": len(queries), "kind": kind, "words": ws, "query": " ".join(ws),
                            "source": [agent, sid], "targets": sorted([a, s] for a, s in holders[text]),
                            "text": text})
            made += 1
    meta = {"sessions": n_sessions, "df_lo": lo, "df_hi": hi, "units": len(units),
            "words_dropped": dropped, "seed": seed, "per_kind": per_kind}
    return queries, meta


# ---------------------------------------------------------------------------------------
# SQLite FTS5 baseline: one row per unit, unicode61 (diacritics removed), bm25, best message per session

class Fts5Baseline:
    def __init__(self, units, path=":memory:"):
        self.db = sqlite3.connect(path)
        self.db.execute("CREATE VIRTUAL TABLE u USING fts5(text, tokenize='unicode61')")
        self.sessions = []
        index = {}
        rows = []
        for agent, sid, _, text in units:
            key = (agent, sid)
            if key not in index:
                index[key] = len(self.sessions)
                self.sessions.append(key)
            rows.append((index[key], text))
        self.db.execute("CREATE TABLE s(rowid INTEGER PRIMARY KEY, sess INTEGER)")
        with self.db:
            for i, (s, text) in enumerate(rows, 1):
                self.db.execute("INSERT INTO u(rowid, text) VALUES (?, ?)", (i, text))
                self.db.execute("INSERT INTO s(rowid, sess) VALUES (?, ?)", (i, s))

    @staticmethod
    def match_expr(ws):
        return " ".join('"' + w.replace('"', '""') + '"' for w in ws)

    def search(self, ws, limit=10):
        """Sessions ranked by their best unit: [(agent, session_id)], at most `limit`."""
        cur = self.db.execute("SELECT s.sess FROM u JOIN s ON s.rowid = u.rowid WHERE u MATCH ? "
                              "ORDER BY bm25(u), u.rowid", (self.match_expr(ws),))
        out, seen = [], set()
        for (s,) in cur:
            if s not in seen:
                seen.add(s)
                out.append(self.sessions[s])
                if len(out) >= limit:
                    break
        return out

    def best_unit(self, ws, session):
        """The session's best unit for ws: {bm25, chars, tf} (tf: occurrences of each word), or None."""
        try:
            s = self.sessions.index(tuple(session))
        except ValueError:
            return None
        row = self.db.execute("SELECT bm25(u), u.text FROM u JOIN s ON s.rowid = u.rowid WHERE u MATCH ? AND s.sess = ? "
                              "ORDER BY bm25(u), u.rowid LIMIT 1", (self.match_expr(ws), s)).fetchone()
        if not row:
            return None
        keys = [k for _, k in words(row[1])]
        return {"bm25": round(row[0], 3), "chars": len(row[1]), "words": len(keys),
                "tf": [keys.count(fold(w)) for w in ws]}


# ---------------------------------------------------------------------------------------
# scoring

def first_rank(hits, targets):
    """1-based rank of the first target among hits, or None."""
    tset = {tuple(t) for t in targets}
    for i, h in enumerate(hits, 1):
        if tuple(h) in tset:
            return i
    return None


def score(ranks):
    """recall@1, recall@5 and MRR@10 of a list of ranks (None = not found in the top 10)."""
    n = len(ranks)
    if not n:
        return {"queries": 0, "recall@1": None, "recall@5": None, "mrr@10": None}
    return {"queries": n,
            "recall@1": round(sum(1 for r in ranks if r == 1) / n, 4),
            "recall@5": round(sum(1 for r in ranks if r is not None and r <= 5) / n, 4),
            "mrr@10": round(sum(1.0 / r for r in ranks if r is not None and r <= 10) / n, 4)}


def score_by_kind(rows, field):
    """rows: query dicts holding `kind` and a rank under `field`. Per kind and overall."""
    out = {}
    for kind in KINDS:
        mine = [r[field] for r in rows if r["kind"] == kind]
        if mine:
            out[kind] = score(mine)
    out["overall"] = score([r[field] for r in rows])
    return out


def latency(values):
    v = sorted(x for x in values if x is not None)
    if not v:
        return {"n": 0, "median_ms": None, "p95_ms": None}
    p95 = v[min(len(v) - 1, max(0, math.ceil(0.95 * len(v)) - 1))]
    return {"n": len(v), "median_ms": round(statistics.median(v), 3), "p95_ms": round(p95, 3),
            "max_ms": round(v[-1], 3)}
