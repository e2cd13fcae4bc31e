// omp/pi extension entry: registers `session_search`, answered by osearch.
import { TOOL_NAME, sessionSearchTool } from "./tool.js";

export default function osearchSessionSearch(api) {
  api.registerTool(sessionSearchTool());
  // pi flags a tool result as an error only when execute throws; omp also honours a returned
  // `isError`. The tool returns its errors (a throw must never reach the agent as a crash), and
  // this hook marks them as errors in both hosts.
  if (typeof api.on === "function") {
    api.on("tool_result", (event) => {
      if (event && event.toolName === TOOL_NAME && event.details && event.details.error) return { isError: true };
      return undefined;
    });
  }
}
