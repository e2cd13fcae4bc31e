#!/usr/bin/env python3
"""Which sessions `osearch content` finds for a literal against the transcripts `rg -l` finds it in.

    python3 bench/recall_vs_rg.py --index DIR --tree ~/.claude/projects WORD [WORD ...] [--osearch BIN]

For each word: the sessions of `osearch content -F WORD --include-meta` (by session, every hit) against
the files of `rg -l -F WORD` over a Claude projects tree, a subagent transcript counted as its parent
session's file. A session osearch finds whose files do not hold the word is a wrong answer; a file rg
finds that osearch misses is text osearch does not index (a JSON key, an id, or text outside the
messages: toolUseResult copies, progress lines, injected attachments) or a miss. Prints one line per
word, and with --where the JSON paths of the word in the first missed files (to tell which).
"""
import argparse
import json
import os
import re
import subprocess


def session_file(path, cache={}):
    m = re.match(r'(.*)/([0-9a-f-]{36})/subagents/.*agent-[^/]+\.jsonl$', path)
    if m:
        return m.group(1) + '/' + m.group(2) + '.jsonl'
    if os.path.basename(path).startswith('agent-'):  # old layout: the parent's sessionId inside
        if path not in cache:
            cache[path] = None
            with open(path, 'rb') as fh:
                for line in fh:
                    try:
                        sid = json.loads(line).get('sessionId')
                    except ValueError:
                        continue
                    if sid:
                        cache[path] = os.path.dirname(path) + '/' + sid + '.jsonl'
                        break
        return cache[path]
    return path


def json_paths(obj, word, path='', out=None):
    out = set() if out is None else out
    if isinstance(obj, dict):
        for k, v in obj.items():
            json_paths(v, word, path + '.' + k, out)
    elif isinstance(obj, list):
        for v in obj:
            json_paths(v, word, path + '[]', out)
    elif isinstance(obj, str) and word in obj:
        out.add(path)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    ap.add_argument('--index', required=True)
    ap.add_argument('--tree', required=True)
    ap.add_argument('--osearch', default=os.path.join(os.path.dirname(__file__), '..', 'build', 'osearch'))
    ap.add_argument('--where', action='store_true')
    ap.add_argument('words', nargs='+')
    a = ap.parse_args()
    for w in a.words:
        out = subprocess.run([a.osearch, 'content', '-F', w, '--index', a.index, '--no-refresh', '--limit', '100000',
                              '--include-meta', '--format', 'json'], capture_output=True, text=True, check=True).stdout
        found = {h['path'] for h in json.loads(out)['results']}
        rg = subprocess.run(['rg', '-l', '-F', w, a.tree], capture_output=True, text=True).stdout.split()
        holding = {session_file(f) for f in rg if f.endswith('.jsonl')} - {None}
        wrong, missed = sorted(found - holding), sorted(holding - found)
        print(f'{w}: osearch {len(found)} sessions, rg {len(holding)}; not holding it {len(wrong)}, missed {len(missed)}')
        if a.where:
            for f in missed[:3]:
                paths = set()
                with open(f, 'rb') as fh:
                    for line in fh:
                        if w.encode() in line:
                            try:
                                json_paths(json.loads(line), w, '', paths)
                            except ValueError:
                                pass
                print('   ', os.path.basename(f), sorted(paths))


if __name__ == '__main__':
    main()
