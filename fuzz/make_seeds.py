#!/usr/bin/env python3
"""Builds the seed corpus of each fuzz target from tests/data at run time (nothing big is committed).

usage: make_seeds.py TESTS_DATA_DIR HAND_SEEDS_DIR OUT_DIR

OUT_DIR/<target>/ gets the hand-picked seeds of fuzz/seeds/<target>/ plus what tests/data yields:
  jsonl_reader  the first lines of each transcript (one small file each)
  claude_line   one line per kind (type, subtype, content block types), the smallest of each
  agent_line    a format byte, then runs of omp/pi and Codex lines (header first: the carry matters)
  query_parser  identifiers, paths and words found in the transcripts
  timeutil      timestamps found in the transcripts
  regex         the patterns of real Grep tool calls
"""
import hashlib
import json
import os
import re
import shutil
import sys

MAX_LINE = 8192  # libFuzzer's -max_len for the JSON targets (fuzz/run.sh)


def write_seed(out_dir, data):
    if isinstance(data, str):
        data = data.encode("utf-8", "surrogatepass")
    name = hashlib.sha1(data).hexdigest()
    with open(os.path.join(out_dir, name), "wb") as f:
        f.write(data)


def transcripts(root):
    for dirpath, _, files in os.walk(root):
        for name in sorted(files):
            if name.endswith(".jsonl"):
                yield os.path.join(dirpath, name)


def line_kind(obj):
    kind = [str(obj.get("type")), str(obj.get("subtype", ""))]
    msg = obj.get("message")
    if isinstance(msg, dict):
        content = msg.get("content")
        if isinstance(content, list):
            kind += sorted({str(b.get("type")) for b in content if isinstance(b, dict)})
        else:
            kind.append(type(content).__name__)
    if "toolUseResult" in obj:
        kind.append("toolUseResult:" + type(obj["toolUseResult"]).__name__)
    return tuple(kind)


def strings_in(value, out):
    if isinstance(value, str):
        out.append(value)
    elif isinstance(value, dict):
        for v in value.values():
            strings_in(v, out)
    elif isinstance(value, list):
        for v in value:
            strings_in(v, out)


def agent_seeds(data_dir, out):
    """Each omp/pi/Codex transcript: its first lines, then windows of lines, under its format byte
    (0 pi family, 1 Codex, 2 Codex session index: see fuzz/agent_line_fuzz.cpp)."""
    for agent, fmt in (("omp", 0), ("pi", 0), ("codex", 1), ("mixed", None)):
        for path in transcripts(os.path.join(data_dir, agent)):
            if fmt is None:
                fmt_here = 1 if "rollout-" in os.path.basename(path) or "codex" in path else 0
            else:
                fmt_here = fmt
            with open(path, "rb") as f:
                lines = f.read().splitlines(keepends=True)
            for start in range(0, len(lines), max(1, len(lines) // 8)):
                chunk = b"".join(lines[:3] + lines[start:start + 4]) if start else b"".join(lines[:6])
                write_seed(out, bytes([fmt_here]) + chunk[:MAX_LINE])
    write_seed(out, b"\x02" + b'{"id":"019b2ea4-aaaa-bbbb-cccc-58208e1f0000","thread_name":"a title","updated_at":"2026-01-01T00:00:00Z"}\n')


def main():
    data_dir, hand_dir, out_dir = sys.argv[1:4]
    targets = ["jsonl_reader", "claude_line", "agent_line", "query_parser", "timeutil", "regex"]
    for t in targets:
        shutil.rmtree(os.path.join(out_dir, t), ignore_errors=True)
        os.makedirs(os.path.join(out_dir, t))
        hand = os.path.join(hand_dir, t)
        if os.path.isdir(hand):
            for name in os.listdir(hand):
                with open(os.path.join(hand, name), "rb") as f:
                    write_seed(os.path.join(out_dir, t), f.read())

    smallest = {}  # line kind -> smallest line
    times, patterns, words = set(), set(), set()
    ident = re.compile(r"(toolu_[A-Za-z0-9]{8,}|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"
                       r"|/[\w.-]+(?:/[\w.-]+)+|\b\w+_\w+\b|\b[a-z]+[A-Z]\w+\b|\bv?\d+\.\d+\.\d+\b)")
    for path in transcripts(os.path.join(data_dir, "claude")):
        with open(path, "rb") as f:
            raw = f.read()
        head = b"".join(raw.splitlines(keepends=True)[:4])[:MAX_LINE]
        if head:
            write_seed(os.path.join(out_dir, "jsonl_reader"), head)
        for line in raw.splitlines():
            try:
                obj = json.loads(line)
            except ValueError:
                write_seed(os.path.join(out_dir, "jsonl_reader"), line[:MAX_LINE])  # real glued lines
                continue
            if not isinstance(obj, dict):
                continue
            if len(line) <= MAX_LINE:
                k = line_kind(obj)
                if k not in smallest or len(line) < len(smallest[k]):
                    smallest[k] = line
            if isinstance(obj.get("timestamp"), str):
                times.add(obj["timestamp"])
            msg = obj.get("message")
            if isinstance(msg, dict) and isinstance(msg.get("content"), list):
                for b in msg["content"]:
                    if isinstance(b, dict) and b.get("type") == "tool_use" and isinstance(b.get("input"), dict):
                        p = b["input"].get("pattern")
                        if isinstance(p, str) and len(p) <= 200:
                            patterns.add(p)
            texts = []
            strings_in(msg, texts)
            for s in texts:
                for m in ident.findall(s[:4000]):
                    if len(words) < 400:
                        words.add(m)
    for line in smallest.values():
        write_seed(os.path.join(out_dir, "claude_line"), line)
    agent_seeds(data_dir, os.path.join(out_dir, "agent_line"))
    for t in sorted(times)[:: max(1, len(times) // 100)]:
        write_seed(os.path.join(out_dir, "timeutil"), t)
    for p in sorted(patterns)[:200]:
        write_seed(os.path.join(out_dir, "regex"), b"\x00" + p.encode("utf-8", "surrogatepass"))
    for w in sorted(words):
        write_seed(os.path.join(out_dir, "query_parser"), w)
    for t in targets:
        print(f"make_seeds: {t}: {len(os.listdir(os.path.join(out_dir, t)))} seeds")


if __name__ == "__main__":
    main()
