// Writes one pi session file with pi's own SessionManager (npm @mariozechner/pi-coding-agent 0.73.1),
// no model call: every entry kind the adapter reads, in pi's real framing (ids, parents, branches).
// The output committed next to this script was made by:
//   npm install @mariozechner/pi-coding-agent@0.73.1   (in a scratch dir; copy this script there:
//   node generate_pi_session.mjs <out-dir>              ES modules resolve packages from the script's dir)
// and copied to .pi/agent/sessions/--tmp-osearch-pi-writer-project--/. Ids and timestamps are random,
// so a new run gives another file; tests/pi_family_test.cpp expects the committed one.
import { SessionManager } from "@mariozechner/pi-coding-agent";

const outDir = process.argv[2];
if (!outDir) throw new Error("usage: node generate_pi_session.mjs <out-dir>");

// A 1x1 PNG: pi keeps images inline as base64, and they must never become searchable text.
const png = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==";
const usage = (input, output, cacheRead, cacheWrite) => ({
  input, output, cacheRead, cacheWrite, totalTokens: input + output + cacheRead + cacheWrite,
  cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
});
const assistant = (content, u, extra = {}) => ({
  role: "assistant", content, api: "anthropic-messages", provider: "anthropic", model: "claude-opus-4-5",
  usage: u, stopReason: "stop", timestamp: Date.now(), ...extra,
});
const user = (content) => ({ role: "user", content, timestamp: Date.now() });
const toolResult = (toolCallId, toolName, text, isError, details) => ({
  role: "toolResult", toolCallId, toolName, content: [{ type: "text", text }], details, isError, timestamp: Date.now(),
});

const sm = SessionManager.create("/tmp/osearch-pi-writer/project", outDir);
sm.appendModelChange("anthropic", "claude-opus-4-5");
sm.appendThinkingLevelChange("high");
const prompt = sm.appendMessage(user([
  { type: "text", text: "Why does the quokka parser reject dates?" },
  { type: "image", data: png, mimeType: "image/png" },
]));
sm.appendMessage(assistant([
  { type: "thinking", thinking: "Look at the parser and its test.", thinkingSignature: "c2lnbmF0dXJlLW5vdC1pbmRleGVk" },
  { type: "text", text: "Reading the parser and running its test." },
  { type: "toolCall", id: "toolu_read_1", name: "read", arguments: { path: "src/quokka_parser.ts" } },
  { type: "toolCall", id: "toolu_bash_2", name: "bash", arguments: { command: "npm test -- quokka" } },
], usage(100, 200, 3000, 400), { stopReason: "toolUse" }));
sm.appendMessage(toolResult("toolu_read_1", "read", "export function parseQuokkaDate(s) {}", false));
sm.appendMessage(toolResult("toolu_bash_2", "bash", "FAIL quokka.test.ts", true,
  { truncation: { content: "FAIL quokka.test.ts (copy in details)", truncated: true } }));
const answer = sm.appendMessage(assistant([{ type: "text", text: "The parser ignores the timezone offset." }],
  usage(10, 20, 3500, 0)));
sm.appendMessage({ role: "bashExecution", command: "npm test", output: "1 failing", exitCode: 1, cancelled: false,
  truncated: false, timestamp: Date.now() });
sm.appendMessage({ role: "bashExecution", command: "sleep 600", output: "", exitCode: undefined, cancelled: true,
  truncated: false, timestamp: Date.now() });
sm.appendMessage(assistant([], usage(0, 0, 0, 0), { stopReason: "aborted", errorMessage: "Request was aborted" }));
sm.appendCustomMessageEntry("wombat-context", [{ type: "text", text: "Injected wombat context" }], false);
sm.appendCustomEntry("wombat-state", { note: "numbat state", nested: { list: ["echidna"] } });
sm.appendSessionInfo("Quokka date parsing");
sm.appendLabelChange(answer, "bookmark");
sm.appendCompaction("Goal: fix quokka date parsing", prompt, 4000, { readFiles: ["src/quokka_parser.ts"], modifiedFiles: [] });
// Back to the prompt with a summary of the abandoned branch, then a new answer there.
sm.branchWithSummary(prompt, "The abandoned branch tried a regex.");
sm.appendMessage(assistant([{ type: "text", text: "Second attempt: use the platypus date library." }],
  usage(5, 6, 7, 8)));
sm.appendSessionInfo("");  // clearing the name: the latest (empty) one wins
console.log(sm.getSessionFile());
