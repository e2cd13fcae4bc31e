// `files PATH` and `failures` through the engine API (and the CLI once), on real transcripts of
// tests/data and a few inline Codex lines. Expected answers are read from the raw JSONL here,
// never from osearch: the tool calls whose file argument is the path or whose input names it as a
// whole path, and the tool results marked as errors.
#include <algorithm>
#include <chrono>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <simdjson.h>

#include <catch2/catch.hpp>

#include "test_util.h"

#include "engine/index/indexer.h"
#include "engine/query/files.h"
#include "engine/query/reader.h"
#include "engine/store/store.h"
#include "ingest/timeutil.h"

using namespace osearch;
using namespace osearch_test;

namespace {

int64_t wall_now_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

Filters filters(const std::function<void(FilterArgs&)>& set = {}, size_t limit = 100000) {
  FilterArgs a;
  if (set) set(a);
  return parse_filters(a, wall_now_ms(), limit);
}

// ---- an independent reading of the raw lines -------------------------------------------------

struct RawCall {
  std::string id, name, file_arg, strings, cwd, file;
  std::vector<std::string> patch_files;
};
struct RawResult {
  std::string tool_use_id, uuid, file;
  bool is_error = false;
};
struct RawMessage {
  std::string uuid, file;
  int64_t ts = 0;
  uint64_t offset = 0;
};
struct Raw {
  std::map<std::string, RawCall> calls;  // by id
  std::vector<RawResult> results;
  std::vector<RawMessage> messages;
};

void leaves(simdjson::dom::element e, std::string& out) {
  if (e.is_string()) {
    out.append(std::string_view(e.get_string().value_unsafe())).push_back('\n');
  } else if (e.is_array()) {
    simdjson::dom::array arr = e.get_array().value_unsafe();
    for (auto c : arr) leaves(c, out);
  } else if (e.is_object()) {
    simdjson::dom::object obj = e.get_object().value_unsafe();
    for (auto f : obj) leaves(f.value, out);
  }
}

std::string json_str(simdjson::dom::element e, const char* key) {
  std::string_view s;
  if (e.is_object() && e[key].get_string().get(s) == simdjson::SUCCESS) return std::string(s);
  return {};
}

// Claude: tool_use blocks of assistant lines, tool_result blocks of user lines.
void read_claude(const std::string& path, Raw& raw) {
  simdjson::dom::parser p;
  const std::string data = read_file(path);
  uint64_t offset = 0;
  for (size_t at = 0; at < data.size();) {
    size_t nl = data.find('\n', at);
    if (nl == std::string::npos) nl = data.size();
    const std::string line = data.substr(at, nl - at);
    offset = at;
    at = nl + 1;
    simdjson::dom::element obj;
    if (p.parse(line).get(obj) != simdjson::SUCCESS || !obj.is_object()) continue;
    const std::string type = json_str(obj, "type");
    if ((type != "user" && type != "assistant") || json_str(obj, "uuid").empty()) continue;
    raw.messages.push_back({json_str(obj, "uuid"), path, parse_iso8601_ms(json_str(obj, "timestamp")).value_or(0), offset});
    simdjson::dom::array blocks;
    if (obj["message"]["content"].get_array().get(blocks) != simdjson::SUCCESS) continue;
    for (auto b : blocks) {
      const std::string bt = json_str(b, "type");
      if (bt == "tool_use") {
        RawCall c{json_str(b, "id"), json_str(b, "name"), {}, {}, json_str(obj, "cwd"), path, {}};
        simdjson::dom::element input;
        if (b["input"].get(input) == simdjson::SUCCESS) {
          c.file_arg = json_str(input, "file_path");
          if (c.file_arg.empty()) c.file_arg = json_str(input, "notebook_path");
          if (c.file_arg.empty() && (c.name == "Grep" || c.name == "Glob" || c.name == "LS")) c.file_arg = json_str(input, "path");
          leaves(input, c.strings);
        }
        raw.calls.emplace(c.id, c);
      } else if (bt == "tool_result") {
        bool err = false;
        if (b["is_error"].get_bool().get(err) != simdjson::SUCCESS) err = false;
        raw.results.push_back({json_str(b, "tool_use_id"), json_str(obj, "uuid"), path, err});
      }
    }
  }
}

// omp/pi: toolCall blocks (arguments.path) and toolResult messages (isError).
void read_pi(const std::string& path, Raw& raw, std::string cwd) {
  simdjson::dom::parser p;
  const std::string data = read_file(path);
  for (size_t at = 0; at < data.size();) {
    size_t nl = data.find('\n', at);
    if (nl == std::string::npos) nl = data.size();
    const std::string line = data.substr(at, nl - at);
    at = nl + 1;
    simdjson::dom::element obj;
    if (p.parse(line).get(obj) != simdjson::SUCCESS || json_str(obj, "type") != "message") continue;
    simdjson::dom::element m = obj["message"];
    if (json_str(m, "role") == "toolResult") {
      bool err = false;
      if (m["isError"].get_bool().get(err) != simdjson::SUCCESS) err = false;
      raw.results.push_back({json_str(m, "toolCallId"), {}, path, err});
      continue;
    }
    simdjson::dom::array blocks;
    if (json_str(m, "role") != "assistant" || m["content"].get_array().get(blocks) != simdjson::SUCCESS) continue;
    for (auto b : blocks) {
      if (json_str(b, "type") != "toolCall") continue;
      RawCall c{json_str(b, "id"), json_str(b, "name"), json_str(b["arguments"], "path"), {}, cwd, path, {}};
      // A relative path argument (the omp sample writes them) is the file under the session's cwd.
      if (c.file_arg.rfind("./", 0) == 0) c.file_arg = c.file_arg.substr(2);
      if (!c.file_arg.empty() && c.file_arg[0] != '/') c.file_arg = cwd + "/" + c.file_arg;
      leaves(b["arguments"], c.strings);
      raw.calls.emplace(c.id, c);
    }
  }
}

bool path_char(char ch) {
  auto c = static_cast<unsigned char>(ch);
  return std::isalnum(c) || c >= 0x80 || std::string_view("_-.~@+/\\").find(ch) != std::string_view::npos;
}

// `needle` standing as a whole path in `text` (a '/' before it allowed when it is a suffix).
bool names(const std::string& text, const std::string& needle, bool suffix) {
  for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) {
    size_t end = at + needle.size();
    bool after = end == text.size() || !path_char(text[end]);
    bool before = at == 0 || !path_char(text[at - 1]) || (suffix && text[at - 1] == '/');
    if (after && before) return true;
  }
  return false;
}

bool is_shell(const std::string& name) { return name == "Bash" || name == "bash" || name == "exec_command" || name == "shell"; }

// The calls `files` must return for an absolute path.
std::set<std::string> expected_exact(const Raw& raw, const std::string& path) {
  std::set<std::string> out;
  for (const auto& [id, c] : raw.calls) {
    if (c.file_arg == path || std::count(c.patch_files.begin(), c.patch_files.end(), path)) out.insert(id);
    else if (is_shell(c.name)) {
      bool hit = names(c.strings, path, false);
      if (!hit && !c.cwd.empty() && path.rfind(c.cwd + "/", 0) == 0) {
        std::string rel = path.substr(c.cwd.size() + 1);
        hit = names(c.strings, rel, false) || names(c.strings, "./" + rel, false);
      }
      if (hit) out.insert(id);
    }
  }
  return out;
}

std::set<std::string> expected_suffix(const Raw& raw, const std::string& suffix) {
  std::set<std::string> out;
  for (const auto& [id, c] : raw.calls) {
    const std::string& f = c.file_arg;
    bool arg = f == suffix || (f.size() > suffix.size() && f.compare(f.size() - suffix.size(), suffix.size(), suffix) == 0 &&
                               f[f.size() - suffix.size() - 1] == '/');
    if (arg || (is_shell(c.name) && names(c.strings, suffix, true))) out.insert(id);
  }
  return out;
}

std::set<std::string> ids(const FilesResult& r) {
  std::set<std::string> out;
  for (const auto& t : r.hits) out.insert(t.call.id);
  return out;
}

// The path most tool calls name in their file argument.
std::string most_touched(const Raw& raw) {
  std::map<std::string, int> n;
  for (const auto& [id, c] : raw.calls)
    if (!c.file_arg.empty() && c.file_arg[0] == '/') ++n[c.file_arg];
  return std::max_element(n.begin(), n.end(), [](auto& a, auto& b) { return a.second < b.second; })->first;
}

const std::vector<std::string> kClaudeDirs = {"-home-marco-projects-spotter-worktrees-spotter-0rt",
                                              "-Users-soph-Work-entire-devenv-cli", "-src-experiments-claude_p",
                                              "-experiments-worktrees"};

struct ClaudeIndex {
  TempDir tmp{"files"};
  std::string src = tmp / "claude", idx = tmp / "index";
  Raw raw;
  ClaudeIndex() {
    for (const auto& d : kClaudeDirs) copy_subtree(claude_data_dir(), d, src);
    REQUIRE(run_index(idx, {{"claude", src}}, IndexOptions{}).files_unreadable == 0);
    for (const auto& rel : list_files(src))
      if (rel.size() > 6 && rel.substr(rel.size() - 6) == ".jsonl") read_claude(src + "/" + rel, raw);
  }
};

}  // namespace

TEST_CASE("files: an absolute path finds every tool call naming it, oldest first", "[files]") {
  ClaudeIndex fx;
  const std::string path = most_touched(fx.raw);
  IndexReader r(fx.idx);
  FilesResult res = run_files(r, filters(), FilesOptions{path, "/", true});
  INFO("path " << path);
  CHECK(res.match == "exact");
  CHECK(ids(res) == expected_exact(fx.raw, path));
  CHECK(res.total == res.hits.size());
  REQUIRE(res.hits.size() >= 5);
  for (size_t i = 1; i < res.hits.size(); ++i) CHECK(res.hits[i - 1].call.timestamp_ms <= res.hits[i].call.timestamp_ms);
  std::set<std::string> failed;
  for (const auto& x : fx.raw.results)
    if (x.is_error) failed.insert(x.tool_use_id);
  for (const auto& t : res.hits) {
    CHECK(t.failed == (failed.count(t.call.id) == 1));
    CHECK_FALSE(t.session.id.empty());
    CHECK_FALSE(t.message_uuid.empty());
    if (t.how == "path") CHECK(t.file_path == path);
  }

  // Every absolute path any call names: the same rule holds (shell commands included).
  std::set<std::string> paths;
  for (const auto& [id, c] : fx.raw.calls)
    if (!c.file_arg.empty() && c.file_arg[0] == '/') paths.insert(c.file_arg);
  REQUIRE(paths.size() > 20);
  for (const auto& p : paths) {
    INFO("path " << p);
    CHECK(ids(run_files(r, filters(), FilesOptions{p, "/", true})) == expected_exact(fx.raw, p));
  }
}

TEST_CASE("files: a suffix, a ./relative path, filters and limits", "[files]") {
  ClaudeIndex fx;
  const std::string path = most_touched(fx.raw);
  const size_t slash = path.rfind('/', path.rfind('/') - 1);
  const std::string suffix = path.substr(slash + 1);  // "dir/name"
  const std::string base = path.substr(path.rfind('/') + 1);
  IndexReader r(fx.idx);
  FilesResult by_suffix = run_files(r, filters(), FilesOptions{suffix, "/", true});
  CHECK(by_suffix.match == "suffix");
  CHECK(ids(by_suffix) == expected_suffix(fx.raw, suffix));
  CHECK(ids(run_files(r, filters(), FilesOptions{base, "/", true})) == expected_suffix(fx.raw, base));
  for (const auto& t : by_suffix.hits)
    if (t.how == "path") CHECK(t.file_path.substr(t.file_path.size() - suffix.size() - 1) == "/" + suffix);

  // ./name relative to the directory holding the file is the absolute path.
  const std::string dir = path.substr(0, path.rfind('/'));
  CHECK(ids(run_files(r, filters(), FilesOptions{"./" + base, dir, true})) == expected_exact(fx.raw, path));
  CHECK(ids(run_files(r, filters(), FilesOptions{"../" + base, dir + "/x", true})) == expected_exact(fx.raw, path));

  // --tool, --since/--until, --session, --limit/--offset.
  FilesResult all = run_files(r, filters(), FilesOptions{path, "/", true});
  std::set<std::string> reads;
  for (const auto& t : all.hits)
    if (t.call.name == "Read") reads.insert(t.call.id);
  CHECK(ids(run_files(r, filters([](FilterArgs& a) { a.tool = {"read"}; }), FilesOptions{path, "/", true})) == reads);
  CHECK(run_files(r, filters([](FilterArgs& a) { a.since = "2100-01-01"; }), FilesOptions{path, "/", true}).total == 0);
  CHECK(run_files(r, filters([](FilterArgs& a) { a.until = "2000-01-01"; }), FilesOptions{path, "/", true}).total == 0);
  const std::string sid = all.hits.at(0).session.id;
  FilesResult one = run_files(r, filters([&](FilterArgs& a) { a.session = {sid.substr(0, 8)}; }), FilesOptions{path, "/", true});
  for (const auto& t : one.hits) CHECK(t.session.id == sid);
  FilesResult page = run_files(r, filters({}, 2), FilesOptions{path, "/", true});
  CHECK(page.total == all.total);
  REQUIRE(page.hits.size() == 2);
  CHECK(page.hits[1].call.id == all.hits[1].call.id);
  CHECK_THROWS_AS(run_files(r, filters(), FilesOptions{"", "/", true}), BadInput);
  CHECK(run_files(r, filters(), FilesOptions{"/no/such/file.rs", "/", true}).total == 0);
}

TEST_CASE("failures: every tool result with is_error, newest first, with the next messages", "[files]") {
  ClaudeIndex fx;
  IndexReader r(fx.idx);
  FailuresResult res = run_failures(r, filters([](FilterArgs& a) { a.include_meta = true; }), FailuresOptions{});
  std::set<std::string> expected, got;
  for (const auto& x : fx.raw.results)
    if (x.is_error) expected.insert(x.tool_use_id);
  for (const auto& f : res.hits) got.insert(f.result.tool_use_id);
  REQUIRE(expected.size() >= 5);
  CHECK(got == expected);
  CHECK(res.total == expected.size());
  for (size_t i = 1; i < res.hits.size(); ++i)
    CHECK(res.hits[i - 1].result_message.rec.timestamp_ms >= res.hits[i].result_message.rec.timestamp_ms);

  // The next 3 messages: the lines after the result's line in its file, by time then position.
  std::map<std::string, std::vector<RawMessage>> by_file;
  for (const auto& m : fx.raw.messages) by_file[m.file].push_back(m);
  for (auto& [file, ms] : by_file)
    std::stable_sort(ms.begin(), ms.end(), [](const RawMessage& a, const RawMessage& b) {
      return a.ts != b.ts ? a.ts < b.ts : a.offset < b.offset;
    });
  for (const auto& f : res.hits) {
    REQUIRE(f.call.has_value());
    CHECK(f.call->name == fx.raw.calls.at(f.result.tool_use_id).name);
    CHECK_FALSE(f.result_message.text.empty());
    const RawResult& rr = *std::find_if(fx.raw.results.begin(), fx.raw.results.end(),
                                        [&](const RawResult& x) { return x.tool_use_id == f.result.tool_use_id; });
    const auto& ms = by_file.at(rr.file);
    auto at = std::find_if(ms.begin(), ms.end(), [&](const RawMessage& m) { return m.uuid == rr.uuid; });
    REQUIRE(at != ms.end());
    std::vector<std::string> want, have;
    for (auto it = at + 1; it != ms.end() && want.size() < 3; ++it)
      if (std::find(want.begin(), want.end(), it->uuid) == want.end()) want.push_back(it->uuid);
    for (const auto& m : f.next) have.push_back(m.rec.uuid);
    INFO("failure " << f.result.tool_use_id);
    CHECK(have == want);
  }

  // Filters: --tool, --since, --limit/--offset, --project.
  const std::string tool = res.hits.at(0).call->name;
  FailuresResult by_tool = run_failures(r, filters([&](FilterArgs& a) { a.tool = {tool}; }), FailuresOptions{});
  size_t n = std::count_if(res.hits.begin(), res.hits.end(), [&](const Failure& f) { return f.call->name == tool; });
  CHECK(by_tool.total == n);
  CHECK(run_failures(r, filters([](FilterArgs& a) { a.since = "2100-01-01"; }), FailuresOptions{}).total == 0);
  FailuresResult page = run_failures(r, filters([](FilterArgs& a) { a.offset = 1; }, 2), FailuresOptions{});
  CHECK(page.total == res.total);
  REQUIRE(page.hits.size() == 2);
  CHECK(page.hits[0].result.tool_use_id == res.hits[1].result.tool_use_id);
  FailuresResult proj = run_failures(r, filters([](FilterArgs& a) { a.project = {"claude_p"}; }), FailuresOptions{});
  REQUIRE(proj.total > 0);
  for (const auto& f : proj.hits) CHECK(f.session.project.find("claude_p") != std::string::npos);
  FailuresResult cut = run_failures(r, filters(), FailuresOptions{5, 3});
  for (const auto& f : cut.hits) CHECK(f.result_message.text.size() <= 5 * 4);
}

// Each failure's entry names its call's tool, so `--tool` reads no call; an entry that names none
// (its call was read after it, or the index was written before entries held names) reads the call.
TEST_CASE("failures --tool: by the entry's stored name, else by reading the call", "[files]") {
  ClaudeIndex fx;
  std::map<std::string, size_t> per_tool;  // lower-cased tool -> failures, from the raw lines
  for (const auto& x : fx.raw.results)
    if (x.is_error) ++per_tool[ascii_lower(fx.raw.calls.at(x.tool_use_id).name)];
  REQUIRE(per_tool.size() >= 2);
  auto totals = [&] {
    IndexReader r(fx.idx);
    std::map<std::string, size_t> got;
    for (const auto& [tool, n] : per_tool) {
      FailuresResult res = run_failures(r, filters([&](FilterArgs& a) { a.tool = {tool}; }), FailuresOptions{});
      for (const auto& f : res.hits) CHECK(ascii_lower(f.call->name) == tool);
      got[tool] = res.total;
    }
    return got;
  };
  {
    IndexReader r(fx.idx);
    size_t named = 0;
    LmdbCursor cur(r.txn(), r.db().failed_results);
    for (bool ok = cur.first(); ok; ok = cur.next(), ++named) {
      const std::string tool_use_id(cur.key().substr(cur.key().rfind('\0') + 1));
      CHECK(cur.value() == fx.raw.calls.at(tool_use_id).name);
    }
    std::set<std::string> failed;
    for (const auto& x : fx.raw.results)
      if (x.is_error) failed.insert(x.tool_use_id);
    CHECK(named == failed.size());
  }
  CHECK(totals() == per_tool);
  {  // as an index written before the entries named their calls
    Store store(fx.idx, Store::Mode::Write);
    LmdbTxn txn(store.env(), false);
    std::vector<std::string> keys;
    {
      LmdbCursor cur(txn, store.db().failed_results);
      for (bool ok = cur.first(); ok; ok = cur.next()) keys.emplace_back(cur.key());
    }
    REQUIRE(!keys.empty());
    for (const auto& k : keys) txn.put(store.db().failed_results, k, "");
    txn.commit();
  }
  CHECK(totals() == per_tool);

  // A result read before its call: its entry names nothing, and the call, read by a later run, decides.
  TempDir tmp{"failures-late-call"};
  const std::string dir = tmp / "src/-p", sid = "0b7c52a4-5f0e-4f5e-9a36-3f2d1c0e9a11";
  const std::string file = dir + "/" + sid + ".jsonl";
  fs::create_directories(dir);
  const std::string head = R"({"sessionId":")" + sid + R"(","cwd":"/p","version":"2.1.0",)";
  write_file(file, head + R"("type":"user","uuid":"u1","parentUuid":"a1","timestamp":"2026-01-01T00:00:02Z","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_late","content":"boom","is_error":true}]}})" "\n");
  REQUIRE(run_index(tmp / "index", {{"claude", tmp / "src"}}, IndexOptions{}).files_unreadable == 0);
  auto bash_failures = [&] {
    IndexReader r(tmp / "index");
    return run_failures(r, filters([](FilterArgs& a) { a.tool = {"bash"}; }), FailuresOptions{}).total;
  };
  CHECK(bash_failures() == 0);  // no call read yet: no tool to match
  append_file(file, head + R"("type":"assistant","uuid":"a1","parentUuid":null,"timestamp":"2026-01-01T00:00:01Z","message":{"role":"assistant","id":"msg_1","model":"claude-x","content":[{"type":"tool_use","id":"toolu_late","name":"Bash","input":{"command":"false"}}]}})" "\n");
  REQUIRE(run_index(tmp / "index", {{"claude", tmp / "src"}}, IndexOptions{}).files_unreadable == 0);
  CHECK(bash_failures() == 1);
}

TEST_CASE("files and failures on pi and omp transcripts", "[files]") {
  for (const std::string agent : {"pi", "omp"}) {
    TempDir tmp{"files-pi"};
    const std::string root = test_data_dir() + "/" + agent + "/." + agent + "/agent";
    copy_tree(root, tmp / "src");
    REQUIRE(run_index(tmp / "index", {{agent, tmp / "src"}}, IndexOptions{}).files_unreadable == 0);
    Raw raw;
    for (const auto& rel : list_files(tmp / "src"))
      if (rel.find("pi-mono") != std::string::npos) read_pi(tmp / "src" + "/" + rel, raw, "/Users/badlogic/workspaces/pi-mono");
    INFO(agent << ": " << raw.calls.size() << " calls, " << list_files(tmp / "src").size() << " files");
    REQUIRE(raw.calls.size() > 100);
    IndexReader r(tmp / "index");
    const std::string path = most_touched(raw);
    INFO(agent << " " << path);
    FilesResult res = run_files(r, filters(), FilesOptions{path, "/", true});
    REQUIRE(res.total > 10);
    CHECK(ids(res) == expected_exact(raw, path));
    const std::string suffix = path.substr(path.rfind('/', path.rfind('/') - 1) + 1);
    CHECK(ids(run_files(r, filters(), FilesOptions{suffix, "/", true})) == expected_suffix(raw, suffix));
    std::set<std::string> expected, got;
    for (const auto& x : raw.results)
      if (x.is_error) expected.insert(x.tool_use_id);
    FailuresResult fails = run_failures(r, filters(), FailuresOptions{});
    for (const auto& f : fails.hits)
      if (f.session.project_path.find("pi-mono") != std::string::npos) got.insert(f.result.tool_use_id);
    REQUIRE(expected.size() >= 10);
    CHECK(got == expected);
    for (const auto& f : fails.hits) CHECK(f.next.size() <= 3);
  }
}

TEST_CASE("files and failures through the CLI: JSON, JSONL, text, exit codes", "[files]") {
  ClaudeIndex fx;
  const std::string path = most_touched(fx.raw);
  RunResult j = run_osearch({"files", path, "--index", fx.idx, "--no-refresh", "--format", "json"});
  REQUIRE(j.exit_code == 0);
  CHECK(j.out.find("\"action\":\"files\"") != std::string::npos);
  CHECK(j.out.find("\"resume_hint\":\"cd ") != std::string::npos);
  CHECK(j.out.find("\"match\":\"exact\"") != std::string::npos);
  RunResult l = run_osearch({"failures", "--index", fx.idx, "--no-refresh", "--format", "jsonl", "--limit", "2"});
  REQUIRE(l.exit_code == 0);
  CHECK(std::count(l.out.begin(), l.out.end(), '\n') == 3);
  CHECK(l.out.find("{\"summary\":{\"action\":\"failures\"") != std::string::npos);
  RunResult t = run_osearch({"failures", "--index", fx.idx, "--no-refresh", "--format", "text", "--limit", "1"});
  REQUIRE(t.exit_code == 0);
  CHECK(t.out.find("error: ") != std::string::npos);
  CHECK(run_osearch({"files", "--index", fx.idx, "--no-refresh"}).exit_code == 2);
  CHECK(run_osearch({"files", "/x", "--index", fx.idx, "--no-refresh", "--since", "yesterday-ish"}).exit_code == 2);
}
