#!/usr/bin/env python3
"""Runs every `osearch …` command that the Claude Code skill (integrations/claude-skill/SKILL.md) shows.

    python3 tests/integrations/skill_commands_test.py --osearch build/osearch

The commands come from the skill's fenced code blocks. Each runs on a fresh index of tests/data fixtures (all four
agents) with its placeholders (SESSION_ID, MESSAGE_UUID, MEMORY_ID, NOTE_FILE) replaced by real ids and files
from that index. A command fails the test when it exits non-zero or prints anything but one JSON object. The
skill's frontmatter is checked too: a name Claude Code accepts, a description within its limit, and
pre-approved tools that never include a memory mutation (those need the user's yes).
"""
import argparse
import json
import os
import re
import shlex
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
DATA = REPO / "tests" / "data"
SKILL = REPO / "integrations" / "claude-skill" / "SKILL.md"

# Every command family the skill's table names must be shown at least once.
EXPECTED_COMMANDS = {"overview", "keyword", "content", "list", "thread", "context", "trace", "files", "failures",
                     "stats", "memory"}
MUTATIONS = ("remember", "forget", "restore", "import")
# The omp fixture session with tool calls, thinking and a subagent; it is the session the placeholders name.
SESSION = "01a0b1c2-0000-7000-8000-00000000a001"


class Failure(Exception):
    pass


def frontmatter(text):
    match = re.match(r"\A---\n(.*?)\n---\n", text, re.S)
    if not match:
        raise Failure("SKILL.md does not start with a --- frontmatter block")
    fields, key = {}, None
    for line in match.group(1).splitlines():
        item = re.match(r"\s+-\s+(.*)$", line)
        if item and key:
            fields.setdefault(key, []).append(item.group(1).strip())
            continue
        pair = re.match(r"([A-Za-z][\w-]*):\s*(.*)$", line)
        if not pair:
            raise Failure(f"frontmatter line not understood: {line!r}")
        key = pair.group(1)
        if pair.group(2):
            fields[key] = pair.group(2).strip()
    return fields


def check_frontmatter(fields):
    name = fields.get("name", "")
    if not re.fullmatch(r"[a-z0-9][a-z0-9-]{0,63}", name):
        raise Failure(f"name {name!r}: lowercase letters, digits and hyphens, at most 64")
    description = fields.get("description", "")
    if not description or len(description) > 1024:
        raise Failure(f"description must be 1-1024 characters, is {len(description)}")
    if "Use when" not in description:
        raise Failure("description should say when to use the skill")
    for tool in fields.get("allowed-tools", []):
        if not re.fullmatch(r"Bash\(osearch [a-z ]+:\*\)", tool):
            raise Failure(f"allowed-tools entry {tool!r} is not an osearch command prefix")
        if any(word in tool for word in MUTATIONS):
            raise Failure(f"allowed-tools pre-approves a mutation: {tool}")


def shown_commands(text):
    """(line number, command line) for each `osearch …` line of the fenced code blocks."""
    commands, fence = [], None
    for number, line in enumerate(text.splitlines(), 1):
        stripped = line.strip()
        if stripped.startswith("```"):
            fence = None if fence is not None else stripped[3:].strip()
            continue
        if fence is not None and stripped.startswith("osearch "):
            commands.append((number, stripped))
    return commands


def run(binary, args, env, cwd):
    return subprocess.run([binary, *args], env=env, cwd=cwd, capture_output=True, text=True, timeout=120)


def json_of(binary, args, env, cwd):
    done = run(binary, args, env, cwd)
    if done.returncode != 0:
        raise Failure(f"setup `osearch {' '.join(args)}` exited {done.returncode}: {done.stderr.strip()}")
    return json.loads(done.stdout)


def placeholders(binary, env, work):
    """Real values for the skill's placeholders, from the fixture index."""
    thread = json_of(binary, ["thread", SESSION, "--limit", "5"], env, work)
    uuids = [m["uuid"] for m in thread["messages"] if m.get("uuid")]
    if not uuids:
        raise Failure(f"fixture session {SESSION} has no messages")
    existing = work / "existing-memory.md"
    existing.write_text("# Storage\nThe index keeps its records in LMDB.\n", encoding="utf-8")
    memory = json_of(binary, ["memory", "remember", "--path", str(existing), "--summary", "storage uses LMDB"],
                     env, work)
    note = work / "note.md"
    note.write_text("# Why LMDB\nReaders never block the indexer.\n", encoding="utf-8")
    return {"SESSION_ID": SESSION, "MESSAGE_UUID": uuids[-1], "MEMORY_ID": memory["id"], "NOTE_FILE": str(note)}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--osearch", default=str(REPO / "build" / "osearch"))
    binary = str(Path(parser.parse_args().osearch).resolve())
    if not os.access(binary, os.X_OK):
        print(f"FAIL: no osearch binary at {binary}", file=sys.stderr)
        return 1

    text = SKILL.read_text(encoding="utf-8")
    failures = []
    try:
        check_frontmatter(frontmatter(text))
    except Failure as err:
        failures.append(f"frontmatter: {err}")
    commands = shown_commands(text)
    families = {shlex.split(line, comments=True)[1] for _, line in commands}
    if EXPECTED_COMMANDS - families:
        failures.append(f"the skill shows no example of: {', '.join(sorted(EXPECTED_COMMANDS - families))}")

    with tempfile.TemporaryDirectory(prefix="osearch-skill-") as tmp:
        work = Path(tmp)
        env = dict(os.environ)
        env.pop("OSEARCH_FORMAT", None)
        env["OSEARCH_INDEX"] = str(work / "index")
        env["OSEARCH_SOURCES"] = ",".join([
            f"claude={DATA / 'claude'}", f"omp={DATA / 'mixed' / 'omp' / 'sessions'}",
            f"omp={DATA / 'omp' / '.omp' / 'agent' / 'sessions'}", f"pi={DATA / 'mixed' / 'pi' / 'sessions'}",
            f"codex={DATA / 'mixed' / 'codex'}"])
        json_of(binary, ["index"], env, work)
        values = placeholders(binary, env, work)

        for number, line in commands:
            argv = [values.get(arg, arg) for arg in shlex.split(line, comments=True)[1:]]
            done = run(binary, argv, env, work)
            where = f"SKILL.md:{number}: {line}"
            if done.returncode != 0:
                failures.append(f"{where}\n    exit {done.returncode}: {done.stderr.strip()}")
                continue
            try:
                answer = json.loads(done.stdout)
            except json.JSONDecodeError as err:
                failures.append(f"{where}\n    stdout is not JSON ({err}): {done.stdout[:200]!r}")
                continue
            if not isinstance(answer, dict) or "action" not in answer:
                failures.append(f"{where}\n    answer is not an osearch JSON object: {done.stdout[:200]!r}")
                continue
            print(f"ok  {line}  ->  {answer['action']}, total {answer.get('total', '-')}")

    if failures:
        print("\n".join(["", *failures]), file=sys.stderr)
        print(f"FAIL: {len(failures)} problem(s) in {len(commands)} commands", file=sys.stderr)
        return 1
    print(f"PASS: {len(commands)} commands from {SKILL.relative_to(REPO)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
