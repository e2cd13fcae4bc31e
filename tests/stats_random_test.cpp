// Random `stats` calls against a model of generated Claude sessions written in pieces over several
// runs: API messages streamed as chunks (one message id, growing usage) in the main transcript and
// in subagents', usage lines without an id, tool calls whose results fail at random (some results
// in a later run than their call, some with no call at all), files rewritten shorter and sessions
// whose files are deleted (kept, as indexed). After each run, `stats tokens` by session, model, day
// and project, `stats tools` and `stats daily` must equal sums over what the index read, under
// --since/--until (to the 15-minute buckets the answer names), --project, --session and --model; and
// each subagent's tokens those of its transcript's API messages.
#include <random>

#include "tests/synthetic_index.h"

#include "engine/query/orient.h"
#include "engine/query/stats.h"
#include "engine/store/usage_agg.h"
#include "tests/test_seed.h"

using namespace osearch;
using namespace osearch_test;

namespace {

struct UsageEvent {
  std::string msg_id;  // "" : counted on its own
  std::string model;
  int second = 0;
  TokenUsage tok;
};
struct StatsLine {
  std::string json;
  int second = 0;
  std::vector<UsageEvent> usage;  // at most one
  std::string call_id, call_tool;  // a tool_use
  std::string result_id;           // a tool_result
  bool failed = false;
};
struct StatsFile {
  std::string path;
  std::string agent;  // "" for the main transcript
  std::vector<StatsLine> lines;
  size_t written = 0, indexed = 0;  // whole lines on disk, lines the last run read
  size_t bytes = 0;                 // on disk: the whole lines and maybe part of the next
};
struct StatsSession {
  std::string sid, cwd, slug;
  std::vector<StatsFile> files;  // the main transcript first
  bool deleted = false;
};

struct Expected {
  std::map<std::string, std::pair<TokenUsage, int64_t>> rows;  // key -> tokens, api messages
  std::map<std::string, std::pair<int64_t, int64_t>> tools;    // tool -> calls, failures
};

int64_t ms_of(int second) { return (static_cast<int64_t>(20513) * 86400 + second) * 1000; }  // 2026-03-01 + s

}  // namespace

TEST_CASE("stats: random sessions written over several runs sum as the lines the index read", "[stats][hardening]") {
  REQUIRE(iso_second(0) == "2026-03-01T00:00:00.000Z");
  const uint32_t seed = osearch_test::test_seed(20261207);
  INFO("seed " << seed);
  std::mt19937 rng(seed);
  TempDir tmp{"stats-random"};
  const std::string src = tmp / "claude", idx = tmp / "index";
  const std::vector<std::pair<std::string, std::string>> projects = {{"-w-alpha", "/w/alpha"}, {"-w-beta", "/w/beta"}};
  const std::vector<std::string> models = {"claude-opus-4", "claude-sonnet-4", "claude-haiku-3"};
  const std::vector<std::string> tools = {"Bash", "Read", "Edit"};
  int ids = 0;
  const int span = 4 * 86400;

  // A transcript's lines: chunks of API messages, unnamed usage, calls and their results.
  auto make_lines = [&](const StatsSession& s, const std::string& agent) {
    std::vector<StatsLine> out;
    const std::string common = R"("cwd":")" + s.cwd + R"(","sessionId":")" + s.sid + R"(",)" +
                               (agent.empty() ? "" : R"("isSidechain":true,"agentId":")" + agent + R"(",)");
    int second = static_cast<int>(rng() % (span - 3 * 3600));
    std::vector<std::pair<std::string, std::string>> open_calls;  // id, tool
    for (int n = 0, count = 6 + static_cast<int>(rng() % 30); n < count; ++n) {
      second += static_cast<int>(rng() % 600);
      StatsLine l;
      l.second = second;
      const std::string head = "{" + common + R"("uuid":"u)" + std::to_string(++ids) + R"(","timestamp":")" +
                               iso_second(second) + "\",";
      const unsigned kind = rng() % 6;
      if (kind <= 2) {  // an API message in 1-3 chunks, usage growing (or not), maybe a tool call
        const std::string id = rng() % 8 == 0 ? "" : "msg_" + std::to_string(++ids);
        const std::string model = models[rng() % models.size()];
        TokenUsage tok{static_cast<int64_t>(rng() % 50), static_cast<int64_t>(rng() % 200),
                       static_cast<int64_t>(rng() % 4 == 0 ? 0 : rng() % 1000), static_cast<int64_t>(rng() % 5000)};
        if (rng() % 10 == 0) tok = {};
        for (int chunk = 0, chunks = 1 + static_cast<int>(rng() % 3); chunk < chunks; ++chunk) {
          StatsLine c;
          std::string block = R"({"type":"text","text":"chunk )" + std::to_string(chunk) + "\"}";
          if (chunk == chunks - 1 && rng() % 2 == 0) {
            c.call_id = "toolu_" + std::to_string(++ids);
            c.call_tool = tools[rng() % tools.size()];
            block = R"({"type":"tool_use","id":")" + c.call_id + R"(","name":")" + c.call_tool +
                    R"(","input":{"command":"x"}})";
            open_calls.emplace_back(c.call_id, c.call_tool);
          }
          if (chunk > 0 && rng() % 3 != 0) tok.output += static_cast<int64_t>(rng() % 100);  // a later chunk, larger
          const int at = second + chunk * 300;  // (chunks of one message may fall in other buckets)
          c.second = at;
          c.json = "{" + common + R"("uuid":"u)" + std::to_string(++ids) + R"(","timestamp":")" + iso_second(at) +
                   R"(","type":"assistant","requestId":"req_)" + id + R"(","message":{)" +
                   (id.empty() ? "" : R"("id":")" + id + "\",") + R"("role":"assistant","model":")" + model +
                   R"(","content":[)" + block + R"(],"usage":{"input_tokens":)" + std::to_string(tok.input) +
                   R"(,"output_tokens":)" + std::to_string(tok.output) + R"(,"cache_creation_input_tokens":)" +
                   std::to_string(tok.cache_creation) + R"(,"cache_read_input_tokens":)" + std::to_string(tok.cache_read) +
                   "}}}\n";
          c.usage.push_back({id, model, at, tok});
          out.push_back(std::move(c));
        }
        continue;
      }
      if (kind == 3 && !open_calls.empty()) {  // a call's result, failed or not
        const size_t k = rng() % open_calls.size();
        l.result_id = open_calls[k].first;
        open_calls.erase(open_calls.begin() + static_cast<std::ptrdiff_t>(k));
      } else if (kind == 4 && rng() % 4 == 0) {  // a result whose call is nowhere
        l.result_id = "toolu_orphan" + std::to_string(++ids);
      }
      if (!l.result_id.empty()) {
        l.failed = rng() % 2 == 0;
        l.json = head + R"("type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":")" +
                 l.result_id + R"(","content":"out")" + (l.failed ? R"(,"is_error":true)" : "") + "}]}}\n";
      } else {
        l.json = head + R"("type":"user","message":{"role":"user","content":"note )" + std::to_string(ids) + "\"}}\n";
      }
      out.push_back(std::move(l));
    }
    return out;
  };

  std::vector<StatsSession> sessions;
  for (int s = 0; s < 12; ++s) {
    StatsSession ses;
    ses.sid = random_session_id(rng, s);
    std::tie(ses.slug, ses.cwd) = projects[rng() % projects.size()];
    const std::string dir = src + "/" + ses.slug + "/";
    ses.files.push_back({dir + ses.sid + ".jsonl", "", make_lines(ses, ""), 0, 0});
    for (size_t k = rng() % 3; k > 0; --k) {
      const std::string agent = "a" + std::to_string(1000000 + rng() % 9000000);
      ses.files.push_back({dir + ses.sid + "/subagents/agent-" + agent + ".jsonl", agent, make_lines(ses, agent), 0, 0});
    }
    sessions.push_back(std::move(ses));
  }
  auto body = [](const StatsFile& f, size_t n) {
    std::string out;
    for (size_t i = 0; i < n; ++i) out += f.lines[i].json;
    return out;
  };

  int rewrites = 0, deletions = 0;
  for (int run = 0; run < 4; ++run) {
    for (StatsSession& s : sessions) {
      if (s.deleted) continue;
      // Gone: kept as the index read it. (At least one session goes, whatever the seed.)
      if (run > 0 && (rng() % 10 == 0 || (run == 2 && deletions == 0 && &s == &sessions.back()))) {
        for (const StatsFile& f : s.files)
          if (f.bytes > 0) fs::remove(f.path);
        s.deleted = true;
        ++deletions;
        continue;
      }
      for (StatsFile& f : s.files) {
        if (run > 0 && f.written > 1 && rng() % 8 == 0) {  // rewritten shorter, other lines
          f.lines = make_lines(s, f.agent);
          f.written = std::min(f.lines.size(), f.written - 1);
          const std::string shorter = body(f, f.written);
          write_file(f.path, shorter);
          f.bytes = shorter.size();
          ++rewrites;
          continue;
        }
        // More lines, the last of them maybe cut anywhere (the rest comes in a later run).
        const std::string whole = body(f, f.lines.size());
        const size_t more = run == 3 ? f.lines.size() - f.written : rng() % (f.lines.size() - f.written + 1);
        size_t to = body(f, f.written + more).size();
        if (run < 3 && f.written + more < f.lines.size() && rng() % 3 == 0)
          to += 1 + rng() % (f.lines[f.written + more].json.size() - 1);
        if (to <= f.bytes) continue;
        if (f.bytes == 0) write_file(f.path, whole.substr(0, to));
        else append_file(f.path, whole.substr(f.bytes, to - f.bytes));
        f.bytes = to;
        f.written += more;
      }
    }
    REQUIRE(run_index(idx, {{"claude", src}}, IndexOptions{}).bad_lines == 0);
    // A line cut just before its newline is complete JSON, and is taken (SPEC §7).
    for (StatsSession& s : sessions)
      if (!s.deleted)
        for (StatsFile& f : s.files)
          f.indexed = f.written + (f.written < f.lines.size() && f.bytes + 1 == body(f, f.written + 1).size());

    // What the index read: each API message once per session with its largest usage (by total), at
    // its first chunk's time and model; each call at its time; each failure at its call's time
    // (under "" at the result's own time when there is no call).
    struct Counted {
      const StatsSession* s;
      std::string model;
      int second;
      TokenUsage tok;
      std::string agent;  // the transcript it is in ("" for the main one)
    };
    std::vector<Counted> counted;
    struct ToolEvent {
      const StatsSession* s;
      std::string tool;
      int second;
      bool call;
    };
    std::vector<ToolEvent> tool_events;
    for (const StatsSession& s : sessions) {
      std::map<std::string, size_t> by_id;
      std::map<std::string, std::pair<std::string, int>> calls;  // id -> tool, second
      auto total = [](const TokenUsage& t) { return t.input + t.output + t.cache_creation + t.cache_read; };
      for (const StatsFile& f : s.files)
        for (size_t i = 0; i < f.indexed; ++i) {
          const StatsLine& l = f.lines[i];
          for (const UsageEvent& u : l.usage) {
            if (total(u.tok) == 0) continue;
            if (u.msg_id.empty()) {
              counted.push_back({&s, u.model, u.second, u.tok, f.agent});
              continue;
            }
            auto [it, fresh] = by_id.try_emplace(u.msg_id, counted.size());
            if (fresh) counted.push_back({&s, u.model, u.second, u.tok, f.agent});
            else if (total(u.tok) > total(counted[it->second].tok)) counted[it->second].tok = u.tok;
          }
          const int second = l.second;
          if (!l.call_id.empty()) {
            calls[l.call_id] = {l.call_tool, second};
            tool_events.push_back({&s, l.call_tool, second, true});
          }
          if (!l.result_id.empty() && l.failed) {
            auto c = calls.find(l.result_id);
            tool_events.push_back(c == calls.end() ? ToolEvent{&s, "", second, false}
                                                   : ToolEvent{&s, c->second.first, c->second.second, false});
          }
        }
    }

    {  // Each subagent: its messages, their span and its tokens as the session counts them (its API
       // messages, the largest chunk once); then --since/--until (its span overlaps) and pages, newest
       // spawn first.
      struct Agent {
        int64_t messages = 0, first = 0, last = 0;
        TokenUsage tokens;
        bool operator==(const Agent&) const = default;
      };
      std::map<std::string, Agent> want, got;
      for (const StatsSession& s : sessions)
        for (const StatsFile& f : s.files)
          for (size_t i = 0; !f.agent.empty() && i < f.indexed; ++i) {
            Agent& a = want[s.sid + "/" + f.agent];
            const int64_t ms = ms_of(f.lines[i].second);
            ++a.messages;
            a.first = a.first == 0 ? ms : std::min(a.first, ms);
            a.last = std::max(a.last, ms);
          }
      for (const Counted& c : counted)
        if (!c.agent.empty()) want[c.s->sid + "/" + c.agent].tokens.add(c.tok);
      IndexReader reader(idx);
      for (const SubagentRow& row : run_subagents(reader, parse_filters(FilterArgs{}, 0, 100000)).rows)
        got[row.agent.session_id + "/" + row.agent.agent_id] = {static_cast<int64_t>(row.agent.message_count),
                                                                row.agent.first_ts, row.agent.last_ts, row.agent.tokens};
      INFO("run " << run << ": subagents");
      CHECK(got.size() == want.size());
      for (const auto& [key, a] : want) {
        INFO(key);
        REQUIRE(got.count(key));
        CHECK(got[key].messages == a.messages);
        CHECK(got[key].first == a.first);
        CHECK(got[key].last == a.last);
        CHECK(got[key].tokens == a.tokens);
      }
      for (int q = 0; q < 10; ++q) {
        FilterArgs args;
        if (q % 2 == 0) args.since = iso_second(static_cast<int>(rng() % span));
        if (q % 3 == 0) args.until = iso_second(static_cast<int>(rng() % span));
        const Filters fl = parse_filters(args, 0, 100000);
        std::vector<std::pair<int64_t, std::string>> order;  // newest spawn first, then session and agent
        for (const auto& [key, a] : want)
          if ((!fl.since_ms || a.last >= *fl.since_ms) && (!fl.until_ms || a.first < *fl.until_ms))
            order.emplace_back(-a.first, key);
        std::sort(order.begin(), order.end());
        std::vector<std::string> paged;
        for (size_t offset = 0;; offset += 3) {
          args.limit = 3;
          args.offset = offset;
          const SubagentList l = run_subagents(reader, parse_filters(args, 0, 100000));
          CHECK(l.total == order.size());
          for (const SubagentRow& row : l.rows) paged.push_back(row.agent.session_id + "/" + row.agent.agent_id);
          if (l.rows.size() < 3) break;
        }
        std::vector<std::string> keys;
        for (const auto& [t, key] : order) keys.push_back(key);
        INFO("since " << args.since << " until " << args.until);
        CHECK(paged == keys);
      }
    }

    for (int q = 0; q < 40; ++q) {
      FilterArgs args;
      if (q % 3 == 1) args.since = iso_second(static_cast<int>(rng() % span));
      if (q % 4 == 2) args.until = iso_second(static_cast<int>(rng() % span));
      if (q % 5 == 3) args.project = {"beta"};
      if (q % 7 == 4) args.session = {sessions[rng() % sessions.size()].sid.substr(0, 2)};
      if (q % 6 == 5) args.model = {models[rng() % models.size()].substr(7, 4)};
      const Filters filters = parse_filters(args, 0, 100000);
      StatsOptions o;
      o.utc = true;
      const std::vector<std::pair<StatsKind, std::string>> asks = {
          {StatsKind::Tokens, "session"}, {StatsKind::Tokens, "day"}, {StatsKind::Tokens, "project"},
          {StatsKind::Models, ""},        {StatsKind::Tools, ""},     {StatsKind::Daily, ""}};
      const auto& [kind, by] = asks[static_cast<size_t>(q) % asks.size()];
      if (kind == StatsKind::Tools && args.model.size()) continue;  // (the session's models: not modelled here)
      o.kind = kind;
      o.by = by;
      IndexReader reader(idx);
      const StatsResult r = run_stats(reader, filters, o);
      INFO("run " << run << " query " << q << " kind " << stats_kind_name(kind) << " by " << r.by << " since "
                  << args.since << " until " << args.until << " project " << (args.project.empty() ? "-" : args.project[0])
                  << " session " << (args.session.empty() ? "-" : args.session[0]) << " model "
                  << (args.model.empty() ? "-" : args.model[0]));
      // The window the answer names: each bound moved up to its bucket's end.
      auto bucket_end = [](int64_t ms) { return (ms + kUsageBucketMs - 1) / kUsageBucketMs * kUsageBucketMs; };
      CHECK(r.bucket_minutes == 15);
      if (filters.since_ms) CHECK(r.since_ms == bucket_end(*filters.since_ms));
      if (filters.until_ms) CHECK(r.until_ms == bucket_end(*filters.until_ms));
      auto keeps = [&](const StatsSession& s, int second) {
        const int64_t ms = ms_of(second);
        if (r.since_ms && ms < *r.since_ms) return false;
        if (r.until_ms && ms >= *r.until_ms) return false;
        if (!args.project.empty() && s.cwd.find(args.project[0]) == std::string::npos) return false;
        if (!args.session.empty() && !s.sid.starts_with(args.session[0])) return false;
        return true;
      };

      std::map<std::string, std::string> project_of;  // sid -> the project its by-session row names
      Expected want, got;
      if (kind == StatsKind::Tools) {
        for (const ToolEvent& e : tool_events) {
          if (!keeps(*e.s, e.second)) continue;
          auto& row = want.tools[e.tool];
          (e.call ? row.first : row.second) += 1;
        }
        for (const StatsRow& row : r.rows) got.tools[row.key] = {row.tool_calls, row.failures};
        CHECK(got.tools == want.tools);
        continue;
      }
      for (const Counted& c : counted) {
        if (!keeps(*c.s, c.second)) continue;
        if (!args.model.empty() && c.model.find(args.model[0]) == std::string::npos) continue;
        const std::string key = by == "session" ? c.s->sid
                                : by == "project" ? c.s->sid  // (mapped through the session rows below)
                                : kind == StatsKind::Models ? c.model
                                                            : iso_second(c.second).substr(0, 10);
        auto& row = want.rows[key];
        row.first.add(c.tok);
        ++row.second;
      }
      if (by == "project") {  // the sessions' projects as osearch names them, each session once
        StatsOptions per_session = o;
        per_session.by = "session";
        for (const StatsRow& row : run_stats(reader, filters, per_session).rows) {
          REQUIRE(row.session);
          project_of[row.key] = row.session->project;
        }
        Expected grouped;
        for (const auto& [sid, v] : want.rows) {
          REQUIRE(project_of.count(sid));
          auto& g = grouped.rows[project_of[sid]];
          g.first.add(v.first);
          g.second += v.second;
        }
        want.rows = std::move(grouped.rows);
      }
      TokenUsage all;
      int64_t api = 0;
      for (const auto& [k, v] : want.rows) {
        all.add(v.first);
        api += v.second;
      }
      // Rows with nothing counted (a session of messages alone) are not compared.
      for (const StatsRow& row : r.rows)
        if (row.api_messages || row.tokens.any()) got.rows[row.key] = {row.tokens, row.api_messages};
      CHECK(got.rows == want.rows);
      CHECK(r.totals.tokens == all);
      CHECK(r.totals.api_messages == api);
    }
  }
  CHECK(rewrites > 0);
  CHECK(deletions > 0);
}
