// Run by bun with HOME pointing at a scratch home where `omp plugin link` linked integrations/omp: builds a real
// omp agent session (no model call) and calls session_search through omp's own tool wrappers.
import { createAgentSession } from "@oh-my-pi/pi-coding-agent/sdk";
import { toolWireSchema } from "@oh-my-pi/pi-ai/utils/schema";
import { validateToolArguments } from "@oh-my-pi/pi-ai/utils/validation";

function check(ok: boolean, what: string) {
  if (!ok) { console.error(`omp: FAILED: ${what}`); process.exit(1); }
}
const { session } = await createAgentSession({ cwd: process.cwd() });
const tool: any = session.getToolByName("session_search");
check(!!tool, "the linked plugin registers session_search");
check(tool.approval === "read", "approval tier read");
const wire = toolWireSchema(tool) as any;
check(JSON.stringify(wire.properties.action.enum) === '["keyword","content","list"]', "wire schema keeps the enum");
const validated = validateToolArguments(tool, { id: "1", name: "session_search", arguments: { action: "list", limit: "5" } } as any);
check((validated as any).limit === 5, "omp coerces limit to a number");
const ok = await tool.execute("1", { action: "list", limit: 1 }, undefined, undefined, undefined);
check(ok.isError !== true && JSON.parse(ok.content[0].text).action === "list", "list answers");
const bad = await tool.execute("2", { action: "list", since: "bogus" }, undefined, undefined, undefined);
check(bad.isError === true && /invalid time/.test(JSON.parse(bad.content[0].text).error), "bad time is a tool error");
console.log("omp: linked plugin loaded in a real session, schema, validation, results and errors as expected");
process.exit(0);
