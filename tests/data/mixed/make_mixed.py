#!/usr/bin/env python3
"""Writes the hand-made mixed-agent corpus of tests/agents_e2e_*_test.cpp (see README.md).

Every line follows the real shapes of formats/omp-pi-codex.md §7; each searchable slot holds one
unique made-up word (ompuserword, pithinkword, codexresultword, ...) that the tests look for.
Run from this directory; the output is committed, so the tests never run this script.
"""
import json, os

def dump(path, objs, final_newline=True, raw_first=None):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    lines = ([raw_first] if raw_first else []) + [json.dumps(o, separators=(",", ":"), ensure_ascii=False) for o in objs]
    text = "\n".join(lines) + ("\n" if final_newline else "")
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)

def title_slot(title, updated):
    """omp's fixed-width first line: exactly 256 bytes including the newline."""
    base = {"type": "title", "v": 1, "title": title, "source": "auto", "updatedAt": updated, "pad": ""}
    n = len(json.dumps(base, separators=(",", ":")).encode()) + 1
    base["pad"] = " " * (256 - n)
    line = json.dumps(base, separators=(",", ":"))
    assert len(line.encode()) + 1 == 256
    return line

PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="
BLOB = "blob:sha256:" + "ab" * 32

def entry(kind, eid, parent, ts, **kw):
    return {"type": kind, "id": eid, "parentId": parent, "timestamp": ts, **kw}

def msg(eid, parent, ts, message):
    return entry("message", eid, parent, ts, message=message)

def text(t):
    return {"type": "text", "text": t}

def usage(i, o, cr, cw):
    return {"input": i, "output": o, "cacheRead": cr, "cacheWrite": cw, "totalTokens": i + o + cr + cw,
            "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0}}

def pi_family_body(p, cwd, day, model_change, agent):
    """The entries shared by the main omp and pi sessions; `p` prefixes every unique word."""
    t = lambda s: f"2026-11-{day}T10:{s}.000Z"
    ms = lambda s: 0  # message-level unix ms are not what the tests read
    e = []
    e.append(entry("model_change", "e0000001", None, t("00:01"), **model_change))
    e.append(entry("thinking_level_change", "e0000002", "e0000001", t("00:02"), thinkingLevel="high"))
    e.append(msg("e0000003", "e0000002", t("00:03"), {"role": "user", "content": [text(f"please look at {p}userword")], "timestamp": 1}))
    e.append(msg("e0000004", "e0000003", t("00:04"), {
        "role": "assistant",
        "content": [{"type": "thinking", "thinking": f"let me think {p}thinkword", "thinkingSignature": "sig"},
                    text(f"here is {p}assistword"),
                    {"type": "toolCall", "id": f"call_{p}1", "name": "bash", "arguments": {"command": f"grep -r {p}argword src"}}],
        "api": "anthropic-messages", "provider": "anthropic", "model": f"{p}-model-x", "usage": usage(100, 20, 5, 1),
        "stopReason": "toolUse", "timestamp": 2}))
    parent = "e0000004"
    if agent == "omp":
        e.append(entry("custom", "e0000005", "e0000004", t("00:05"), customType="tool_execution_start",
                       data={"toolCallId": f"call_{p}1", "toolName": "bash", "startedAt": 3, "args": {"command": "ls"}}))
        parent = "e0000005"
    e.append(msg("e0000006", parent, t("00:06"), {
        "role": "toolResult", "toolCallId": f"call_{p}1", "toolName": "bash",
        "content": [text(f"src/a.txt: {p}resultword\nWall time: 0.1s")], "isError": False, "timestamp": 4}))
    e.append(msg("e0000007", "e0000006", t("00:07"), {
        "role": "bashExecution", "command": "echo run", "output": f"run {p}bashword done", "exitCode": 0,
        "cancelled": False, "truncated": False, "timestamp": 5}))
    e.append(msg("e0000008", "e0000007", t("00:08"), {
        "role": "user", "content": [text(f"see the picture {p}imageword"), {"type": "image", "data": BLOB, "mimeType": "image/png"},
                                    {"type": "image", "data": PNG, "mimeType": "image/png"}], "timestamp": 6}))
    e.append(msg("e0000009", "e0000008", t("00:09"), {
        "role": "assistant", "content": [text(f"second reply {p}secondword")], "api": "anthropic-messages",
        "provider": "anthropic", "model": f"{p}-model-x", "usage": usage(200, 30, 0, 0), "stopReason": "stop", "timestamp": 7}))
    e.append(entry("compaction", "e0000010", "e0000009", t("00:10"), summary=f"The user asked about {p}compactword.",
                   firstKeptEntryId="e0000008", tokensBefore=12345))
    # Two siblings under one parent: the first becomes an abandoned branch.
    e.append(msg("e0000011", "e0000010", t("00:11"), {"role": "user", "content": [text(f"first try {p}siblingone")], "timestamp": 8}))
    e.append(entry("branch_summary", "e0000012", "e0000010", t("00:12"), fromId="e0000011",
                   summary=f"The user explored a different conversation branch before returning here.\nSummary of that exploration:\n{p}branchword"))
    e.append(msg("e0000013", "e0000012", t("00:13"), {"role": "user", "content": [text(f"second try {p}siblingtwo")], "timestamp": 9}))
    e.append(entry("custom", "e0000014", "e0000013", t("00:14"), customType="vibe-note", data={"note": f"{p}customword"}))
    e.append(entry("custom_message", "e0000015", "e0000014", t("00:15"), customType="ext-context",
                   content=f"injected {p}custommsgword", display=False))
    e.append(entry("label", "e0000016", "e0000015", t("00:16"), targetId="e0000003", label="bookmark"))
    e.append(entry("future_kind_never_seen", "e0000017", "e0000016", t("00:17"), payload={"x": [1, 2, {"y": None}]}))
    return e

# ---------------------------------------------------------------- omp
OMP = "01a0b1c2-0000-7000-8000-00000000a001"
OMP2 = "01a0b1c2-0000-7000-8000-00000000a002"
OMPDIR = "omp/sessions/-work-omp-proj"
omp_main = [{"type": "session", "version": 3, "id": OMP, "timestamp": "2026-11-01T10:00:00.000Z", "cwd": "/work/omp proj"}]
omp_main += pi_family_body("omp", "/work/omp proj", "01", {"model": "anthropic/omp-model-x"}, "omp")
omp_main.append(entry("custom", "e0000019", "e0000017", "2026-11-01T10:00:19.000Z", customType="session_exit",
                      data={"reason": "exit", "kind": "normal", "recordedAt": 10}))
dump(f"{OMPDIR}/2026-11-01T10-00-00-000Z_{OMP}.jsonl", omp_main,
     raw_first=title_slot("Zebraslot title", "2026-11-01T10:00:18.000Z"))

# A subagent transcript in the session's artifacts dir, and a tool log that is not a transcript.
SUB = "01a0b1c2-0000-7000-8000-00000000a0f1"
dump(f"{OMPDIR}/2026-11-01T10-00-00-000Z_{OMP}/0-Explore.jsonl", [
    {"type": "session", "version": 3, "id": SUB, "timestamp": "2026-11-01T10:00:30.000Z", "cwd": "/work/omp proj",
     "parentSession": OMP},
    entry("session_init", "s0000001", None, "2026-11-01T10:00:30.000Z", systemPrompt="sys", task="explore the tree", tools=["read"]),
    msg("s0000002", "s0000001", "2026-11-01T10:00:31.000Z", {"role": "user", "content": [text("subagent looks for ompsubagentword")], "timestamp": 1}),
    msg("s0000003", "s0000002", "2026-11-01T10:00:32.000Z", {"role": "assistant", "content": [text("subagent answer")],
        "provider": "anthropic", "model": "omp-model-x", "usage": usage(10, 2, 0, 0), "stopReason": "stop", "timestamp": 2}),
])
with open(f"{OMPDIR}/2026-11-01T10-00-00-000Z_{OMP}/1.bash.log", "w") as f:
    f.write("full bash output ompartifactlogword\n")

# A sibling session created in the same millisecond (same file-name timestamp), no title slot.
dump(f"{OMPDIR}/2026-11-01T10-00-00-000Z_{OMP2}.jsonl", [
    {"type": "session", "version": 3, "id": OMP2, "timestamp": "2026-11-01T10:00:00.000Z", "cwd": "/work/omp-two"},
    entry("model_change", "f0000001", None, "2026-11-01T10:00:00.000Z", model="openai/omp-two-model"),
    msg("f0000002", "f0000001", "2026-11-01T10:00:01.000Z", {"role": "user", "content": [text("hello omptwouserword")], "timestamp": 1}),
    msg("f0000003", "f0000002", "2026-11-01T10:00:02.000Z", {"role": "developer", "content": [text("dev note omptwodevword")], "timestamp": 2}),
    msg("f0000004", "f0000003", "2026-11-01T10:00:03.000Z", {"role": "assistant", "content": [text("answer two")],
        "provider": "openai", "model": "omp-two-model", "usage": usage(7, 3, 0, 0), "stopReason": "stop", "timestamp": 3}),
    entry("title_change", "f0000005", "f0000004", "2026-11-01T10:00:04.000Z", title="Tapirchange title", source="auto"),
    entry("credential_pin", "f0000006", "f0000005", "2026-11-01T10:00:05.000Z", provider="openai", hash="secretpinword"),
])

# A session outside the sessions dir, named by omp/custom-session-files/<7hex> (written by the test,
# since the registry holds absolute paths).
OMP3 = "01a0b1c2-0000-7000-8000-00000000a003"
dump(f"omp-outside/2026-11-01T12-00-00-000Z_{OMP3}.jsonl", [
    {"type": "session", "version": 3, "id": OMP3, "timestamp": "2026-11-01T12:00:00.000Z", "cwd": "/work/omp-outside"},
    msg("g0000001", None, "2026-11-01T12:00:01.000Z", {"role": "user", "content": [text("kept elsewhere ompoutsideword")], "timestamp": 1}),
    msg("g0000002", "g0000001", "2026-11-01T12:00:02.000Z", {"role": "assistant", "content": [text("ok")],
        "provider": "anthropic", "model": "omp-model-x", "usage": usage(1, 1, 0, 0), "stopReason": "stop", "timestamp": 2}),
])

# ---------------------------------------------------------------- pi
PI = "01a0b1c2-0000-7000-8000-00000000b001"
PIDIR = "pi/sessions/--work-pi-proj--"
pi_main = [{"type": "session", "version": 3, "id": PI, "timestamp": "2026-11-02T10:00:00.000Z", "cwd": "/work/pi-proj"}]
pi_main += pi_family_body("pi", "/work/pi-proj", "02", {"provider": "openai", "modelId": "pi-model-x"}, "pi")
pi_main.append(entry("session_info", "e0000018", "e0000017", "2026-11-02T10:00:18.000Z", name="Oldname first"))
pi_main.append(entry("session_info", "e0000019", "e0000018", "2026-11-02T10:00:19.000Z", name="Pititleword name"))
dump(f"{PIDIR}/2026-11-02T10-00-00-000Z_{PI}.jsonl", pi_main)

# A v1 pi file: no version, entries without ids.
PIV1 = "6f0e4f3a-1b2c-4d5e-8f90-a1b2c3d4e5f6"
dump(f"{PIDIR}/2025-06-01T08-00-00-000Z_{PIV1}.jsonl", [
    {"type": "session", "id": PIV1, "timestamp": "2025-06-01T08:00:00.000Z", "cwd": "/work/pi-proj",
     "provider": "anthropic", "modelId": "pi-old-model", "thinkingLevel": "off"},
    {"type": "message", "timestamp": "2025-06-01T08:00:01.000Z", "message": {"role": "user", "content": "old pivoneword question", "timestamp": 1}},
    {"type": "message", "timestamp": "2025-06-01T08:00:02.000Z", "message": {"role": "assistant", "content": [text("old answer")],
        "provider": "anthropic", "model": "pi-old-model", "usage": usage(3, 4, 0, 0), "stopReason": "stop", "timestamp": 2}},
])

# One id, two agents: a pi session and omp's copy of it are two sessions.
SHARED = "01a0b1c2-0000-7000-8000-00000000c001"
shared = [
    {"type": "session", "version": 3, "id": SHARED, "timestamp": "2026-10-20T09:00:00.000Z", "cwd": "/work/shared-proj"},
    msg("h0000001", None, "2026-10-20T09:00:01.000Z", {"role": "user", "content": [text("shared sharedidword text")], "timestamp": 1}),
    msg("h0000002", "h0000001", "2026-10-20T09:00:02.000Z", {"role": "assistant", "content": [text("reply")],
        "provider": "anthropic", "model": "m", "usage": usage(1, 1, 0, 0), "stopReason": "stop", "timestamp": 2}),
]
dump(f"pi/sessions/--work-shared-proj--/2026-10-20T09-00-00-000Z_{SHARED}.jsonl", shared)
dump(f"omp/sessions/-work-shared-proj/2026-10-20T09-00-00-000Z_{SHARED}.jsonl", shared)

# ---------------------------------------------------------------- Codex
CX = "01a0b1c2-0000-7000-8000-00000000d001"
CXP = "01a0b1c2-0000-7000-8000-00000000d000"  # the fork's parent, whose meta is copied as line 2
CX2 = "01a0b1c2-0000-7000-8000-00000000d002"
CXL = "5a6b7c8d-0000-4000-8000-00000000d0aa"
CXN = "01a0b1c2-0000-7000-8000-00000000d003"

def cl(ts, kind, payload):
    return {"timestamp": f"2026-11-03T10:{ts}.000Z", "type": kind, "payload": payload}

def meta(i, cwd, ts="00:00"):
    return cl(ts, "session_meta", {"id": i, "timestamp": f"2026-11-03T10:{ts}.000Z", "cwd": cwd, "originator": "codex_cli_rs",
              "cli_version": "0.146.0-alpha.4", "source": "cli", "model_provider": "openai",
              "git": {"commit_hash": "abc123", "branch": "feat/codex-branch", "repository_url": "https://example.invalid/r.git"}})

def rmsg(ts, role, kind, t):
    return cl(ts, "response_item", {"type": "message", "role": role, "content": [{"type": kind, "text": t}]})

cx = [
    meta(CX, "/work/codex proj"),
    meta(CXP, "/elsewhere/parent", "00:00"),
    cl("00:01", "turn_context", {"cwd": "/work/codex proj", "approval_policy": "on-request", "sandbox_policy": {"type": "workspace-write"},
                                 "model": "gpt-codex-x", "summary": "auto"}),
    rmsg("00:02", "developer", "input_text", "<permissions instructions>codexdevword</permissions instructions>"),
    rmsg("00:02", "user", "input_text", "# AGENTS.md instructions for /work/codex proj\n\n<INSTRUCTIONS>\ncodexagentsword\n</INSTRUCTIONS>"),
    rmsg("00:02", "user", "input_text", "<environment_context>\n  <cwd>/work/codex proj</cwd>\n  <shell>codexenvword</shell>\n</environment_context>"),
    rmsg("00:03", "user", "input_text", "please fix codexuserword"),
    cl("00:03", "event_msg", {"type": "user_message", "message": "please fix codexuserword", "images": [], "local_images": [], "text_elements": []}),
    cl("00:04", "response_item", {"type": "reasoning", "id": "rs_1", "summary": [{"type": "summary_text", "text": "**Thinking** codexreasonword"}],
                                  "encrypted_content": "gAAAAABencryptedcodexsecret"}),
    cl("00:04", "event_msg", {"type": "agent_reasoning", "text": "**Thinking** codexreasonword"}),
    cl("00:05", "response_item", {"type": "function_call", "name": "shell", "arguments": json.dumps({"command": ["bash", "-lc", "grep -r codexargword ."]}),
                                  "call_id": "call_cx1"}),
    cl("00:06", "response_item", {"type": "function_call_output", "call_id": "call_cx1",
                                  "output": json.dumps({"output": "./a.txt: codexresultword\n", "metadata": {"exit_code": 0, "duration_seconds": 0.1}})}),
    cl("00:07", "response_item", {"type": "custom_tool_call", "status": "completed", "call_id": "call_cx2", "name": "apply_patch",
                                  "input": "*** Begin Patch\n*** Update File: a.txt\n+codexpatchword\n*** End Patch"}),
    cl("00:07", "response_item", {"type": "custom_tool_call_output", "call_id": "call_cx2", "output": "Success. Updated a.txt codexpatchoutword"}),
    cl("00:08", "response_item", {"type": "local_shell_call", "call_id": "call_cx3", "status": "completed",
                                  "action": {"type": "exec", "command": ["echo", "codexlocalword"]}}),
    cl("00:08", "response_item", {"type": "function_call_output", "call_id": "call_cx3", "output": "codexlocaloutword"}),
    rmsg("00:09", "assistant", "output_text", "done, codexassistword"),
    cl("00:09", "event_msg", {"type": "agent_message", "message": "done, codexassistword"}),
    cl("00:10", "event_msg", {"type": "token_count", "info": {"total_token_usage": {"input_tokens": 1000, "cached_input_tokens": 400,
        "output_tokens": 50, "reasoning_output_tokens": 10, "total_tokens": 1050}, "last_token_usage": {}, "model_context_window": 200000},
        "rate_limits": None}),
    cl("00:11", "event_msg", {"type": "thread_name_updated", "thread_name": "Codexthreadword thread"}),
    cl("00:12", "compacted", {"message": "Summary: codexcompactword happened", "replacement_history": [
        {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "please fix codexuserword"}]}]}),
    cl("00:13", "event_msg", {"type": "context_compacted"}),
    cl("00:14", "world_state", {"anything": ["codexworldword"]}),
    cl("00:14", "future_record_type", {"anything": 1}),
    meta(CX, "/work/codex proj", "00:15"),  # a resume repeats the meta
    rmsg("00:16", "assistant", "output_text", "after resume codexresumeword"),
]
dump(f"codex/sessions/2026/11/03/rollout-2026-11-03T10-00-00-{CX}.jsonl", cx)

# A second rollout whose title comes only from session_index.jsonl.
cx2 = [meta(CX2, "/work/codex-two", "30:00"),
       cl("30:01", "turn_context", {"cwd": "/work/codex-two", "model": "gpt-codex-y"}),
       cl("30:02", "event_msg", {"type": "user_message", "message": "second codextwouserword", "images": []}),
       rmsg("30:03", "assistant", "output_text", "ok two")]
dump(f"codex/sessions/2026/11/03/rollout-2026-11-03T10-30-00-{CX2}.jsonl", cx2)
dump("codex/session_index.jsonl", [
    {"id": CX2, "thread_name": "Old codex name", "updated_at": "2026-11-03T10:31:00Z"},
    {"id": CX2, "thread_name": "Codexindexword title", "updated_at": "2026-11-03T10:32:00Z"},
])

# Legacy (≤0.3x): a bare meta line, bare ResponseItems, state lines; archived.
dump(f"codex/archived_sessions/rollout-2025-05-01T10-00-00-{CXL}.jsonl", [
    {"id": CXL, "timestamp": "2025-05-01T10:00:00.000Z", "instructions": ""},
    {"record_type": "state"},
    {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "legacy codexlegacyword ask"}]},
    {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "legacy answer"}]},
    {"record_type": "state"},
])

# No final newline (some real copies): the last line is still read.
dump(f"codex/sessions/2026/10/01/rollout-2026-10-01T10-00-00-{CXN}.jsonl", [
    {"timestamp": "2026-10-01T10:00:00.000Z", "type": "session_meta", "payload": {"id": CXN, "cwd": "/work/codex-nl", "cli_version": "0.53.0"}},
    {"timestamp": "2026-10-01T10:00:01.000Z", "type": "event_msg", "payload": {"type": "user_message", "message": "tail codexnonewlineword"}},
], final_newline=False)
