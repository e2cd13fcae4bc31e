// Writes one omp session with omp's own SessionManager (npm @oh-my-pi/pi-coding-agent 18.2.3) under Bun, no
// model call. See PROVENANCE.md next to this script for how the committed file was made.
import { SessionManager } from "@oh-my-pi/pi-coding-agent/session/session-manager";

const outDir = process.argv[2];
const png = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==";
const bigPng = png.repeat(40);
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
const big = "lorem ipsum dolor ".repeat(30000) + " ocelotfinalword";  // ~540 KB

const sm = SessionManager.create("/tmp/osearch omp writer/project", outDir);
sm.appendModelChange("anthropic/claude-opus-4-5");
sm.appendThinkingLevelChange("high");
const prompt = sm.appendMessage(user([
  { type: "text", text: "Why does the capybara parser reject dates?" },
  { type: "image", data: bigPng, mimeType: "image/png" },
]));
sm.appendMessage(assistant([
  { type: "thinking", thinking: "Look at the gazelleparse module.", thinkingSignature: "c2lnbmF0dXJl" },
  { type: "text", text: "Reading the parser and running the meerkat test." },
  { type: "toolCall", id: "toolu_read_1", name: "read", arguments: { path: "src/narwhal_parser.ts" } },
  { type: "toolCall", id: "toolu_bash_2", name: "bash", arguments: { command: "npm test -- armadillo" } },
], usage(100, 200, 3000, 400), { stopReason: "toolUse" }));
sm.appendCustomEntry("tool_execution_start", { toolCallId: "toolu_read_1", toolName: "read", startedAt: Date.now() });
sm.appendMessage(toolResult("toolu_read_1", "read", "export function parseTapirDate(s) {}", false));
sm.appendMessage(toolResult("toolu_bash_2", "bash", big, true));
const answer = sm.appendMessage(assistant([{ type: "text", text: "The parser ignores the wolverine offset." }], usage(10, 20, 3500, 0)));
sm.appendMessage({ role: "bashExecution", command: "npm run pangolincheck", output: "1 failing okapiresult", exitCode: 1, cancelled: false, truncated: false, timestamp: Date.now() });
sm.appendMessage({ role: "pythonExecution", code: "print('axolotlcode')", output: "axolotlout", exitCode: 0, cancelled: false, truncated: false, timestamp: Date.now() });
sm.appendMessage({ role: "developer", content: [{ type: "text", text: "developer note kinkajou" }], timestamp: Date.now() });
sm.appendCustomMessageEntry("wombat-context", [{ type: "text", text: "Injected wombatcontext" }], false);
await sm.setSessionName("Capybara date parsing", "user");
sm.appendCompaction("Goal: fix lemurgoal date parsing", "short lemur", prompt, 4000, { details: { readFiles: ["src/x.ts"], modifiedFiles: [] } });
sm.branchWithSummary(prompt, "The abandoned branch tried a quetzalregex.");
sm.appendMessage(assistant([{ type: "text", text: "Second attempt: use the platypuslib date library." }], usage(5, 6, 7, 8)));
await sm.setSessionName("Renamed to hedgehogtitle", "user");
await sm.flush();
console.log(sm.getSessionFile());
