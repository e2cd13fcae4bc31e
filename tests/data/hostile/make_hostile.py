#!/usr/bin/env python3
"""Writes the hostile Claude Code corpus of issue 7 (run by tests/hostile_test.cpp at test time, so
nothing big is committed) and the counts the repair rules predict for it.

usage: make_hostile.py OUT_DIR [CASE ...]      (no CASE: every case; --list: the case names)

OUT_DIR/claude/<slug>/<session>.jsonl   one session per hostile input, each with a unique marker word
OUT_DIR/expected.json                   {"sessions", "repaired_lines", "bad_lines", "cases": {name: {...}}}

The rules the expectations encode (issue 7, "Invalid text drops whole lines"): a line simdjson rejects
gets one repair pass -- invalid UTF-8 -> U+FFFD, a \\uD800-\\uDFFF escape outside a valid pair ->
\\uFFFD, NUL bytes outside strings removed (a line of only NULs is an empty line: ignored, not bad),
a number simdjson cannot represent (1e999) -> kept as a string. A repaired line that parses is
indexed and counted in `repaired_lines`; otherwise it is a bad line (`bad_lines`). Over-long key
fields are stored under bounded keys and stay searchable. A truncated final line waits for more
bytes (neither bad nor indexed). Every case keeps one clean message, so its session exists whatever
happens to the hostile line; the marker sits in the hostile part, so finding it proves the part was
kept.
"""
import json
import os
import random
import sys

SLUG = "-tmp-hostile"
LONG = 600  # bytes: past LMDB's 511-byte key limit


def sid(n):
    return "e0000000-0000-4000-8000-%012x" % n


def ts(n, k=0):
    return "2026-03-01T%02d:%02d:%02d.000Z" % (10 + n // 60, n % 60, k % 60)


def long_id(prefix, n):
    body = ("%02x" % n) * LONG
    return (prefix + body)[:LONG]


def dumps(obj):
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":"))


def user(n, k, text, session, cwd="/tmp/hostile", uuid=None, **extra):
    obj = {"type": "user", "uuid": uuid or "u-%d-%d" % (n, k), "parentUuid": None, "sessionId": session,
           "timestamp": ts(n, k), "cwd": cwd, "gitBranch": "main", "version": "2.1.0",
           "message": {"role": "user", "content": text}}
    obj.update(extra)
    return dumps(obj)


def assistant(n, k, blocks, session, cwd="/tmp/hostile", msg_id=None, parent=None, **extra):
    if isinstance(blocks, str):
        blocks = [{"type": "text", "text": blocks}]
    obj = {"type": "assistant", "uuid": "a-%d-%d" % (n, k), "parentUuid": parent, "sessionId": session,
           "timestamp": ts(n, k), "cwd": cwd, "gitBranch": "main", "version": "2.1.0",
           "message": {"id": msg_id or "msg_%d_%d" % (n, k), "model": "claude-opus-4-5", "type": "message",
                       "role": "assistant", "content": blocks, "stop_reason": None,
                       "usage": {"input_tokens": 1, "output_tokens": 1}}}
    obj.update(extra)
    return dumps(obj)


class Corpus:
    def __init__(self, out):
        self.root = os.path.join(out, "claude")
        self.out = out
        self.cases = {}

    def write(self, rel, data):
        path = os.path.join(self.root, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        if isinstance(data, str):
            data = data.encode("utf-8")
        with open(path, "wb") as f:
            f.write(data)
        return path

    def case(self, name, session, marker, sessions=1, repaired=0, bad=0, **more):
        self.cases[name] = dict(session=session, marker=marker, sessions=sessions, repaired_lines=repaired,
                                bad_lines=bad, **more)


def lines(*ls):
    return "".join(l + "\n" for l in ls)


# Each case: (corpus, n) -> writes its files and records its expectations.

def case_surrogate(c, n):
    s = sid(n)
    damaged = user(n, 1, "hostilesurrogate half of a pair: @@ end", s).replace("@@", "\\ud800")
    c.write(f"{SLUG}/{s}.jsonl", lines(assistant(n, 0, "clean line", s), damaged))
    c.case("surrogate", s, "hostilesurrogate", repaired=1)


def case_invalid_utf8(c, n):
    s = sid(n)
    damaged = user(n, 1, "hostileinvalidutf raw @@ bytes", s).encode().replace(b"@@", b"\xff\xfe\xc3(")
    c.write(f"{SLUG}/{s}.jsonl", lines(assistant(n, 0, "clean line", s)).encode() + damaged + b"\n")
    c.case("invalid_utf8", s, "hostileinvalidutf", repaired=1)


def case_nul_bytes(c, n):
    s = sid(n)
    data = (lines(assistant(n, 0, "clean line", s)).encode()
            + user(n, 1, "hostilenulbytes then trailing NULs", s).encode() + b"\0\0\0\0\n"
            + b"\0" * 16 + b"\n"      # a line of only NULs: an empty line
            + b"\0" * 64)             # a preallocated tail of NULs, no newline
    c.write(f"{SLUG}/{s}.jsonl", data)
    c.case("nul_bytes", s, "hostilenulbytes", repaired=1)


def case_big_number(c, n):
    s = sid(n)
    damaged = user(n, 1, "hostilebignumber beyond a double", s, costUSD=0).replace('"costUSD":0', '"costUSD":1e999')
    c.write(f"{SLUG}/{s}.jsonl", lines(assistant(n, 0, "clean line", s), damaged))
    c.case("big_number", s, "hostilebignumber", repaired=1)


def case_long_uuid(c, n):
    s = sid(n)
    u = long_id("u", n)
    c.write(f"{SLUG}/{s}.jsonl", lines(user(n, 0, "hostilelonguuid a 600-byte uuid", s, uuid=u),
                                       assistant(n, 1, "reply to the long uuid", s, parent=u)))
    c.case("long_uuid", s, "hostilelonguuid")


def case_long_tool_id(c, n):
    s = sid(n)
    t = long_id("toolu_", n)
    call = {"type": "tool_use", "id": t, "name": "Bash", "input": {"command": "echo hostilelongtoolid"}}
    result = [{"type": "tool_result", "tool_use_id": t, "content": "hostilelongtoolid"}]
    c.write(f"{SLUG}/{s}.jsonl", lines(user(n, 0, "run it", s), assistant(n, 1, [call], s),
                                       user(n, 2, result, s)))
    c.case("long_tool_id", s, "hostilelongtoolid")


def case_long_message_id(c, n):
    s = sid(n)
    m = long_id("msg_", n)
    c.write(f"{SLUG}/{s}.jsonl", lines(user(n, 0, "question", s),
                                       assistant(n, 1, "hostilelongmsgid first chunk", s, msg_id=m),
                                       assistant(n, 2, "second chunk, same api message", s, msg_id=m)))
    c.case("long_message_id", s, "hostilelongmsgid")


def case_long_leaf_uuid(c, n):
    s = sid(n)
    leaf = long_id("l", n)
    c.write(f"{SLUG}/{s}.jsonl", lines(dumps({"type": "summary", "summary": "hostileleaftitle", "leafUuid": leaf}),
                                       user(n, 0, "hostilelongleaf under a summary with a long leafUuid", s),
                                       dumps({"type": "last-prompt", "lastPrompt": "p", "leafUuid": leaf,
                                              "sessionId": s})))
    c.case("long_leaf_uuid", s, "hostilelongleaf")


def case_long_agent_id(c, n):
    s = sid(n)
    a = long_id("a", n)
    spawn = [{"type": "tool_result", "tool_use_id": "toolu_spawn", "content": "agentId: " + a}]
    c.write(f"{SLUG}/{s}.jsonl", lines(user(n, 0, "spawn an agent", s),
                                       user(n, 1, spawn, s, toolUseResult={"agentId": a, "totalDurationMs": 5,
                                                                           "totalTokens": 7, "status": "completed"})))
    c.write(f"{SLUG}/{s}/subagents/agent-a{n:06x}.jsonl",
            lines(user(n, 2, "hostilelongagent inside the subagent", s, isSidechain=True, agentId=a),
                  assistant(n, 3, "subagent reply", s, isSidechain=True, agentId=a)))
    c.case("long_agent_id", s, "hostilelongagent")


def case_long_session_id(c, n):
    s = long_id("s", n)
    c.write(f"{SLUG}/agent-b{n:06x}.jsonl",
            lines(user(n, 0, "hostilelongsession in a root agent file", s, isSidechain=True, agentId="b%06x" % n),
                  assistant(n, 1, "reply", s, isSidechain=True, agentId="b%06x" % n)))
    c.case("long_session_id", s, "hostilelongsession")


def case_long_path(c, n):
    s = sid(n)
    slug = ("-deep" + "-nested-directory" * 20)[:240]
    long_file = "/deep" + "/nested-directory" * 40  # 685 bytes: a tool call's file path is a key too
    call = {"type": "tool_use", "id": "toolu_lp", "name": "Read", "input": {"file_path": long_file}}
    c.write(f"{slug}/{s}.jsonl", lines(user(n, 0, "read the deep file", s, cwd=long_file),
                                       assistant(n, 1, [call], s, cwd=long_file)))
    agent = "a" + "0123456789" * 21  # the path passes 511 bytes even under a short root
    c.write(f"{slug}/{s}/subagents/agent-{agent}.jsonl",
            lines(user(n, 2, "hostilelongpath in a file whose path is over 511 bytes", s, isSidechain=True,
                       agentId=agent)))
    c.case("long_path", s, "hostilelongpath")


def case_many_lines(c, n):
    s = sid(n)
    body = ['{"type":"user","uuid":"t%d","message":{"role":"user","content":"w%d"}}' % (i, i) for i in range(99_999)]
    body.append(user(n, 2, "hostilemanylines after 99999 tiny lines", s))
    c.write(f"{SLUG}/{s}.jsonl", lines(*body))
    c.case("many_lines", s, "hostilemanylines")


def case_huge_line(c, n):
    s = sid(n)
    filler = "lorem ipsum dolor sit amet " * (20_000_000 // 27)
    result = [{"type": "tool_result", "tool_use_id": "toolu_huge", "content": filler + "hostilehugeline"}]
    c.write(f"{SLUG}/{s}.jsonl", lines(user(n, 0, "cat the big file", s), user(n, 1, result, s)))
    c.case("huge_line", s, "hostilehugeline")


def case_glued(c, n):
    s = sid(n)
    glued = (user(n, 0, "first of two glued objects", s) + assistant(n, 1, "hostileglued second object", s)
             + dumps({"type": "summary", "summary": "glued summary", "leafUuid": "a-%d-1" % n}))
    c.write(f"{SLUG}/{s}.jsonl", lines(glued))
    c.case("glued", s, "hostileglued")


def case_truncated(c, n):
    s = sid(n)
    tail = user(n, 1, "hostiletruncatedtail never finished", s)[:-20]
    c.write(f"{SLUG}/{s}.jsonl", lines(user(n, 0, "hostiletruncated complete line", s)) + tail)
    c.case("truncated", s, "hostiletruncated", absent=["hostiletruncatedtail"])


def case_empty_file(c, n):
    c.write(f"{SLUG}/{sid(n)}.jsonl", b"")
    c.case("empty_file", sid(n), None, sessions=0)


def case_binary(c, n):
    rng = random.Random(7)
    junk = bytes(b for b in range(256) if b not in (0x0A, 0x7B, 0x7D))  # no newline, no braces
    rows = [bytes(rng.choice(junk) for _ in range(64)) + b"\x00\x80PK\x03\x04" for _ in range(16)]
    c.write(f"{SLUG}/{sid(n)}.jsonl", b"\n".join(rows) + b"\n")
    c.case("binary", sid(n), None, sessions=0, bad=16)


def case_control(c, n):
    s = sid(n)
    esc = "\x1b]2;hostile title\x07 \x1b[2J \u202etxt.exe"
    cwd = "/tmp/ctl\x1b[2J\u202e"
    c.write(f"{SLUG}/{s}.jsonl", lines(dumps({"type": "custom-title", "customTitle": "title " + esc, "sessionId": s}),
                                       user(n, 0, "hostilecontrol prompt " + esc, s, cwd=cwd),
                                       assistant(n, 1, "reply " + esc, s, cwd=cwd)))
    c.case("control", s, "hostilecontrol", no_controls_in_text=True)


def case_shell_cwd(c, n):
    s = sid(n)
    cwd = "/tmp/x; touch owned; echo"
    c.write(f"{SLUG}/{s}.jsonl", lines(user(n, 0, "hostileshellcwd", s, cwd=cwd), assistant(n, 1, "ok", s, cwd=cwd)))
    c.case("shell_cwd", s, "hostileshellcwd", cwd=cwd)


def case_space_cwd(c, n):
    s = sid(n)
    cwd = "/Users/me/My Projects/app"
    c.write(f"{SLUG}/{s}.jsonl", lines(user(n, 0, "hostilespacecwd", s, cwd=cwd), assistant(n, 1, "ok", s, cwd=cwd)))
    c.case("space_cwd", s, "hostilespacecwd", cwd=cwd)


def case_emoji(c, n):
    s = sid(n)
    c.write(f"{SLUG}/{s}.jsonl", lines(user(n, 0, "\U0001F980\U0001F389\U0001F980", s),
                                       assistant(n, 1, "hostileemoji", s)))
    c.case("emoji", s, "hostileemoji", emoji="\U0001F980")


def case_brackets(c, n):
    s = sid(n)
    c.write(f"{SLUG}/{s}.jsonl", lines(user(n, 0, "hostilebrackets [0-9] [a,b] -foo", s),
                                       assistant(n, 1, "ok", s)))
    # A decoy that a mangled pattern finds: "[0-9]" read as 0-9, "[a,b]" as a or b, "-foo" as foo.
    d = sid(0x100 + n)
    c.write(f"{SLUG}/{d}.jsonl", lines(user(n, 2, "0-9 a b foo", d), assistant(n, 3, "decoy", d)))
    c.case("brackets", s, "hostilebrackets", sessions=2, literals=["[0-9]", "[a,b]", "-foo"])


CASES = [case_surrogate, case_invalid_utf8, case_nul_bytes, case_big_number, case_long_uuid, case_long_tool_id,
         case_long_message_id, case_long_leaf_uuid, case_long_agent_id, case_long_session_id, case_long_path,
         case_many_lines, case_huge_line, case_glued, case_truncated, case_empty_file, case_binary, case_control,
         case_shell_cwd, case_space_cwd, case_emoji, case_brackets]


def main():
    names = [f.__name__[len("case_"):] for f in CASES]
    if sys.argv[1:] == ["--list"]:
        print("\n".join(names))
        return
    out, wanted = sys.argv[1], sys.argv[2:]
    unknown = set(wanted) - set(names)
    if unknown:
        sys.exit("make_hostile: unknown case(s) " + ", ".join(sorted(unknown)))
    c = Corpus(out)
    os.makedirs(c.root, exist_ok=True)
    for n, f in enumerate(CASES, start=1):
        if not wanted or f.__name__[len("case_"):] in wanted:
            f(c, n)
    totals = {k: sum(v[k] for v in c.cases.values()) for k in ("sessions", "repaired_lines", "bad_lines")}
    with open(os.path.join(out, "expected.json"), "w") as f:
        json.dump(dict(totals, cases=c.cases), f, ensure_ascii=False, indent=1)


if __name__ == "__main__":
    main()
