#!/usr/bin/env python3
"""Grow a generated tree at random, refresh it as users do, then compare with a fresh build.

    python3 bench/grow_compare.py SRC WORK [--seed N] [--steps N] [--complete] [--watch]

SRC is a tree from bench/gen_corpus.py (a Claude projects dir) or bench/gen_mixed_corpus.py (its
claude/, omp/, pi/ and codex/ roots); WORK is a scratch dir (emptied). The tree starts with some files
cut short (mostly at a line end) and some held back; each step then grows files, adds held-back
ones, rewrites a text in place (same size), deletes a session's only file (the index must keep it,
archived: `source_deleted`) or touches a file, and refreshes through `keyword`,
`list` or `index` (or not at all), sometimes after the 2 s a directory's mtime needs to be trusted.
`--watch` runs `osearch index --watch` throughout instead. `--complete` writes every file whole
before the end. Then the index is refreshed once more and compared with `index --full` of the same
files: every session's `list` record, every session's `thread` (uuid, role, type and text of each
message), `keyword --by message` for ten common words, `stats tokens` and `stats tools` by session, and
every `failures` and `subagents` row, `files` for 15 of the paths calls touched, and `context` and `trace`
for 3 messages of 20 sessions. Prints one JSON line; exit 1 on a difference.

Known differences it does not report:
- gen_corpus.py rewords a subagent's prompt in its transcript but not in the parent's progress copy,
  so a copy stored before the transcript came keeps its words, or the transcript's line is kept
  beside it as uuid#offset (real copies repeat the line);
- a file rewritten in place and grown before the next refresh, the 64 bytes before its offset kept,
  is taken for an append (docs/ARCHITECTURE.md, "Incremental rules"): a refresh comes before and after
  each rewrite;
- an omp file that starts with a title slot has only its slot read again when touched (omp rewrites
  the slot in place, and nothing else): no text of such a file is rewritten.
"""
import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOTS = {'claude': 'claude', 'omp': 'omp/.omp/agent/sessions', 'pi': 'pi/.pi/agent/sessions',
         'codex': 'codex/.codex/sessions'}
WORDS = ['error', 'test', 'file', 'function', 'build', 'search', 'commit', 'config', 'update', 'return']


class Tree:
    """The working tree: what each file still has to grow by, and the files not yet written."""

    def __init__(self, src, root, rng):
        self.root, self.rng = root, rng
        self.files = sorted(os.path.relpath(os.path.join(d, f), src)
                            for d, _, fs in os.walk(src) for f in fs if f.endswith('.jsonl'))
        self.rest, self.withheld, self.deleted = {}, [], []
        for rel in self.files:
            data = open(os.path.join(src, rel), 'rb').read()
            u = rng.random()
            if u < 0.1:
                self.withheld.append(rel)
                self.rest[rel] = data
                continue
            cut = len(data)
            if u < 0.5:
                cut = rng.randrange(len(data) + 1)
                if rng.random() < 0.7:
                    cut = data.rfind(b'\n', 0, cut) + 1
            self.write(rel, data[:cut], 'wb')
            self.rest[rel] = data[cut:]

    def path(self, rel):
        return os.path.join(self.root, rel)

    def write(self, rel, data, mode='ab'):
        os.makedirs(os.path.dirname(self.path(rel)), exist_ok=True)
        with open(self.path(rel), mode) as f:
            f.write(data)

    def grow(self):
        growing = [r for r in self.rest if self.rest[r] and r not in self.withheld]
        if not growing:
            return None
        rel = self.rng.choice(growing)
        data = self.rest[rel]
        n = self.rng.randrange(1, min(len(data), 200000) + 1)
        if self.rng.random() < 0.6:
            nl = data.find(b'\n', n - 1)
            n = len(data) if nl < 0 else nl + 1
        self.write(rel, data[:n])
        self.rest[rel] = data[n:]
        return f'grow {rel} +{n}'

    def add(self):
        if not self.withheld:
            return None
        rel = self.withheld.pop(self.rng.randrange(len(self.withheld)))
        n = self.rng.randrange(len(self.rest[rel]) + 1)
        self.write(rel, self.rest[rel][:n], 'wb')
        self.rest[rel] = self.rest[rel][n:]
        return f'add {rel} {n}'

    def rewrite(self):
        """Up to 20 letters of one JSON "text" string shifted, in place: the same size, a newer mtime."""
        cands = [r for r in self.files if r not in self.withheld and os.path.getsize(self.path(r)) > 1000]
        rel = self.rng.choice(cands)
        data = bytearray(open(self.path(rel), 'rb').read())
        if data.startswith(b'{"type":"title"'):  # (see the docstring)
            return None
        k = data.find(b'"text":"', self.rng.randrange(len(data)))
        if k < 0:
            return None
        k += 8
        flipped = 0
        while k < len(data) and data[k] != ord('"') and flipped < 20:
            if ord('a') <= data[k] <= ord('z'):
                data[k] = ord('a') + (data[k] - ord('a') + 1) % 26
                flipped += 1
            k += 2 if data[k] == ord('\\') else 1
        with open(self.path(rel), 'r+b') as f:
            f.write(bytes(data))
        return f'rewrite {rel} ({flipped} letters)'

    def delete(self):
        """A session's only file removed: the index keeps the session, archived (source_deleted)."""
        def alone(rel):
            stem, d = rel[:-len('.jsonl')], os.path.dirname(self.path(rel))
            # (no subagent directory, and no root agent file beside it that could name the session)
            return not os.path.exists(self.path(stem)) and not any(
                n.startswith('agent-') for n in os.listdir(d)) and not os.path.basename(rel).startswith('agent-')
        cands = [r for r in self.files if r not in self.withheld and os.path.exists(self.path(r)) and alone(r)]
        if not cands:
            return None
        rel = self.rng.choice(cands)
        os.remove(self.path(rel))
        self.files.remove(rel)
        self.rest.pop(rel)
        self.deleted.append(rel)
        return f'delete {rel}'

    def touch(self):
        rel = self.rng.choice([r for r in self.files if r not in self.withheld])
        os.utime(self.path(rel))
        return f'touch {rel}'

    def complete(self):
        for rel in self.files:
            if rel in self.withheld or self.rest[rel]:
                self.write(rel, self.rest[rel], 'wb' if rel in self.withheld else 'ab')
                self.rest[rel] = b''
        self.withheld = []


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('src')
    ap.add_argument('work')
    ap.add_argument('--seed', type=int, default=1)
    ap.add_argument('--steps', type=int, default=25)
    ap.add_argument('--complete', action='store_true')
    ap.add_argument('--watch', action='store_true')
    ap.add_argument('--osearch', default=os.path.join(HERE, '..', 'build', 'osearch'))
    a = ap.parse_args()
    rng = random.Random(a.seed)
    shutil.rmtree(a.work, ignore_errors=True)
    home, root = os.path.join(a.work, 'home'), os.path.join(a.work, 'tree')
    idx_a, idx_b = os.path.join(a.work, 'incremental'), os.path.join(a.work, 'fresh')
    os.makedirs(home)
    mixed = os.path.isdir(os.path.join(a.src, 'claude'))
    roots = ROOTS if mixed else {'claude': ''}
    for r in roots.values():
        os.makedirs(os.path.join(root, r), exist_ok=True)
    sources = [x for k, r in roots.items() for x in ('--source', f'{k}={os.path.join(root, r)}')]
    env = dict(os.environ, HOME=home)

    def run(*args, idx=idx_a):
        p = subprocess.run([a.osearch, '--index', idx, *sources, *args], env=env, capture_output=True, text=True)
        if p.returncode != 0:
            sys.exit(f'{args}: exit {p.returncode}: {p.stderr[:500]}')
        return p.stdout

    tree = Tree(a.src, root, rng)
    run('index', '--quiet')
    watcher = None
    if a.watch:
        watcher = subprocess.Popen([a.osearch, '--index', idx_a, *sources, 'index', '--watch', '--quiet'], env=env,
                                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(1.0)
    log = []
    for _ in range(a.steps):
        for _ in range(rng.randrange(1, 6)):
            u = rng.random()
            op = (tree.grow if u < 0.55 else tree.add if u < 0.72 else tree.rewrite if u < 0.82 else
                  tree.delete if u < 0.86 else tree.touch)
            settle = (lambda: time.sleep(1.5)) if a.watch else (lambda: run('list'))
            if op == tree.rewrite:  # refreshed before and after (see the docstring)
                settle()
            what = op()
            if what:
                log.append(what)
            if op == tree.rewrite and what:
                settle()
        time.sleep(rng.choice([0.0, 0.3, 1.5]) if a.watch else (2.2 if rng.random() < 0.3 else 0))
        u = rng.random()
        if u < 0.5:
            run('keyword', rng.choice(WORDS))
        elif u < 0.7:
            run('list')
        elif u < 0.85:
            run('index', '--quiet')
        log.append('  refreshed' if u < 0.85 else '  (not refreshed)')
    if a.complete:
        tree.complete()
    if watcher:
        time.sleep(2.0)
        watcher.terminate()
        watcher.wait()
    run('index', '--quiet')
    run('index', '--full', '--quiet', idx=idx_b)
    bad, archived = compare(run, idx_a, idx_b)
    print(json.dumps({'seed': a.seed, 'watch': a.watch, 'complete': a.complete, 'operations': len(log),
                      'deleted_files': len(tree.deleted), 'archived_sessions': len(archived),
                      'differences': len(bad)}))
    if bad:
        with open(os.path.join(a.work, 'log.txt'), 'w') as f:
            f.write('\n'.join(log) + '\n')
        for b in bad[:30]:
            print(b)
        sys.exit(1)


def compare(run, idx_a, idx_b):
    def sessions(idx):
        out = json.loads(run('list', '--limit', '100000', '--no-refresh', '--include-meta', idx=idx))
        return {s['session_id']: s for s in out['results']}

    def messages(idx, sid):
        # (A subagent prompt's copy: see the docstring.)
        def norm(m):
            copy = m.get('is_sidechain') and m['role'] == 'user'
            return (m['uuid'], m['role'], m['content_type'], None if copy else m.get('text'))
        t = json.loads(run('thread', sid, '--no-refresh', '--include-meta', idx=idx))['messages']
        kept = [norm(m) for m in t if not (m.get('is_sidechain') and '#' in m['uuid'])]
        prompts = {m['uuid']: m.get('text') for m in t if m.get('is_sidechain') and m['role'] == 'user'}
        return kept, {m['uuid'] for m in t} - {k[0] for k in kept}, prompts

    sa, sb = sessions(idx_a), sessions(idx_b)
    bad, tolerated, extra_copies, archived = [], set(), set(), set()
    fresh_threads = {}  # (kept for the sample of chains below)
    for sid in sorted(set(sa) & set(sb)):
        (ma, xa, pa), (mb, xb, pb) = messages(idx_a, sid), messages(idx_b, sid)
        fresh_threads[sid] = mb
        # A prompt whose copy kept other words is left out of the word comparisons below too.
        extra_copies |= {u for u, text in pa.items() if pb.get(u, text) != text}
        if ma != mb:
            first = next((i for i, (x, y) in enumerate(zip(ma, mb)) if x != y), min(len(ma), len(mb)))
            bad.append(f'thread {sid}: {len(ma)} against {len(mb)} messages, the first difference at {first}')
        elif xa or xb:
            tolerated.add(sid)
            extra_copies |= xa | xb
    for sid in sorted(set(sa) | set(sb)):
        x, y = sa.get(sid), sb.get(sid)
        if x == y or sid in tolerated:
            continue
        if y is None and x.get('source_deleted'):
            archived.add(sid)  # its only file was deleted: kept, as the archive keeps it
        elif x is None or y is None:
            bad.append(f'session {sid}: only in the {"fresh" if x is None else "incremental"} index')
        else:
            diff = {k: (x.get(k), y.get(k)) for k in set(x) | set(y) if x.get(k) != y.get(k)}
            bad.append(f'session {sid}: {json.dumps(diff)[:400]}')
    def answer(idx, *args):
        return json.loads(run(*args, '--limit', '100000', '--no-refresh', idx=idx))

    for w in WORDS:
        hits = []
        for idx in (idx_a, idx_b):
            out = answer(idx, 'keyword', w, '--by', 'message', '--include-meta')
            if out['total'] > len(out['results']):  # (a page of the largest --limit: not the whole set)
                break
            hits.append(sorted(r.get('message_uuid') or r['session_id'] for r in out['results']
                               if r['session_id'] not in archived and r.get('message_uuid') not in extra_copies))
        if len(hits) == 2 and hits[0] != hits[1]:
            only_a, only_b = sorted(set(hits[0]) - set(hits[1])), sorted(set(hits[1]) - set(hits[0]))
            bad.append(f'keyword {w}: {len(hits[0])} against {len(hits[1])} hits; only incremental {only_a[:3]}, '
                       f'only fresh {only_b[:3]}')
    # The aggregates `stats` reads (merged batch by batch, rebuilt on a re-read) and the lists of
    # failed calls and subagents, session by session.
    skip = archived | tolerated
    for args in (('stats', 'tokens', '--by', 'session'), ('stats', 'tools', '--by', 'session')):
        ra, rb = ({r['session']: r for r in answer(idx, *args)['rows']} for idx in (idx_a, idx_b))
        for sid in sorted((set(ra) | set(rb)) - skip):
            if ra.get(sid) != rb.get(sid):
                bad.append(f'{" ".join(args)} {sid}: {json.dumps(ra.get(sid))[:300]} against {json.dumps(rb.get(sid))[:300]}')
    for args in (('failures',), ('subagents',)):
        la, lb = (sorted(json.dumps(r, sort_keys=True) for r in answer(idx, *args)['results'] if r['session_id'] not in skip)
                  for idx in (idx_a, idx_b))
        if la != lb:
            only_a, only_b = sorted(set(la) - set(lb)), sorted(set(lb) - set(la))
            bad.append(f'{args[0]}: {len(la)} against {len(lb)}; only incremental {[x[:300] for x in only_a[:2]]}, '
                       f'only fresh {[x[:300] for x in only_b[:2]]}')
    # The files calls touched (a sample of the paths), and the chain of a sample of messages.
    rng = random.Random(len(sa))
    paths = sorted(r['file'] for r in answer(idx_b, 'stats', 'files')['rows'])
    for path in rng.sample(paths, min(15, len(paths))):
        fa, fb = (sorted(json.dumps(r, sort_keys=True) for r in answer(idx, 'files', path)['results']
                         if r['session_id'] not in skip) for idx in (idx_a, idx_b))
        if fa != fb:
            bad.append(f'files {path}: {len(fa)} against {len(fb)}')
    sample = rng.sample(sorted(set(sa) & set(sb) - skip), min(20, len(set(sa) & set(sb) - skip)))
    for sid in sample:
        kept = fresh_threads[sid]
        for uuid in [k[0] for k in rng.sample(kept, min(3, len(kept)))]:
            for cmd in ('context', 'trace'):
                ca, cb = (json.loads(run(cmd, uuid, '--session', sid, '--no-refresh', idx=idx)) for idx in (idx_a, idx_b))
                for c in (ca, cb):
                    c.pop('took_ms', None)
                    c.pop('index', None)
                if ca != cb:
                    bad.append(f'{cmd} {uuid} in {sid}: {json.dumps(ca)[:200]} against {json.dumps(cb)[:200]}')
    return bad, archived


if __name__ == '__main__':
    main()
