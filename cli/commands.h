// One function per command; main.cpp only parses arguments into these structs.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "cli/json_writer.h"
#include "cli/options.h"
#include "cli/query_index.h"
#include "engine/query/query.h"

namespace osearch {

struct IndexArgs {
  bool full = false;
  bool watch = false;
  bool compact = false;  // rebuild the index from itself without its garbage (engine/index/compact.h)
};

struct SearchArgs {
  std::vector<std::string> words;     // keyword query words or content patterns
  std::vector<std::string> patterns;  // -e PAT (content)
  bool fixed = false, ignore_case = false, word = false;
  std::string by = "session";          // session | message
  std::string sort = "relevance";      // keyword: relevance | newest | oldest
  size_t snippet_chars = 200;
  double timeout_s = 10;               // content: time budget in seconds
  FilterArgs filters;
  struct {
    std::string limit, offset, snippet_chars;  // as typed; empty = not given
  } numbers;
};

// The common filters (add_filters in cli/main.cpp) from a frontend's named parameters: `osearch mcp`'s
// tool arguments, `osearch serve`'s query parameters. One list, so that no frontend lacks a filter.
// `Params` has text(name), list(name) and flag(name); `joiner` joins the words of a two-word name as
// the frontend does ('_': "include_meta"; '-': "include-meta").
template <typename Params>
void fill_filters(const Params& p, SearchArgs& s, char joiner) {
  auto spell = [joiner](std::string a, std::string_view b) { return (a += joiner) += b; };
  FilterArgs& f = s.filters;
  f.project = p.list("project");
  f.agent = p.list("agent");
  f.session = p.list("session");
  f.branch = p.list("branch");
  f.model = p.list("model");
  f.role = p.list("role");
  f.type = p.list("type");
  f.tool = p.list("tool");
  f.since = p.text("since");
  f.until = p.text("until");
  f.cwd = p.text("cwd");
  f.include_meta = p.flag(spell("include", "meta"));
  s.numbers.limit = p.text("limit");
  s.numbers.offset = p.text("offset");
  s.numbers.snippet_chars = p.text(spell("snippet", "chars"));
}

// `thread SESSION`, `context UUID`, `trace UUID` (cli/cmd_thread.cpp).
struct ThreadArgs {
  std::string target;   // SESSION for thread, UUID for context/trace
  std::string session;  // context/trace: --session
  std::string around;   // thread: --around UUID
  bool include_meta = false;
  struct {
    std::string max_chars, offset, limit, window, depth;  // as typed; empty = not given
  } numbers;
};

// `files PATH`, `failures` (cli/cmd_files.cpp).
struct FilesArgs {
  std::string path;
  bool no_commands = false;  // only the tools' file arguments, not shell commands naming the file
  SearchArgs common;
};

struct FailuresArgs {
  std::string max_chars;  // as typed; empty = default
  SearchArgs common;
};

// `stats KIND` (cli/cmd_stats.cpp).
struct StatsArgs {
  std::string kind;  // tokens | tools | files | models | daily
  std::string by;    // "" = the kind's default
  bool utc = false;
  SearchArgs search;  // filters and numbers
};

int cmd_index(const Context& ctx, const IndexArgs& args);
int cmd_status(const Context& ctx);
int cmd_check(const Context& ctx);  // exit 1 when a part is damaged
int cmd_keyword(const Context& ctx, const SearchArgs& args);
int cmd_content(const Context& ctx, const SearchArgs& args);
int cmd_list(const Context& ctx, const SearchArgs& args);
int cmd_thread(const Context& ctx, const ThreadArgs& args);
int cmd_context(const Context& ctx, const ThreadArgs& args);
int cmd_trace(const Context& ctx, const ThreadArgs& args);
int cmd_files(const Context& ctx, const FilesArgs& args);        // cli/cmd_files.cpp
int cmd_failures(const Context& ctx, const FailuresArgs& args);  // cli/cmd_files.cpp
int cmd_stats(const Context& ctx, const StatsArgs& args);

struct CheckPart;
// The "parts" array of `check` (and `status` on a damaged index): {part, ok, problem?, detail?}.
void print_check_parts(JsonWriter& w, const std::vector<CheckPart>& parts);

}  // namespace osearch
