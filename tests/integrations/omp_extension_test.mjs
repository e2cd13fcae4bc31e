// The omp/pi `session_search` extension (integrations/omp), loaded as omp and pi load it, against an
// index of tests/data fixtures of all four agents. Plain node (node:test, node:assert): no npm packages.
//
//   node tests/integrations/omp_extension_test.mjs --osearch build/osearch
//
// It checks the package manifest and the registered tool against omp-session-store's contract
// (shared/formats/omp-pi-codex.md §7), calls the tool for each action and compares the answers with
// `osearch … --format json` for the same query, and checks what the original cannot find.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const repo = resolve(here, "..", "..");
const data = join(repo, "tests", "data");
const packageDir = join(repo, "integrations", "omp");

function argValue(name, fallback) {
  const i = process.argv.indexOf(name);
  return i >= 0 && i + 1 < process.argv.length ? process.argv[i + 1] : fallback;
}
const osearchBin = resolve(argValue("--osearch", join(repo, "build", "osearch")));

// One index of every agent's fixtures; the extension and the direct runs share it through the env.
const sources = [
  `claude=${join(data, "claude")}`,
  `omp=${join(data, "mixed", "omp", "sessions")}`,
  `omp=${join(data, "omp", ".omp", "agent", "sessions")}`,
  `pi=${join(data, "mixed", "pi", "sessions")}`,
  `codex=${join(data, "mixed", "codex")}`,
];
let workDir;

/** osearch run directly, as the reference answer. */
function osearchJson(args) {
  return JSON.parse(execFileSync(osearchBin, [...args.slice(0, 1), "--format", "json", ...args.slice(1)],
    { encoding: "utf8", maxBuffer: 64 << 20 }));
}

/** The extension loaded through its manifest entry with a stub of the omp/pi ExtensionAPI. */
async function loadExtension() {
  const pkg = JSON.parse(readFileSync(join(packageDir, "package.json"), "utf8"));
  const entry = join(packageDir, pkg.omp.extensions[0]);
  const mod = await import(entry);
  const tools = [];
  const handlers = new Map();
  // pi's API has no `zod`; the extension must not need it.
  const api = { registerTool: (tool) => tools.push(tool), on: (event, fn) => handlers.set(event, fn) };
  await mod.default(api);
  return { pkg, tools, handlers };
}

let loaded;
let tool;

async function call(params) {
  const result = await tool.execute("call-1", params, undefined, undefined, { cwd: workDir });
  assert.ok(Array.isArray(result.content) && result.content.length === 1, "one content block");
  assert.equal(result.content[0].type, "text");
  return { result, body: JSON.parse(result.content[0].text) };
}

before(async () => {
  assert.ok(existsSync(osearchBin), `osearch binary at ${osearchBin} (pass --osearch PATH)`);
  workDir = mkdtempSync(join(tmpdir(), "osearch-omp-ext-"));
  process.env.OSEARCH_INDEX = join(workDir, "index");
  process.env.OSEARCH_SOURCES = sources.join(",");
  process.env.OSEARCH_BIN = osearchBin;
  execFileSync(osearchBin, ["index", "--format", "json"], { encoding: "utf8" });
  loaded = await loadExtension();
  tool = loaded.tools[0];
});

after(() => {
  if (workDir) rmSync(workDir, { recursive: true, force: true });
});

// --- the package and the registered tool ----------------------------------------------------------

test("package.json names the same omp and pi extension entries as omp-session-store", () => {
  const { pkg } = loaded;
  assert.deepEqual(pkg.omp, { extensions: ["./dist/index.js"] });
  assert.deepEqual(pkg.pi, { extensions: ["./dist/index.js"] });
  assert.equal(pkg.type, "module");
  assert.ok(pkg.name && pkg.version, "omp plugin link needs name and version");
  assert.deepEqual(pkg.dependencies ?? {}, {}, "nothing to install");
});

test("registers one tool, session_search, with the original's parameters plus agent", () => {
  assert.equal(loaded.tools.length, 1);
  assert.equal(tool.name, "session_search");
  assert.equal(typeof tool.description, "string");
  assert.equal(typeof tool.label, "string");
  assert.equal(typeof tool.execute, "function");
  const schema = tool.parameters;
  assert.equal(schema.type, "object");
  assert.deepEqual(schema.required, ["action"]);
  const props = schema.properties;
  assert.deepEqual(props.action.enum, ["keyword", "content", "list"]);
  assert.equal(props.action.type, "string");
  for (const key of ["query", "project", "since", "until"]) assert.equal(props[key].type, "string", key);
  assert.equal(props.limit.type, "number");
  assert.equal(props.agent.type, "string");
  for (const agent of ["claude", "omp", "pi", "codex"]) assert.ok(props.agent.enum.includes(agent), agent);
  // Only optional additions beyond the original's six and agent.
  assert.deepEqual(Object.keys(props).sort(), ["action", "agent", "limit", "project", "query", "regex", "since", "until"]);
  // The schema must survive JSON (hosts send it to the model as is).
  assert.deepEqual(JSON.parse(JSON.stringify(schema)), schema);
});

// --- results: the original's fields, equal to osearch's answer -------------------------------------

const ORIGINAL_FIELDS = ["session_id", "project", "cwd", "time", "title", "summary", "snippet", "path",
  "message_count", "resume_hint"];

function checkContract(body, action) {
  assert.equal(body.action, action);
  assert.equal(typeof body.total, "number");
  assert.ok(Array.isArray(body.results));
  for (const r of body.results) {
    for (const field of ORIGINAL_FIELDS) assert.ok(field in r, `result has ${field}`);
    for (const field of ORIGINAL_FIELDS.filter((f) => f !== "message_count")) {
      assert.equal(typeof r[field], "string", `${field} is a string`);
    }
    assert.equal(typeof r.message_count, "number");
    assert.ok(r.session_id !== "" && r.project !== "" && r.resume_hint !== "" && r.path !== "");
    assert.ok(Array.from(r.summary).length <= 300 && Array.from(r.snippet).length <= 500);
    assert.ok(["claude", "omp", "pi", "codex"].includes(r.agent));
  }
}

/** The tool's answer and osearch's, result by result. */
function checkAgainstOsearch(body, direct) {
  assert.equal(body.total, direct.total);
  assert.equal(body.truncated, direct.truncated);
  assert.deepEqual(body.results.map((r) => r.session_id), direct.results.map((r) => r.session_id));
  body.results.forEach((r, i) => {
    const d = direct.results[i];
    assert.equal(r.path, d.path);
    assert.equal(r.message_count, d.message_count);
    assert.equal(r.resume_hint, d.resume_hint);
    assert.equal(r.title, d.title);
    assert.equal(r.cwd, d.cwd || d.project_path);
    assert.equal(r.time, d.time);
    assert.equal(r.agent, d.agent);
    assert.equal(r.project_slug, d.project);
    const cwd = (d.cwd || d.project_path).replace(/\/+$/, "");
    assert.equal(r.project, cwd ? cwd.split("/").pop() : d.project || "(unknown)");
  });
}

test("keyword: ranked sessions, the same as osearch keyword", async () => {
  const { body, result } = await call({ action: "keyword", query: "sharedidword" });
  assert.equal(result.isError, undefined);
  checkContract(body, "keyword");
  assert.equal(body.query, "sharedidword");
  checkAgainstOsearch(body, osearchJson(["keyword", "--limit", "10", "--", "sharedidword"]));
  assert.deepEqual(body.results.map((r) => r.agent).sort(), ["omp", "pi"], "one id, two agents, two sessions");
});

test("keyword: words osearch left out are named, as osearch names them", async () => {
  const { body } = await call({ action: "keyword", query: "sharedidword a" });
  checkContract(body, "keyword");
  const direct = osearchJson(["keyword", "--limit", "10", "--", "sharedidword a"]);
  assert.deepEqual(direct.ignored_words, ["a"]);
  assert.deepEqual(body.ignored_words, ["a"]);
  checkAgainstOsearch(body, direct);
  const plain = await call({ action: "keyword", query: "sharedidword" });
  assert.equal("ignored_words" in plain.body, false);
});

test("keyword with every filter passes each one to osearch", async () => {
  const params = { action: "keyword", query: "ompuserword", project: "omp proj", since: "2026-11-01",
    until: "2026-11-02", limit: 3, agent: "omp" };
  const { body } = await call(params);
  checkContract(body, "keyword");
  for (const key of ["query", "project", "since", "until", "agent"]) assert.equal(body[key], params[key], key);
  const direct = osearchJson(["keyword", "--limit", "3", "--project", "omp proj", "--since", "2026-11-01",
    "--until", "2026-11-02", "--agent", "omp", "--", "ompuserword"]);
  checkAgainstOsearch(body, direct);
  assert.equal(body.total, 1);
});

test("content: case-insensitive literal substring, the same as osearch content -i -F", async () => {
  const { body } = await call({ action: "content", query: "PIRESULTWORD" });
  checkContract(body, "content");
  checkAgainstOsearch(body, osearchJson(["content", "--limit", "10", "-i", "-F", "--", "PIRESULTWORD"]));
  assert.equal(body.results.length, 1);
  assert.equal(body.results[0].content_type, "tool_result");
  assert.match(body.results[0].snippet, /piresultword/);
  // A regex metacharacter is a character unless regex is true.
  const literal = await call({ action: "content", query: "a.txt: piresultword" });
  assert.equal(literal.body.total, 1);
  const dotted = await call({ action: "content", query: "a.txt. piresultword" });
  assert.equal(dotted.body.total, 0);
  const regex = await call({ action: "content", query: "a.txt. piresultword", regex: true });
  assert.equal(regex.body.total, 1);
});

test("content and list default to 10 results, like the original", async () => {
  const content = await call({ action: "content", query: "the" });
  checkContract(content.body, "content");
  assert.equal(content.body.results.length, 10);
  assert.ok(content.body.total > 10);
  checkAgainstOsearch(content.body, osearchJson(["content", "--limit", "10", "-i", "-F", "--", "the"]));

  const list = await call({ action: "list" });
  checkContract(list.body, "list");
  assert.equal(list.body.results.length, 10);
  checkAgainstOsearch(list.body, osearchJson(["list", "--limit", "10"]));
});

test("list: newest first, filtered by project, time and agent", async () => {
  const { body } = await call({ action: "list", agent: "pi", limit: 50 });
  checkContract(body, "list");
  checkAgainstOsearch(body, osearchJson(["list", "--limit", "50", "--agent", "pi"]));
  assert.ok(body.results.length >= 3);
  assert.ok(body.results.every((r) => r.agent === "pi" && r.resume_hint.includes("pi --session ")));
  const times = body.results.map((r) => r.time);
  assert.deepEqual([...times].sort().reverse(), times);

  const windowed = await call({ action: "list", project: "shared", since: "2026-10-20", until: "2026-10-21" });
  checkAgainstOsearch(windowed.body, osearchJson(["list", "--limit", "10", "--project", "shared", "--since",
    "2026-10-20", "--until", "2026-10-21"]));
  assert.equal(windowed.body.total, 2);
  const all = await call({ action: "list", agent: "all", limit: 100 });
  assert.equal(all.body.total, osearchJson(["list", "--limit", "1"]).total, "agent all is no filter");
});

test("an empty answer keeps the original's message and an empty results list", async () => {
  const { body, result } = await call({ action: "keyword", query: "nosuchwordanywhere" });
  assert.equal(result.isError, undefined);
  assert.equal(body.message, "No sessions found matching the criteria");
  assert.deepEqual(body.results, []);
  assert.equal(body.total, 0);
});

// --- what omp-session-store cannot find -------------------------------------------------------------

async function onlyHit(params, sessionId, agent) {
  const { body } = await call(params);
  assert.ok(body.results.some((r) => r.session_id === sessionId && r.agent === agent),
    `${JSON.stringify(params)} finds ${agent} ${sessionId}`);
  return body;
}

const OMP_SESSION = "01a0b1c2-0000-7000-8000-00000000a001";
const PI_SESSION = "01a0b1c2-0000-7000-8000-00000000b001";
const CODEX_SESSION = "01a0b1c2-0000-7000-8000-00000000d001";

test("keyword finds assistant text, thinking and tool output (the original's keyword saw prompts only)", async () => {
  const assistant = await onlyHit({ action: "keyword", query: "ompassistword" }, OMP_SESSION, "omp");
  assert.equal(assistant.results[0].role, "assistant");
  const thinking = await onlyHit({ action: "keyword", query: "pithinkword" }, PI_SESSION, "pi");
  assert.equal(thinking.results[0].content_type, "thinking");
  const output = await onlyHit({ action: "keyword", query: "ompbashword" }, OMP_SESSION, "omp");
  assert.equal(output.results[0].role, "tool");
  await onlyHit({ action: "keyword", query: "codexresultword" }, CODEX_SESSION, "codex");
});

test("content finds thinking and compaction summaries (the original read text blocks only)", async () => {
  const thinking = await onlyHit({ action: "content", query: "OMPTHINKWORD" }, OMP_SESSION, "omp");
  assert.equal(thinking.results[0].content_type, "thinking");
  await onlyHit({ action: "content", query: "ompcompactword" }, OMP_SESSION, "omp");
});

test("Chinese text is found by keyword (the original's FTS5 prompt index did not segment it)", async () => {
  const body = await onlyHit({ action: "keyword", query: "你好世界" }, "97007e37-53bd-4456-9a49-c0f8081081a7", "claude");
  assert.match(body.results[0].snippet, /你好世界/);
  await onlyHit({ action: "content", query: "简体中文" }, "bf77db8f-a917-4fc4-be70-ca1927a57d56", "claude");
});

test("titles are searched and returned", async () => {
  const body = await onlyHit({ action: "keyword", query: "Zebraslot" }, OMP_SESSION, "omp");
  assert.equal(body.results[0].title, "Zebraslot title");
  const pi = await onlyHit({ action: "keyword", query: "pititleword" }, PI_SESSION, "pi");
  assert.equal(pi.results[0].title, "Pititleword name");
});

test("other agents' sessions come back with their own resume hints; agent narrows", async () => {
  const codex = await onlyHit({ action: "keyword", query: "codexuserword" }, CODEX_SESSION, "codex");
  assert.match(codex.results[0].resume_hint, /codex resume 01a0b1c2-0000-7000-8000-00000000d001$/);
  const claude = await call({ action: "list", agent: "claude", limit: 1 });
  assert.match(claude.body.results[0].resume_hint, /claude --resume [0-9a-f-]{36}$/);
  const omp = await call({ action: "keyword", query: "sharedidword", agent: "omp" });
  assert.deepEqual(omp.body.results.map((r) => r.agent), ["omp"]);
  assert.match(omp.body.results[0].resume_hint, /^cd \/work\/shared-proj && omp --resume /);
});

// --- inputs reach osearch verbatim; errors are tool errors --------------------------------------------

test("a query starting with - or holding shell syntax reaches osearch as typed", async () => {
  const dash = await call({ action: "content", query: "--resume" });
  assert.equal(dash.result.isError, undefined);
  checkAgainstOsearch(dash.body, osearchJson(["content", "--limit", "10", "-i", "-F", "--", "--resume"]));
  const marker = join(workDir, "shell-ran");
  const shell = await call({ action: "content", query: `$(touch ${marker}); \`touch ${marker}\`` });
  assert.equal(shell.result.isError, undefined);
  assert.equal(existsSync(marker), false, "no shell saw the query");
});

function checkToolError(result, body, kind, message) {
  assert.equal(result.isError, true);
  assert.equal(body.kind, kind);
  if (message !== undefined) assert.equal(body.error, message);
  assert.ok(result.details && result.details.error, "details.error marks it for the tool_result hook");
  const patch = loaded.handlers.get("tool_result")({ toolName: "session_search", details: result.details });
  assert.deepEqual(patch, { isError: true }, "pi marks it an error through tool_result");
}

/** osearch's own message for a failing command (its stderr JSON line). */
function osearchError(args) {
  const run = spawnSync(osearchBin, [...args.slice(0, 1), "--format", "json", ...args.slice(1)], { encoding: "utf8" });
  assert.equal(run.status, 2);
  return JSON.parse(run.stderr.trim().split("\n").pop()).error;
}

test("osearch's bad input comes back as a tool error with osearch's message", async () => {
  const regex = await call({ action: "content", query: "(", regex: true });
  const expected = osearchError(["content", "--limit", "10", "-i", "--", "("]);
  checkToolError(regex.result, regex.body, "bad-regex", expected.message);
  assert.equal(regex.body.exit_code, 2);
  assert.equal(regex.body.query, "(");

  const time = await call({ action: "list", since: "last tuesday" });
  checkToolError(time.result, time.body, "bad-time", osearchError(["list", "--since", "last tuesday"]).message);

  const limit = await call({ action: "list", limit: 0 });
  checkToolError(limit.result, limit.body, "usage", osearchError(["list", "--limit", "0"]).message);

  const agent = await call({ action: "list", agent: "cursor" });
  assert.equal(agent.result.isError, true);
  assert.equal(agent.body.exit_code, 2);
});

test("the tool's own checks answer like the original's", async () => {
  const missing = await call({ action: "content", query: "   " });
  checkToolError(missing.result, missing.body, "bad-input", "query is required for keyword/content action");
  const action = await call({ action: "grep", query: "x" });
  checkToolError(action.result, action.body, "bad-input");
  const limit = await call({ action: "list", limit: "ten" });
  checkToolError(limit.result, limit.body, "bad-input");
  // Blank filters are ignored, as the original ignored them.
  const blank = await call({ action: "list", project: "", since: " ", limit: 1 });
  assert.equal(blank.result.isError, undefined);
  assert.equal(blank.body.total, osearchJson(["list", "--limit", "1"]).total);
});

test("osearch missing is a tool error that says how to fix it, not a crash", async () => {
  const saved = process.env.OSEARCH_BIN;
  process.env.OSEARCH_BIN = join(workDir, "no-such-osearch");
  try {
    const { result, body } = await call({ action: "list" });
    checkToolError(result, body, "not-installed");
    assert.match(body.error, /OSEARCH_BIN/);
  } finally {
    process.env.OSEARCH_BIN = saved;
  }
});

test("output that is not osearch's JSON is a tool error too", async () => {
  const saved = process.env.OSEARCH_BIN;
  process.env.OSEARCH_BIN = "/bin/echo";
  try {
    const { result, body } = await call({ action: "list" });
    checkToolError(result, body, "bad-output");
  } finally {
    process.env.OSEARCH_BIN = saved;
  }
});

test("the tool_result hook leaves other tools and successful calls alone", async () => {
  const hook = loaded.handlers.get("tool_result");
  const ok = await call({ action: "list", limit: 1 });
  assert.equal(hook({ toolName: "session_search", details: ok.result.details }), undefined);
  assert.equal(hook({ toolName: "bash", details: { error: "x" } }), undefined);
});
