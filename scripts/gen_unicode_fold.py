#!/usr/bin/env python3
"""Generates ingest/unicode_fold_table.inc: the search form of every code point whose form differs.

Usage: python3 scripts/gen_unicode_fold.py > ingest/unicode_fold_table.inc

The output depends only on this script and the Unicode version of Python's unicodedata (printed into
the header), so running it twice gives the same bytes. The build never runs it: the .inc is committed.

Search form of one code point (see ingest/unicode_fold.h for why each rule exists):
  1. Hangul syllables, kana and CJK are left alone (a voiced mark changes a kana; the tokenizer
     handles CJK as unigrams and bigrams). So are symbols, punctuation and spaces (≠ must not
     decompose to =), except fullwidth ASCII.
  2. A combining mark of the dropped set folds to nothing: the generic diacritic blocks, Hebrew
     points and cantillation, Arabic harakat. Other marks (Indic vowel signs, nukta, viramas, Thai
     tone marks) are letters of their words and stay.
  3. Selected compatibility forms become their plain letters and digits (NFKC of that code point,
     used only when it and the result are letters, digits and marks): fullwidth ASCII, super- and
     subscripts (H₂O -> h2o, x² -> x2; ™ is a symbol and stays), mathematical and letterlike font variants (𝐀 -> a, ℝ -> r), Arabic
     presentation forms, and the Latin ligature letters (ĳ, ǆ, ﬁ). Circled, parenthesised, squared,
     fraction, small, vertical, narrow and no-break forms are not made plain: they are symbols,
     layout, or halfwidth kana.
  4. Canonical decomposition (NFD), dropping the marks of rule 2.
  5. Unicode full case folding (str.casefold: ß -> ss, ς -> σ, ﬃ -> ffi), then rule 4 again
     (İ folds to i + U+0307). Case folding comes after the decomposition so that ᾳ folds to α, as
     its NFD form α + U+0345 does, and not to αι.
  6. Latin letters with a stroke or bar and no decomposition become their base letter, as ICU's
     Latin-ASCII does (ø -> o, ł -> l, đ -> d, ħ -> h, ŧ -> t); dotless ı and ȷ become i and j, so that
     Turkish KAPI and kapı fold alike. æ, œ, ð, þ are letters of their own and stay.
These steps repeat until the form no longer changes, so folding is idempotent.

Table shape: a two-level lookup over planes 0 and 1 (everything above folds to itself). Stage 1 maps
cp >> 7 to a block number; stage 2 holds 128 entry numbers per block, 0 meaning "folds to itself".
An entry packs the offset of its UTF-8 bytes in the pool (high 24 bits) and their length (low 8 bits);
length 0 means "folds to nothing".
"""

import re
import sys
import unicodedata

LIMIT = 0x20000  # code points at or above fold to themselves (checked below)
BLOCK_BITS = 7
BLOCK = 1 << BLOCK_BITS


def untouched(cp):
    return (
        0xAC00 <= cp <= 0xD7A3  # Hangul syllables
        or 0x1100 <= cp <= 0x11FF  # Hangul jamo
        or 0x2E80 <= cp <= 0x2FDF  # CJK and Kangxi radicals
        or 0x3000 <= cp <= 0x33FF  # CJK symbols, kana, bopomofo, compatibility jamo, kanbun, enclosed CJK
        or 0x3400 <= cp <= 0x4DBF
        or 0x4E00 <= cp <= 0x9FFF
        or 0xF900 <= cp <= 0xFAFF  # CJK compatibility ideographs
        or 0xFE30 <= cp <= 0xFE4F  # CJK compatibility forms
        or 0xFF61 <= cp <= 0xFFDC  # halfwidth kana and Hangul
        or 0x1B000 <= cp <= 0x1B2FF  # kana supplement and extensions
        or cp >= 0x20000
    )


def dropped_mark(cp):
    """Rule 2. Only assigned non-spacing marks: enclosing marks (the emoji keycap U+20E3) and code
    points a later Unicode may assign stay as they are."""
    in_dropped_blocks = (
        0x0300 <= cp <= 0x036F
        or 0x1AB0 <= cp <= 0x1AFF
        or 0x1DC0 <= cp <= 0x1DFF
        or 0x20D0 <= cp <= 0x20FF
        or 0xFE20 <= cp <= 0xFE2F
        or 0x0591 <= cp <= 0x05C7  # Hebrew points and cantillation (maqaf, paseq, sof pasuq are not Mn)
        or 0x064B <= cp <= 0x065F  # Arabic harakat, shadda, sukun, hamza above and below
        or cp == 0x0670  # Arabic superscript alef
    )
    return in_dropped_blocks and unicodedata.category(chr(cp)) == "Mn"


PLAIN_TAGS = {"<super>", "<sub>", "<font>", "<isolated>", "<initial>", "<medial>", "<final>"}


def compat_plain(cp):
    """The plain letters of a compatibility form (rule 3), or None."""
    if 0xFF01 <= cp <= 0xFF5E:  # fullwidth ASCII, punctuation included
        return chr(cp - 0xFF01 + 0x21)
    decomposition = unicodedata.decomposition(chr(cp))
    tag = decomposition.split(" ", 1)[0] if decomposition.startswith("<") else ""
    latin_ligature = tag == "<compat>" and (cp <= 0x024F or 0xFB00 <= cp <= 0xFB06)
    if tag not in PLAIN_TAGS and not latin_ligature:
        return None
    if unicodedata.category(chr(cp))[0] not in "LN":  # ™ and ⁺ are symbols, not letters
        return None
    plain = unicodedata.normalize("NFKC", chr(cp))
    if all(unicodedata.category(c)[0] in "LNM" for c in plain):
        return plain
    return None


BASE_LETTER = re.compile(r"^LATIN (?:SMALL|CAPITAL) LETTER ([A-Z])(?: WITH (?:STROKE|DIAGONAL STROKE|BAR))?$")
DOTLESS = re.compile(r"^LATIN SMALL LETTER DOTLESS ([IJ])$")


def stroke_base(ch):
    """Rule 6: the base letter of a stroked Latin letter without decomposition, or None."""
    if unicodedata.decomposition(ch):
        return None
    name = unicodedata.name(ch, "")
    m = BASE_LETTER.match(name) or DOTLESS.match(name)
    if not m or name.endswith("LETTER " + m.group(1)):
        return None
    return m.group(1).lower()


def strip_marks(s):
    return "".join(c for c in unicodedata.normalize("NFD", s) if not dropped_mark(ord(c)))


def fold_step(ch):
    cp = ord(ch)
    if untouched(cp):
        return ch
    if dropped_mark(cp):
        return ""
    if unicodedata.category(ch)[0] not in "LNM" and not 0xFF01 <= cp <= 0xFF5E:
        return ch  # symbols, punctuation and spaces: ≠ must not become =
    s = compat_plain(cp) or ch
    s = strip_marks(s).casefold()
    s = strip_marks(s)
    return "".join(stroke_base(c) or c for c in s)


def fold(ch):
    s = ch
    while True:
        nxt = "".join(fold_step(c) for c in s)
        if nxt == s:
            return s
        s = nxt


def main():
    mappings = {}
    for cp in range(0x110000):
        if 0xD800 <= cp <= 0xDFFF:
            continue
        folded = fold(chr(cp))
        if folded != chr(cp):
            if cp >= LIMIT:
                sys.exit(f"U+{cp:04X} folds but lies above the table's limit")
            mappings[cp] = folded
    for cp, folded in mappings.items():  # idempotence, which the C++ test checks again
        assert "".join(fold(c) for c in folded) == folded, hex(cp)

    pool = bytearray()
    entry_of_text = {}
    entries = [0]  # entry 0: folds to itself
    for cp in sorted(mappings):
        text = mappings[cp]
        if text not in entry_of_text:
            data = text.encode("utf-8")
            at = pool.find(data) if data else 0
            if at < 0:
                at = len(pool)
                pool += data
            assert len(data) < 256 and at < (1 << 24)
            entry_of_text[text] = len(entries)
            entries.append((at << 8) | len(data))
    assert len(entries) < (1 << 16)

    blocks = [[0] * BLOCK]  # block 0: every code point folds to itself
    block_of_content = {tuple(blocks[0]): 0}
    stage1 = []
    for hi in range(LIMIT >> BLOCK_BITS):
        content = tuple(entry_of_text[mappings[cp]] if cp in mappings else 0
                        for cp in range(hi << BLOCK_BITS, (hi + 1) << BLOCK_BITS))
        if content not in block_of_content:
            block_of_content[content] = len(blocks)
            blocks.append(list(content))
        stage1.append(block_of_content[content])
    assert len(blocks) < 256

    def rows(values, per_line, fmt):
        for i in range(0, len(values), per_line):
            yield "    " + ", ".join(fmt(v) for v in values[i:i + per_line]) + ","

    out = [
        f"// Generated by scripts/gen_unicode_fold.py from Unicode {unicodedata.unidata_version}"
        f" (Python {sys.version_info.major}.{sys.version_info.minor}). Do not edit: rerun the script.",
        f"// {len(mappings)} code points fold to another form; {len(entries) - 1} distinct forms,"
        f" {len(pool)} pool bytes, {len(blocks)} blocks.",
        "// Included by ingest/unicode_fold.cpp inside namespace osearch::fold_table.",
        "",
        f'inline constexpr char kUnicodeVersion[] = "{unicodedata.unidata_version}";',
        f"inline constexpr uint32_t kLimit = 0x{LIMIT:X};",
        f"inline constexpr unsigned kBlockBits = {BLOCK_BITS};",
        f"inline constexpr size_t kFoldingCodePoints = {len(mappings)};",
        "",
        f"inline constexpr unsigned char kPool[{max(len(pool), 1)}] = {{",
        *rows(list(pool) or [0], 16, lambda v: f"0x{v:02X}"),
        "};",
        "",
        "// (offset in kPool << 8) | byte length; entry 0 is unused (folds to itself).",
        f"inline constexpr uint32_t kEntries[{len(entries)}] = {{",
        *rows(entries, 8, lambda v: f"0x{v:08X}"),
        "};",
        "",
        f"inline constexpr uint8_t kStage1[{len(stage1)}] = {{",
        *rows(stage1, 24, str),
        "};",
        "",
        f"inline constexpr uint16_t kStage2[{len(blocks)} << kBlockBits] = {{",
    ]
    for number, block in enumerate(blocks):
        out.append(f"    // block {number}")
        out.extend(rows(block, 16, str))
    out.append("};")
    sys.stdout.write("\n".join(out) + "\n")


if __name__ == "__main__":
    main()
