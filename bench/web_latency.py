#!/usr/bin/env python3
"""The web app's latency (issue 14): `osearch serve` on an index, timed from the client's side.

    python3 bench/web_latency.py --osearch build/osearch --index DIR --corpus DIR [--runs 50] [--no-refresh]

It starts `osearch serve --port 0` (the default path: every API call refreshes lazily, as the CLI does,
unless --no-refresh), then measures over HTTP on one keep-alive connection:
  page_http   the first page load as HTTP requests, one after another: ?token= (303 and the cookie), the
              page, its CSS and JS modules, and the three API calls the session list starts with
              (list, overview, generation): an upper bound of what a browser does in parallel
  keyword     /api/keyword?query=WORD&limit=50 (what the search box sends), round-robin over a few words
  list        /api/list?limit=50
  content     /api/content?pattern=WORD&limit=50 (the regex toggle)
  thread      /api/thread/<the longest session>?limit=400 (the thread view's first page)
and, when node and tests/web's puppeteer-core and /usr/bin/chromium are there, the first page load in
headless chromium (bench/web_page_load.mjs): navigation start to the load event, and to the first session
row drawn, in a fresh browser context (which starts a renderer process) and on a reload of the same tab;
then the thread view of the longest session opened from the list (first message drawn, all drawn). Medians and p99 in ms; prints one JSON object.
"""
import argparse
import http.client
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import time
import urllib.parse

HERE = os.path.dirname(os.path.abspath(__file__))
WORDS = ["error", "migration", "test", "function", "database", "config", "deploy", "refactor"]
ASSETS = ["/app.css", "/app.js", "/util.js", "/sessions.js", "/thread.js", "/diff.js", "/memories.js",
          "/markdown.js", "/usage.js", "/files.js"]


def stats(xs):
    xs = sorted(xs)
    return {"n": len(xs), "median_ms": round(statistics.median(xs), 2),
            "p99_ms": round(xs[min(len(xs) - 1, int(len(xs) * 0.99))], 2), "max_ms": round(xs[-1], 2)}


class Client:
    def __init__(self, port, token):
        self.port, self.token = port, token
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)

    def get(self, target, headers=None):
        h = {"X-Osearch-Token": self.token}
        h.update(headers or {})
        t = time.perf_counter()
        self.conn.request("GET", target, headers=h)
        r = self.conn.getresponse()
        body = r.read()
        ms = (time.perf_counter() - t) * 1000
        return r.status, body, ms, r


def timed_api(c, targets, runs):
    out = []
    for _ in range(2):  # warm-up
        for t in targets:
            c.get(t)
    for i in range(runs):
        status, body, ms, _ = c.get(targets[i % len(targets)])
        if status != 200:
            raise SystemExit(f"{targets[i % len(targets)]}: HTTP {status}: {body[:300]!r}")
        out.append(ms)
    return stats(out)


def page_http(port, token, runs):
    out = []
    for _ in range(runs + 2):
        c = Client(port, "")
        t0 = time.perf_counter()
        status, _, _, r = c.get("/?token=" + token)
        assert status == 303, status
        cookie = r.getheader("Set-Cookie").split(";")[0]
        status, _, _, _ = c.get("/", {"Cookie": cookie})
        assert status == 200
        for a in ASSETS:
            status, _, _, _ = c.get(a, {"Cookie": cookie})
            assert status == 200, a
        c.token = token
        for api in ["/api/list?limit=50&offset=0", "/api/overview?projects=500&sessions=0", "/api/generation"]:
            status, body, _, _ = c.get(api)
            assert status == 200, (api, body[:200])
        out.append((time.perf_counter() - t0) * 1000)
        c.conn.close()
    return stats(out[2:])


def chromium_load(url, runs, thread_id):
    node = shutil.which("node")
    modules = os.path.join(HERE, "..", "tests", "web", "node_modules", "puppeteer-core")
    if not node or not os.path.isdir(modules) or not os.path.exists("/usr/bin/chromium"):
        return {"skipped": "needs node, tests/web/node_modules (make deps) and /usr/bin/chromium"}
    r = subprocess.run([node, os.path.join(HERE, "web_page_load.mjs"), url, str(runs), thread_id], capture_output=True,
                       text=True, timeout=900)
    if r.returncode != 0:
        return {"error": r.stderr[-600:]}
    everything = json.loads(r.stdout)
    samples = [s for s in everything if "load" in s]
    threads = [s for s in everything if "thread_first" in s]
    return {"thread_first_message": stats([s["thread_first"] for s in threads]),
            "thread_all_drawn": stats([s["thread_all"] for s in threads]),
            "load_event": stats([s["load"] for s in samples]), "first_rows": stats([s["rows"] for s in samples]),
            "html_received": stats([s["commit"] for s in samples]),
            "reload_load_event": stats([s["reload"] for s in samples]),
            "reload_first_rows": stats([s["reload_rows"] for s in samples])}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--osearch", required=True)
    ap.add_argument("--index", required=True)
    ap.add_argument("--corpus", required=True, help="the claude source the index was built from")
    ap.add_argument("--runs", type=int, default=50)
    ap.add_argument("--no-refresh", action="store_true")
    args = ap.parse_args()

    argv = [args.osearch, "serve", "--port", "0", "--index", args.index, "--source", "claude=" + args.corpus]
    if args.no_refresh:
        argv.append("--no-refresh")
    server = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        url = server.stdout.readline().strip()
        m = re.match(r"http://127\.0\.0\.1:(\d+)/\?token=([0-9a-f]+)$", url)
        if not m:
            raise SystemExit(f"osearch serve printed {url!r}")
        port, token = int(m.group(1)), m.group(2)
        c = Client(port, token)
        result = {"url_form": "http://127.0.0.1:PORT/?token=…", "refresh": not args.no_refresh, "runs": args.runs}
        t = time.perf_counter()
        status, body, _, _ = c.get("/api/status")
        result["first_api_call_ms"] = round((time.perf_counter() - t) * 1000, 2)  # the reader opened (and refreshed)
        st = json.loads(body)
        result["index"] = {"sessions": st.get("sessions"), "messages": st.get("messages"),
                           "size_bytes": st.get("size_bytes")}
        _, body, _, _ = c.get("/api/list?limit=1000")
        longest = max(json.loads(body)["results"], key=lambda s: s["message_count"])
        result["page_http"] = page_http(port, token, max(10, args.runs // 5))
        result["keyword"] = timed_api(c, [f"/api/keyword?query={urllib.parse.quote(w)}&limit=50&offset=0" for w in WORDS],
                                      args.runs)
        result["keyword"]["words"] = WORDS
        result["list"] = timed_api(c, ["/api/list?limit=50&offset=0"], args.runs)
        result["content"] = timed_api(c, [f"/api/content?pattern={urllib.parse.quote(w)}&limit=50&timeout=5" for w in WORDS[:4]],
                                      max(10, args.runs // 5))
        result["thread"] = timed_api(c, [f"/api/thread/{urllib.parse.quote(longest['session_id'])}?offset=0&limit=400&max-chars=100000"],
                                     max(10, args.runs // 5))
        result["thread"]["messages"] = longest["message_count"]
        result["chromium"] = chromium_load(url, max(10, args.runs // 5), longest["session_id"])
        print(json.dumps(result, indent=1))
    finally:
        server.terminate()
        server.wait(timeout=30)


if __name__ == "__main__":
    sys.exit(main())
