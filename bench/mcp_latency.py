#!/usr/bin/env python3
"""An agent's call through `osearch mcp` against the same question asked of the CLI, in one run.

A warm server (initialize, then WARM calls) answers each tools/call on its kept reader, with the lazy
refresh of every call included (the default path); the CLI pays a process start, an index open and the
same refresh per call. Both are timed from the caller's side, as an agent sees them: one JSON line written,
one read for MCP; fork, exec and the whole output for the CLI. Medians and p90 in ms. The last row is an
agent's usual case: its own transcript grew since its last call (one line appended before each call, whose
new word the call must find).

usage: bench/mcp_latency.py OSEARCH --index DIR [--source KIND=DIR]... [--runs N] [--query WORD]
"""

import argparse
import json
import os
import statistics
import subprocess
import time
import uuid


def quantiles(xs):
    xs = sorted(xs)
    return statistics.median(xs), xs[min(len(xs) - 1, int(len(xs) * 0.9))]


class Server:
    def __init__(self, argv):
        self.p = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)
        self.next_id = 0
        self.rpc("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                                "clientInfo": {"name": "mcp_latency", "version": "1"}})
        self.p.stdin.write(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}) + "\n")

    def rpc(self, method, params):
        self.next_id += 1
        self.p.stdin.write(json.dumps({"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params}) + "\n")
        self.p.stdin.flush()
        answer = json.loads(self.p.stdout.readline())
        if "error" in answer:
            raise RuntimeError(f"{method}: {answer['error']}")
        return answer["result"]

    def close(self):
        self.p.stdin.close()
        self.p.wait()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("osearch")
    ap.add_argument("--index", required=True)
    ap.add_argument("--source", action="append", default=[])
    ap.add_argument("--runs", type=int, default=50)
    ap.add_argument("--warm", type=int, default=5)
    ap.add_argument("--query", default="error")
    a = ap.parse_args()
    common = ["--index", a.index] + [x for s in a.source for x in ("--source", s)]

    # The session for read_thread: the newest one `list` gives.
    listed = json.loads(subprocess.run([a.osearch, "list", "--limit", "1", "--format", "json", *common],
                                       capture_output=True, text=True, check=True).stdout)
    session = listed["results"][0]["session_id"]
    # An agent's own transcript grows between its calls: before each timed call of the "after an
    # append" row, one user line with a new word goes to the newest Claude transcript, and the call
    # must find it. The file is cut back to its size at the end.
    transcript = listed["results"][0]["path"]
    transcript_size = os.path.getsize(transcript)
    with open(transcript) as f:
        template = json.loads(f.read().splitlines()[-1])

    def appended_word():
        word = "zqappend" + uuid.uuid4().hex[:12]
        line = dict(template, uuid=str(uuid.uuid4()), type="user", parentUuid=None,
                    message={"role": "user", "content": "appended " + word})
        line.pop("toolUseResult", None)
        with open(transcript, "a") as f:
            f.write(json.dumps(line) + "\n")
        return word

    cases = [  # (label, tool, arguments, the CLI's arguments)
        ("keyword", "search_keyword", {"query": a.query, "limit": 20}, ["keyword", a.query, "--limit", "20"]),
        ("list", "list_sessions", {"limit": 20}, ["list", "--limit", "20"]),
        ("content -F", "search_content", {"pattern": a.query, "fixed": True, "limit": 20},
         ["content", "-F", a.query, "--limit", "20"]),
        ("thread --limit 50", "read_thread", {"session": session, "limit": 50},
         ["thread", session, "--limit", "50"]),
        ("overview", "overview", {}, ["overview"]),
    ]
    if listed["results"][0]["agent"] == "claude":  # (the line below is one of Claude Code's)
        cases.append(("keyword after an append", "search_keyword", None, None))
    server = Server([a.osearch, "mcp", *common])
    rows = []

    def mcp_call(tool, args):
        word = None
        if args is None:  # the appended word
            word = appended_word()
            args = {"query": word, "limit": 20}
        t = time.perf_counter()
        r = server.rpc("tools/call", {"name": tool, "arguments": args})
        ms = (time.perf_counter() - t) * 1000
        if r.get("isError"):
            raise RuntimeError(f"{tool}: {r['content'][0]['text']}")
        if word and word not in r["content"][0]["text"]:
            raise RuntimeError(f"{tool}: the appended {word} was not found")
        return ms

    def cli_call(cli):
        word = None
        if cli is None:
            word = appended_word()
            cli = ["keyword", word, "--limit", "20"]
        t = time.perf_counter()
        out = subprocess.run([a.osearch, *cli, "--format", "json", *common], capture_output=True, text=True, check=True)
        ms = (time.perf_counter() - t) * 1000
        if word and word not in out.stdout:
            raise RuntimeError(f"the CLI did not find the appended {word}")
        return ms

    try:
        for label, tool, args, cli in cases:
            for _ in range(a.warm):
                mcp_call(tool, args)
            mcp = [mcp_call(tool, args) for _ in range(a.runs)]
            for _ in range(a.warm):
                cli_call(cli)
            proc = [cli_call(cli) for _ in range(a.runs)]
            (m50, m90), (c50, c90) = quantiles(mcp), quantiles(proc)
            rows.append({"command": label, "mcp_median_ms": round(m50, 2), "mcp_p90_ms": round(m90, 2),
                         "cli_median_ms": round(c50, 2), "cli_p90_ms": round(c90, 2),
                         "cli_over_mcp": round(c50 / m50, 1)})
    finally:
        os.truncate(transcript, transcript_size)
        server.close()
    print(json.dumps({"runs": a.runs, "query": a.query, "rows": rows}, indent=1))
    print(f"{'command':20} {'mcp med':>8} {'p90':>7} {'cli med':>8} {'p90':>7} {'cli/mcp':>8}")
    for r in rows:
        print(f"{r['command']:20} {r['mcp_median_ms']:8.2f} {r['mcp_p90_ms']:7.2f} {r['cli_median_ms']:8.2f} "
              f"{r['cli_p90_ms']:7.2f} {r['cli_over_mcp']:8.1f}")


if __name__ == "__main__":
    main()
