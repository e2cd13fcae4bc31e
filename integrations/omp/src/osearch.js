// Runs the osearch binary and turns its answer (or its failure) into a plain object.
// Arguments go to execFile as an array: no shell ever sees them, so a query such as
// `$(rm -rf ~)` or `-x` reaches osearch exactly as the agent wrote it.
import { execFile } from "node:child_process";

// A query that outlives osearch's own budgets (content stops at 10 s) is stuck, not slow.
const RUN_TIMEOUT_MS = 120_000;
const MAX_OUTPUT_BYTES = 256 * 1024 * 1024;

/** The binary to run: $OSEARCH_BIN when set, else `osearch` from PATH. */
export function osearchBinary(env = process.env) {
  const fromEnv = env.OSEARCH_BIN;
  return fromEnv && fromEnv.trim() !== "" ? fromEnv : "osearch";
}

/**
 * The argv for one search. `input` holds the tool's parameters after validation:
 * {action, query?, project?, since?, until?, limit, agent?, regex?}.
 */
export function buildArgs(input) {
  const args = [input.action, "--format", "json", "--limit", String(input.limit)];
  if (input.action === "content") {
    // The original matched a case-insensitive literal substring; keep that unless
    // the caller asks for a regex.
    args.push("-i");
    if (!input.regex) args.push("-F");
  }
  if (input.project !== undefined) args.push("--project", input.project);
  if (input.since !== undefined) args.push("--since", input.since);
  if (input.until !== undefined) args.push("--until", input.until);
  if (input.agent !== undefined) args.push("--agent", input.agent);
  // `--` ends the options: a query starting with `-` is a query, not a flag.
  if (input.action !== "list") args.push("--", input.query);
  return args;
}

/** osearch's own error line on stderr ({"error":{"kind","message"}}), if it wrote one. */
function parseErrorLine(stderr) {
  const lines = stderr.split("\n").map((l) => l.trim()).filter(Boolean);
  for (let i = lines.length - 1; i >= 0; i--) {
    try {
      const parsed = JSON.parse(lines[i]);
      if (parsed && typeof parsed.error === "object" && parsed.error !== null) return parsed.error;
    } catch {
      // not JSON: a plain diagnostic line, kept in the fallback message below
    }
  }
  return undefined;
}

function failure(kind, message, exitCode) {
  return { ok: false, error: { kind, message, exit_code: exitCode } };
}

/**
 * Runs osearch with `args`. Resolves (never rejects) to
 * {ok: true, json} or {ok: false, error: {kind, message, exit_code}}.
 */
export function runOsearch(args, { env = process.env, signal } = {}) {
  const binary = osearchBinary(env);
  return new Promise((resolve) => {
    const options = { env, maxBuffer: MAX_OUTPUT_BYTES, timeout: RUN_TIMEOUT_MS, encoding: "utf8", windowsHide: true };
    if (signal) options.signal = signal;
    execFile(binary, args, options, (err, stdout, stderr) => {
      if (err && err.code === "ENOENT") {
        resolve(failure("not-installed",
          `osearch not found (tried '${binary}'): install it (make install) or set OSEARCH_BIN to its path`, null));
        return;
      }
      if (err && (err.name === "AbortError" || err.code === "ABORT_ERR")) {
        resolve(failure("aborted", "the search was cancelled", null));
        return;
      }
      if (err && typeof err.code !== "number") {
        const why = err.killed ? `stopped after ${RUN_TIMEOUT_MS / 1000} s` : String(err.message || err);
        resolve(failure("failed", `osearch did not finish: ${why}`, null));
        return;
      }
      const exitCode = err ? err.code : 0;
      if (exitCode !== 0) {
        const reported = parseErrorLine(stderr || "");
        const message = reported?.message ?? ((stderr || "").trim() || `osearch exited with status ${exitCode}`);
        resolve(failure(reported?.kind ?? (exitCode === 2 ? "bad-input" : "failed"), message, exitCode));
        return;
      }
      let json;
      try {
        json = JSON.parse(stdout);
      } catch (parseErr) {
        resolve(failure("bad-output", `osearch printed output that is not JSON: ${parseErr.message}`, 0));
        return;
      }
      if (json === null || typeof json !== "object" || Array.isArray(json)) {
        resolve(failure("bad-output", "osearch printed JSON that is not an object", 0));
        return;
      }
      resolve({ ok: true, json });
    });
  });
}
