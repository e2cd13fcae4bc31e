#include "mcp/tools.h"

#include <xapian.h>

#include "cli/cmd_memory.h"
#include "cli/cmd_orient.h"
#include "cli/commands.h"
#include "cli/verbatim_args.h"
#include "engine/store/errors.h"
#include "engine/store/index_damage.h"
#include "engine/store/store.h"
#include "mcp/budget.h"

namespace osearch::mcp {
namespace {

using PT = ParamType;

const Param kMaxResultChars{"max_result_chars", PT::Integer,
                            "bound of the whole result in characters (default 20000, 0 = none): past it, trailing "
                            "results are dropped, then long strings cut, and the result says truncated: true"};
const Param kMaxChars{"max_chars", PT::Integer, "the same bound as max_result_chars (give one of them)"};
const Param kTextMaxChars{"max_chars", PT::Integer,
                          "cut each text to N characters, marked truncated: true (the CLI's --max-chars); the "
                          "whole result is still bounded by max_result_chars"};

std::vector<Param> scope_params(bool with_limit) {
  std::vector<Param> p = {
      {"project", PT::Strings, "case-insensitive substring of the project slug or path"},
      {"agent", PT::Strings, "claude|omp|pi|codex"},
      {"session", PT::Strings, "session id or prefix"},
      {"since", PT::String, "YYYY-MM-DD, ISO 8601, or Ns/Nm/Nh/Nd/Nw ago"},
      {"until", PT::String, "exclusive upper bound, same forms as since"},
      {"cwd", PT::String, "working directory prefix"},
  };
  if (with_limit) {
    p.push_back({"limit", PT::Integer, "maximum results (1-100000)"});
    p.push_back({"offset", PT::Integer, "skip the first N results"});
  }
  return p;
}

// The common filters of keyword, content, list, files and failures (SPEC §3).
std::vector<Param> filter_params() {
  std::vector<Param> p = scope_params(true);
  p.push_back({"branch", PT::Strings, "git branch"});
  p.push_back({"model", PT::Strings, "model name substring"});
  p.push_back({"role", PT::Strings, "user|assistant|tool"});
  p.push_back({"type", PT::Strings, "text|thinking|tool_use|tool_result|command|summary|memory"});
  p.push_back({"tool", PT::Strings, "tool name"});
  p.push_back({"include_meta", PT::Boolean, "include injected/meta messages and command envelopes"});
  p.push_back({"snippet_chars", PT::Integer, "snippet length in characters (default 200, 0 = none)"});
  return p;
}

// A tool's parameters plus its output bounds: `max_chars` bounds the whole result (an alias of
// max_result_chars) on tools whose command has no --max-chars of its own.
template <typename... More>
std::vector<Param> with(std::vector<Param> p, More... more) {
  (p.push_back(more), ...);
  p.push_back(kMaxChars);
  p.push_back(kMaxResultChars);
  return p;
}

// The same for thread, context, trace and failures, where `max_chars` is the CLI's per-text cut.
template <typename... More>
std::vector<Param> with_text_cut(std::vector<Param> p, More... more) {
  (p.push_back(more), ...);
  p.push_back(kTextMaxChars);
  p.push_back(kMaxResultChars);
  return p;
}

// Tool arguments are snake_case.
void fill_filters(const Args& a, SearchArgs& s) {
  osearch::fill_filters(a, s, '_');
}

void run_keyword(const Context& ctx, const Args& a) {
  SearchArgs s;
  fill_filters(a, s);
  s.words = {a.text("query")};
  if (a.has("by")) s.by = a.text("by");
  if (a.has("sort")) s.sort = a.text("sort");
  cmd_keyword(ctx, s);
}

void run_content(const Context& ctx, const Args& a) {
  SearchArgs s;
  fill_filters(a, s);
  s.patterns = a.list("pattern");
  s.fixed = a.flag("fixed");
  s.ignore_case = a.flag("ignore_case");
  s.word = a.flag("word");
  if (a.has("by")) s.by = a.text("by");
  if (auto t = a.number("timeout")) {
    if (!(*t >= 0.001 && *t <= 86400.0)) throw BadInput("usage", "search_content: timeout must be 0.001 to 86400 seconds");
    s.timeout_s = *t;
  }
  cmd_content(ctx, s);
}

void run_list(const Context& ctx, const Args& a) {
  SearchArgs s;
  fill_filters(a, s);
  cmd_list(ctx, s);
}

void thread_numbers(const Args& a, ThreadArgs& t) {
  t.numbers.max_chars = a.text("max_chars");
  t.numbers.depth = a.text("depth");
}

void run_thread(const Context& ctx, const Args& a) {
  ThreadArgs t;
  t.target = a.text("session");
  t.around = a.text("around");
  t.include_meta = a.flag("include_meta");
  thread_numbers(a, t);
  t.numbers.window = a.text("window");
  t.numbers.offset = a.text("offset");
  t.numbers.limit = a.text("limit");
  cmd_thread(ctx, t);
}

ThreadArgs message_args(const Args& a) {
  ThreadArgs t;
  t.target = a.text("uuid");
  t.session = a.text("session");
  thread_numbers(a, t);
  return t;
}
void run_context(const Context& ctx, const Args& a) { cmd_context(ctx, message_args(a)); }
void run_trace(const Context& ctx, const Args& a) { cmd_trace(ctx, message_args(a)); }

void run_files(const Context& ctx, const Args& a) {
  FilesArgs f;
  f.path = a.text("path");
  f.no_commands = a.flag("no_commands");
  fill_filters(a, f.common);
  cmd_files(ctx, f);
}

void run_failures(const Context& ctx, const Args& a) {
  FailuresArgs f;
  f.max_chars = a.text("max_chars");
  fill_filters(a, f.common);
  cmd_failures(ctx, f);
}

void run_stats(const Context& ctx, const Args& a) {
  StatsArgs s;
  s.kind = a.text("kind");
  s.by = a.text("by");
  s.utc = a.flag("utc");
  fill_filters(a, s.search);
  cmd_stats(ctx, s);
}

OrientArgs orient_args(const Args& a) {
  OrientArgs o;
  SearchArgs s;
  fill_filters(a, s);
  o.filters = s.filters;
  o.limit = a.text("limit");
  o.offset = a.text("offset");
  return o;
}
void run_subagents(const Context& ctx, const Args& a) { cmd_subagents(ctx, orient_args(a)); }
void run_workflows(const Context& ctx, const Args& a) { cmd_workflows(ctx, orient_args(a)); }

void run_overview(const Context& ctx, const Args& a) {
  OrientArgs o;
  o.project = a.text("project");
  o.cwd = a.text("cwd");
  o.sessions_n = a.text("sessions");
  o.projects_n = a.text("projects");
  cmd_overview(ctx, o);
}

void run_memory_list(const Context& ctx, const Args& a) {
  MemoryArgs m;
  m.query = a.text("query");
  m.all = a.flag("all");
  m.projects = a.list("project");
  m.since = a.text("since");
  m.until = a.text("until");
  m.limit = a.text("limit");
  m.offset = a.text("offset");
  cmd_memory_list(ctx, m);
}

void run_memory_remember(const Context& ctx, const Args& a) {
  MemoryArgs m;
  m.path = a.text("path");
  m.summary = a.text("summary");
  m.session = a.text("session");
  m.start = a.text("start");
  m.end = a.text("end");
  m.project = a.text("project");
  m.anchors = a.list("anchor");
  cmd_memory_remember(ctx, m);
}

void run_memory_forget(const Context& ctx, const Args& a) {
  MemoryArgs m;
  m.id = a.text("id");
  m.reason = a.text("reason");
  cmd_memory_forget(ctx, m);
}

std::vector<Tool> make_tools() {
  const Param by{"by", PT::String, "one result per session (default) or per message", false, {"session", "message"}};
  std::vector<Tool> t;
  t.push_back({"search_keyword", "Keyword search",
               "Ranked full-text search (BM25) over past coding-agent sessions: prompts, answers, thinking, tool "
               "calls and output, titles, memories. Query syntax: words, \"phrase\", prefix*, OR, -term, field:value.",
               with(filter_params(), Param{"query", PT::String, "the query", true}, by,
                    Param{"sort", PT::String, "result order", false, {"relevance", "newest", "oldest"}}),
               false, run_keyword});
  t.push_back({"search_content", "Regex search",
               "Exhaustive regex scan over every message's text (like grep), bounded by a time budget.",
               with(filter_params(), Param{"pattern", PT::Strings, "regex pattern(s); any matches", true},
                    Param{"fixed", PT::Boolean, "patterns are literal strings"},
                    Param{"ignore_case", PT::Boolean, "case-insensitive"},
                    Param{"word", PT::Boolean, "match whole words only"}, by,
                    Param{"timeout", PT::Number, "time budget in seconds (default 10); past it, the hits so far"}),
               false, run_content});
  t.push_back({"list_sessions", "List sessions", "Sessions, newest first, with the command that resumes each.",
               with(filter_params()), false, run_list});
  t.push_back({"read_thread", "Read a session",
               "A session's messages in order (session id or prefix); around a message uuid with window.",
               with_text_cut({Param{"session", PT::String, "session id or prefix (or <id>@<agent>)", true},
                              Param{"around", PT::String, "the window of messages around this message uuid"},
                              Param{"window", PT::Integer, "messages before and after around (default 10)"},
                              Param{"offset", PT::Integer, "skip the first N messages"},
                              Param{"limit", PT::Integer, "at most N messages"},
                              Param{"include_meta", PT::Boolean, "include injected/meta messages"}}),
               false, run_thread, true});
  const std::vector<Param> message_params = {Param{"uuid", PT::String, "message uuid", true},
                                             Param{"session", PT::String, "only in this session (id or prefix)"},
                                             Param{"depth", PT::Integer, "ancestors at most"}};
  t.push_back({"message_context", "Message context",
               "One message with its ancestors, session, subagent and workflow.", with_text_cut(message_params),
               false, run_context, true});
  t.push_back({"message_trace", "Message trace", "A message's parent chain, root first (across compactions).",
               with_text_cut(message_params), false, run_trace, true});
  t.push_back({"file_history", "File history", "Every tool call that touched a file, oldest first.",
               with(filter_params(),
                    Param{"path", PT::String, "absolute path, ./relative to the server's cwd, or a suffix", true},
                    Param{"no_commands", PT::Boolean, "only file arguments and patch headers, not shell commands"}),
               false, run_files});
  t.push_back({"failures", "Failed tool calls", "Failed tool calls, newest first, with the 3 messages after each.",
               with_text_cut(filter_params()), false, run_failures, true});
  std::vector<Param> stats_params = scope_params(true);
  stats_params.push_back({"model", PT::Strings, "model name substring"});
  stats_params.push_back({"tool", PT::Strings, "tool name (tools, files)"});
  t.push_back({"stats", "Statistics", "Aggregates: tokens, tools, files, models, daily; days local unless utc.",
               with(stats_params,
                    Param{"kind", PT::String, "what to count", true, {"tokens", "tools", "files", "models", "daily"}},
                    Param{"by", PT::String, "tokens: day|session|project|model|agent; tools: tool|session|project|day|agent"},
                    Param{"utc", PT::Boolean, "days in UTC instead of the server's local time"}),
               false, run_stats});
  t.push_back({"overview", "Overview", "Orientation: the current project, its recent sessions, all projects, totals.",
               with({Param{"project", PT::String, "the project (substring of slug or path) instead of the cwd's"},
                     Param{"cwd", PT::String, "directory whose project is current (default: the server's cwd)"},
                     Param{"sessions", PT::Integer, "recent sessions of the project (0-1000, default 5)"},
                     Param{"projects", PT::Integer, "projects listed (default 10)"}}),
               false, run_overview});
  t.push_back({"subagents", "Subagents", "Subagent spawns, newest first.", with(scope_params(true)), false, run_subagents});
  t.push_back({"workflows", "Workflows", "Workflow runs, newest first.", with(scope_params(true)), false, run_workflows});
  t.push_back({"memory_list", "List memories", "Active human-approved memories, newest first (ranked with query).",
               with({Param{"query", PT::String, "keyword query over summaries and file texts"},
                     Param{"all", PT::Boolean, "archived (forgotten) memories too"},
                     Param{"project", PT::Strings, "case-insensitive substring of the project or path"},
                     Param{"since", PT::String, "created at or after"}, Param{"until", PT::String, "created before"},
                     Param{"limit", PT::Integer, "maximum results (default 50)"},
                     Param{"offset", PT::Integer, "skip the first N results"}}),
               false, run_memory_list});
  t.push_back({"memory_remember", "Remember",
               "Register an existing text/markdown file as a memory, with a summary. Only with the user's approval.",
               with({Param{"path", PT::String, "the file (relative: to the session's project path, else the cwd)", true},
                     Param{"summary", PT::String, "what it says", true},
                     Param{"session", PT::String, "the session it came from (id or prefix)"},
                     Param{"start", PT::String, "first message uuid it covers"},
                     Param{"end", PT::String, "last message uuid it covers"},
                     Param{"project", PT::String, "project (default: the session's)"},
                     Param{"anchor", PT::Strings, "KIND:PATH[:LINE]"}}),
               true, run_memory_remember});
  t.push_back({"memory_forget", "Forget", "Archive a memory (the file is untouched). Only with the user's approval.",
               with({Param{"id", PT::String, "memory id or unique prefix", true},
                     Param{"reason", PT::String, "why", true}}),
               true, run_memory_forget});
  return t;
}

std::string error_json(const std::string& kind, const std::string& message) {
  Context json;
  json.format = Format::Json;
  return error_line(&json, kind, message);
}

}  // namespace

const std::vector<Tool>& all_tools() {
  static const std::vector<Tool> tools = make_tools();
  return tools;
}

const Tool* find_tool(std::string_view name, bool allow_writes) {
  for (const auto& t : all_tools())
    if (t.name == name && (allow_writes || !t.writes)) return &t;
  return nullptr;
}

void write_tool(JsonWriter& w, const Tool& t, bool with_title, bool with_output_schema, bool with_annotations) {
  w.begin_object();
  w.key("name"); w.value(t.name);
  if (with_title) {
    w.key("title"); w.value(t.title);
  }
  w.key("description"); w.value(t.description);
  w.key("inputSchema");
  write_input_schema(w, t.params);
  if (with_output_schema) {  // the CLI's --format json object, or with max_chars its bounded form
    w.key("outputSchema");
    w.begin_object();
    w.key("type"); w.value("object");
    w.key("properties");
    w.begin_object();
    w.key("truncated"); w.begin_object(); w.key("type"); w.value("boolean"); w.end_object();
    w.end_object();
    w.end_object();
  }
  if (with_annotations) {
    w.key("annotations");
    w.begin_object();
    w.key("readOnlyHint"); w.value(!t.writes);
    w.key("destructiveHint"); w.value(t.name == "memory_forget");
    w.key("idempotentHint"); w.value(!t.writes);
    w.key("openWorldHint"); w.value(false);
    w.end_object();
  }
  w.end_object();
}

ToolOutcome call_tool(const Tool& tool, const Context& server_ctx,
                      const std::optional<simdjson::dom::element>& arguments) {
  ToolOutcome out;
  std::string text;
  Context ctx = server_ctx;
  ctx.format = Format::Json;
  ctx.stdout_tty = false;
  ctx.output = &text;
  auto fail = [&](const std::string& kind, const std::string& message, bool index_failed = true) {
    out.is_error = true;
    out.index_failed = index_failed;
    out.json = error_json(kind, message);
    return out;
  };
  try {
    const Args args = check_arguments(tool.name, tool.params, arguments);
    size_t max_chars = kDefaultMaxChars;
    const bool bound_alias = !tool.max_chars_per_text && args.has("max_chars");
    if (bound_alias && args.has("max_result_chars"))
      throw BadInput("usage", std::string(tool.name) + ": give max_chars or max_result_chars, not both (the same bound)");
    if (bound_alias) max_chars = parse_count("max_chars", args.text("max_chars"), 0, 1000000000);
    if (args.has("max_result_chars"))
      max_chars = parse_count("max_result_chars", args.text("max_result_chars"), 0, 1000000000);
    tool.run(ctx, args);
    while (!text.empty() && text.back() == '\n') text.pop_back();
    out.json = fit_result(text, max_chars);
    return out;
  } catch (const BadInput& e) {
    return fail(e.kind, e.what(), false);
  } catch (const IndexError& e) {
    return fail(e.kind(), e.what());
  } catch (const StoreMissing& e) {
    return fail("no-index", e.what());
  } catch (const IndexDamaged& e) {
    return fail("index-damaged", e.what());
  } catch (const LmdbError& e) {
    if (lmdb_damage_code(e.code)) return fail("index-damaged", IndexDamaged("records", e.what()).what());
    return fail("error", e.what());
  } catch (const std::exception& e) {
    return fail("error", e.what());
  } catch (const Xapian::DatabaseModifiedError& e) {
    // The kept reader's Xapian revision was overwritten by a writer's later commits: a fresh reader answers.
    out.retry = true;
    return fail("index", e.get_description());
  } catch (const Xapian::DatabaseCorruptError& e) {
    return fail("index-damaged", IndexDamaged("xapian", e.get_description()).what());
  } catch (const Xapian::Error& e) {
    return fail("index", e.get_description());
  }
}

}  // namespace osearch::mcp
