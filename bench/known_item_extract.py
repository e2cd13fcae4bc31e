"""Independent extraction of searchable text units from agent transcripts (known-item benchmark).

This reads the transcripts with plain python, not with osearch, so the benchmark checks osearch
against its own reading of the formats (/work/shared/formats; omp-pi-codex.md §7 wins).

A unit is (agent, session_id, kind, text):
  agent, session_id  the session as osearch prints it (`agent`, `session_id` of a keyword hit)
  kind               user_prompt | assistant_text | thinking | tool_input | tool_output | summary
  text               one content piece as the message holds it (a Claude assistant line with two
                     text blocks is one unit holding both, joined by a newline)

Session ids: Claude: the file name (main transcript) or the directory name (<id>/subagents/…);
a flat agent-*.jsonl belongs to the sessionId its first line names. omp/pi: the `id` of the
header line (type "session"), else the id after '_' in the file name. Codex: the id of the first
session_meta line, else the uuid at the end of the file name. Files that hold no unit add nothing.
"""

import json
import os
import re

KINDS = ("user_prompt", "assistant_text", "thinking", "tool_input", "tool_output", "summary")
AGENTS = ("claude", "omp", "pi", "codex")

# Injected text a user never typed: osearch hides it (SPEC §4), so it is no user prompt here either.
INJECTED_PREFIXES = ("<local-command-caveat>", "Caveat: The messages below were generated", "<system-reminder>",
                     "<task-notification>", "<local-command-stdout>", "<local-command-stderr>")
COMMAND_ARGS_RE = re.compile(r"<command-args>(.*?)</command-args>", re.S)
IDE_BLOCK_RE = re.compile(r"^\s*<(ide_opened_file|ide_selection)>.*?</\1>", re.S)
UUID_TAIL_RE = re.compile(r"([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})$")

_decoder = json.JSONDecoder()


def json_objects(line):
    """The JSON objects of one line; glued objects (`…}{"type":…`) are split, bad text skipped."""
    line = line.strip()
    out, pos = [], 0
    while pos < len(line):
        try:
            obj, end = _decoder.raw_decode(line, pos)
        except ValueError:
            nxt = line.find("{", pos + 1)
            if nxt < 0:
                break
            pos = nxt
            continue
        if isinstance(obj, dict):
            out.append(obj)
        pos = end
        while pos < len(line) and line[pos] in " \t\r":
            pos += 1
    return out


def read_objects(path, stats):
    try:
        fh = open(path, encoding="utf-8", errors="replace")
    except OSError:
        stats["files_unreadable"] = stats.get("files_unreadable", 0) + 1
        return
    with fh:
        for line in fh:
            if line.strip():
                yield from json_objects(line)


def string_leaves(value, out):
    """Every string inside a JSON value, in document order (keys are not text)."""
    if isinstance(value, str):
        if value.strip():
            out.append(value)
    elif isinstance(value, dict):
        for v in value.values():
            string_leaves(v, out)
    elif isinstance(value, list):
        for v in value:
            string_leaves(v, out)
    return out


def blocks_text(content, block_type="text", field="text"):
    """The text of a string content, or of its blocks of one type joined by newlines."""
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return ""
    parts = [b.get(field) for b in content if isinstance(b, dict) and b.get("type") == block_type]
    return "\n".join(p for p in parts if isinstance(p, str) and p)


# ---------------------------------------------------------------------------------------
# Claude Code

def claude_user_prompt(text):
    """What the user typed in one user text, or '' for injected text."""
    t = text.lstrip()
    if t.startswith(INJECTED_PREFIXES):
        return ""
    if t.startswith("<command-name>") or t.startswith("<command-message>"):
        return "\n".join(a.strip() for a in COMMAND_ARGS_RE.findall(t) if a.strip())
    while IDE_BLOCK_RE.match(text):  # IDE context blocks prepended to the typed prompt
        text = IDE_BLOCK_RE.sub("", text, count=1)
    return text


def claude_units(obj, emit):
    typ = obj.get("type")
    msg = obj.get("message")
    if typ not in ("user", "assistant") or not isinstance(msg, dict):
        return
    content = msg.get("content")
    if typ == "assistant":
        blocks = content if isinstance(content, list) else [{"type": "text", "text": content}]
        emit("assistant_text", blocks_text(blocks))
        emit("thinking", blocks_text(blocks, "thinking", "thinking"))
        for b in blocks:
            if isinstance(b, dict) and b.get("type") == "tool_use":
                emit("tool_input", "\n".join(string_leaves(b.get("input"), [])))
        return
    if obj.get("isMeta") or msg.get("isMeta"):
        return
    if obj.get("isCompactSummary"):
        emit("summary", blocks_text(content))
        return
    if isinstance(content, str):
        emit("user_prompt", claude_user_prompt(content))
        return
    if not isinstance(content, list):
        return
    emit("user_prompt", claude_user_prompt(blocks_text(content)))
    for b in content:
        if isinstance(b, dict) and b.get("type") == "tool_result":
            emit("tool_output", blocks_text(b.get("content")))


def claude_files(root):
    """(path, session id or None = from the lines) of every Claude transcript under root."""
    out = []
    for project in sorted(os.listdir(root)) if os.path.isdir(root) else []:
        pdir = os.path.join(root, project)
        if not os.path.isdir(pdir):
            continue
        for name in sorted(os.listdir(pdir)):
            p = os.path.join(pdir, name)
            if os.path.isfile(p) and name.endswith(".jsonl"):
                out.append((p, None if name.startswith("agent-") else name[:-6]))
            elif os.path.isdir(os.path.join(p, "subagents")):
                for dp, dns, fns in os.walk(os.path.join(p, "subagents")):
                    dns.sort()
                    out.extend((os.path.join(dp, f), name) for f in sorted(fns)
                               if f.startswith("agent-") and f.endswith(".jsonl"))
    return out


def extract_claude(root, units, stats):
    for path, sid in claude_files(root):
        pending = []
        for obj in read_objects(path, stats):
            if sid is None and isinstance(obj.get("sessionId"), str) and obj["sessionId"]:
                sid = obj["sessionId"]
            claude_units(obj, lambda kind, text: pending.append((kind, text)))
        stats["files"] = stats.get("files", 0) + 1
        if sid is None:
            stats["files_without_session"] = stats.get("files_without_session", 0) + 1
            continue
        units.extend(("claude", sid, k, t) for k, t in pending)


# ---------------------------------------------------------------------------------------
# omp and pi (one family)

def pi_message_units(m, emit):
    role = m.get("role")
    content = m.get("content")
    if role == "user":
        emit("user_prompt", blocks_text(content))
    elif role == "assistant":
        emit("assistant_text", blocks_text(content))
        emit("thinking", blocks_text(content, "thinking", "thinking"))
        for b in content if isinstance(content, list) else []:
            if isinstance(b, dict) and b.get("type") == "toolCall":
                emit("tool_input", "\n".join(string_leaves(b.get("arguments"), [])))
    elif role == "toolResult":
        emit("tool_output", blocks_text(content))
    elif role == "bashExecution":  # the user's own `!cmd`: its command and output
        emit("tool_input", m.get("command") if isinstance(m.get("command"), str) else "")
        emit("tool_output", m.get("output") if isinstance(m.get("output"), str) else "")
    elif role in ("compactionSummary", "branchSummary"):
        emit("summary", m.get("summary") if isinstance(m.get("summary"), str) else "")


def pi_file_id(path):
    stem = os.path.basename(path)[:-6]
    return stem.split("_", 1)[1] if "_" in stem else stem


def extract_pi_family(agent, root, units, stats):
    for dp, dns, fns in sorted(os.walk(root)):
        dns.sort()
        for fn in sorted(fns):
            if not fn.endswith(".jsonl"):
                continue
            path = os.path.join(dp, fn)
            sid, pending = None, []
            for obj in read_objects(path, stats):
                typ = obj.get("type")
                emit = lambda kind, text: pending.append((kind, text))  # noqa: E731
                if typ == "session":
                    if sid is None and isinstance(obj.get("id"), str) and obj["id"]:
                        sid = obj["id"]
                elif typ == "message" and isinstance(obj.get("message"), dict):
                    pi_message_units(obj["message"], emit)
                elif typ in ("compaction", "branch_summary"):
                    emit("summary", obj.get("summary") if isinstance(obj.get("summary"), str) else "")
            stats["files"] = stats.get("files", 0) + 1
            units.extend((agent, sid or pi_file_id(path), k, t) for k, t in pending)


# ---------------------------------------------------------------------------------------
# Codex

def codex_output_text(out):
    if isinstance(out, list):
        return "\n".join(x.get("text") for x in out if isinstance(x, dict) and isinstance(x.get("text"), str))
    if isinstance(out, dict):
        return out.get("output") if isinstance(out.get("output"), str) else "\n".join(string_leaves(out, []))
    if isinstance(out, str):
        if out.startswith("{"):
            try:
                j = json.loads(out)
                if isinstance(j, dict) and isinstance(j.get("output"), str):
                    return j["output"]
            except ValueError:
                pass
        return out
    return ""


def codex_units(obj, emit):
    typ, p = obj.get("type"), obj.get("payload")
    if not isinstance(p, dict):
        return
    if typ == "event_msg" and p.get("type") == "user_message":
        emit("user_prompt", p.get("message") if isinstance(p.get("message"), str) else "")
    elif typ == "compacted":
        emit("summary", p.get("message") if isinstance(p.get("message"), str) else "")
    elif typ == "response_item":
        it = p.get("type")
        if it == "message" and p.get("role") == "assistant":
            emit("assistant_text", blocks_text(p.get("content"), "output_text"))
        elif it == "reasoning":
            emit("thinking", blocks_text(p.get("summary"), "summary_text"))
        elif it == "function_call":
            args = p.get("arguments")
            if isinstance(args, str):
                try:
                    args = json.loads(args)
                except ValueError:
                    pass
            emit("tool_input", "\n".join(string_leaves(args, [])))
        elif it == "custom_tool_call":
            emit("tool_input", "\n".join(string_leaves(p.get("input"), [])))
        elif it == "local_shell_call":
            emit("tool_input", "\n".join(string_leaves(p.get("action"), [])))
        elif it in ("function_call_output", "custom_tool_call_output"):
            emit("tool_output", codex_output_text(p.get("output")))


def extract_codex(root, units, stats):
    for dp, dns, fns in sorted(os.walk(root)):
        dns.sort()
        for fn in sorted(fns):
            if not fn.startswith("rollout-"):
                continue
            if fn.endswith(".jsonl.zst"):
                # python 3.11 has no zstd in its standard library; such rollouts are counted, not read
                stats["zst_files_skipped"] = stats.get("zst_files_skipped", 0) + 1
                continue
            if not fn.endswith(".jsonl"):
                continue
            path = os.path.join(dp, fn)
            sid, pending = None, []
            for obj in read_objects(path, stats):
                if obj.get("type") == "session_meta" and sid is None:
                    pid = (obj.get("payload") or {}).get("id") if isinstance(obj.get("payload"), dict) else None
                    if isinstance(pid, str) and pid:
                        sid = pid
                codex_units(obj, lambda kind, text: pending.append((kind, text)))
            stats["files"] = stats.get("files", 0) + 1
            if sid is None:
                m = UUID_TAIL_RE.search(fn[:-6])
                sid = m.group(1) if m else None
            if sid is None:
                stats["files_without_session"] = stats.get("files_without_session", 0) + 1
                continue
            units.extend(("codex", sid, k, t) for k, t in pending)


def extract(sources):
    """sources: list of (agent, root). Returns (units, stats) with empty texts dropped."""
    units, stats = [], {}
    for agent, root in sources:
        st = stats.setdefault(agent, {})
        if not os.path.isdir(root):
            st["missing_root"] = root
            continue
        raw = []
        if agent == "claude":
            extract_claude(root, raw, st)
        elif agent in ("omp", "pi"):
            extract_pi_family(agent, root, raw, st)
        elif agent == "codex":
            extract_codex(root, raw, st)
        else:
            raise ValueError(f"unknown agent {agent!r}")
        kept = [u for u in raw if isinstance(u[3], str) and u[3].strip()]
        st["units"] = len(kept)
        st["sessions"] = len({u[1] for u in kept})
        units.extend(kept)
    return units, stats
