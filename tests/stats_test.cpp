// `stats` against answers computed here from the raw JSONL (simdjson), by the counting rules of
// issue 10: each API message (message.id) counts once per session, subagent files included, with
// its largest usage; cache creation from the `cache_creation` object when present; tool failures
// are the tool_result blocks with is_error. Plus the incremental rule (a larger chunk read in a
// later run adds only the difference) and that --full and the aggregate rebuild agree.
#include <map>
#include <set>
#include <string>
#include <tuple>

#include <simdjson.h>

#include <catch2/catch.hpp>

#include "engine/store/lmdb.h"
#include "engine/store/store.h"
#include "engine/store/usage_agg.h"
#include "tests/cli_fixture.h"

namespace {

// The path as `files`/`stats files` key it: a relative POSIX path joined to the line's absolute cwd,
// "." segments, repeated and trailing slashes dropped, ".." taken back (Windows and ~ paths as written).
std::string absolute(std::string_view path, std::string_view cwd) {
  const bool relative = !path.empty() && path[0] != '/' && path[0] != '~' && path[0] != '\\' &&
                        !(path.size() > 1 && path[1] == ':');
  if (!relative && (path.empty() || path[0] != '/')) return std::string(path);
  if (relative && (cwd.empty() || cwd[0] != '/')) return std::string(path);
  const std::string joined = relative ? std::string(cwd) + "/" + std::string(path) : std::string(path);
  std::vector<std::string> parts;
  size_t pos = 0;
  while (pos <= joined.size()) {
    size_t slash = joined.find('/', pos);
    if (slash == std::string::npos) slash = joined.size();
    const std::string seg = joined.substr(pos, slash - pos);
    if (seg == "..") {
      if (!parts.empty()) parts.pop_back();
    } else if (!seg.empty() && seg != ".") {
      parts.push_back(seg);
    }
    pos = slash + 1;
  }
  std::string out;
  for (const auto& p : parts) out += "/" + p;
  return out.empty() ? "/" : out;
}

// Whole dirs of tests/data/claude: real transcripts, nested subagents, compactions, failed tools.
const std::vector<std::string> kStatsDirs = {
    "-experiments-worktrees", "D--oh-my-posh", "sample-project", "-Users-alex-workspace-cli",
    "-private-var-folders-t5-6tq8cxtj20z035rv8hsnzwvh0000gn-T-capture-caLMT9",
    "-private-var-folders-t5-6tq8cxtj20z035rv8hsnzwvh0000gn-T-capture-vyPJVq"};

struct Tok {
  int64_t in = 0, out = 0, cw = 0, cr = 0, msgs = 0;
  int64_t total() const { return in + out + cw + cr; }
  void add(const Tok& o) { in += o.in; out += o.out; cw += o.cw; cr += o.cr; msgs += o.msgs; }
  bool operator==(const Tok& o) const { return in == o.in && out == o.out && cw == o.cw && cr == o.cr && msgs == o.msgs; }
};
std::ostream& operator<<(std::ostream& os, const Tok& t) {
  return os << "{in " << t.in << " out " << t.out << " cw " << t.cw << " cr " << t.cr << " msgs " << t.msgs << "}";
}

int64_t days_from_civil(int64_t y, unsigned m, unsigned d) {  // H. Hinnant's algorithm
  y -= m <= 2;
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const unsigned yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<int64_t>(doe) - 719468;
}

int64_t parse_ts(std::string_view s) {  // 2025-07-28T21:09:10.866Z
  if (s.size() < 19) return 0;
  auto num = [&](size_t at, size_t n) { return std::stoll(std::string(s.substr(at, n))); };
  int64_t ms = 0;
  if (s.size() >= 23 && s[19] == '.') ms = num(20, 3);
  const int64_t days = days_from_civil(num(0, 4), static_cast<unsigned>(num(5, 2)), static_cast<unsigned>(num(8, 2)));
  return ((days * 24 + num(11, 2)) * 60 + num(14, 2)) * 60000 + num(17, 2) * 1000 + ms;
}

std::string day_of(int64_t ms) {  // UTC day of a time
  int64_t z = (ms >= 0 ? ms : ms - 86399999) / 86400000 + 719468;
  const int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  const unsigned doe = static_cast<unsigned>(z - era * 146097);
  const unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const unsigned mp = (5 * doy + 2) / 153;
  const unsigned d = doy - (153 * mp + 2) / 5 + 1;
  const unsigned m = mp < 10 ? mp + 3 : mp - 9;
  const int64_t y = static_cast<int64_t>(yoe) + era * 400 + (m <= 2);
  char buf[40];
  std::snprintf(buf, sizeof buf, "%04lld-%02u-%02u", static_cast<long long>(y), m, d);
  return buf;
}

std::string_view text(simdjson::dom::element e, const char* k) {
  std::string_view v;
  if (e[k].get(v) != simdjson::SUCCESS) return {};
  return v;
}

int64_t field(simdjson::dom::element e, const char* k) {
  int64_t v = 0;
  if (e[k].get_int64().get(v) != simdjson::SUCCESS) return 0;
  return v;
}

// What the transcripts say, counted here without osearch.
struct Oracle {
  struct Counted {
    Tok tok;
    std::string sid, model;
    int64_t ts = 0;
  };
  std::map<std::string, Counted> by_api;  // sid \0 message.id -> largest usage, first time and model
  std::vector<Counted> unnamed;           // usage lines without a message.id: each counts
  std::map<std::string, std::string> tool_name;  // sid \0 tool_use id -> name
  std::set<std::string> failed;                  // sid \0 tool_use id of is_error results
  std::map<std::string, std::string> tool_path;  // sid \0 tool_use id -> the file it names

  // The session a file belongs to: <slug>/<sid>.jsonl, or <slug>/<sid>/subagents/….
  static std::string session_of(const fs::path& rel) {
    auto it = rel.begin();
    ++it;  // the slug
    const fs::path second = *it;
    return second.extension() == ".jsonl" ? second.stem().string() : second.string();
  }

  void read(const std::string& root) {
    std::vector<fs::path> files;
    for (const auto& e : fs::recursive_directory_iterator(root))
      if (e.is_regular_file() && e.path().extension() == ".jsonl") files.push_back(e.path());
    std::sort(files.begin(), files.end());
    simdjson::dom::parser parser;
    for (const auto& f : files) {
      const std::string sid = session_of(fs::relative(f, root));
      for (const auto& line : lines_of(read_file(f.string()))) {
        simdjson::dom::element obj;
        if (parser.parse(line).get(obj) != simdjson::SUCCESS || !obj.is_object()) continue;
        const std::string_view type = text(obj, "type"), ts = text(obj, "timestamp");
        simdjson::dom::element msg;
        simdjson::dom::array content;
        if (obj["message"].get(msg) != simdjson::SUCCESS || !msg.is_object()) continue;
        if (type == "assistant") read_assistant(sid, msg, parse_ts(ts));
        if (msg["content"].get_array().get(content) == simdjson::SUCCESS) {
          for (simdjson::dom::element b : content) {
            std::string_view id;
            const std::string_view bt = text(b, "type");
            if (bt == "tool_use" && type == "assistant" && b["id"].get(id) == simdjson::SUCCESS) {
              const std::string name(text(b, "name"));
              tool_name.emplace(sid + '\0' + std::string(id), name);
              // The file a call names: file_path, notebook_path, or Grep/Glob/LS's path.
              simdjson::dom::element input;
              if (b["input"].get(input) == simdjson::SUCCESS && input.is_object()) {
                std::string_view path = text(input, "file_path");
                if (path.empty()) path = text(input, "notebook_path");
                if (path.empty() && (name == "Grep" || name == "Glob" || name == "LS")) path = text(input, "path");
                if (!path.empty()) tool_path.emplace(sid + '\0' + std::string(id), absolute(path, text(obj, "cwd")));
              }
            }
            bool err = false;
            if (bt == "tool_result" && type == "user" && b["tool_use_id"].get(id) == simdjson::SUCCESS &&
                b["is_error"].get(err) == simdjson::SUCCESS && err)
              failed.insert(sid + '\0' + std::string(id));
          }
        }
      }
    }
  }

  void read_assistant(const std::string& sid, simdjson::dom::element msg, int64_t ts) {
    simdjson::dom::element u, cc;
    if (msg["usage"].get(u) != simdjson::SUCCESS || !u.is_object()) return;
    Tok t{field(u, "input_tokens"), field(u, "output_tokens"), 0, field(u, "cache_read_input_tokens"), 1};
    t.cw = u["cache_creation"].get(cc) == simdjson::SUCCESS && cc.is_object()
               ? field(cc, "ephemeral_5m_input_tokens") + field(cc, "ephemeral_1h_input_tokens")
               : field(u, "cache_creation_input_tokens");
    if (t.total() == 0) return;
    const std::string_view id = text(msg, "id"), model = text(msg, "model");
    if (id.empty()) {
      unnamed.push_back({t, sid, std::string(model), ts});
      return;
    }
    auto [it, fresh] = by_api.try_emplace(sid + '\0' + std::string(id), Counted{t, sid, std::string(model), ts});
    if (!fresh && t.total() > it->second.tok.total()) it->second.tok = t;  // first time and model stay
  }

  template <typename KeyOf>
  std::map<std::string, Tok> sum(KeyOf key_of) const {
    std::map<std::string, Tok> out;
    for (const auto& [k, c] : by_api) out[key_of(c)].add(c.tok);
    for (const auto& c : unnamed) out[key_of(c)].add(c.tok);
    return out;
  }
};

std::map<std::string, Tok> rows_of(const Json& j, const std::string& by) {
  std::map<std::string, Tok> out;
  for (const auto& r : j["rows"].a)
    out[r[by].s] = Tok{r["input"].i, r["output"].i, r["cache_creation"].i, r["cache_read"].i, r["api_messages"].i};
  return out;
}

struct StatsCorpus {
  TempDir tmp{"stats"};
  std::string src = tmp / "claude";
  std::string idx = tmp / "index";
  Oracle oracle;

  StatsCorpus() {
    fs::create_directories(src);
    for (const auto& d : kStatsDirs) REQUIRE(copy_subtree(claude_data_dir(), d, src) > 0);
    oracle.read(src);
    RunResult r = run_osearch({"index", "--index", idx, "--source", "claude=" + src});
    INFO(r.err);
    REQUIRE(r.ok());
  }
  Json stats(std::vector<std::string> args, const std::map<std::string, std::optional<std::string>>& env = {},
             const std::string& limit = "100000") const {
    args.insert(args.begin(), "stats");
    args.insert(args.end(), {"--index", idx, "--source", "claude=" + src, "--format", "json", "--limit", limit});
    RunOptions opt;
    opt.env = env;
    RunResult r = run_osearch(args, "", opt);
    INFO(r.err);
    REQUIRE(r.ok());
    return parse(r.out);
  }
};

}  // namespace

TEST_CASE("stats tokens per session, per model and per day equal a direct sum over the JSONL", "[stats]") {
  StatsCorpus c;
  REQUIRE(c.oracle.by_api.size() > 50);

  const auto per_session = c.oracle.sum([](const Oracle::Counted& x) { return x.sid; });
  const Json by_session = c.stats({"tokens", "--by", "session"});
  CHECK(rows_of(by_session, "session") == per_session);
  for (const auto& r : by_session["rows"].a) CHECK(r["resume_hint"].s.find(r["session"].s) != std::string::npos);

  CHECK(rows_of(c.stats({"models"}), "model") == c.oracle.sum([](const Oracle::Counted& x) { return x.model; }));

  const auto utc = c.oracle.sum([](const Oracle::Counted& x) { return day_of(x.ts); });
  REQUIRE(utc.size() > 1);
  CHECK(rows_of(c.stats({"tokens", "--by", "day", "--utc"}), "day") == utc);
  // Kathmandu is UTC+05:45 (no DST since 1986): local days need the 15-minute buckets.
  const auto ktm = c.oracle.sum([](const Oracle::Counted& x) { return day_of(x.ts + (5 * 60 + 45) * 60000); });
  CHECK(rows_of(c.stats({"tokens"}, {{"TZ", "Asia/Kathmandu"}}), "day") == ktm);
  CHECK(rows_of(c.stats({"tokens", "--utc"}, {{"TZ", "Asia/Kathmandu"}}), "day") == utc);

  // Filters: a project, a session prefix, a start day (buckets are whole days' parts in UTC).
  const std::string posh = "88e16f61-d1b7-47a3-84f1-057e0f96521a";
  std::map<std::string, Tok> posh_project;
  for (const auto& sid : {posh, std::string("bf77db8f-a917-4fc4-be70-ca1927a57d56")})
    if (per_session.count(sid)) posh_project[sid] = per_session.at(sid);
  CHECK(rows_of(c.stats({"tokens", "--by", "session", "--project", "oh-my-posh"}), "session") == posh_project);
  CHECK(rows_of(c.stats({"tokens", "--by", "session", "--session", posh.substr(0, 8)}), "session") ==
        std::map<std::string, Tok>{{posh, per_session.at(posh)}});
  const std::string from = std::next(utc.begin(), static_cast<std::ptrdiff_t>(utc.size() / 2))->first;
  std::map<std::string, Tok> since(utc.find(from), utc.end());
  CHECK(rows_of(c.stats({"tokens", "--utc", "--since", from + "T00:00:00Z"}), "day") == since);

  Tok all;
  for (const auto& [k, t] : per_session) all.add(t);
  const Json totals = c.stats({"daily", "--utc"})["totals"];
  CHECK(Tok{totals["input"].i, totals["output"].i, totals["cache_creation"].i, totals["cache_read"].i,
            totals["api_messages"].i} == all);
}

TEST_CASE("stats tools: calls per tool and failures equal the tool_result blocks with is_error", "[stats]") {
  StatsCorpus c;
  std::map<std::string, std::pair<int64_t, int64_t>> expected;  // tool -> calls, failures
  for (const auto& [k, name] : c.oracle.tool_name) ++expected[name].first;
  int64_t failures = 0;
  for (const auto& k : c.oracle.failed) {
    auto it = c.oracle.tool_name.find(k);
    ++expected[it == c.oracle.tool_name.end() ? std::string() : it->second].second;
    ++failures;
  }
  REQUIRE(failures > 0);
  const Json j = c.stats({"tools"});
  std::map<std::string, std::pair<int64_t, int64_t>> got;
  for (const auto& r : j["rows"].a) got[r["tool"].s] = {r["tool_calls"].i, r["failures"].i};
  CHECK(got == expected);
  CHECK(j["totals"]["failures"].i == failures);
  // --tool keeps one tool's row.
  const Json bash = c.stats({"tools", "--tool", "bash"});
  REQUIRE(bash["rows"].a.size() == 1);
  CHECK(bash["rows"][0]["tool_calls"].i == expected["Bash"].first);
}

TEST_CASE("stats files counts the tool calls naming each file", "[stats]") {
  StatsCorpus c;
  const Json j = c.stats({"files"});
  REQUIRE(!j["rows"].a.empty());
  std::map<std::string, int64_t> expected;
  for (const auto& [k, path] : c.oracle.tool_path) ++expected[path];
  int64_t touches = 0, previous = INT64_MAX;
  for (const auto& r : j["rows"].a) {
    CHECK(r["touches"].i <= previous);  // most touched first
    previous = r["touches"].i;
    touches += r["touches"].i;
  }
  CHECK(touches == j["totals"]["touches"].i);
  // The per-call path (a time filter reads each call) gives the same rows as the file aggregate.
  const Json per_call = c.stats({"files", "--since", "2000-01-01"});
  std::map<std::string, int64_t> a, b;
  for (const auto& r : j["rows"].a) a[r["file"].s] = r["touches"].i;
  for (const auto& r : per_call["rows"].a) b[r["file"].s] = r["touches"].i;
  CHECK(a == expected);
  CHECK(b == expected);
}

TEST_CASE("stats: pages put together give the whole ordered answer, ties by key", "[stats]") {
  StatsCorpus c;
  for (const std::vector<std::string>& args : {std::vector<std::string>{"files"}, {"tools"}, {"tokens", "--by", "day"},
                                               {"tokens", "--by", "session"}, {"models"}}) {
    const Json whole = c.stats(args);
    const std::string key = whole["by"].s;
    const bool by_day = key == "day";
    const std::string weight = args[0] == "files" ? "touches" : args[0] == "tools" ? "tool_calls" : "";
    std::vector<std::string> keys;
    int64_t total_weight = 0;
    for (size_t i = 0; i < whole["rows"].a.size(); ++i) {
      const Json& r = whole["rows"][i];
      keys.push_back(r[key].s);
      if (!weight.empty()) total_weight += r[weight].i;
      if (i == 0 || weight.empty()) continue;
      const Json& prev = whole["rows"][i - 1];
      INFO(args[0] << " row " << i);
      if (by_day) CHECK(prev[key].s > r[key].s);  // newest day first
      else CHECK((prev[weight].i > r[weight].i || (prev[weight].i == r[weight].i && prev[key].s < r[key].s)));
    }
    REQUIRE(keys.size() > 3);
    CHECK(whole["total"].i == static_cast<int64_t>(keys.size()));
    if (!weight.empty()) CHECK(whole["totals"][weight].i == total_weight);
    std::vector<std::string> paged;
    for (size_t offset = 0; offset < keys.size(); offset += 3) {
      auto page_args = args;
      page_args.insert(page_args.end(), {"--offset", std::to_string(offset)});
      const Json page = c.stats(page_args, {}, "3");
      CHECK(page["total"].i == whole["total"].i);
      for (const auto& [k, v] : whole["totals"].o)  // totals cover every row, shown or not
        CHECK((page["totals"][k].i == v.i && page["totals"][k].s == v.s));
      for (const auto& r : page["rows"].a) paged.push_back(r[key].s);
    }
    CHECK(paged == keys);
  }
}

TEST_CASE("stats: a larger chunk of a counted API message adds only the difference; --full agrees", "[stats]") {
  TempDir tmp("stats-incr");
  const std::string src = tmp / "claude", idx = tmp / "index";
  const std::string sid = "aaaaaaaa-0000-4000-8000-000000000001";
  const std::string file = src + "/-tmp-proj/" + sid + ".jsonl";
  fs::create_directories(src + "/-tmp-proj");
  auto line = [&](const std::string& uuid, const std::string& ts, int out, int cw_flat, const std::string& extra) {
    return R"({"type":"assistant","uuid":")" + uuid + R"(","sessionId":")" + sid + R"(","timestamp":")" + ts +
           R"(","cwd":"/tmp/proj","requestId":"req_1","message":{"id":"msg_1","role":"assistant","model":"claude-x",)"
           R"("content":[{"type":"text","text":"hello"}],"usage":{"input_tokens":10,"output_tokens":)" +
           std::to_string(out) + R"(,"cache_creation_input_tokens":)" + std::to_string(cw_flat) +
           R"(,"cache_read_input_tokens":100)" + extra + "}}}\n";
  };
  // The breakdown object wins over the flat count (7 + 5, not 999).
  const std::string breakdown = R"(,"cache_creation":{"ephemeral_5m_input_tokens":7,"ephemeral_1h_input_tokens":5})";
  write_file(file, line("u1", "2025-01-01T10:00:00.000Z", 5, 999, breakdown));
  auto total = [&](const std::string& what = "total") {
    RunResult r = run_osearch({"stats", "tokens", "--index", idx, "--source", "claude=" + src, "--format", "json"});
    INFO(r.err);
    REQUIRE(r.ok());
    return parse(r.out)["totals"][what].i;
  };
  auto index = [&](bool full) {
    std::vector<std::string> a = {"index", "--index", idx, "--source", "claude=" + src};
    if (full) a.push_back("--full");
    REQUIRE(run_osearch(a).ok());
  };
  index(false);
  CHECK(total() == 10 + 5 + 12 + 100);
  CHECK(total("cache_creation") == 12);
  // A later chunk of the same API message in the next run: output grew from 5 to 50.
  append_file(file, line("u2", "2025-01-01T10:00:01.000Z", 50, 999, breakdown));
  index(false);
  CHECK(total() == 10 + 50 + 12 + 100);
  CHECK(total("api_messages") == 1);
  // A smaller one changes nothing.
  append_file(file, line("u3", "2025-01-01T10:00:02.000Z", 20, 999, breakdown));
  index(false);
  CHECK(total() == 10 + 50 + 12 + 100);
  // The session record agrees (list reads it).
  RunResult l = run_osearch({"list", "--index", idx, "--source", "claude=" + src, "--format", "json"});
  REQUIRE(l.ok());
  CHECK(parse(l.out)["results"][0]["tokens"]["output"].i == 50);
  index(true);
  CHECK(total() == 10 + 50 + 12 + 100);
  CHECK(total("api_messages") == 1);
}

TEST_CASE("stats: advisor_message iterations count under the advisor's model, largest once", "[stats]") {
  // Checked against ccusage 20.0.24 on these two lines: claude-main 10/30/0/100, claude-advisor 1000/60/3/7.
  TempDir tmp("stats-advisor");
  const std::string src = tmp / "claude", idx = tmp / "index";
  const std::string sid = "aaaaaaaa-0000-4000-8000-000000000002";
  fs::create_directories(src + "/-tmp-p");
  auto line = [&](const std::string& uuid, int out, int adv_out) {
    return R"({"type":"assistant","uuid":")" + uuid + R"(","sessionId":")" + sid +
           R"(","timestamp":"2025-01-01T10:00:00.000Z","cwd":"/tmp/p","requestId":"req_1","message":{"id":"msg_1",)"
           R"("role":"assistant","model":"claude-main","content":[{"type":"text","text":"hi"}],"usage":{)"
           R"("input_tokens":10,"output_tokens":)" + std::to_string(out) +
           R"(,"cache_creation_input_tokens":0,"cache_read_input_tokens":100,"iterations":[{"type":"message",)"
           R"("input_tokens":10,"output_tokens":5},{"type":"advisor_message","model":"claude-advisor",)"
           R"("input_tokens":1000,"output_tokens":)" + std::to_string(adv_out) +
           R"(,"cache_read_input_tokens":7,"cache_creation_input_tokens":3}]}}})" + "\n";
  };
  write_file(src + "/-tmp-p/" + sid + ".jsonl", line("u1", 5, 50) + line("u2", 30, 60));
  REQUIRE(run_osearch({"index", "--index", idx, "--source", "claude=" + src}).ok());
  RunResult r = run_osearch({"stats", "models", "--index", idx, "--source", "claude=" + src, "--format", "json"});
  REQUIRE(r.ok());
  CHECK(rows_of(parse(r.out), "model") ==
        std::map<std::string, Tok>{{"claude-main", {10, 30, 0, 100, 1}}, {"claude-advisor", {1000, 60, 3, 7, 1}}});
}

TEST_CASE("stats: aggregates rebuilt from the stored records equal the ones kept at index time", "[stats]") {
  StatsCorpus c;
  using Dump = std::map<std::string, std::string>;
  auto dump = [](const osearch::LmdbTxn& txn, MDB_dbi dbi) {
    Dump d;
    osearch::LmdbCursor cur(txn, dbi);
    for (bool ok = cur.first(); ok; ok = cur.next()) d.emplace(cur.key(), cur.value());
    return d;
  };
  osearch::WriterLock lock(c.idx, true);
  osearch::Store store(c.idx, osearch::Store::Mode::Write);
  osearch::LmdbTxn txn(store.env(), false);
  const Dump usage = dump(txn, store.db().usage_agg), tools = dump(txn, store.db().tool_agg),
             files = dump(txn, store.db().file_agg);
  REQUIRE(!usage.empty());
  std::vector<std::string> sids;
  {
    osearch::LmdbCursor cur(txn, store.db().sessions);
    for (bool ok = cur.first(); ok; ok = cur.next()) sids.emplace_back(cur.key());
  }
  for (const auto& sid : sids) osearch::rebuild_session_aggregates(txn, store.db(), sid);
  CHECK(dump(txn, store.db().usage_agg) == usage);
  CHECK(dump(txn, store.db().tool_agg) == tools);
  CHECK(dump(txn, store.db().file_agg) == files);
  txn.abort();
}

TEST_CASE("stats: bad kind or --by is exit 2", "[stats]") {
  StatsCorpus c;
  CHECK(run_osearch({"stats", "nope", "--index", c.idx}).exit_code == 2);
  CHECK(run_osearch({"stats", "models", "--by", "day", "--index", c.idx, "--source", "claude=" + c.src}).exit_code == 2);
  CHECK(run_osearch({"stats", "tokens", "--tool", "Bash", "--index", c.idx, "--source", "claude=" + c.src}).exit_code == 2);
  // Filters that say nothing about an aggregate row are not offered.
  CHECK(run_osearch({"stats", "tokens", "--branch", "main", "--index", c.idx, "--source", "claude=" + c.src}).exit_code == 2);
}

TEST_CASE("stats: a schema-13 index upgrades keeping an archived session, its aggregates rebuilt", "[stats][upgrade]") {
  StatsCorpus c;
  const std::string posh = "88e16f61-d1b7-47a3-84f1-057e0f96521a";
  const auto expected = c.oracle.sum([](const Oracle::Counted& x) { return x.sid; }).at(posh);
  fs::remove(c.src + "/D--oh-my-posh/" + posh + ".jsonl");
  REQUIRE(run_osearch({"index", "--index", c.idx, "--source", "claude=" + c.src}).ok());
  {
    // What schema 13 had: no aggregates, usage_seen values empty.
    osearch::WriterLock lock(c.idx, true);
    osearch::Store store(c.idx, osearch::Store::Mode::Write);
    osearch::LmdbTxn txn(store.env(), false);
    for (MDB_dbi dbi : {store.db().usage_agg, store.db().tool_agg, store.db().file_agg})
      REQUIRE(mdb_drop(txn.get(), dbi, 0) == MDB_SUCCESS);
    osearch::Store::put_meta_u64(txn, store.db(), osearch::meta_key::kSchema, 13);
    txn.commit();
  }
  REQUIRE(run_osearch({"index", "--index", c.idx, "--source", "claude=" + c.src}).ok());
  const auto rows = rows_of(c.stats({"tokens", "--by", "session"}), "session");
  REQUIRE(rows.count(posh) == 1);
  CHECK(rows.at(posh) == expected);
}
