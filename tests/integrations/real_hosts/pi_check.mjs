// Loads integrations/omp through pi's own extension loader (from the npm package installed in $HOST_DIR),
// validates arguments with pi-ai's validator, calls the tool, and passes an error through pi's tool_result chain.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import assert from "node:assert/strict";

const [hostDir, packageDir] = process.argv.slice(2);
const pi = join(hostDir, "node_modules", "@mariozechner", "pi-coding-agent", "dist", "core", "extensions");
const { discoverAndLoadExtensions } = await import(join(pi, "loader.js"));
const { ExtensionRunner } = await import(join(pi, "runner.js"));
const { validateToolArguments } = await import(
  join(hostDir, "node_modules", "@mariozechner", "pi-ai", "dist", "utils", "validation.js"));

const agentDir = mkdtempSync(join(tmpdir(), "pi-agent-"));
const { extensions, errors, runtime } = await discoverAndLoadExtensions([packageDir], tmpdir(), agentDir);
assert.deepEqual(errors, []);
const tool = extensions[0].tools.get("session_search").definition;
const asTool = { name: tool.name, description: tool.description, parameters: tool.parameters };
const validate = (args) => validateToolArguments(asTool, { id: "1", name: tool.name, arguments: args });
assert.deepEqual(validate({ action: "list", limit: "5" }), { action: "list", limit: 5 });
assert.throws(() => validate({ action: "grep" }));
assert.throws(() => validate({ query: "x" }));

const ok = await tool.execute("1", { action: "list", limit: 1 });
assert.equal(ok.isError, undefined);
assert.equal(JSON.parse(ok.content[0].text).action, "list");
const bad = await tool.execute("2", { action: "list", since: "bogus" });
const runner = new ExtensionRunner(extensions, runtime, tmpdir(), undefined, undefined);
const event = (r) => ({ type: "tool_result", toolName: tool.name, toolCallId: "x", input: {}, content: r.content,
  details: r.details, isError: false });
assert.equal((await runner.emitToolResult(event(bad))).isError, true, "pi flags the error");
assert.equal(await runner.emitToolResult(event(ok)), undefined, "a success is left alone");
console.log("pi: loaded from package.json, arguments validated, results and errors as expected");
