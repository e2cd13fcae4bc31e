#include "web/api.h"

#include <xapian.h>

#include <functional>
#include <vector>

#include "cli/cmd_memory.h"
#include "cli/cmd_orient.h"
#include "cli/commands.h"
#include "cli/json_writer.h"
#include "engine/query/reader.h"
#include "engine/store/errors.h"
#include "engine/store/index_damage.h"
#include "engine/store/store.h"

namespace osearch::web {
namespace {

// Returns the command's exit code: non-zero after a complete answer means the index is damaged
// (status on a damaged index answers its parts, then 1).
using Run = std::function<int(const Context&, const QueryParams&, const std::string& id)>;

struct Endpoint {
  std::string_view name;    // the first path segment
  std::string_view method;  // GET or POST
  enum class Id { None, One, MemoryAction } id = Id::None;
  std::string_view action;  // MemoryAction: "forget" | "restore"
  std::vector<ParamSpec> params;
  Run run;
  bool opens_own_env = false;  // status and the memory writes open the index themselves
};

void fill_filters(const QueryParams& q, SearchArgs& s) {
  // Query parameters are spelt as the CLI's options.
  osearch::fill_filters(q, s, '-');
}

// A choice the CLI checks with CLI11 before the command runs.
std::string choice(const QueryParams& q, std::string_view name, std::vector<std::string_view> choices,
                   std::string fallback) {
  if (!q.has(name)) return fallback;
  std::string v = q.text(name);
  std::string names;
  for (auto c : choices) {
    if (c == v) return v;
    names += (names.empty() ? "" : ", ") + std::string(c);
  }
  throw BadInput("usage", std::string(name) + ": \"" + v + "\" is not one of " + names);
}

int run_keyword(const Context& ctx, const QueryParams& q, const std::string&) {
  SearchArgs s;
  fill_filters(q, s);
  s.words = {q.required("query")};
  s.by = choice(q, "by", {"session", "message"}, s.by);
  s.sort = choice(q, "sort", {"relevance", "newest", "oldest"}, s.sort);
  return cmd_keyword(ctx, s);
}

int run_content(const Context& ctx, const QueryParams& q, const std::string&) {
  SearchArgs s;
  fill_filters(q, s);
  q.required("pattern");
  s.patterns = q.list("pattern");
  s.fixed = q.flag("fixed-strings");
  s.ignore_case = q.flag("ignore-case");
  s.word = q.flag("word-regexp");
  s.by = choice(q, "by", {"session", "message"}, s.by);
  if (q.has("timeout")) {
    const std::string t = q.text("timeout");
    size_t used = 0;
    double seconds = 0;
    try {
      seconds = std::stod(t, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used != t.size() || !(seconds >= 0.001 && seconds <= 86400.0))
      throw BadInput("usage", "timeout: \"" + t + "\" is not a number of seconds from 0.001 to 86400");
    s.timeout_s = seconds;
  }
  return cmd_content(ctx, s);
}

int run_list(const Context& ctx, const QueryParams& q, const std::string&) {
  SearchArgs s;
  fill_filters(q, s);
  return cmd_list(ctx, s);
}

int run_thread(const Context& ctx, const QueryParams& q, const std::string& id) {
  ThreadArgs t;
  t.target = id;
  t.around = q.text("around");
  t.include_meta = q.flag("include-meta");
  t.numbers.max_chars = q.text("max-chars");
  t.numbers.window = q.text("window");
  t.numbers.offset = q.text("offset");
  t.numbers.limit = q.text("limit");
  return cmd_thread(ctx, t);
}

ThreadArgs message_args(const QueryParams& q, const std::string& uuid) {
  ThreadArgs t;
  t.target = uuid;
  t.session = q.text("session");
  t.numbers.max_chars = q.text("max-chars");
  t.numbers.depth = q.text("depth");
  return t;
}

int run_files(const Context& ctx, const QueryParams& q, const std::string&) {
  FilesArgs f;
  f.path = q.required("path");
  f.no_commands = q.flag("no-commands");
  fill_filters(q, f.common);
  return cmd_files(ctx, f);
}

int run_failures(const Context& ctx, const QueryParams& q, const std::string&) {
  FailuresArgs f;
  f.max_chars = q.text("max-chars");
  fill_filters(q, f.common);
  return cmd_failures(ctx, f);
}

int run_stats(const Context& ctx, const QueryParams& q, const std::string& kind) {
  StatsArgs s;
  s.kind = kind;
  if (kind != "tokens" && kind != "tools" && kind != "files" && kind != "models" && kind != "daily")
    throw BadInput("usage", "stats: \"" + kind + "\" is not one of tokens, tools, files, models, daily");
  s.by = q.text("by");
  s.utc = q.flag("utc");
  fill_filters(q, s.search);
  return cmd_stats(ctx, s);
}

OrientArgs orient_args(const QueryParams& q) {
  OrientArgs o;
  SearchArgs s;
  fill_filters(q, s);
  o.filters = s.filters;
  o.limit = q.text("limit");
  o.offset = q.text("offset");
  return o;
}

int run_overview(const Context& ctx, const QueryParams& q, const std::string&) {
  OrientArgs o;
  o.project = q.text("project");
  o.cwd = q.text("cwd");
  o.sessions_n = q.text("sessions");
  o.projects_n = q.text("projects");
  return cmd_overview(ctx, o);
}

int run_memories(const Context& ctx, const QueryParams& q, const std::string&) {
  MemoryArgs m;
  m.query = q.text("query");
  m.all = q.flag("all");
  m.projects = q.list("project");
  m.since = q.text("since");
  m.until = q.text("until");
  m.limit = q.text("limit");
  m.offset = q.text("offset");
  return cmd_memory_list(ctx, m);
}

const std::vector<Endpoint>& endpoints() {
  using Id = Endpoint::Id;
  static const std::vector<Endpoint> all = {
      {"keyword", "GET", Id::None, "", with(filter_params(), {{"query"}, {"by"}, {"sort"}}), run_keyword},
      {"content", "GET", Id::None, "",
       with(filter_params(), {{"pattern", Kind::Texts},
                              {"fixed-strings", Kind::Flag},
                              {"ignore-case", Kind::Flag},
                              {"word-regexp", Kind::Flag},
                              {"by"},
                              {"timeout"}}),
       run_content},
      {"list", "GET", Id::None, "", filter_params(), run_list},
      {"thread", "GET", Id::One, "",
       {{"around"}, {"window"}, {"offset"}, {"limit"}, {"include-meta", Kind::Flag}, {"max-chars"}}, run_thread},
      {"context", "GET", Id::One, "", {{"session"}, {"max-chars"}, {"depth"}},
       [](const Context& c, const QueryParams& q, const std::string& id) { return cmd_context(c, message_args(q, id)); }},
      {"trace", "GET", Id::One, "", {{"session"}, {"max-chars"}, {"depth"}},
       [](const Context& c, const QueryParams& q, const std::string& id) { return cmd_trace(c, message_args(q, id)); }},
      {"files", "GET", Id::None, "", with(filter_params(), {{"path"}, {"no-commands", Kind::Flag}}), run_files},
      {"failures", "GET", Id::None, "", with(filter_params(), {{"max-chars"}}), run_failures},
      {"stats", "GET", Id::One, "", stats_params(), run_stats},
      {"overview", "GET", Id::None, "", {{"project"}, {"cwd"}, {"sessions"}, {"projects"}}, run_overview},
      {"subagents", "GET", Id::None, "", scope_params(),
       [](const Context& c, const QueryParams& q, const std::string&) { return cmd_subagents(c, orient_args(q)); }},
      {"workflows", "GET", Id::None, "", scope_params(),
       [](const Context& c, const QueryParams& q, const std::string&) { return cmd_workflows(c, orient_args(q)); }},
      {"workflow", "GET", Id::One, "", {},
       [](const Context& c, const QueryParams&, const std::string& id) {
         OrientArgs o;
         o.run_id = id;
         return cmd_workflow(c, o);
       }},
      {"memories", "GET", Id::None, "",
       {{"query"}, {"all", Kind::Flag}, {"project", Kind::Texts}, {"since"}, {"until"}, {"limit"}, {"offset"}},
       run_memories},
      {"memories", "POST", Id::MemoryAction, "forget", {{"reason"}},
       [](const Context& c, const QueryParams& q, const std::string& id) {
         MemoryArgs m;
         m.id = id;
         m.reason = q.required("reason");
         return cmd_memory_forget(c, m);
       },
       true},
      {"memories", "POST", Id::MemoryAction, "restore", {},
       [](const Context& c, const QueryParams&, const std::string& id) {
         MemoryArgs m;
         m.id = id;
         return cmd_memory_restore(c, m);
       },
       true},
      {"memories", "GET", Endpoint::Id::One, "", {{"history", Kind::Flag}},
       [](const Context& c, const QueryParams& q, const std::string& id) {
         MemoryArgs m;
         m.id = id;
         m.history = q.flag("history");
         return cmd_memory_show(c, m);
       }},
      {"status", "GET", Id::None, "", {}, [](const Context& c, const QueryParams&, const std::string&) { return cmd_status(c); },
       true},
  };
  return all;
}

// Which endpoint a path names, and its id: "thread/<id>", "memories/<id>/forget".
const Endpoint* route(std::string_view path, std::string& id) {
  const size_t slash = path.find('/');
  const std::string_view head = path.substr(0, slash);
  const std::string_view rest = slash == std::string_view::npos ? std::string_view() : path.substr(slash + 1);
  for (const auto& e : endpoints()) {
    if (e.name != head) continue;
    if (e.id == Endpoint::Id::None && slash == std::string_view::npos) return &e;
    if (e.id == Endpoint::Id::One && !rest.empty()) {
      id = std::string(rest);
      return &e;
    }
    if (e.id == Endpoint::Id::MemoryAction) {
      const size_t last = rest.rfind('/');
      if (last != std::string_view::npos && last > 0 && rest.substr(last + 1) == e.action) {
        id = std::string(rest.substr(0, last));
        return &e;
      }
    }
  }
  return nullptr;
}

// SPEC §5's error kinds as HTTP statuses: what names nothing found is 404, other bad input 400,
// everything the index did wrong 500.
int status_of_input_error(const std::string& kind) { return kind.rfind("unknown-", 0) == 0 ? 404 : 400; }

// A 64-bit FNV-1a over what a reader shows, cut to 53 bits (a JavaScript number stays exact).
struct Fnv {
  uint64_t h = 1469598103934665603ull;
  void add(std::string_view s) {
    for (unsigned char c : s) h = (h ^ c) * 1099511628211ull;
    add_byte(0);
  }
  void add(int64_t v) { add(std::to_string(v)); }
  void add_byte(unsigned char c) { h = (h ^ c) * 1099511628211ull; }
};

}  // namespace

std::string error_json(const std::string& kind, const std::string& message) {
  Context json;
  json.format = Format::Json;
  return error_line(&json, kind, message);
}

Api::Api(Context ctx) : ctx_(std::move(ctx)), last_call_(std::chrono::steady_clock::now()) {
  ctx_.format = Format::Json;
  ctx_.stdout_tty = false;
  ctx_.readers = &readers_;
  ctx_.warnings = &warnings_;
}

std::string Api::with_warnings(std::string body) {
  if (warnings_.empty() || body.size() < 2 || body.front() != '{') return body;
  std::string member = "\"warnings\":[";
  for (size_t i = 0; i < warnings_.size(); ++i) {
    if (i) member += ',';
    member += json_escape(warnings_[i]);
  }
  member += ']';
  warnings_.clear();
  const bool empty_object = body.find_first_not_of(" \t\r\n", 1) == body.size() - 1;
  body.insert(1, member + (empty_object ? "" : ","));
  return body;
}

void Api::release_if_idle(std::chrono::steady_clock::duration idle) {
  std::lock_guard lock(engine_);
  if (readers_.is_open() && std::chrono::steady_clock::now() - last_call_ >= idle) readers_.idle();
}

std::string Api::generation() {
  uint64_t refreshed = 0;
  bool stale = false;
  IndexReader& r = readers_.open(ctx_, refreshed, stale);
  const IndexCounts c = r.counts();
  Fnv f;
  for (int64_t v : {static_cast<int64_t>(c.sessions), static_cast<int64_t>(c.messages),
                    static_cast<int64_t>(c.tool_calls), static_cast<int64_t>(c.memories), c.last_indexed_at})
    f.add(v);
  for (const auto& m : r.memories()) {
    f.add(m.id);
    f.add(m.deleted_at);
  }
  return with_warnings("{\"generation\":" + std::to_string(f.h & ((uint64_t{1} << 53) - 1)) + ",\"sessions\":" +
                       std::to_string(c.sessions) + ",\"messages\":" + std::to_string(c.messages) + "}");
}

ApiResponse Api::dispatch(std::string_view method, std::string_view path, const Params& params) {
  if (path == "generation") {
    if (method != "GET") return {405, error_json("method-not-allowed", "/api/generation takes GET"), "GET"};
    QueryParams("generation", params, {});
    return {200, generation(), ""};
  }
  std::string id;
  const Endpoint* e = route(path, id);
  if (!e) return {404, error_json("not-found", "no API endpoint /api/" + std::string(path)), ""};
  if (e->method != method)
    return {405,
            error_json("method-not-allowed", "/api/" + std::string(path) + " takes " + std::string(e->method) +
                                                 (e->method == "POST" ? " (it changes a memory)" : "")),
            std::string(e->method)};
  const QueryParams q(e->name, params, e->params);
  std::string out;
  Context ctx = ctx_;
  ctx.output = &out;
  // LMDB allows one open of an env per process: the kept reader is closed before a command that
  // opens the index itself.
  if (e->opens_own_env) readers_.drop();
  const int code = e->run(ctx, q, id);
  while (!out.empty() && out.back() == '\n') out.pop_back();
  if (code != 0) {
    readers_.drop();
    return {500, std::move(out), ""};
  }
  return {200, with_warnings(std::move(out)), ""};
}

ApiResponse Api::handle(std::string_view method, std::string_view path, const Params& params) {
  std::lock_guard lock(engine_);
  last_call_ = std::chrono::steady_clock::now();
  auto fail = [&](int status, const std::string& kind, const std::string& message, bool index_failed = true) {
    if (index_failed) readers_.drop();  // reopened (and checked) by the next call
    return ApiResponse{status, error_json(kind, message), ""};
  };
  for (int attempt = 0;; ++attempt) {
    try {
      return dispatch(method, path, params);
    } catch (const BadInput& e) {
      return fail(status_of_input_error(e.kind), e.kind, e.what(), false);
    } catch (const IndexError& e) {
      return fail(500, e.kind(), e.what());
    } catch (const StoreMissing& e) {
      return fail(500, "no-index", e.what());
    } catch (const IndexDamaged& e) {
      return fail(500, "index-damaged", e.what());
    } catch (const LmdbError& e) {
      if (lmdb_damage_code(e.code)) return fail(500, "index-damaged", IndexDamaged("records", e.what()).what());
      return fail(500, "error", e.what());
    } catch (const std::exception& e) {
      return fail(500, "error", e.what());
    } catch (const Xapian::DatabaseModifiedError& e) {
      // The kept reader's Xapian revision was overwritten by a writer's later commits: a fresh reader answers.
      readers_.drop();
      if (attempt == 0) continue;
      return fail(500, "index", e.get_description());
    } catch (const Xapian::DatabaseCorruptError& e) {
      return fail(500, "index-damaged", IndexDamaged("xapian", e.get_description()).what());
    } catch (const Xapian::Error& e) {
      return fail(500, "index", e.get_description());
    }
  }
}

}  // namespace osearch::web
