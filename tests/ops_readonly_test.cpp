// Read-only indexes and unreadable sources, with permissions that bite: as root the CLI runs as
// nobody (ops_fixture.h), otherwise as the test's user on chmod'ed files.
#include "tests/ops_fixture.h"

#include "ingest/claude_layout.h"

namespace {

// What a query answers, for comparing a read-only copy with its original.
struct Answer {
  int exit_code = -1;
  int64_t total = -1;
  bool stale = false;
  std::string err;
};

Answer answer(const RunResult& r) {
  Answer a;
  a.exit_code = r.exit_code;
  a.err = r.err;
  simdjson::dom::parser parser;
  simdjson::dom::element j;
  if (r.exit_code != 0 || parser.parse(simdjson::padded_string(r.out)).get(j) != simdjson::SUCCESS) return a;
  int64_t total = -1;
  bool stale = false;
  if (j["total"].get(total) == simdjson::SUCCESS) a.total = total;
  if (j["index"]["stale"].get(stale) == simdjson::SUCCESS) a.stale = stale;
  return a;
}

// Every file under `dir` with its size and mtime: a read-only index must stay exactly as it is.
std::vector<std::string> snapshot(const std::string& dir) {
  std::vector<std::string> out;
  for (auto it = fs::recursive_directory_iterator(dir); it != fs::recursive_directory_iterator(); ++it) {
    struct stat st {};
    REQUIRE(::lstat(it->path().c_str(), &st) == 0);
    out.push_back(it->path().string() + " " + std::to_string(st.st_size) + " " + std::to_string(st.st_mtim.tv_sec) +
                  "." + std::to_string(st.st_mtim.tv_nsec) + " " + std::to_string(st.st_mode));
  }
  std::sort(out.begin(), out.end());
  return out;
}

uint64_t json_u64(const std::string& out, const char* key) {
  simdjson::dom::parser parser;
  simdjson::dom::element j;
  uint64_t v = UINT64_MAX;
  if (parser.parse(simdjson::padded_string(out)).get(j) != simdjson::SUCCESS || j[key].get(v) != simdjson::SUCCESS)
    return UINT64_MAX;
  return v;
}

}  // namespace

TEST_CASE("ops: a read-only index answers queries (stale) and status, refuses index, and creates nothing",
          "[hardening][ops][readonly]") {
  Runner runner;
  TempDir tmp("ro");
  const std::string src = tmp / "src", idx = tmp / "idx", ro = tmp / "ro";
  make_tree(src, {kB3, kWindows});
  const std::vector<std::string> where = {"--source", "claude=" + src, "--format", "json"};
  auto with = [&](std::vector<std::string> args, const std::string& index) {
    args.insert(args.end(), where.begin(), where.end());
    args.insert(args.end(), {"--index", index});
    return args;
  };
  REQUIRE(run_osearch(with({"index"}, idx)).exit_code == 0);
  const Answer want_keyword = answer(run_osearch(with({"keyword", "the", "--no-refresh"}, idx)));
  const Answer want_content = answer(run_osearch(with({"content", "oh-my-posh", "--no-refresh"}, idx)));
  const Answer want_list = answer(run_osearch(with({"list", "--no-refresh"}, idx)));
  REQUIRE(want_keyword.total > 0);
  REQUIRE(want_content.total > 0);
  REQUIRE(want_list.total == 2);
  copy_tree(idx, ro);

  // The whole copy read-only; the same without lock.mdb (LMDB must not try to create it); and a
  // writable dir whose LMDB files are read-only.
  std::string variant;
  SECTION("read-only dir") { variant = "dir"; }
  SECTION("read-only dir without lock.mdb") {
    variant = "no lock.mdb";
    fs::remove(ro + "/records/lock.mdb");
  }
  SECTION("writable dir, read-only LMDB files") { variant = "lmdb files"; }
  INFO("variant: " << variant);
  runner.readable(tmp.path());
  if (variant == "lmdb files") {
    for (auto it = fs::recursive_directory_iterator(ro); it != fs::recursive_directory_iterator(); ++it)
      runner.own(it->path().string());
    runner.own(ro);
    for (const char* f : {"/records/data.mdb", "/records/lock.mdb"})
      REQUIRE(::chmod((ro + f).c_str(), runner.root_user() ? 0644 : 0444) == 0);
    if (runner.root_user()) REQUIRE(::chown((ro + "/records/data.mdb").c_str(), 0, 0) == 0);
    if (runner.root_user()) REQUIRE(::chown((ro + "/records/lock.mdb").c_str(), 0, 0) == 0);
  } else {
    runner.read_only(ro);
  }
  // A new session in the sources: the read-only copy cannot take it, and says it is stale.
  write_file(src + "/new-project/aaaaaaaa-0000-4000-8000-000000000001.jsonl",
             user_line("aaaaaaaa-0000-4000-8000-000000000001", "n1", "readonlyquokka appears"));
  runner.readable(src);
  const auto before = snapshot(ro);

  const Answer kw = answer(runner.run(with({"keyword", "the"}, ro)));
  INFO("keyword stderr: " << kw.err);
  CHECK(kw.exit_code == 0);
  CHECK(kw.stale);
  CHECK(kw.total == want_keyword.total);
  const Answer fresh_word = answer(runner.run(with({"keyword", "readonlyquokka"}, ro)));
  CHECK(fresh_word.exit_code == 0);
  CHECK(fresh_word.stale);
  CHECK(fresh_word.total == 0);
  const Answer kw_nr = answer(runner.run(with({"keyword", "the", "--no-refresh"}, ro)));
  CHECK(kw_nr.exit_code == 0);
  CHECK_FALSE(kw_nr.stale);
  CHECK(kw_nr.total == want_keyword.total);
  const Answer ct = answer(runner.run(with({"content", "oh-my-posh"}, ro)));
  INFO("content stderr: " << ct.err);
  CHECK(ct.exit_code == 0);
  CHECK(ct.stale);
  CHECK(ct.total == want_content.total);
  const Answer ls = answer(runner.run(with({"list"}, ro)));
  CHECK(ls.exit_code == 0);
  CHECK(ls.total == want_list.total);

  RunResult st = runner.run(with({"status"}, ro));
  INFO("status stderr: " << st.err);
  CHECK(st.exit_code == 0);
  CHECK(json_u64(st.out, "sessions") == 2);

  for (bool full : {false, true}) {
    RunResult ix = runner.run(with(full ? std::vector<std::string>{"index", "--full"} : std::vector<std::string>{"index"}, ro));
    INFO("index" << (full ? " --full" : "") << " stderr: " << ix.err);
    CHECK(ix.exit_code == 1);
    CHECK(error_kind(ix.err) == "read-only");
    CHECK(ix.err.find(ro) != std::string::npos);
  }
  CHECK(snapshot(ro) == before);
}

TEST_CASE("ops: every unreadable source dir and file is reported, counted and skipped", "[hardening][ops][sources]") {
  Runner runner;
  TempDir tmp("unreadable");
  const std::string src = tmp / "src", idx = tmp / "idx";
  make_tree(src, {kB3, kWindows});
  const std::string b3_sid = kB3Sid;
  // A project dir that cannot be listed.
  const std::string locked_project = src + "/-locked-project";
  write_file(locked_project + "/bbbbbbbb-0000-4000-8000-000000000001.jsonl",
             user_line("bbbbbbbb-0000-4000-8000-000000000001", "l1", "locked away"));
  // A session dir (holding subagents) that cannot be entered.
  const std::string project = src + "/-Users-user-project";
  const std::string locked_session = project + "/" + b3_sid;
  write_file(locked_session + "/subagents/agent-a1.jsonl", user_line(b3_sid, "sa1", "subagent text"));
  // A transcript that cannot be opened, and one in a dir that can be listed but not entered
  // (so it cannot even be stat'ed).
  const std::string locked_file = project + "/cccccccc-0000-4000-8000-000000000001.jsonl";
  write_file(locked_file, user_line("cccccccc-0000-4000-8000-000000000001", "c1", "locked file"));
  const std::string listable = src + "/-listable-only";
  const std::string hidden_file = listable + "/dddddddd-0000-4000-8000-000000000001.jsonl";
  write_file(hidden_file, user_line("dddddddd-0000-4000-8000-000000000001", "d1", "behind a dir without x"));

  runner.readable(tmp.path());
  fs::create_directories(idx);
  runner.own(idx);
  runner.unreadable(locked_project);
  runner.unreadable(locked_session);
  runner.unreadable(locked_file);
  REQUIRE(::chmod(listable.c_str(), runner.root_user() ? 0744 : 0444) == 0);

  const std::vector<std::string> args = {"index", "--index", idx, "--source", "claude=" + src, "--format", "json"};
  std::vector<std::string> verbose = args;
  verbose.push_back("--verbose");
  RunResult r = runner.run(verbose);
  INFO("stdout: " << r.out << "\nstderr: " << r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(json_u64(r.out, "dirs_unreadable") == 2);
  CHECK(json_u64(r.out, "files_unreadable") == 2);
  CHECK(json_u64(r.out, "sessions") == 2);  // the readable two
  for (const std::string& named : {locked_project, locked_session, locked_file, hidden_file}) {
    INFO("named: " << named);
    CHECK(r.out.find("\"" + named + ":") != std::string::npos);  // in "problems"
    CHECK(r.err.find("osearch: " + named + ":") != std::string::npos);
  }

  // Without --verbose: the counts, and a pointer to --verbose in text mode.
  RunResult again = runner.run(args);
  CHECK(again.exit_code == 0);
  CHECK(json_u64(again.out, "dirs_unreadable") == 2);
  CHECK(json_u64(again.out, "files_unreadable") == 2);
  std::vector<std::string> text = args;
  text.back() = "text";
  RunResult t = runner.run(text);
  INFO("text stdout: " << t.out << "\ntext stderr: " << t.err);
  CHECK(t.exit_code == 0);
  CHECK(t.out.find("2 unreadable dirs") != std::string::npos);
  CHECK(t.err.find("--verbose") != std::string::npos);
}

TEST_CASE("ops: a source root that is not a directory is a reported problem; a missing one is silent",
          "[hardening][ops][sources]") {
  TempDir tmp("root-file");
  const std::string file = tmp / "projects";
  write_file(file, "not a directory\n");
  DiscoveryResult d = discover_claude(file);
  CHECK(d.files.empty());
  REQUIRE(d.errors.size() == 1);
  CHECK(d.errors[0] == file + ": source root is not a directory");
  DiscoveryResult missing = discover_claude(tmp / "missing");
  CHECK(missing.errors.empty());
  CHECK(missing.file_errors.empty());

  RunResult r = run_osearch({"index", "--index", tmp / "idx", "--source", "claude=" + file, "--format", "json", "--verbose"});
  INFO("stdout: " << r.out << "\nstderr: " << r.err);
  CHECK(r.exit_code == 0);
  CHECK(json_u64(r.out, "dirs_unreadable") == 1);
  CHECK(r.out.find("source root is not a directory") != std::string::npos);
  RunResult m = run_osearch({"index", "--index", tmp / "idx", "--source", "claude=" + tmp / "missing", "--format", "json", "--verbose"});
  CHECK(m.exit_code == 0);
  CHECK(json_u64(m.out, "dirs_unreadable") == 0);
  CHECK(m.out.find("\"problems\":[]") != std::string::npos);
}

TEST_CASE("ops: a relative index dir that does not exist yet is writable, not read-only", "[hardening][ops][readonly]") {
  osearch_test::TempDir tmp;
  const auto before = std::filesystem::current_path();
  std::filesystem::current_path(tmp.path());
  std::string why;
  const bool writable = osearch::index_writable("new-index", why);
  std::filesystem::current_path(before);
  CHECK(writable);
  CHECK(why.empty());
}
