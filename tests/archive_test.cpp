// prune, export --sessions and import (SPEC §3): archived sessions (none of whose source files
// exists) are dropped only when asked, and move between indexes whole: after a round trip every
// command answers for them as it did in the index they came from.
#include "tests/index_fixture.h"

#include <signal.h>

#include <sstream>

#include "engine/index/index_parts.h"
#include "engine/query/archive_ops.h"
#include "engine/query/check.h"
#include "engine/query/search.h"
#include "tests/json_scrub.h"

namespace {

// A session of one file with tool calls, a failed one and a command envelope.
const std::string kSampleFile = "sample-project/1af7fc5e-8455-4414-9ccd-011d40f70b2a.jsonl";
const std::string kSampleSid = "1af7fc5e-8455-4414-9ccd-011d40f70b2a";

const std::string kMemoryKey = "mem-archive-test";
const std::string kMemoryValue = "a memory prune must never touch";

void put_memory(const std::string& idx) {
  Store store(idx, Store::Mode::Write);
  LmdbTxn txn(store.env(), false);
  txn.put(store.db().memories, kMemoryKey, kMemoryValue);
  txn.commit();
}

std::optional<std::string> memory_of(const std::string& idx) {
  IndexReader r(idx);
  auto v = r.txn().get(r.db().memories, kMemoryKey);
  return v ? std::optional<std::string>(std::string(*v)) : std::nullopt;
}

// An index of the Claude sample with two sessions archived (their files deleted).
struct Archived {
  TempDir tmp{"archive"};
  std::string src = tmp / "src";
  std::string idx = tmp / "idx";
  Archived() {
    copy_tree(claude_data_dir(), src);
    index_tree(idx, src);
    fs::remove(src + "/" + kWindows);
    fs::remove(src + "/" + kSampleFile);
    index_tree(idx, src);
  }
};

std::set<std::string> ids_of(const std::vector<ArchivedSessionInfo>& v) {
  std::set<std::string> out;
  for (const auto& s : v) out.insert(s.id);
  return out;
}

std::string export_of(const std::string& idx, const ExportOptions& o = {}) {
  std::string out;
  run_export(idx, o, [&](std::string_view line) {
    out.append(line);
    out.push_back('\n');
  });
  return out;
}

ImportResult import_into(const std::string& idx, const std::string& src, const std::string& lines,
                         ImportOptions o = {}) {
  std::istringstream in(lines);
  return run_import(idx, roots_of(src), in, o);
}

// A command's JSON answer without what differs between two indexes of other sizes: timings,
// index counts and BM25 scores (they depend on the other documents).
std::string answer(const std::string& idx, std::vector<std::string> args) {
  args.insert(args.begin(), {"--index", idx, "--no-refresh", "--format", "json"});
  RunResult r = run_osearch(args);
  INFO(r.err);
  REQUIRE(r.ok());
  std::string s = r.out;
  for (const char* volatile_field : {"took_ms", "score", "counts", "index", "refreshed_files"})
    s = erase_fields(s, volatile_field);
  return s;
}

// The index's Xapian shards still to fold: those written since the last compaction (not its parts).
size_t fresh_shards(const std::string& idx) {
  IndexReader r(idx);
  const XapianLayout layout = read_parts(r.txn(), r.db()).layout;
  return std::count_if(layout.shards.begin(), layout.shards.end(),
                       [](const std::string& s) { return !XapianLayout::is_part(s); });
}

}  // namespace

TEST_CASE("prune: --dry-run lists the archived sessions and changes nothing; prune drops them, never memories",
          "[archive]") {
  Archived fx;
  put_memory(fx.idx);
  const auto before = fingerprint(fx.idx);
  const size_t sessions = all_sessions(fx.idx).size();
  REQUIRE(keyword_sessions(fx.idx, "GOTCHA").count(kWindowsSid) == 1);

  PruneOptions dry;
  dry.dry_run = true;
  PruneResult d = run_prune(fx.idx, roots_of(fx.src), dry);
  CHECK(d.dry_run);
  CHECK(ids_of(d.sessions) == std::set<std::string>{kWindowsSid, kSampleSid});
  for (const auto& s : d.sessions) CHECK(s.messages > 0);
  CHECK_SAME_INDEX(fx.idx, before);

  PruneResult p = run_prune(fx.idx, roots_of(fx.src), PruneOptions{});
  CHECK(ids_of(p.sessions) == std::set<std::string>{kWindowsSid, kSampleSid});
  const auto after = all_sessions(fx.idx);
  CHECK(after.size() == sessions - 2);
  CHECK(after.count(kWindowsSid) == 0);
  CHECK(session_messages(fx.idx, kWindowsSid).empty());
  CHECK(keyword_sessions(fx.idx, "GOTCHA").count(kWindowsSid) == 0);  // its documents are hidden
  CHECK(memory_of(fx.idx) == kMemoryValue);
  CHECK(index_ok(fx.idx));
  // Nothing is left to prune; a plain run re-reads nothing.
  CHECK(run_prune(fx.idx, roots_of(fx.src), PruneOptions{}).sessions.empty());
  CHECK(index_tree(fx.idx, fx.src).files_changed == 0);
  CHECK(all_sessions(fx.idx).size() == sessions - 2);
}

TEST_CASE("prune: filters choose among the archived sessions; a live session is never pruned", "[archive]") {
  Archived fx;
  const auto sessions = all_sessions(fx.idx);
  PruneOptions o;
  o.dry_run = true;
  FilterArgs by_session;
  by_session.session = {kSampleSid.substr(0, 8)};
  o.selection.filters = parse_filters(by_session, 0, 20);
  CHECK(ids_of(run_prune(fx.idx, roots_of(fx.src), o).sessions) == std::set<std::string>{kSampleSid});
  // --until: archived sessions that ended before it.
  const int64_t older = std::min(sessions.at(kWindowsSid).ended_at, sessions.at(kSampleSid).ended_at);
  const int64_t newer = std::max(sessions.at(kWindowsSid).ended_at, sessions.at(kSampleSid).ended_at);
  REQUIRE(older < newer);
  o.selection.filters = Filters{};
  o.selection.filters.until_ms = newer;
  const std::string older_sid = sessions.at(kWindowsSid).ended_at == older ? kWindowsSid : kSampleSid;
  CHECK(ids_of(run_prune(fx.idx, roots_of(fx.src), o).sessions) == std::set<std::string>{older_sid});
  // A project with only live sessions has nothing to prune.
  FilterArgs live;
  live.project = {"spotter"};
  o.selection.filters = parse_filters(live, 0, 20);
  CHECK(run_prune(fx.idx, roots_of(fx.src), o).sessions.empty());
}

TEST_CASE("prune: the CLI prints {pruned, sessions} and --dry-run first", "[archive]") {
  Archived fx;
  const std::vector<std::string> base{"--index", fx.idx, "--source", "claude=" + fx.src, "--format", "json"};
  auto args = [&](std::vector<std::string> more) {
    std::vector<std::string> a = base;
    a.insert(a.end(), more.begin(), more.end());
    return a;
  };
  RunResult dry = run_osearch(args({"prune", "--dry-run"}));
  INFO(dry.err);
  REQUIRE(dry.ok());
  CHECK(dry.out.find(R"("dry_run":true)") != std::string::npos);
  CHECK(dry.out.find(R"("pruned":0)") != std::string::npos);
  CHECK(dry.out.find(R"("would_prune":2)") != std::string::npos);
  CHECK(dry.out.find(kWindowsSid) != std::string::npos);
  CHECK(dry.out.find("resume_hint") == std::string::npos);
  CHECK(all_sessions(fx.idx).count(kWindowsSid) == 1);
  RunResult p = run_osearch(args({"prune"}));
  REQUIRE(p.ok());
  CHECK(p.out.find(R"("pruned":2)") != std::string::npos);
  CHECK(all_sessions(fx.idx).count(kWindowsSid) == 0);
}

TEST_CASE("export/import: a round trip answers list, thread, keyword, content and stats as the source index did",
          "[archive]") {
  Archived a;
  const std::string lines = export_of(a.idx);
  CHECK(std::count(lines.begin(), lines.end(), '\n') == 2);  // the archived sessions only

  TempDir tmp("archive-b");
  const std::string b = tmp / "idx", empty_src = tmp / "src";
  fs::create_directories(empty_src);
  ImportResult r = import_into(b, empty_src, lines);
  INFO(r.problems.size());
  CHECK(r.imported == 2);
  CHECK(r.rejected == 0);
  CHECK(index_ok(b));
  const auto sb = all_sessions(b);
  REQUIRE(sb.size() == 2);
  CHECK(sb.at(kWindowsSid).source_deleted);

  for (const std::string& sid : {kWindowsSid, kSampleSid}) {
    INFO("session " << sid);
    CHECK(answer(a.idx, {"list", "--session", sid}) == answer(b, {"list", "--session", sid}));
    CHECK(answer(a.idx, {"thread", sid}) == answer(b, {"thread", sid}));
    CHECK(answer(a.idx, {"thread", sid, "--include-meta"}) == answer(b, {"thread", sid, "--include-meta"}));
    CHECK(answer(a.idx, {"stats", "tokens", "--by", "session", "--session", sid}) ==
          answer(b, {"stats", "tokens", "--by", "session", "--session", sid}));
    CHECK(answer(a.idx, {"stats", "tools", "--session", sid}) == answer(b, {"stats", "tools", "--session", sid}));
    CHECK(answer(a.idx, {"failures", "--session", sid}) == answer(b, {"failures", "--session", sid}));
    CHECK(answer(a.idx, {"content", "-i", "the", "--session", sid, "--by", "message", "--limit", "1000"}) ==
          answer(b, {"content", "-i", "the", "--session", sid, "--by", "message", "--limit", "1000"}));
    CHECK(answer(a.idx, {"keyword", "the", "--session", sid, "--by", "message", "--sort", "oldest", "--limit", "1000"}) ==
          answer(b, {"keyword", "the", "--session", sid, "--by", "message", "--sort", "oldest", "--limit", "1000"}));
  }
  CHECK(keyword_sessions(b, "GOTCHA") == std::set<std::string>{kWindowsSid});

  SECTION("importing twice changes nothing") {
    const auto fp = fingerprint(b);
    ImportResult again = import_into(b, empty_src, lines);
    CHECK(again.imported == 0);
    CHECK(again.already_present == 2);
    CHECK_SAME_INDEX(b, fp);
  }
  SECTION("a session live here is kept and counted") {
    const std::string all = export_of(a.idx, ExportOptions{true, {}});
    ImportResult into_a = import_into(a.idx, a.src, all);
    CHECK(into_a.imported == 0);
    CHECK(into_a.already_present == 2);
    CHECK(into_a.skipped_live == all_sessions(a.idx).size() - 2);
  }
  SECTION("a line that is not a session is rejected and counted; the others are imported") {
    TempDir t2("archive-c");
    ImportResult c = import_into(t2 / "idx", empty_src, "{\"format\":\"other\"}\nnot json\n" + lines);
    CHECK(c.rejected == 2);
    CHECK(c.imported == 2);
  }
  SECTION("a line whose records name another session is rejected") {
    std::string forged = lines.substr(0, lines.find('\n'));
    const std::string sid = all_sessions(b).begin()->first;
    // Swap the session key for another id: its message keys no longer belong to it.
    const std::string key_field = "\"key\":\"";
    const size_t at = forged.find(key_field) + key_field.size();
    forged.replace(at, forged.find('"', at) - at, "b3RoZXI=");  // "other"
    TempDir t3("archive-d");
    ImportResult d = import_into(t3 / "idx", empty_src, forged + "\n");
    CHECK(d.rejected == 1);
    CHECK(d.imported == 0);
  }
}

TEST_CASE("export/import: stats count failed results as the source index did, one without a tool use id too",
          "[archive]") {
  // A result naming no tool use (a denial in a fixture of the shared corpus) is counted by no tool:
  // the ingest counts a failure once per tool use id. The import rebuilt the aggregates from the
  // records and counted it under "" (found by a round trip over the shared corpus).
  TempDir tmp("archive-noid");
  const std::string src = tmp / "src", idx = tmp / "idx", sid = "5e55a0b1-0000-4000-8000-000000000001";
  const std::string file = src + "/-w-proj/" + sid + ".jsonl";
  auto result = [&](const std::string& uuid, const std::string& id_field, const std::string& ts) {
    return R"({"parentUuid":null,"isSidechain":false,"type":"user","cwd":"/w/proj","sessionId":")" + sid +
           R"(","message":{"role":"user","content":[{"type":"tool_result",)" + id_field +
           R"("content":"denied","is_error":true}]},"uuid":")" + uuid + R"(","timestamp":")" + ts + "\"}\n";
  };
  write_file(file, user_line(sid, "u1", "run the build") +
                       R"({"parentUuid":null,"isSidechain":false,"type":"assistant","cwd":"/w/proj","sessionId":")" + sid +
                       R"(","message":{"id":"msg_1","model":"claude-test","role":"assistant","content":[{"type":"tool_use","id":"toolu_1","name":"Bash","input":{"command":"make"}}]},"uuid":"a1","timestamp":"2026-03-01T10:00:01.000Z"})"
                       "\n" +
                       result("r1", R"("tool_use_id":"toolu_1",)", "2026-03-01T10:00:02.000Z") +
                       result("r2", "", "2026-03-01T10:00:03.000Z") + result("r3", "", "2026-03-01T10:00:04.000Z"));
  index_tree(idx, src);
  fs::remove(file);
  index_tree(idx, src);
  TempDir other("archive-noid-b");
  const std::string b = other / "idx", empty_src = other / "src";
  fs::create_directories(empty_src);
  REQUIRE(import_into(b, empty_src, export_of(idx)).imported == 1);
  const std::vector<std::vector<std::string>> commands = {
      {"stats", "tools"}, {"stats", "daily"}, {"stats", "tools", "--by", "session"}, {"failures"}};
  for (const auto& args : commands) {
    INFO(args.front() << " " << args.back());
    CHECK(answer(idx, args) == answer(b, args));
  }
  // The results without an id answer no call: `failures` lists the one failed call, and each of the
  // two stays a message of its own (their records had shared one key, so both showed the last).
  CHECK(answer(idx, {"failures"}).find(R"("total":1)") != std::string::npos);
  const std::string thread = answer(idx, {"thread", sid});
  CHECK(thread.find(R"("uuid":"r2")") != std::string::npos);
  CHECK(thread.find(R"("uuid":"r3")") != std::string::npos);
  CHECK(thread.find(R"("tool_use_id":"")") == std::string::npos);
}

TEST_CASE("export/import: an import folds the shard each commit wrote, as a build does", "[archive]") {
  Archived a;
  const std::string all = export_of(a.idx, ExportOptions{true, {}});
  const size_t n = std::count(all.begin(), all.end(), '\n');
  REQUIRE(n > 6);  // more commits than a build leaves unmerged
  TempDir tmp("archive-fold");
  const std::string empty_src = tmp / "src";
  fs::create_directories(empty_src);
  ImportOptions one_per_commit;
  one_per_commit.sessions_per_commit = 1;
  size_t commits = 0;
  one_per_commit.at_point = [&](std::string_view p) { commits += p == "committed"; };
  ImportResult r = import_into(tmp / "idx", empty_src, all, one_per_commit);
  CHECK(r.imported == n);
  CHECK(commits == n);
  CHECK(fresh_shards(tmp / "idx") == 0);
  CHECK(index_ok(tmp / "idx"));
  for (const char* word : {"the", "GOTCHA", "error"}) {
    INFO("keyword " << word);
    CHECK(keyword_sessions(tmp / "idx", word) == keyword_sessions(a.idx, word));
  }
  // The same answers as an import in one commit (whose imported sessions are archived too).
  REQUIRE(import_into(tmp / "one", empty_src, all).imported == n);
  for (const std::vector<std::string>& q :
       {std::vector<std::string>{"keyword", "error", "--by", "message", "--sort", "oldest", "--limit", "1000"},
        {"content", "-i", "error", "--by", "message", "--limit", "1000"}, {"list", "--limit", "1000"}}) {
    INFO(Catch::Detail::stringify(q));
    CHECK(answer(tmp / "idx", q) == answer(tmp / "one", q));
  }
}

TEST_CASE("export/import: the CLI writes JSONL to stdout and imports from stdin", "[archive]") {
  Archived a;
  RunResult e = run_osearch({"--index", a.idx, "--no-refresh", "export", "--sessions"});
  INFO(e.err);
  REQUIRE(e.ok());
  CHECK(std::count(e.out.begin(), e.out.end(), '\n') == 2);
  CHECK(run_osearch({"--index", a.idx, "export"}).exit_code == 2);  // --sessions is required
  TempDir tmp("archive-cli");
  fs::create_directories(tmp / "src");
  RunResult i = run_osearch({"--index", tmp / "idx", "--source", "claude=" + (tmp / "src"), "--format", "json",
                             "import", "-"},
                            e.out);
  INFO(i.err);
  REQUIRE(i.ok());
  CHECK(i.out.find(R"("imported":2)") != std::string::npos);
  RunResult again = run_osearch({"--index", tmp / "idx", "--source", "claude=" + (tmp / "src"), "--format", "json",
                                 "import", "-"},
                                e.out);
  CHECK(again.out.find(R"("already_present":2)") != std::string::npos);
}

TEST_CASE("prune and import: kill -9 leaves the index clean, with whole sessions moved or none", "[archive][crash]") {
  for (const std::string point : {"prune:chosen", "prune:records", "import:shards", "import:committed", "import:folding"}) {
    INFO("killed at " << point);
    Archived a;
    put_memory(a.idx);
    const std::string lines = export_of(a.idx);
    TempDir tmp("archive-kill");
    const std::string target = point.starts_with("prune") ? a.idx : tmp / "idx";
    const std::string src = point.starts_with("prune") ? a.src : tmp / "src";
    fs::create_directories(src);
    pid_t pid = fork_child([&] {
      auto die = [&](std::string_view p) {
        if (point.ends_with(std::string(":") + std::string(p))) ::raise(SIGKILL);
      };
      if (point.starts_with("prune")) {
        PruneOptions o;
        o.at_point = die;
        run_prune(target, roots_of(src), o);
      } else {
        ImportOptions o;
        o.sessions_per_commit = 1;
        o.at_point = die;
        import_into(target, src, lines, o);
      }
      return 0;
    });
    ChildStatus st = wait_child(pid);
    CHECK(st.term_signal == SIGKILL);
    CHECK(index_ok(target));
    const auto sessions = all_sessions(target);
    if (point == "prune:chosen") {
      CHECK(sessions.count(kWindowsSid) == 1);  // nothing dropped yet
      CHECK(memory_of(target) == kMemoryValue);
    } else if (point == "prune:records") {
      CHECK(sessions.count(kWindowsSid) == 0);  // pruned in one transaction; its title document left behind
      CHECK(keyword_sessions(target, "GOTCHA").count(kWindowsSid) == 0);
      CHECK(memory_of(target) == kMemoryValue);
    } else if (point == "import:shards") {
      CHECK(sessions.empty());  // the first batch was not committed
    } else if (point == "import:folding") {
      CHECK(sessions.size() == 2);  // every batch was; their shards are still named
      CHECK(fresh_shards(target) == 2);
    } else {
      CHECK(sessions.size() == 1);  // the first batch (one session) was
    }
    // The next run finishes the job, and the index is clean.
    if (point.starts_with("prune")) {
      CHECK(run_prune(target, roots_of(src), PruneOptions{}).sessions.size() == (point == "prune:chosen" ? 2u : 0u));
      CHECK(memory_of(target) == kMemoryValue);
    } else {
      ImportResult r = import_into(target, src, lines);
      CHECK(r.imported + r.already_present == 2);
      CHECK(all_sessions(target).size() == 2);
      CHECK(keyword_sessions(target, "GOTCHA").count(kWindowsSid) == 1);
      CHECK(fresh_shards(target) == 0);  // folded by the second run when the first was stopped
    }
    CHECK(index_ok(target));
  }
}
