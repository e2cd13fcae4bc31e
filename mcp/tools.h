// The MCP tools: each one a CLI command (cli/commands.h) with the CLI's option names (`_` for `-`),
// run in-process with its JSON written to a string (Context::output) and bounded by
// `max_result_chars` (mcp/budget.h). Mutating tools exist only when the server was started with --allow-writes.
#pragma once

#include <simdjson.h>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cli/json_writer.h"
#include "cli/options.h"
#include "mcp/tool_args.h"

namespace osearch::mcp {

struct Tool {
  std::string_view name, title, description;
  std::vector<Param> params;
  bool writes = false;
  void (*run)(const Context& ctx, const Args& args) = nullptr;
  // `max_chars` is the CLI's --max-chars of the command (each text cut and marked truncated), as on
  // thread, context, trace and failures; elsewhere it bounds the whole result, like max_result_chars.
  bool max_chars_per_text = false;
};

// Every tool, in the order tools/list gives them.
const std::vector<Tool>& all_tools();
const Tool* find_tool(std::string_view name, bool allow_writes);

// The tools/list entry: name, title (when `with_title`), description, inputSchema, outputSchema
// (when `with_output_schema`), annotations (when `with_annotations`).
void write_tool(JsonWriter& w, const Tool& t, bool with_title, bool with_output_schema, bool with_annotations);

struct ToolOutcome {
  std::string json;  // the CLI's JSON object, or {"error":{kind,message}}
  bool is_error = false;
  bool index_failed = false;  // an error of the index, not of the input: the server reopens it
  bool retry = false;         // the reader went stale mid-query: worth one more try on a new one
};

// Checks the arguments, runs the command on `ctx` (format and output are set here), bounds the
// result. Never throws for bad input or a failing query: those are an error outcome.
ToolOutcome call_tool(const Tool& tool, const Context& ctx, const std::optional<simdjson::dom::element>& arguments);

}  // namespace osearch::mcp
