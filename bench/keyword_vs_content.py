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
With --filters each string is asked with the same random filters on both sides (`--agent`, `--project`,
`--session`, `--since`/`--until`, `--branch`, `--model`, `--role`, `--type`, `--tool`, `--cwd`, drawn from the
message content finds for it, unfiltered), and half of the draws compare `--by message`: every message content finds
must be among keyword's.
With --both-ways (phrases mode) the other direction is asked too: every session keyword finds must hold the
phrase's ASCII words in order with only non-word bytes between them (`content -i '\bw1\W+w2\b'`, which a
phrase matching across punctuation and case cannot exceed but for words after a colour code); a session
beyond it is an extra, printed the same way.
"""
import argparse
import datetime
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


def answer(osearch, index, args):
    p = subprocess.run([osearch] + args + ['--index', index, '--no-refresh', '--limit', '100000', '--snippet-chars', '0'],
                       capture_output=True, text=True)
    if p.returncode != 0:
        print(f'  exit {p.returncode}: {args}: {p.stderr.strip()[:200]}')
        return None
    return json.loads(p.stdout)['results']


def sessions(osearch, index, args, key='session_id'):
    rows = answer(osearch, index, args)
    return None if rows is None else {r[key] for r in rows}


def index_facets(osearch, index):
    """The index's sessions (for their models) and tool names."""
    def run(args):
        p = subprocess.run([osearch] + args + ['--index', index, '--no-refresh', '--format', 'json'],
                           capture_output=True, text=True, check=True)
        return json.loads(p.stdout)
    listed = run(['list', '--limit', '100000'])['results']
    tools = [r['tool'] for r in run(['stats', 'tools', '--limit', '1000'])['rows']]
    return listed, tools


def later(stamp, rng):
    """A time just after an ISO stamp (`--until` is exclusive), or the next day's date."""
    if rng.random() < 0.3:
        day = datetime.date.fromisoformat(stamp[:10]) + datetime.timedelta(days=1)
        return day.isoformat()
    t = datetime.datetime.fromisoformat(stamp.replace('Z', '+00:00')) + datetime.timedelta(milliseconds=1)
    return t.isoformat(timespec='milliseconds').replace('+00:00', 'Z')


def draw_filters(hit, session, tools, rng):
    """One to three filters that the message `hit` (a content answer's row) passes, or a tool name at random."""
    options = [
        lambda: ['--agent', hit['agent']],
        lambda: ['--project', hit['project_path'][-rng.randint(3, 12):]],
        lambda: ['--session', hit['session_id'][:rng.randint(4, 12)]],
        lambda: ['--since', hit['time'] if rng.random() < 0.7 else hit['time'][:10]],
        lambda: ['--until', later(hit['time'], rng)],
        lambda: ['--branch', hit['git_branch']] if hit['git_branch'] else [],
        lambda: ['--model', rng.choice(session['models'])[:rng.randint(3, 9)]] if session.get('models') else [],
        lambda: ['--role', hit['role']],
        lambda: ['--type', hit['content_type']],
        lambda: ['--tool', rng.choice(tools)] if tools else [],
        lambda: ['--cwd', hit['cwd'][:rng.randint(4, len(hit['cwd']))]] if len(hit['cwd']) > 4 else [],
    ]
    out = []
    for f in rng.sample(options, rng.randint(1, 3)):
        more = f()
        if not any(flag in out for flag in more if flag.startswith('--')):
            out += more
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--index', required=True)
    ap.add_argument('--osearch', default='build/osearch')
    ap.add_argument('--mode', choices=['words', 'phrases', 'any-phrases'], default='phrases')
    ap.add_argument('--seed', type=int, default=1)
    ap.add_argument('--count', type=int, default=300)
    ap.add_argument('--filters', action='store_true', help='the same random filters on both sides')
    ap.add_argument('--both-ways', action='store_true', help='also: keyword finds nothing beyond the loose regex')
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
    listed, tools = index_facets(a.osearch, a.index) if a.filters else ([], [])
    by_id = {r['session_id']: r for r in listed}
    missed = unsearchable = nonempty = extra_count = 0
    for s in picked:
        extra, key = [], 'session_id'
        if a.filters:
            hits = answer(a.osearch, a.index, ['content', '-F', '-i', '-w', '--include-meta', '--by', 'message',
                                               '-e', s])
            if not hits:
                continue
            hit = rng.choice(hits)
            extra = draw_filters(hit, by_id.get(hit['session_id'], {}), tools, rng)
            if rng.random() < 0.5:
                extra, key = extra + ['--by', 'message'], 'message_uuid'
        found = sessions(a.osearch, a.index, ['content', '-F', '-i', '-w', '--include-meta', '-e', s] + extra, key)
        ranked = sessions(a.osearch, a.index, ['keyword', '--include-meta', '"' + s.replace('"', '') + '"'] + extra,
                          key)
        if ranked is None:
            unsearchable += 1
            continue
        nonempty += bool(found)
        miss = (found or set()) - ranked
        if miss:
            missed += 1
            print(f'MISS {s!r} {extra}: content {len(found)}, keyword {len(ranked)}, missed {sorted(miss)[:3]}')
        if a.both_ways:
            loose = r'\b' + r'\W+'.join(re.findall(r'[A-Za-z0-9_]+', s)) + r'\b'
            allowed = sessions(a.osearch, a.index, ['content', '-i', '--include-meta', '-e', loose] + extra, key)
            beyond = ranked - (allowed or set())
            if beyond:
                extra_count += 1
                print(f'EXTRA {s!r} {extra}: loose regex {len(allowed or ())}, keyword {len(ranked)}, '
                      f'beyond {sorted(beyond)[:3]}')
    print(f'{a.mode}: {len(picked)} drawn (seed {a.seed}), {nonempty} found by content, '
          f'{missed} with sessions keyword missed, {unsearchable} unsearchable' +
          (f', {extra_count} with sessions beyond the loose regex' if a.both_ways else ''))


if __name__ == '__main__':
    main()
