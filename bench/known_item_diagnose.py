"""Why did osearch miss a known-item query? A few more osearch calls, restricted to the target session.

  1. the whole query within the target session (`--session ID --agent A`): found there means the
     session matches but ranks below another one -> "ranking: …";
  2. else the same with --include-meta: found means the text is hidden as meta -> "hidden as meta: <kind>";
  3. else each word alone within the target session (--include-meta): a word osearch cannot find
     there is named with its shape (diacritics, non-ASCII case, leading/trailing '_', part of a
     dotted/dashed compound, CJK, letters+digits, camelCase; judged from the word as the text writes
     it, and "camel piece" first when a respelled query holds a piece of it) -> "word not found: <shape>";
     if every word is found alone -> "words not in one osearch message".
"""

import re
import unicodedata

from bench_util import parse_json, run

CJK_RE = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]")
CAMEL_RE = re.compile(r"[a-z][A-Z]|[A-Z]{2}[a-z]")


def keyword(osearch, idx, src_args, env, words, target, extra=()):
    cmd = [osearch, "keyword", *words, "--index", idx, *src_args, "--no-refresh", "--session", target[1],
           "--agent", target[0], "--limit", "3", "--format", "json", *extra]
    r = run(cmd, env=env, timeout=300)
    j = parse_json(r.get("stdout", "")) if r.get("ok") else None
    rows = [x for x in (j.get("results") or []) if isinstance(x, dict)] if isinstance(j, dict) else []
    return [x for x in rows if [x.get("agent"), x.get("session_id")] == list(target)], r.get("error")


def word_shape(word, text):
    """Why a tokenizer might lose this word, judged from how the text writes it."""
    shapes = []
    m = re.search(r"\w*" + re.escape(word) + r"\w*", text)
    raw = m.group(0) if m else word
    if raw != word and raw.strip("_") == word:
        shapes.append("leading/trailing underscore")
    elif raw != word:
        shapes.append("inside a longer word")
    if any(unicodedata.combining(c) for c in unicodedata.normalize("NFKD", word)):
        shapes.append("diacritics")
    if not word.isascii() and word != word.lower():
        shapes.append("non-ASCII case")
    if CJK_RE.search(word):
        shapes.append("CJK")
    tok = re.search(r"\S*" + re.escape(word) + r"\S*", text)
    compound = tok.group(0).strip("\"'`()[]{}<>,;:!?") if tok else word
    if compound != raw and re.search(r"\w[./\\\-@#$%^&*+=~|]+\w", compound):
        shapes.append("part of a compound token")
    if CAMEL_RE.search(word):
        shapes.append("camelCase")
    if any(c.isdigit() for c in word) and any(c.isalpha() for c in word):
        shapes.append("letters and digits")
    return shapes or ["plain word"], compound[:120]


def diagnose(osearch, idx, src_args, env, q):
    target = q["source"] if q["source"] in q["targets"] else q["targets"][0]
    d = {"target": target}
    found, err = keyword(osearch, idx, src_args, env, q["words"], target)
    if err:
        d["error"] = err[:300]
    if found:
        best = found[0]
        d["target_best"] = {"content_type": best.get("content_type"), "role": best.get("role"),
                            "score": best.get("score"), "snippet": (best.get("snippet") or "")[:200]}
        top = (q.get("osearch_top") or [{}])[0]
        d["top_score"] = top.get("score")
        o, f = q["osearch_rank"] or 11, q["fts5_rank"] or 11
        if o == f:
            d["category"] = "ranking: FTS5 ranks the target the same (query shared by several sessions)"
        elif o > f:
            d["category"] = "ranking: osearch ranks the target below FTS5"
        else:
            d["category"] = "ranking: osearch ranks the target above FTS5, not first"
        return d
    found, _ = keyword(osearch, idx, src_args, env, q["words"], target, ("--include-meta",))
    if found:
        d["category"] = f"hidden as meta: {q['kind']}"
        d["target_best"] = {"content_type": found[0].get("content_type"), "role": found[0].get("role")}
        return d
    lost = []
    written, rewrites = q.get("written") or q["words"], q.get("rewrites") or [None] * len(q["words"])
    for w, w_text, rewrite in zip(q["words"], written, rewrites):
        hit, _ = keyword(osearch, idx, src_args, env, [w], target, ("--include-meta",))
        if not hit:
            shapes, compound = word_shape(w_text, q["text"])
            if rewrite == "camel piece":  # the query holds a piece of the word the text writes
                shapes.insert(0, "camel piece")
            lost.append({"word": w, "shapes": shapes, "as_written": compound}
                        | ({"text_word": w_text} if w_text != w else {}))
    d["words_not_found"] = lost
    if lost:
        d["category"] = "word not found: " + lost[0]["shapes"][0]
    else:
        d["category"] = "words not in one osearch message"
    return d
