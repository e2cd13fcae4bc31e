// The refresh's quick check (engine/index/source_watch.h): after every kind of change to the
// sources, a query's refresh must leave the index exactly as a run that lists every directory
// leaves a second index with the same history, whether the check found nothing to do, read only
// the moved files, or fell back to the full plan. The plan it took is checked too, so a check that always falls back
// (correct but slow) fails here as well.
#include "tests/index_fixture.h"

#include <sys/stat.h>
#include <time.h>

#include <fstream>

#include "engine/index/source_watch.h"
#include "ingest/claude_layout.h"
#include "ingest/layout_util.h"

namespace {

constexpr const char* kClaudeMain = "-Users-user-project/b3edadab-bca0-4054-9b41-f7ffa6941260.jsonl";

struct Sources : FourAgentTree {
  std::string outside = tmp / "outside";
  std::string idx = tmp / "index";
  std::string idx_full = tmp / "index-full";  // the same history, every run on the full plan

  Sources() : FourAgentTree("watch") {
    fs::create_directories(outside);
    write_file(omp + "/custom-session-files/reg1", outside + "/2026-11-01T12-00-00-000Z_01a0b1c2-0000-7000-8000-00000000a0f1.jsonl\n");
    clock.settle(omp + "/custom-session-files");
    clock.settle(omp);
    clock.settle(outside);
  }
  IndexSummary refresh() {
    IndexOptions o;
    o.quick_check = true;
    o.count_unknown_garbage = false;
    o.wait_for_lock = false;
    return run_index(idx, roots(), o);
  }
  // The full plan's index after the same changes.
  std::vector<std::string> full_plan_fingerprint() {
    IndexSummary s = run_index(idx_full, roots(), IndexOptions{});
    REQUIRE(s.files_unreadable == 0);
    return fingerprint(idx_full);
  }
};

std::string omp_line(const std::string& id, const std::string& parent, const std::string& text) {
  return R"({"type":"message","id":")" + id + R"(","parentId":")" + parent +
         R"(","timestamp":"2026-11-05T10:00:00.000Z","message":{"role":"user","content":")" + text + R"("}})" + "\n";
}

std::string first_file(const std::string& dir, std::string_view suffix) {
  std::vector<std::string> found;
  for (const auto& e : fs::recursive_directory_iterator(dir))
    if (e.is_regular_file() && e.path().string().ends_with(suffix)) found.push_back(e.path().string());
  REQUIRE(!found.empty());
  std::sort(found.begin(), found.end());
  return found.front();
}

}  // namespace

TEST_CASE("watch: a refresh after each kind of change equals a clean build, by the plan the change calls for",
          "[watch]") {
  Sources s;
  IndexSummary first = run_index(s.idx, s.roots(), IndexOptions{});
  REQUIRE(first.files_unreadable == 0);
  CHECK(first.plan == "full");
  s.full_plan_fingerprint();

  // `changed`: the files read (a replaced or shrunk transcript's session is read again whole).
  auto step = [&](const char* what, std::string_view plan, uint64_t changed) {
    INFO("after: " << what);
    IndexSummary r = s.refresh();
    CHECK(r.plan == plan);
    CHECK(r.files_changed == changed);
    CHECK_SAME_INDEX(s.idx, s.full_plan_fingerprint());
    // Whatever the plan, the run left a record the next refresh trusts.
    IndexSummary again = s.refresh();
    CHECK(again.plan == "unchanged");
    CHECK(again.files_changed == 0);
    CHECK(again.files_seen == r.files_seen);
  };

  step("nothing", "unchanged", 0);

  const std::string claude_main = s.claude + "/" + kClaudeMain;
  append_file(claude_main, R"({"type":"user","uuid":"watch-u1","parentUuid":null,"sessionId":"b3edadab-bca0-4054-9b41-f7ffa6941260","timestamp":"2026-11-05T10:00:00.000Z","message":{"role":"user","content":"quickcheckappendedword"}})"
                           "\n");
  step("a Claude transcript grew", "targeted", 1);

  const std::string omp_file = first_file(s.omp + "/sessions/-work-omp-proj", ".jsonl");
  append_file(omp_file, omp_line("wq000001", "", "omp grows quietly"));
  step("an omp transcript grew", "targeted", 1);

  // (Not the rollout whose last line has no newline: a line appended to it is glued to that one,
  // which a clean build keys apart from an incremental one.)
  const std::string rollout = first_file(s.codex + "/sessions", "01a0b1c2-0000-7000-8000-00000000d001.jsonl");
  append_file(rollout, R"({"timestamp":"2026-11-05T10:00:00.000Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"codex grows"}]}})"
                       "\n");
  step("a Codex rollout grew (its session index is read again with it)", "targeted", 2);

  {
    // omp rewrites its title slot in place: same size, same inode, new mtime.
    const size_t at = read_file(omp_file).find("Zebraslot");
    REQUIRE(at != std::string::npos);
    std::fstream f(omp_file, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(static_cast<std::streamoff>(at));
    f.put('Q');
  }
  step("an omp title slot was rewritten in place", "targeted", 1);

  const std::string new_main = s.claude + "/-Users-user-project/aaaaaaaa-0000-4000-8000-00000000f001.jsonl";
  write_file(new_main, R"({"type":"user","uuid":"watch-n1","parentUuid":null,"sessionId":"aaaaaaaa-0000-4000-8000-00000000f001","timestamp":"2026-11-05T11:00:00.000Z","message":{"role":"user","content":"a new session"}})"
                       "\n");
  s.clock.settle(s.claude + "/-Users-user-project");
  step("a new session in a known project", "relisted", 1);

  const std::string sub = s.claude + "/-Users-user-project/aaaaaaaa-0000-4000-8000-00000000f001/subagents";
  fs::create_directories(sub);
  write_file(sub + "/agent-w1.jsonl", R"({"type":"user","uuid":"watch-s1","parentUuid":null,"isSidechain":true,"agentId":"w1","sessionId":"aaaaaaaa-0000-4000-8000-00000000f001","timestamp":"2026-11-05T11:01:00.000Z","message":{"role":"user","content":"a subagent appears"}})"
                                    "\n");
  s.clock.settle(sub);
  s.clock.settle(s.claude + "/-Users-user-project/aaaaaaaa-0000-4000-8000-00000000f001");
  s.clock.settle(s.claude + "/-Users-user-project");
  step("a subagents dir appeared in a session dir", "relisted", 1);

  // The session dir is recorded, not the missing paths inside it (drop_covered_missing): what
  // appears there is seen through the session dir's mtime.
  const std::string session_dir = s.claude + "/-Users-user-project/aaaaaaaa-0000-4000-8000-00000000f001";
  write_file(session_dir + "/workflows/wf_watch1.json",
             R"({"runId":"wf_watch1","workflowName":"watch-review","status":"completed","timestamp":"2026-11-05T11:02:00.000Z","workflowProgress":[]})");
  s.clock.settle(session_dir + "/workflows");
  s.clock.settle(session_dir);
  step("a workflows dir appeared in a session dir", "relisted", 1);

  write_file(sub + "/workflows/wf_watch1/agent-w2.jsonl", R"({"type":"user","uuid":"watch-s2","parentUuid":null,"isSidechain":true,"agentId":"w2","sessionId":"aaaaaaaa-0000-4000-8000-00000000f001","timestamp":"2026-11-05T11:03:00.000Z","message":{"role":"user","content":"a workflow agent appears"}})"
                                                  "\n");
  s.clock.settle(sub + "/workflows/wf_watch1");
  s.clock.settle(sub + "/workflows");
  s.clock.settle(sub);
  step("a workflows dir appeared under subagents", "relisted", 1);

  // A subagent transcript rewritten in place and grown: its session is read again whole, every file
  // of it, which only the full plan lists (taken for an append, the main transcript's messages went).
  rewrite_in_place(sub + "/agent-w1.jsonl", R"({"type":"user","uuid":"watch-s1","parentUuid":null,"isSidechain":true,"agentId":"w1","sessionId":"aaaaaaaa-0000-4000-8000-00000000f001","timestamp":"2026-11-05T11:01:00.000Z","message":{"role":"user","content":"a subagent rewritten in place"}})"
                                          "\n"
                                          R"({"type":"assistant","uuid":"watch-s1b","parentUuid":"watch-s1","isSidechain":true,"agentId":"w1","sessionId":"aaaaaaaa-0000-4000-8000-00000000f001","timestamp":"2026-11-05T11:01:30.000Z","message":{"role":"assistant","content":"and grown"}})"
                                          "\n");
  step("a subagent transcript rewritten in place and grown", "full", 4);
  CHECK(keyword_sessions(s.idx, "session").count("aaaaaaaa-0000-4000-8000-00000000f001"));

  // New directories and files elsewhere: each listed again, the rest of the tree taken as recorded.
  const std::string project = s.claude + "/-Users-user-newproject";
  write_file(project + "/aaaaaaaa-0000-4000-8000-00000000f002.jsonl", R"({"type":"user","uuid":"watch-n2","parentUuid":null,"sessionId":"aaaaaaaa-0000-4000-8000-00000000f002","timestamp":"2026-11-05T11:10:00.000Z","message":{"role":"user","content":"a new project appears"}})"
                                                                     "\n");
  s.clock.settle(project);
  s.clock.settle(s.claude);
  step("a new Claude project", "relisted", 1);

  const std::string day = s.codex + "/sessions/2026/11/05";
  write_file(day + "/rollout-2026-11-05T10-00-00-01a0b1c2-0000-7000-8000-00000000d0f1.jsonl",
             R"({"timestamp":"2026-11-05T10:00:00.000Z","type":"session_meta","payload":{"id":"01a0b1c2-0000-7000-8000-00000000d0f1","timestamp":"2026-11-05T10:00:00.000Z","cwd":"/work/codex-new","originator":"codex_cli_rs","cli_version":"0.146.0","source":"cli","model_provider":"openai"}})"
             "\n"
             R"({"timestamp":"2026-11-05T10:00:02.000Z","type":"event_msg","payload":{"type":"user_message","message":"a new day's rollout","images":[]}})"
             "\n");
  s.clock.settle(day);
  s.clock.settle(s.codex + "/sessions/2026/11");
  step("a Codex rollout in a new day's directory (its session index is read again with it)", "relisted", 2);

  const std::string pi_dir = s.pi + "/sessions/--work-pi-proj--";
  const std::string pi_new = pi_dir + "/2026-11-05T10-00-00-000Z_01a0b1c2-0000-7000-8000-00000000b0f1.jsonl";
  write_file(pi_new, R"({"type":"session","version":3,"id":"01a0b1c2-0000-7000-8000-00000000b0f1","timestamp":"2026-11-05T10:00:00.000Z","cwd":"/work/pi-proj"})"
                     "\n" + omp_line("wp000001", "", "a new pi session"));
  s.clock.settle(pi_dir);
  step("a new pi session in a known directory", "relisted", 1);

  const std::string artifacts =
      s.omp + "/sessions/-work-omp-proj/2026-11-01T10-00-00-000Z_01a0b1c2-0000-7000-8000-00000000a001";
  write_file(artifacts + "/1-Plan.jsonl", R"({"type":"session","version":3,"id":"01a0b1c2-0000-7000-8000-00000000a0f3","timestamp":"2026-11-05T10:00:00.000Z","cwd":"/work/omp proj","parentSession":"01a0b1c2-0000-7000-8000-00000000a001"})"
                                          "\n" + omp_line("wq000003", "", "a new omp subagent"));
  s.clock.settle(artifacts);
  step("a new omp subagent in a session's artifacts directory", "relisted", 1);

  // A new file beside one that grew, in two other places: both read, nothing else.
  write_file(pi_dir + "/2026-11-05T11-00-00-000Z_01a0b1c2-0000-7000-8000-00000000b0f2.jsonl",
             R"({"type":"session","version":3,"id":"01a0b1c2-0000-7000-8000-00000000b0f2","timestamp":"2026-11-05T11:00:00.000Z","cwd":"/work/pi-proj"})"
             "\n");
  s.clock.settle(pi_dir);
  append_file(claude_main, R"({"type":"user","uuid":"watch-u2","parentUuid":"watch-u1","sessionId":"b3edadab-bca0-4054-9b41-f7ffa6941260","timestamp":"2026-11-05T12:00:00.000Z","message":{"role":"user","content":"grown beside a new file"}})"
                           "\n");
  step("a new file and a grown one", "relisted", 2);

  // A file gone from a directory whose entries changed anyway: the full plan marks it deleted.
  fs::remove(pi_new);
  write_file(pi_dir + "/2026-11-05T12-00-00-000Z_01a0b1c2-0000-7000-8000-00000000b0f3.jsonl",
             R"({"type":"session","version":3,"id":"01a0b1c2-0000-7000-8000-00000000b0f3","timestamp":"2026-11-05T12:00:00.000Z","cwd":"/work/pi-proj"})"
             "\n");
  s.clock.settle(pi_dir);
  step("a file deleted and another created in one directory", "full", 1);

  const std::string listed = s.outside + "/2026-11-01T12-00-00-000Z_01a0b1c2-0000-7000-8000-00000000a0f1.jsonl";
  write_file(listed, R"({"type":"session","version":3,"id":"01a0b1c2-0000-7000-8000-00000000a0f1","timestamp":"2026-11-05T12:00:00.000Z","cwd":"/work/outside"})"
                     "\n" + omp_line("wq000002", "", "registered file appears"));
  s.clock.settle(s.outside);
  step("a file the omp registry names appeared", "full", 1);

  write_file(s.omp + "/custom-session-files/reg1", listed + "\n" + s.outside + "/2026-11-01T13-00-00-000Z_01a0b1c2-0000-7000-8000-00000000a0f2.jsonl\n");
  write_file(s.outside + "/2026-11-01T13-00-00-000Z_01a0b1c2-0000-7000-8000-00000000a0f2.jsonl",
             R"({"type":"session","version":3,"id":"01a0b1c2-0000-7000-8000-00000000a0f2","timestamp":"2026-11-05T13:00:00.000Z","cwd":"/work/outside"})"
             "\n");
  s.clock.settle(s.outside);
  step("the omp registry was rewritten in place", "full", 1);

  {
    const std::string text = read_file(claude_main);
    replace_file(claude_main + ".tmp", text.substr(0, text.size() / 2));
    fs::rename(claude_main + ".tmp", claude_main);
    s.clock.settle(s.claude + "/-Users-user-project");
  }
  step("a transcript was replaced by a shorter one", "full", 6);

  {
    // Truncated in place (same inode): a shrink is for the full plan.
    const std::string text = read_file(new_main);
    REQUIRE(::truncate(new_main.c_str(), static_cast<off_t>(text.size() / 2)) == 0);
  }
  step("a transcript shrank in place", "full", 4);  // its session's four files, read again whole

  fs::remove(sub + "/agent-w1.jsonl");
  s.clock.settle(sub);
  step("a subagent transcript was deleted", "full", 0);

  // Back again: new to the record, but its state says deleted: its session is read again whole,
  // which the full plan does.
  write_file(sub + "/agent-w1.jsonl", R"({"type":"user","uuid":"watch-s1","parentUuid":null,"isSidechain":true,"agentId":"w1","sessionId":"aaaaaaaa-0000-4000-8000-00000000f001","timestamp":"2026-11-05T11:01:00.000Z","message":{"role":"user","content":"a subagent comes back"}})"
                                    "\n");
  s.clock.settle(sub);
  step("a deleted transcript came back", "full", 4);  // its session's four files

  s.clock.settle(s.pi + "/sessions");
  step("a directory's mtime moved with nothing in it changed", "relisted", 0);
}

TEST_CASE("watch: a directory changed within the last two seconds is not trusted", "[watch]") {
  Sources s;
  const std::string fresh = s.claude + "/-new-project";
  fs::create_directories(fresh);  // its mtime (and the root's) is now
  IndexSummary first = run_index(s.idx, s.roots(), IndexOptions{});
  REQUIRE(first.files_unreadable == 0);
  // No record was kept: the next refresh lists everything again.
  CHECK(s.refresh().plan == "full");
  s.clock.settle(fresh);
  s.clock.settle(s.claude);
  CHECK(s.refresh().plan == "full");  // this one keeps a record
  CHECK(s.refresh().plan == "unchanged");
}

TEST_CASE("watch: a record is read only for the roots it was made for, and never when damaged", "[watch]") {
  Sources s;
  DiscoveryResult d = discover_claude(s.claude);
  const std::vector<SourceRoot> roots{{"claude", s.claude}};
  const std::string record = encode_source_watch(roots, d.observed, d.files, wall_clock_ns());
  REQUIRE(!record.empty());
  WatchCheck ok = check_source_watch(record, roots);
  CHECK(ok.unchanged());
  CHECK(ok.files == d.files.size());

  CHECK_FALSE(check_source_watch(record, {{"claude", s.claude + "/"}}).usable);
  CHECK_FALSE(check_source_watch(record, {{"omp", s.claude}}).usable);
  CHECK_FALSE(check_source_watch(record, {}).usable);
  for (size_t cut : {size_t{0}, size_t{3}, record.size() / 2, record.size() - 1})
    CHECK_FALSE(check_source_watch(record.substr(0, cut), roots).usable);
  CHECK_FALSE(check_source_watch(record + "x", roots).usable);
  // `check` decodes the record whatever its roots; a cut or garbled one is damage.
  CHECK(source_watch_decodes(record));
  CHECK_FALSE(source_watch_decodes(record.substr(0, record.size() / 2)));
  CHECK_FALSE(source_watch_decodes(record + "x"));

  // A transcript that grew is named with its new size; nothing else moved.
  append_file(s.claude + "/" + kClaudeMain, "{}\n");
  WatchCheck grown = check_source_watch(record, roots);
  CHECK(grown.usable);
  CHECK(grown.layout_unchanged);
  REQUIRE(grown.changed.size() == 1);
  CHECK(grown.changed[0].path == s.claude + "/" + kClaudeMain);
  CHECK(grown.changed[0].size == file_size(s.claude + "/" + kClaudeMain));
  CHECK(grown.files == d.files.size());
  // The updated record holds the new size: checked again, nothing has moved.
  CHECK(check_source_watch(grown.updated_record, roots).unchanged());

  fs::remove(s.claude + "/" + kClaudeMain);
  WatchCheck gone = check_source_watch(record, roots);
  CHECK(gone.usable);
  CHECK_FALSE(gone.layout_unchanged);
  CHECK(gone.changed.empty());
}

TEST_CASE("watch: a record of hundreds of files is checked in blocks by two threads, each change found", "[watch]") {
  TempDir tmp{"watch-many"};
  const std::string root = tmp / "claude";
  std::vector<std::string> paths;
  for (int p = 0; p < 7; ++p) {
    const std::string dir = root + "/-project-" + std::to_string(p);
    fs::create_directories(dir);
    for (int i = 0; i < 60; ++i) {
      char id[64];
      std::snprintf(id, sizeof id, "%08d-0000-4000-8000-%012d", p, i);
      paths.push_back(dir + "/" + id + ".jsonl");
      write_file(paths.back(), "{}\n");
    }
  }
  PastMtimes clock;
  clock.settle_tree(root);
  const std::vector<SourceRoot> roots{{"claude", root}};
  DiscoveryResult d = discover_claude(root);
  REQUIRE(d.files.size() == paths.size());
  const std::string record = encode_source_watch(roots, d.observed, d.files, wall_clock_ns());
  REQUIRE(!record.empty());
  CHECK(check_source_watch(record, roots).unchanged());
  CHECK(check_source_watch(record, roots).files == paths.size());

  // One change near the start, one in the last block: both named, with what discovery said of them.
  append_file(paths[3], "{}\n");
  append_file(paths[paths.size() - 2], "{}\n{}\n");
  WatchCheck c = check_source_watch(record, roots);
  CHECK(c.usable);
  CHECK(c.layout_unchanged);
  REQUIRE(c.changed.size() == 2);
  std::map<std::string, SourceFile> by_path;
  for (const auto& f : c.changed) by_path[f.path] = f;
  for (const auto& f : d.files) {
    if (!by_path.count(f.path)) continue;
    const SourceFile& got = by_path[f.path];
    CHECK(got.kind == f.kind);
    CHECK(got.agent == f.agent);
    CHECK(got.project == f.project);
    CHECK(got.session_id == f.session_id);
    CHECK(got.size == file_size(f.path));
  }
  CHECK(by_path.count(paths[3]));
  CHECK(by_path.count(paths[paths.size() - 2]));
  CHECK(check_source_watch(c.updated_record, roots).unchanged());

  // A file gone from the last block changes the layout, whichever thread looks at it.
  fs::remove(paths.back());
  CHECK_FALSE(check_source_watch(record, roots).layout_unchanged);
}

TEST_CASE("watch: a check narrowed to named files stats those alone", "[watch]") {
  Sources s;
  REQUIRE(s.refresh().plan == "full");
  const std::optional<std::string> record = [&] {
    Store store(s.idx, Store::Mode::Read);
    return read_source_watch(store);
  }();
  REQUIRE(record);
  REQUIRE_FALSE(record->empty());
  const std::string grown = s.claude + "/" + kClaudeMain;
  const std::string other = first_file(s.omp + "/sessions/-work-omp-proj", ".jsonl");
  append_file(grown, R"({"type":"user","uuid":"narrow-u1","parentUuid":null,"sessionId":"b3edadab-bca0-4054-9b41-f7ffa6941260","timestamp":"2026-11-05T10:00:00.000Z","message":{"role":"user","content":"narrowedword"}})"
                     "\n");
  append_file(other, omp_line("wq000009", "", "not named"));
  const WatchCheck whole = check_source_watch(*record, s.roots());
  REQUIRE(whole.changed.size() == 2);

  const std::set<std::string> just_grown{grown};
  const WatchCheck narrowed = check_source_watch(*record, s.roots(), &just_grown);
  REQUIRE(narrowed.usable);
  REQUIRE(narrowed.layout_unchanged);
  CHECK(narrowed.files == whole.files);
  REQUIRE(narrowed.changed.size() == 1);  // the other grown file was not named
  CHECK(narrowed.changed[0].path == grown);
  CHECK(narrowed.changed[0].size == fs::file_size(grown));
  // Its record differs from the old one in the named file's stat alone.
  const std::set<std::string> both{grown, other};
  CHECK(check_source_watch(narrowed.updated_record, s.roots(), &just_grown).unchanged());
  CHECK(check_source_watch(narrowed.updated_record, s.roots(), &both).changed.size() == 1);
  CHECK(check_source_watch(whole.updated_record, s.roots(), &both).unchanged());
  // An unchanged named file: nothing to read.
  const std::set<std::string> untouched{first_file(s.pi + "/sessions", ".jsonl")};
  CHECK(check_source_watch(*record, s.roots(), &untouched).unchanged());
  // A name that is no recorded transcript (a new file, a directory): the full check decides.
  for (const std::string& unknown : {s.claude + "/-Users-user-project/new.jsonl", s.claude + "/-Users-user-project"}) {
    const std::set<std::string> named{unknown};
    const WatchCheck c = check_source_watch(*record, s.roots(), &named);
    CHECK(c.usable);
    CHECK_FALSE(c.layout_unchanged);
  }
}

TEST_CASE("watch: a missing path is recorded unless its directory was observed before it", "[watch]") {
  using T = PathStat::Type;
  auto at = [](std::string path, T type) {
    PathStat p;
    p.path = std::move(path);
    p.type = type;
    return p;
  };
  std::vector<PathStat> observed = {
      at("/r/p/s/workflows", T::Missing),  // before /r/p/s was looked at: its mtime may already hold the entry
      at("/r/p", T::Dir),
      at("/r/p/s", T::Dir),
      at("/r/p/s/subagents", T::Missing),  // covered by /r/p/s
      at("/r/p/s/workflows", T::Missing),  // covered
      at("/r/p/f.jsonl", T::File),
      at("/r/p/f.jsonl/x", T::Missing),    // its parent is no directory
      at("/r/q/x", T::Missing),            // /r/q never observed
      at("/r/p/s/sub/deeper", T::Missing), // only the direct parent covers
  };
  drop_covered_missing(observed);
  std::vector<std::string> kept;
  for (const auto& o : observed) kept.push_back(o.path);
  CHECK(kept == std::vector<std::string>{"/r/p/s/workflows", "/r/p", "/r/p/s", "/r/p/f.jsonl", "/r/p/f.jsonl/x",
                                         "/r/q/x", "/r/p/s/sub/deeper"});

  // A Claude tree: each session dir is recorded, the probes inside it are not.
  TempDir tmp{"watch-covered"};
  make_tree(tmp / "claude", {"-Users-user-project"});
  const std::string session_dir = tmp / "claude/-Users-user-project/0000aaaa-0000-4000-8000-000000000001";
  fs::create_directories(session_dir + "/subagents");
  DiscoveryResult d = discover_claude(tmp / "claude");
  drop_covered_missing(d.observed);
  bool session_dir_recorded = false;
  for (const auto& o : d.observed) {
    INFO(o.path);
    CHECK(o.type != T::Missing);
    if (o.path == session_dir) session_dir_recorded = o.type == T::Dir;
  }
  CHECK(session_dir_recorded);
}
