#!/usr/bin/env python3
"""Does `keyword` find every session `content -F -i -w` finds, for words and phrases drawn from the texts?

    python3 bench/keyword_vs_content.py --index DIR [--osearch BIN] [--mode words|phrases|any-phrases]
                                        [--seed N] [--count N] ROOT [ROOT ...]

Draws strings from the transcripts under the ROOTs (JSON string values, ids and signatures left out):
  words        one token (letters, digits and inner punctuation; no Read-tool gutters `12→`, no bare numbers),
               a third each with a letter outside ASCII, with punctuation, and plain;
  phrases      2-5 consecutive space-separated words of letters, digits and apostrophes, half of them with a
               word of one letter or an apostrophe (the gaps of issue-13's phrase fix);
  any-phrases  2-5 consecutive space-separated tokens of any kind (punctuation, other scripts).
For each, the sessions of `content -F -i -w --include-meta -e S` must be among those of
`keyword --include-meta '"S"'` (a phrase matches across punctuation and case, so keyword may find more).
A session content finds and keyword does not is a silent miss: printed with three of its sessions. A string
keyword calls unsearchable (only words of one letter) is counted apart. `--no-refresh` throughout.
"""
import argparse
import glob
import json
import random
import re
import subprocess

SKIPPED_KEYS = {'data', 'signature', 'encrypted_content', 'id', 'uuid', 'parentUuid', 'sessionId', 'timestamp'}


def strings_of(value, out):
    if isinstance(value, str):
        if len(value) > 3:
            out.append(value)
    elif isinstance(value, dict):
        for k, v in value.items():
            if k not in SKIPPED_KEYS:
                strings_of(v, out)
    elif isinstance(value, list):
        for v in value:
            strings_of(v, out)


def draw(texts, mode, count, rng):
    cands = set()
    if mode == 'words':
        token = re.compile(r'[^\s"\'`()<>\[\]{},;|*\\]+')
        for t in rng.sample(texts, min(len(texts), 20000)):
            for m in token.findall(t[:2000]):
                m = m.strip('.:!?#=-_/+&%$@~^')
                if 2 <= len(m) <= 40 and m[0].isalnum() and m[-1].isalnum() and '→' not in m and not m.isdigit():
                    cands.add(m)
        cands = sorted(cands)
        other = [c for c in cands if any(ord(ch) > 127 for ch in c)]
        punct = [c for c in cands if c not in other and not c.isalnum()]
        plain = [c for c in cands if c.isalnum()]
        groups = [other, punct, plain]
    else:
        word = re.compile(r"^[A-Za-z0-9']+$" if mode == 'phrases' else r'^\S+$')
        for t in rng.sample(texts, min(len(texts), 30000)):
            ws = t[:3000].split(' ')
            for _ in range(2):
                k = rng.randint(2, 5)
                i = rng.randrange(0, max(1, len(ws) - k))
                seq = ws[i:i + k]
                if len(seq) == k and all(word.match(w) and '"' not in w and '→' not in w for w in seq) \
                        and any(len(w) > 1 for w in seq):
                    s = ' '.join(seq)
                    if s[0].isalnum() and s[-1].isalnum():
                        cands.add(s)
        cands = sorted(cands)
        if mode == 'phrases':
            short = [c for c in cands if any(len(w) == 1 or "'" in w for w in c.split(' '))]
        else:
            short = [c for c in cands if any(not w.isalnum() or any(ord(ch) > 127 for ch in w) for w in c.split(' '))]
        groups = [short, [c for c in cands if c not in set(short)]]
    per = count // len(groups)
    return [c for g in groups for c in rng.sample(g, min(len(g), per))]


def sessions(osearch, index, args):
    p = subprocess.run([osearch] + args + ['--index', index, '--no-refresh', '--limit', '100000', '--snippet-chars', '0'],
                       capture_output=True, text=True)
    if p.returncode != 0:
        return None
    return {r['session_id'] for r in json.loads(p.stdout)['results']}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--index', required=True)
    ap.add_argument('--osearch', default='build/osearch')
    ap.add_argument('--mode', choices=['words', 'phrases', 'any-phrases'], default='phrases')
    ap.add_argument('--seed', type=int, default=1)
    ap.add_argument('--count', type=int, default=300)
    ap.add_argument('roots', nargs='+')
    a = ap.parse_args()
    rng = random.Random(a.seed)
    texts = []
    for root in a.roots:
        for f in sorted(glob.glob(root + '/**/*.jsonl', recursive=True)):
            with open(f, 'rb') as fh:
                for line in fh:
                    try:
                        strings_of(json.loads(line), texts)
                    except ValueError:
                        pass
    picked = draw(texts, a.mode, a.count, rng)
    missed = unsearchable = 0
    for s in picked:
        found = sessions(a.osearch, a.index, ['content', '-F', '-i', '-w', '--include-meta', '-e', s])
        ranked = sessions(a.osearch, a.index, ['keyword', '--include-meta', '"' + s.replace('"', '') + '"'])
        if ranked is None:
            unsearchable += 1
            continue
        miss = (found or set()) - ranked
        if miss:
            missed += 1
            print(f'MISS {s!r}: content {len(found)}, keyword {len(ranked)}, missed {sorted(miss)[:3]}')
    print(f'{a.mode}: {len(picked)} drawn (seed {a.seed}), {missed} with sessions keyword missed, '
          f'{unsearchable} unsearchable')


if __name__ == '__main__':
    main()
