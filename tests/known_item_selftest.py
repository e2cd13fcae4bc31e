#!/usr/bin/env python3
"""Self-test of the known-item benchmark (bench/known_item*.py) on a tiny hand-written corpus.

    python3 tests/known_item_selftest.py [--osearch BUILD/osearch]

Checks that extraction gives each text its kind and session, that query generation keeps to the
document-frequency band and is deterministic for a seed, that the FTS5 baseline ranks a known
session first, that the respelled variant rewrites words as specified (lower case, no accents, camel
pieces within the df band) deterministically, and that recall@k / MRR@10 are right on fixed rankings. With --osearch (ctest passes
the build's binary) it also runs the whole benchmark on the tiny corpus. Needs nothing from ../shared.
"""

import io
import json
import os
import sys
import tempfile
import unittest
from contextlib import redirect_stderr, redirect_stdout

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "bench"))
import known_item_core as core  # noqa: E402
import known_item_extract as ex  # noqa: E402
import known_item_respell as rs  # noqa: E402

OSEARCH = None
SA = "aaaaaaaa-0000-4000-8000-000000000001"
SB = "bbbbbbbb-0000-4000-8000-000000000002"
PI_ID = "019e19b4-eb48-746a-aa6b-8dfcfa37954b"


def cl(typ, content, sid=SA, n=[0], **extra):  # noqa: B006 - a counter for distinct uuids
    n[0] += 1
    role = "assistant" if typ == "assistant" else "user"
    obj = {"type": typ, "sessionId": sid, "uuid": f"00000000-0000-4000-8000-{n[0]:012d}",
           "timestamp": f"2026-01-01T00:00:{n[0] % 60:02d}.000Z", "message": {"role": role, "content": content}}
    obj.update(extra)
    return json.dumps(obj)


def write(path, lines):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as fh:
        fh.write("\n".join(lines) + "\n")


def make_corpus(root):
    proj = os.path.join(root, "claude", "-tmp-proj")
    write(os.path.join(proj, SA + ".jsonl"), [
        cl("user", "<local-command-caveat>Caveat: The messages below were generated</local-command-caveat>", isMeta=True),
        cl("user", "<command-name>/plan</command-name>\n<command-message>plan</command-message>\n"
                   "<command-args>refactor the zebra parser</command-args>"),
        cl("user", "<local-command-stdout>done</local-command-stdout>"),
        cl("user", "Please fix the flamingo widget in getZebraBadge"),
        cl("assistant", [{"type": "thinking", "thinking": "thinking about the flamingo", "signature": "x"}]),
        cl("assistant", [{"type": "text", "text": "First part"}, {"type": "text", "text": "Second part"}]),
        cl("assistant", [{"type": "tool_use", "id": "toolu_1", "name": "Bash",
                          "input": {"command": "ls -la", "description": "list files", "timeout": 5}}]),
        cl("user", [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "total 42 ocelot files"}]),
        cl("user", "This session is being continued from a previous conversation. pelican summary",
           isCompactSummary=True),
        cl("user", "<system-reminder>noise</system-reminder>"),
        cl("user", "skill body text", isMeta=True),
        cl("user", "glued first prompt") + cl("user", "glued second prompt"),
    ])
    write(os.path.join(proj, SA, "subagents", "agent-a1b2c3.jsonl"),
          [cl("assistant", [{"type": "text", "text": "subagent walrus reply"}], isSidechain=True)])
    write(os.path.join(proj, "agent-0123abcd.jsonl"),
          [cl("user", "Warmup", sid=SB, isSidechain=True), cl("assistant", [{"type": "text", "text": "old agent heron"}], sid=SB)])
    pi = os.path.join(root, "pi", "--tmp-proj--", f"2026-05-12T01-02-27-657Z_{PI_ID}.jsonl")
    write(pi, [json.dumps(x) for x in (
        {"type": "session", "version": 3, "id": PI_ID, "timestamp": "2026-05-12T01:02:27.657Z", "cwd": "/tmp/proj"},
        {"type": "model_change", "id": "a1", "parentId": None, "timestamp": "2026-05-12T01:02:28Z",
         "provider": "x", "modelId": "y"},
        {"type": "message", "id": "a2", "parentId": "a1", "timestamp": "2026-05-12T01:02:29Z",
         "message": {"role": "user", "content": [{"type": "text", "text": "pi user asks about zebra flamingo widget parser otters getZebraBadge"}], "timestamp": 1}},
        {"type": "message", "id": "a3", "parentId": "a2", "timestamp": "2026-05-12T01:02:30Z",
         "message": {"role": "assistant", "content": [
             {"type": "thinking", "thinking": "pi ponders otters"}, {"type": "text", "text": "pi answers zebra flamingo widget parser"},
             {"type": "toolCall", "id": "c1", "name": "read", "arguments": {"path": "/tmp/otter.txt"}}]}},
        {"type": "message", "id": "a4", "parentId": "a3", "timestamp": "2026-05-12T01:02:31Z",
         "message": {"role": "toolResult", "toolCallId": "c1", "toolName": "read",
                     "content": [{"type": "text", "text": "otter file body"}], "isError": False}},
        {"type": "compaction", "id": "a5", "parentId": "a4", "timestamp": "2026-05-12T01:02:32Z",
         "summary": "pi compaction about otters", "firstKeptEntryId": "a4", "tokensBefore": 10},
    )])
    return {"claude": os.path.join(root, "claude"), "pi": os.path.join(root, "pi")}


class Extraction(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        cls.roots = make_corpus(cls.tmp.name)
        cls.units, cls.stats = ex.extract([("claude", cls.roots["claude"]), ("pi", cls.roots["pi"])])

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def kinds_of(self, agent, sid):
        return [(k, t) for a, s, k, t in self.units if (a, s) == (agent, sid)]

    def test_claude_kinds(self):
        got = self.kinds_of("claude", SA)
        self.assertEqual(got, [
            ("assistant_text", "subagent walrus reply"),  # the subagent file belongs to its parent session
            ("user_prompt", "refactor the zebra parser"),
            ("user_prompt", "Please fix the flamingo widget in getZebraBadge"),
            ("thinking", "thinking about the flamingo"),
            ("assistant_text", "First part\nSecond part"),
            ("tool_input", "ls -la\nlist files"),
            ("tool_output", "total 42 ocelot files"),
            ("summary", "This session is being continued from a previous conversation. pelican summary"),
            ("user_prompt", "glued first prompt"),
            ("user_prompt", "glued second prompt"),
        ])

    def test_flat_agent_file_takes_the_session_its_lines_name(self):
        self.assertEqual(self.kinds_of("claude", SB), [("user_prompt", "Warmup"), ("assistant_text", "old agent heron")])

    def test_pi_kinds(self):
        self.assertEqual(self.kinds_of("pi", PI_ID), [
            ("user_prompt", "pi user asks about zebra flamingo widget parser otters getZebraBadge"), ("assistant_text", "pi answers zebra flamingo widget parser"),
            ("thinking", "pi ponders otters"), ("tool_input", "/tmp/otter.txt"),
            ("tool_output", "otter file body"), ("summary", "pi compaction about otters")])

    def test_nothing_else(self):
        self.assertEqual({(a, s) for a, s, _, _ in self.units}, {("claude", SA), ("claude", SB), ("pi", PI_ID)})


def synthetic_units():
    """40 sessions: words of df 1 (solo), 2 (pair), 3 (trio) and 40 (everywhere); one text in two sessions."""
    units = []
    for i in range(40):
        sid = f"s{i:02d}"
        pair, trio = i // 2, i // 3
        words = [f"Common{0}", f"pairA{pair}", f"solo{i}", f"trioB{trio}", f"pairC{pair}", f"pairD{pair}",
                 "42", "OR", "x", f"_pairE{pair}_"]
        if i in (4, 5):
            words.append("Élan" if i == 4 else "elan")  # one word under case and accent folding: df 2
        units.append(("claude", sid, "assistant_text", " ".join(words)))
        units.append(("claude", sid, "tool_output", f"output solo{i}"))
    units.append(("omp", "s00", "user_prompt", "shared prompt pairA0 pairC0 pairD0"))
    units.append(("pi", "s00", "user_prompt", "shared prompt pairA0 pairC0 pairD0"))
    return units


class Generation(unittest.TestCase):
    def test_band_and_floor(self):
        self.assertEqual(core.df_band(40), (2, 2))
        self.assertEqual(core.df_band(140), (3, 7))
        self.assertEqual(core.df_band(1000), (20, 50))

    def test_words(self):
        self.assertEqual([w for w, _ in core.words("a _foo_ 42 OR bar-baz Élan x1")], ["foo", "bar", "baz", "Élan", "x1"])
        self.assertEqual(core.fold("Élan"), "elan")
        self.assertEqual(core.fold("ПРИВЕТ"), "привет")

    def test_queries_respect_the_band(self):
        units = synthetic_units()
        qs, meta = core.generate(units, seed=7, per_kind=50)
        df, n = core.session_df(units)
        self.assertEqual(n, 42)
        self.assertTrue(qs)
        self.assertEqual(meta["words_dropped"].get("operator"), 40)
        for q in qs:
            self.assertTrue(2 <= len(q["words"]) <= 4)
            pos = [q["text"].index(w) for w in q["words"]]
            self.assertEqual(pos, sorted(pos), "words in text order, as written")
            for w in q["words"]:
                self.assertTrue(meta["df_lo"] <= df[core.fold(w)] <= meta["df_hi"], w)
        self.assertEqual({q["kind"] for q in qs}, {"assistant_text", "user_prompt"})
        shared = [q for q in qs if q["kind"] == "user_prompt"]
        self.assertEqual(len(shared), 1, "a duplicated text is one query")
        self.assertEqual(shared[0]["targets"], [["omp", "s00"], ["pi", "s00"]])

    def test_deterministic_for_a_seed(self):
        units = synthetic_units()
        a, _ = core.generate(units, seed=3, per_kind=10)
        b, _ = core.generate(list(reversed(units)), seed=3, per_kind=10)
        c, _ = core.generate(units, seed=4, per_kind=10)
        self.assertEqual([q["query"] for q in a], [q["query"] for q in b])
        self.assertNotEqual([q["query"] for q in a], [q["query"] for q in c])


def camel_units():
    """synthetic_units plus, per pair of sessions, the identifier fetch<Tag>Record (Tag: Qa, Qb, …) whose
    pieces fetch and Record are in every session and Tag, fetchTag, TagRecord in two; getWidget and
    setWidget in two sessions each, their pieces in all."""
    units = synthetic_units()
    for i in range(40):
        tag = "Q" + chr(ord("a") + i // 2)
        extra = {0: "getWidget", 1: "getWidget", 2: "setWidget", 3: "setWidget"}.get(i, "")  # pieces in every session
        units.append(("claude", f"s{i:02d}", "tool_input",
                      f"fetch{tag}Record pairA{i // 2} pairC{i // 2} solo{i} get set Widget {extra}"))
    return units


class Respelling(unittest.TestCase):
    def test_typed(self):
        self.assertEqual(rs.typed("ÉCOLE"), "ecole")
        self.assertEqual(rs.typed("Привет"), "привет")
        self.assertEqual(rs.typed("Ёлка"), "елка")
        self.assertEqual(rs.typed("naïve"), "naive")
        self.assertEqual(rs.typed("ﬁle"), "file")  # compatibility forms
        self.assertEqual(rs.typed("が한국"), "が한국")  # kana voicing and Hangul syllables are letters, kept

    def test_pieces(self):
        self.assertEqual(rs.camel_pieces("getFileTypeBadge"), ["get", "File", "Type", "Badge"])
        self.assertEqual(rs.camel_pieces("HTTPServerError"), ["HTTP", "Server", "Error"])
        self.assertEqual(rs.camel_pieces("utf8Decode"), ["utf8", "Decode"])
        runs = rs.piece_runs("getFileTypeBadge")
        self.assertIn("Badge", runs)
        self.assertIn("FileType", runs)
        self.assertNotIn("getFileTypeBadge", runs)
        self.assertNotIn("FileBadge", runs, "pieces are adjacent")
        self.assertEqual(rs.piece_runs("process_nested_tar"), [], "snake_case alone is not rewritten")
        self.assertEqual(rs.piece_runs("csrf_token"), [])
        self.assertIn("getFoo", rs.piece_runs("my_getFoo"))
        self.assertNotIn("my_get", rs.piece_runs("my_getFoo"), "runs stay inside one underscore segment")
        self.assertNotIn("X", rs.piece_runs("getX"), "one-letter pieces are not typed")

    def respelled(self, units, seed, p=None):
        qs, meta = core.generate(units, seed=seed, per_kind=50)
        saved = rs.REWRITE_PROBABILITY
        if p is not None:
            rs.REWRITE_PROBABILITY = p
        try:
            counts = rs.respell(qs, units, seed, meta["df_lo"], meta["df_hi"])
        finally:
            rs.REWRITE_PROBABILITY = saved
        return qs, meta, counts

    def test_rewrites(self):
        units = camel_units()
        plain, _ = core.generate(units, seed=5, per_kind=50)
        qs, meta, counts = self.respelled(units, 5)
        pdf = rs.piece_df(units)
        self.assertEqual([(q["id"], q["targets"], q["written"]) for q in qs],
                         [(q["id"], q["targets"], q["words"]) for q in plain], "same queries and targets")
        for q in qs:
            self.assertEqual(q["query"], " ".join(q["words"]))
            for new, old, label in zip(q["words"], q["written"], q["rewrites"]):
                self.assertEqual(new, rs.typed(new), "lower case, no accents")
                if label == "camel piece":
                    self.assertIn(new, [rs.typed(r) for r in rs.piece_runs(old)])
                    self.assertTrue(meta["df_lo"] <= pdf[core.fold(new)] <= meta["df_hi"], new)
                else:
                    self.assertEqual(new, rs.typed(old))
            self.assertEqual(len({core.fold(w) for w in q["words"]}), len(q["words"]), "no word twice")
        self.assertEqual(rs.typed("Élan"), "elan")
        self.assertGreater(counts.get("underscored", 0), 0)  # _pairE3_ -> paire3
        self.assertGreater(counts.get("camel piece", 0), 0)
        camel_words = sum(1 for q in qs for w in q["written"] if rs.piece_runs(w))
        self.assertLess(counts["camel piece"], camel_words, "about half, not all")

    def test_probability_and_band(self):
        units = camel_units()
        qs, _, counts = self.respelled(units, 5, p=1.0)
        for q in qs:
            for new, old, label in zip(q["words"], q["written"], q["rewrites"]):
                if old.startswith("fetch"):  # fetchQcRecord: qc, fetchqc or qcrecord (fetch, record: df 40)
                    self.assertEqual(label, "camel piece")
                    tag = old[5:7].lower()
                    self.assertIn(new, (tag, "fetch" + tag, tag + "record"))
                if old in ("getWidget", "setWidget"):  # get, set, Widget: df 40, out of band
                    self.assertEqual((new, label), (old.lower(), "case/diacritics"))
        self.assertGreater(counts.get("camel piece", 0), 0)
        self.assertGreater(counts.get("camel words kept whole (no piece in band)", 0), 0)
        self.assertEqual(self.respelled(units, 5, p=0.0)[2].get("camel piece", 0), 0)

    def test_query_class(self):
        self.assertEqual(rs.query_class(["same", "camel piece", "underscored"]), "camel piece")
        self.assertEqual(rs.query_class(["case/diacritics", "underscored"]), "underscored")
        self.assertEqual(rs.query_class(["same", "case/diacritics"]), "case/diacritics")
        self.assertEqual(rs.query_class(["same", "same"]), "same")

    def test_deterministic(self):
        units = camel_units()
        a = [q["query"] for q in self.respelled(units, 3)[0]]
        b = [q["query"] for q in self.respelled(list(reversed(units)), 3)[0]]
        c = [q["query"] for q in self.respelled(units, 4)[0]]
        self.assertEqual(a, b)
        self.assertNotEqual(a, c)


class Baseline(unittest.TestCase):
    def test_fts5_ranks_the_known_session_first(self):
        units = synthetic_units()
        fts = core.Fts5Baseline(units)
        self.assertEqual(fts.search(["pairA3", "pairC3", "trioB2"])[:2], [("claude", "s06"), ("claude", "s07")])
        self.assertEqual(fts.search(["solo17"]), [("claude", "s17")])
        self.assertEqual(set(fts.search(["elan"])), {("claude", "s04"), ("claude", "s05")})  # diacritics folded
        self.assertEqual(fts.search(['say "hi"']), [])  # quotes are doubled, not an FTS5 syntax error
        best = fts.best_unit(["solo9"], ("claude", "s09"))
        self.assertEqual(best["tf"], [1])


class Scoring(unittest.TestCase):
    def test_first_rank(self):
        self.assertEqual(core.first_rank([["a", "1"], ["a", "2"]], [["a", "2"], ["b", "9"]]), 2)
        self.assertIsNone(core.first_rank([["a", "1"]], [["a", "2"]]))

    def test_recall_and_mrr(self):
        s = core.score([1, 2, None, 5, 10, 1])
        self.assertEqual(s["queries"], 6)
        self.assertAlmostEqual(s["recall@1"], round(2 / 6, 4))
        self.assertAlmostEqual(s["recall@5"], round(4 / 6, 4))
        self.assertAlmostEqual(s["mrr@10"], round((1 + 0.5 + 0.2 + 0.1 + 1) / 6, 4))
        rows = [{"kind": "summary", "r": 1}, {"kind": "summary", "r": None}, {"kind": "thinking", "r": 3}]
        by = core.score_by_kind(rows, "r")
        self.assertEqual(by["summary"]["recall@1"], 0.5)
        self.assertAlmostEqual(by["overall"]["mrr@10"], round((1 + 1 / 3) / 3, 4))
        self.assertNotIn("user_prompt", by)

    def test_latency(self):
        lat = core.latency([float(x) for x in range(1, 21)])
        self.assertEqual((lat["median_ms"], lat["p95_ms"]), (10.5, 19.0))


class EndToEnd(unittest.TestCase):
    """The whole benchmark on the tiny corpus, with the build's osearch (only when ctest gives it)."""

    def test_run(self):
        if not OSEARCH:
            print("EndToEnd: no --osearch given, the osearch run is not part of this invocation", file=sys.stderr)
            return
        import known_item
        with tempfile.TemporaryDirectory() as tmp:
            roots = make_corpus(tmp)
            out = os.path.join(tmp, "out")
            with redirect_stdout(io.StringIO()), redirect_stderr(io.StringIO()):
                rc = known_item.main(["--osearch", OSEARCH, "--corpus-claude", roots["claude"], "--source",
                                      f"pi={roots['pi']}", "--out", out, "--per-kind", "5"])
            with open(os.path.join(out, "known_item.json"), encoding="utf-8") as fh:
                R = json.load(fh)
            self.assertEqual(rc, 0, R.get("error"))
            self.assertEqual(R["osearch_errors"], 0)
            self.assertEqual(R["osearch_index"]["target_sessions_unknown_to_osearch"], [])
            self.assertGreater(R["scores"]["osearch"]["overall"]["queries"], 0)
            self.assertEqual(R["scores"]["osearch"]["overall"]["queries"], R["scores"]["fts5"]["overall"]["queries"])
            self.assertTrue(os.path.exists(os.path.join(out, "misses.jsonl")))
            self.assertTrue(os.path.exists(os.path.join(out, "known_item.md")))

            # respelled, every camelCase word replaced by a piece in band, on the same index (reused)
            out2 = os.path.join(tmp, "out-respelled")
            saved, rs.REWRITE_PROBABILITY = rs.REWRITE_PROBABILITY, 1.0
            try:
                with redirect_stdout(io.StringIO()), redirect_stderr(io.StringIO()):
                    rc = known_item.main(["--osearch", OSEARCH, "--corpus-claude", roots["claude"], "--source",
                                          f"pi={roots['pi']}", "--out", out2, "--per-kind", "5", "--spelling",
                                          "respelled", "--work", os.path.join(tmp, "work")])
            finally:
                rs.REWRITE_PROBABILITY = saved
            with open(os.path.join(out2, "known_item.json"), encoding="utf-8") as fh:
                R2 = json.load(fh)
            self.assertEqual(rc, 0, R2.get("error"))
            self.assertEqual(R2["meta"]["spelling"], "respelled")
            self.assertEqual(R2["osearch_errors"], 0)
            self.assertEqual(R2["scores"]["osearch"]["overall"]["queries"], R["scores"]["osearch"]["overall"]["queries"])
            with open(os.path.join(out2, "queries.jsonl"), encoding="utf-8") as fh:
                qs = [json.loads(line) for line in fh]
            camel = [q for q in qs if "camel piece" in q["rewrites"]]
            self.assertTrue(camel, [q["written"] for q in qs])  # getZebraBadge, in the two user prompts
            for q in camel:  # the point of the variant: osearch finds a piece of an identifier
                self.assertIsNotNone(q["osearch_rank"], q)
            self.assertIn("respelled", open(os.path.join(out2, "known_item.md"), encoding="utf-8").read())


if __name__ == "__main__":
    if "--osearch" in sys.argv:
        i = sys.argv.index("--osearch")
        OSEARCH = os.path.abspath(sys.argv[i + 1])
        del sys.argv[i:i + 2]
    unittest.main(verbosity=1)
