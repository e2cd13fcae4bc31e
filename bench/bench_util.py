"""Process running, timing and statistics helpers for run_bench.py."""

import hashlib
import json
import os
import random
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import uuid as uuidlib
from collections import Counter
from datetime import datetime, timezone


def now_iso():
    t = datetime.now(timezone.utc)
    return t.strftime("%Y-%m-%dT%H:%M:%S.") + f"{t.microsecond // 1000:03d}Z"


def pct(values, p):
    v = sorted(x for x in values if x is not None)
    if not v:
        return None
    k = min(len(v) - 1, max(0, int(round(p / 100.0 * len(v) + 0.5)) - 1))
    return v[k]


def med(values):
    v = [x for x in values if x is not None]
    return statistics.median(v) if v else None


def r3(x):
    return None if x is None else round(x, 3)


def run(cmd, timeout=3600, env=None, keep_stdout=True, max_keep=200_000):
    """Run cmd; wall time via perf_counter, peak RSS of the child via os.wait4."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        t0 = time.perf_counter()
        try:
            p = subprocess.Popen(cmd, stdout=out, stderr=err, stdin=subprocess.DEVNULL, env=env)
        except OSError as e:
            return {"cmd": cmd, "ok": False, "rc": None, "error": f"{type(e).__name__}: {e}",
                    "wall_ms": None}
        killed = []

        def kill():
            killed.append(True)
            try:
                p.kill()
            except OSError:
                pass

        timer = threading.Timer(timeout, kill)
        timer.start()
        try:
            _, status, ru = os.wait4(p.pid, 0)
        finally:
            timer.cancel()
        wall = time.perf_counter() - t0
        rc = os.waitstatus_to_exitcode(status)
        p.returncode = rc  # already reaped: keep Popen from waiting again
        out.seek(0)
        err.seek(0)
        so = out.read()
        se = err.read()
    res = {"cmd": cmd, "rc": rc, "ok": rc == 0 and not killed, "wall_ms": round(wall * 1000, 3),
           "maxrss_mb": round(ru.ru_maxrss / 1024, 1), "user_s": round(ru.ru_utime, 3),
           "sys_s": round(ru.ru_stime, 3), "stdout_bytes": len(so)}
    if killed:
        res["error"] = f"timeout after {timeout}s"
    elif rc != 0:
        res["error"] = (se.decode("utf-8", "replace")[-2000:] or so.decode("utf-8", "replace")[-2000:]
                        or f"exit {rc}")
    if keep_stdout:
        res["stdout"] = so.decode("utf-8", "replace")
    res["stderr_tail"] = se.decode("utf-8", "replace")[-500:]
    return res


def parse_json(text):
    if not text:
        return None
    try:
        return json.loads(text)
    except ValueError:
        # jsonl or trailing garbage: take the last line that parses
        for line in reversed(text.strip().splitlines()):
            try:
                return json.loads(line)
            except ValueError:
                continue
    return None


def summarize(runs, label=None):
    """Aggregate a list of run() results: medians over the successful ones."""
    ok = [r for r in runs if r.get("ok")]
    walls = [r["wall_ms"] for r in ok]
    s = {"runs": len(runs), "ok": len(ok), "median_ms": r3(med(walls)), "p99_ms": r3(pct(walls, 99)),
         "min_ms": r3(min(walls)) if walls else None, "max_ms": r3(max(walls)) if walls else None,
         "peak_rss_mb": max((r.get("maxrss_mb") or 0) for r in ok) if ok else None,
         "walls_ms": walls}
    errs = [r.get("error") for r in runs if not r.get("ok")]
    if errs:
        s["errors"] = errs[:3]
    if label:
        s["label"] = label
    return s


def slim(r):
    """A run result without its (possibly big) stdout."""
    return {k: v for k, v in r.items() if k != "stdout"}


def du(path):
    alloc = apparent = 0
    for dp, _, fns in os.walk(path):
        for fn in fns:
            try:
                st = os.lstat(os.path.join(dp, fn))
            except OSError:
                continue
            alloc += st.st_blocks * 512
            apparent += st.st_size
    return alloc, apparent
