"""The `respelled` query variant of the known-item benchmark: the words a person who remembers them types.

The as-written queries (known_item_core.generate) spell each word as the text does. A person rarely
does: they type lower case without accents, and they remember a piece of an identifier rather than
the whole of it. respell() rewrites each query word, deterministically from the seed and the query id
(the queries, their order and their targets stay those of the as-written variant):
  * always: lower-cased, then diacritics removed (NFKD, the marks of the generic diacritics blocks
    U+0300–036F, 1AB0–1AFF, 1DC0–1DFF, 20D0–20FF, FE20–FE2F dropped, NFC again). Marks that are
    part of a letter elsewhere (kana voicing, Indic vowel signs and viramas) stay: nobody drops them;
  * an identifier word (camelCase/PascalCase: one of its underscore segments has >= 2 camel pieces)
    is, with probability 1/2, replaced by one of its pieces or a run of adjacent pieces inside one
    segment (getFileTypeBadge -> badge, filetype, ...; HTTPServerError -> servererror), chosen at
    random among the runs whose session df (as a word or as such a run of some word) lies in the
    df band; none in band, or the run already in the query: the whole word, lower-cased;
  * a word written with leading/trailing underscores (`_csrf_token`) is already queried without
    them (known_item_core.words strips them): it is only lower-cased, and labelled `underscored`.
Versions (`v1.2.3`) cannot occur: \\w+ splits at dots.

Each query keeps `written` (the as-written words) and `rewrites` (per word: `camel piece`,
`underscored`, `case/diacritics` when only folding changed it, `same`).
"""

import random
import unicodedata
from collections import defaultdict

from known_item_core import WORD_RE, fold, words

DIACRITIC_BLOCKS = ((0x0300, 0x036F), (0x1AB0, 0x1AFF), (0x1DC0, 0x1DFF), (0x20D0, 0x20FF), (0xFE20, 0xFE2F))
REWRITE_PROBABILITY = 0.5


# A query's class, from its strongest rewrite: a camel piece, else an underscored word, else a word
# whose case or accents changed, else a query typed exactly as the text writes it.
QUERY_CLASSES = ("camel piece", "underscored", "case/diacritics", "same")


def query_class(rewrites):
    return next(c for c in QUERY_CLASSES if c in rewrites or c == "same")


def _diacritic(c):
    o = ord(c)
    return any(lo <= o <= hi for lo, hi in DIACRITIC_BLOCKS)


def typed(word):
    """How a person types a word they remember: lower case, no accents."""
    nfkd = unicodedata.normalize("NFKD", word.lower())
    return unicodedata.normalize("NFC", "".join(c for c in nfkd if not _diacritic(c)))


def camel_pieces(segment):
    """The camelCase pieces of an underscore-free segment: before an upper-case letter that follows a
    lower-case letter or a digit (fileType, utf8Decode), or that starts a word after an acronym (HTTPServer)."""
    cuts = [0]
    for i in range(1, len(segment)):
        c, p = segment[i], segment[i - 1]
        if c.isupper() and (p.islower() or p.isdigit()
                            or (p.isupper() and i + 1 < len(segment) and segment[i + 1].islower())):
            cuts.append(i)
    cuts.append(len(segment))
    return [segment[a:b] for a, b in zip(cuts, cuts[1:])]


def is_camel(word):
    return any(len(camel_pieces(s)) >= 2 for s in word.split("_") if s)


def piece_runs(word):
    """Runs of adjacent camel pieces inside one underscore segment, as written, that a person could
    type for the word: at least 2 characters, not all digits, not the whole word. Empty unless camel."""
    if not is_camel(word):
        return []
    out = []
    for seg in word.split("_"):
        ps = camel_pieces(seg) if seg else []
        for a in range(len(ps)):
            for b in range(a + 1, len(ps) + 1):
                run = "".join(ps[a:b])
                if len(run) >= 2 and not run.isdigit() and run != word and run not in out:
                    out.append(run)
    return out


def piece_df(units):
    """key -> sessions holding it as a word or as a run of camel pieces of a word (what `badge` means)."""
    per = defaultdict(set)
    for agent, sid, _, text in units:
        keys = per[(agent, sid)]
        for w, k in words(text):
            keys.add(k)
            keys.update(fold(r) for r in piece_runs(w))
    df = defaultdict(int)
    for keys in per.values():
        for k in keys:
            df[k] += 1
    return df


def raw_token(text, word):
    """The \\w+ token the word was taken from (its first appearance: the spelling the query uses)."""
    for raw in WORD_RE.findall(text):
        if raw.strip("_") == word:
            return raw
    return word


def respell(queries, units, seed, lo, hi):
    """Rewrites the queries in place (see the module doc); returns counts of the words per rewrite and of
    the camel words left whole (they count as `case/diacritics` or `same` too)."""
    pdf = piece_df(units)
    counts = defaultdict(int)
    for q in queries:
        rng = random.Random(seed * 1000003 + 7919 * q["id"] + 17)
        written = list(q["words"])
        out, labels = [], []
        taken = {fold(x) for x in written}
        for w in written:
            raw = raw_token(q["text"], w)
            label = "underscored" if raw != w else ("case/diacritics" if typed(w) != w else "same")
            new = typed(w)
            runs = piece_runs(w)
            if runs and rng.random() < REWRITE_PROBABILITY:
                ok = [r for r in runs if lo <= pdf.get(fold(r), 0) <= hi and fold(r) not in taken]
                if ok:
                    new, label = typed(rng.choice(ok)), "camel piece"
                    taken.add(fold(new))
                else:
                    counts["camel words kept whole (no piece in band)"] += 1
            out.append(new)
            labels.append(label)
            counts[label] += 1
        q.update(written=written, rewrites=labels, words=out, query=" ".join(out))
    return dict(counts)
