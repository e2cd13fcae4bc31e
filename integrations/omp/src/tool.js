// The `session_search` tool: omp-session-store's parameters and result fields, answered by osearch.
import { buildArgs, runOsearch } from "./osearch.js";
import { mapResponse } from "./map.js";

export const TOOL_NAME = "session_search";
export const ACTIONS = ["keyword", "content", "list"];
export const AGENTS = ["all", "claude", "omp", "pi", "codex"];
export const DEFAULT_LIMIT = 10;

const TIME_HELP = "'2026-07-30' (that day 00:00 local), '2026-07-30T17:30:00+08:00' (ISO 8601), or an age: '30m', '6h', '3d', '2w'";

const DESCRIPTION =
  "Search past coding-agent sessions (Claude Code, omp, pi and Codex; finished, archived and deleted ones too) " +
  "with osearch. Returns JSON: {action, total, results:[{session_id, project, cwd, time, title, summary, snippet, " +
  "path, message_count, resume_hint, agent, ...}]}.\n\n" +
  "Modes:\n" +
  "  keyword - ranked word search (BM25) over every message: prompts, replies, thinking, tool calls and output, " +
  "titles, summaries; any language (Chinese/Japanese/Korean too); identifiers verbatim. Terms are ANDed; " +
  "\"phrase\", OR, -term, prefix* work.\n" +
  "  content - exhaustive case-insensitive substring scan of every message's full text (regex: true for a regex)\n" +
  "  list    - sessions newest first, by project and/or time\n\n" +
  `Time format: ${TIME_HELP}. until is exclusive. agent narrows to one agent (default: all).\n` +
  "resume_hint is the shell command that reopens the session in its own agent.";

/** A plain JSON Schema: omp and pi both take one as a tool's parameters. */
export const PARAMETERS = {
  type: "object",
  properties: {
    action: {
      type: "string",
      enum: ACTIONS,
      description: "keyword: ranked word search over every message; content: exhaustive substring (or regex) scan; " +
        "list: sessions by project/date, newest first",
    },
    query: {
      type: "string",
      description: "Search query (required for keyword/content). keyword: words, \"phrases\", OR, -term, prefix*; " +
        "content: a literal substring, case-insensitive (a regex when regex is true)",
    },
    project: { type: "string", description: "Filter by project name or path substring (e.g. 'ChordAuditMatrix')" },
    since: { type: "string", description: `Lower time bound: ${TIME_HELP}` },
    until: { type: "string", description: "Upper time bound (exclusive): same format as since" },
    limit: { type: "number", description: `Max results (default ${DEFAULT_LIMIT})` },
    agent: {
      type: "string",
      enum: AGENTS,
      description: "Only sessions of this agent: claude, omp, pi or codex (default all)",
    },
    regex: {
      type: "boolean",
      description: "content only: treat query as a PCRE regex instead of a literal substring (default false)",
    },
  },
  required: ["action"],
};

/** Present and non-blank: the original ignored an empty filter rather than refusing it. */
function given(value) {
  return typeof value === "string" && value.trim() !== "";
}

/** Checks the parameters (a host may pass them unvalidated); returns {input} or {problem}. */
export function readParams(params) {
  const p = params && typeof params === "object" ? params : {};
  if (!ACTIONS.includes(p.action)) {
    return { problem: `action must be one of ${ACTIONS.join(", ")}, got ${JSON.stringify(p.action)}` };
  }
  for (const key of ["query", "project", "since", "until", "agent"]) {
    if (p[key] !== undefined && p[key] !== null && typeof p[key] !== "string") {
      return { problem: `${key} must be a string, got ${JSON.stringify(p[key])}` };
    }
  }
  if ((p.action === "keyword" || p.action === "content") && !given(p.query)) {
    return { problem: "query is required for keyword/content action" };
  }
  if (p.limit !== undefined && p.limit !== null && typeof p.limit !== "number") {
    return { problem: `limit must be a number, got ${JSON.stringify(p.limit)}` };
  }
  if (p.regex !== undefined && p.regex !== null && typeof p.regex !== "boolean") {
    return { problem: `regex must be true or false, got ${JSON.stringify(p.regex)}` };
  }
  const input = { action: p.action, limit: p.limit ?? DEFAULT_LIMIT, regex: p.regex === true };
  if (typeof p.query === "string") input.query = p.query;
  for (const key of ["project", "since", "until"]) if (given(p[key])) input[key] = p[key];
  if (given(p.agent) && p.agent !== "all") input.agent = p.agent;
  return { input };
}

/** Echo of the caller's parameters in an error, as the original's errors carried them. */
function errorResult(p, error) {
  const body = {
    error: error.message,
    kind: error.kind,
    exit_code: error.exit_code ?? null,
    action: p?.action,
    query: p?.query,
    project: p?.project,
    since: p?.since,
    until: p?.until,
    agent: p?.agent,
  };
  return {
    content: [{ type: "text", text: JSON.stringify(body, null, 2) }],
    details: { error: body },
    isError: true,
  };
}

/** Runs one call. Never throws: every failure is a tool result with isError set. */
export async function executeSearch(params, { signal, env } = {}) {
  const { input, problem } = readParams(params);
  if (problem) return errorResult(params, { kind: "bad-input", message: problem, exit_code: null });
  const run = await runOsearch(buildArgs(input), { signal, env });
  if (!run.ok) return errorResult(params, run.error);
  // The answer echoes the parameters as given, like the original's.
  const echo = { action: input.action, query: params.query, project: params.project, since: params.since,
    until: params.until, agent: params.agent };
  const output = mapResponse(echo, run.json);
  return {
    content: [{ type: "text", text: JSON.stringify(output, null, 2) }],
    details: { action: output.action, total: output.total, returned: output.returned, truncated: output.truncated },
  };
}

/** The definition handed to registerTool. */
export function sessionSearchTool() {
  return {
    name: TOOL_NAME,
    label: "Session Search",
    description: DESCRIPTION,
    promptSnippet: "Search past Claude Code, omp, pi and Codex sessions by keyword, text or date",
    promptGuidelines: [
      "Use session_search when the user refers to earlier work, a past session or a decision made before; " +
        "resume_hint in its results reopens a session.",
    ],
    parameters: PARAMETERS,
    // omp: a read-only tool, asked for no more often than reading a file.
    approval: "read",
    async execute(_toolCallId, params, signal) {
      try {
        return await executeSearch(params, { signal });
      } catch (err) {
        // A bug of ours must not become a crash of the agent's turn.
        return errorResult(params, { kind: "internal", message: `session_search failed: ${err?.message ?? err}` });
      }
    },
  };
}
