// Index: concurrent indexers, file modes, --full and the archive, bad input.
#include "tests/index_fixture.h"

TEST_CASE("index: a second indexer is told the index is busy or waits while readers work", "[index][lock]") {
  TempDir tmp("lock");
  const std::string src = tmp / "src";
  make_tree(src, {"-Users-user-project", kWindows});
  const std::string idx = tmp / "idx";
  IndexSummary first = index_tree(idx, src);
  const auto before = counts_of(idx);
  REQUIRE(before.messages == first.messages);

  // New sources for the long-running indexer.
  make_tree(src, {"-experiments-worktrees", "sample-project", kGlued});

  int to_parent[2], to_child[2];
  REQUIRE(::pipe(to_parent) == 0);
  REQUIRE(::pipe(to_child) == 0);
  pid_t pid = fork_child([&] {
    ::close(to_parent[0]);
    ::close(to_child[1]);
    IndexOptions o;
    bool told = false;
    o.progress = [&](const IndexProgress&) {
      if (told) return;
      told = true;
      char c = 'x';
      (void)!::write(to_parent[1], &c, 1);  // holding the writer lock, mid-run
      (void)!::read(to_child[0], &c, 1);    // until the parent has looked
    };
    IndexSummary s = run_index(idx, roots_of(src), o);
    return s.busy ? 3 : 0;
  });
  ::close(to_parent[1]);
  ::close(to_child[0]);
  // Whatever happens below, the child is released and reaped (never left holding the lock).
  struct Release {
    pid_t pid;
    int fd;
    bool done = false;
    ~Release() {
      if (done) return;
      char g = 'g';
      (void)!::write(fd, &g, 1);
      ::kill(pid, SIGKILL);
      wait_child(pid);
    }
  } guard{pid, to_child[1]};
  pollfd pfd{to_parent[0], POLLIN, 0};
  REQUIRE(::poll(&pfd, 1, 30000) == 1);
  char c;
  REQUIRE(::read(to_parent[0], &c, 1) == 1);

  // A second indexer that must not wait.
  IndexOptions nowait;
  nowait.wait_for_lock = false;
  IndexSummary busy = index_tree(idx, src, nowait);
  CHECK(busy.busy);
  CHECK(busy.files_changed == 0);
  CHECK(busy.new_messages == 0);

  // Readers see the last committed state.
  {
    IndexReader r(idx);
    IndexCounts now = r.counts();
    CHECK(now.sessions >= before.sessions);
    CHECK(now.messages >= before.messages);
    auto s = r.session(kWindowsSid);
    CHECK(s.has_value());
    if (s) CHECK(s->title() == "Remove phantom nul file");
    CHECK(r.xapian().get_doccount() > 0);
  }
  RunResult st = run_osearch({"--index", idx, "--source", "claude=" + src, "--format", "json", "status"});
  CHECK(st.exit_code == 0);
  CHECK(st.out.find("\"sessions\"") != std::string::npos);

  // A second indexer that waits: blocks until the first one is done, then has nothing left to do.
  std::jthread release([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    char go = 'g';
    (void)!::write(to_child[1], &go, 1);
  });
  auto t0 = std::chrono::steady_clock::now();
  IndexSummary waited = index_tree(idx, src);
  const auto waited_ms = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - t0);
  release.join();
  ChildStatus cs = wait_child(pid);
  guard.done = true;
  ::close(to_parent[0]);
  ::close(to_child[1]);
  CHECK(cs.exited);
  CHECK(cs.exit_code == 0);
  CHECK_FALSE(waited.busy);
  CHECK(waited_ms.count() >= 250);
  CHECK(waited.new_messages == 0);

  const std::string ref = tmp / "ref";
  IndexSummary clean = index_tree(ref, src);
  CHECK(waited.messages == clean.messages);
  CHECK_SAME_INDEX(idx, fingerprint(ref));
}

TEST_CASE("index: the index dir is 0700 and its files 0600 whatever the umask", "[index][perm]") {
  TempDir tmp("perm");
  const std::string src = tmp / "src";
  make_tree(src, {kWindows, "-Users-user-project"});

  auto bad_modes = [](const std::string& idx) {
    std::vector<std::string> bad;
    if (mode_bits(idx) != 0700) bad.push_back(idx + " " + std::to_string(mode_bits(idx)));
    std::error_code ec;
    for (auto it = fs::recursive_directory_iterator(idx, ec); !ec && it != fs::recursive_directory_iterator();
         it.increment(ec)) {
      const std::string p = it->path().string();
      const unsigned want = it->is_directory() ? 0700 : 0600;
      const unsigned got = mode_bits(p);
      if (got != want) {
        char buf[64];
        std::snprintf(buf, sizeof buf, " mode %04o, want %04o", got, want);
        bad.push_back(p + buf);
      }
    }
    return bad;
  };
  auto joined = [](const std::vector<std::string>& v) {
    std::string s;
    for (const auto& x : v) s += "  " + x + "\n";
    return s;
  };

  const mode_t old = ::umask(022);
  const std::string idx = tmp / "idx";
  index_tree(idx, src);
  // A later incremental run (new text, new index data) under the same umask.
  append_file(src + "/" + kB3, user_line(kB3Sid, "perm-new", "appended under umask 022", "2025-12-21T00:00:00.000Z"));
  index_tree(idx, src);
  // A repack (too small a corpus for Auto) writes a new env dir and the records.current pointer.
  IndexOptions repack;
  repack.repack = Repack::Always;
  index_tree(idx, src, repack);
  CHECK(fs::exists(idx + "/records.current"));
  // An existing, too-open index dir is tightened.
  const std::string idx2 = tmp / "existing";
  fs::create_directories(idx2);
  ::chmod(idx2.c_str(), 0755);
  index_tree(idx2, src);
  ::umask(old);

  {
    auto bad = bad_modes(idx);
    INFO("in-process run_index under umask 022:\n" << joined(bad));
    CHECK(bad.empty());
  }
  {
    auto bad2 = bad_modes(idx2);
    INFO("pre-existing 0755 index dir, umask 022:\n" << joined(bad2));
    CHECK(bad2.empty());
  }

  // The CLI (which sets its own umask) too.
  const std::string idx3 = tmp / "cli-idx";
  RunResult r = run_osearch({"--index", idx3, "--source", "claude=" + src, "--format", "json", "index"});
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  append_file(src + "/" + kB3, user_line(kB3Sid, "perm-cli", "appended for the CLI", "2025-12-21T00:00:01.000Z"));
  RunResult r2 = run_osearch({"--index", idx3, "--source", "claude=" + src, "--format", "json", "index"});
  REQUIRE(r2.exit_code == 0);
  auto bad3 = bad_modes(idx3);
  INFO("osearch index:\n" << joined(bad3));
  CHECK(bad3.empty());
}

TEST_CASE("index: --full rebuilds to the same index", "[index]") {
  TempDir tmp("full");
  const std::string src = tmp / "src";
  copy_tree(claude_data_dir(), src);
  const std::string idx = tmp / "idx";
  IndexSummary s1 = index_tree(idx, src);
  const auto fp = fingerprint(idx);

  IndexSummary s2 = index_tree(idx, src, full_options());
  CHECK(s2.files_changed == s1.files_seen);
  CHECK(s2.sessions == s1.sessions);
  CHECK(s2.messages == s1.messages);
  CHECK(s2.tool_calls == s1.tool_calls);
  CHECK_SAME_INDEX(idx, fp);

  // After an incremental change, --full still matches a clean build.
  append_file(src + "/" + kB3, user_line(kB3Sid, "full-new", "added before --full", "2025-12-21T00:00:00.000Z"));
  fs::resize_file(src + "/" + kWindows, file_size(src + "/" + kWindows) / 2);
  index_tree(idx, src);
  IndexSummary s3 = index_tree(idx, src, full_options());
  const std::string ref = tmp / "ref";
  IndexSummary clean = index_tree(ref, src);
  CHECK(s3.messages == clean.messages);
  CHECK(s3.sessions == clean.sessions);
  CHECK_SAME_INDEX(idx, fingerprint(ref));

  // The CLI's `index --full` reports the same counts.
  RunResult r = run_osearch({"--index", idx, "--source", "claude=" + src, "--format", "json", "index", "--full"});
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.find("\"messages\":" + std::to_string(clean.messages)) != std::string::npos);
  CHECK(r.out.find("\"sessions\":" + std::to_string(clean.sessions)) != std::string::npos);
  CHECK(r.out.find("\"tool_calls\":" + std::to_string(clean.tool_calls)) != std::string::npos);
  CHECK_SAME_INDEX(idx, fingerprint(ref));
}

TEST_CASE("index: --full keeps the sessions of deleted source files as source_deleted", "[index]") {
  // SPEC §2: the index is a durable archive; sessions of vanished files stay searchable (marked
  // source_deleted) until `osearch prune`. A rebuild is not a prune.
  TempDir tmp("full-deleted");
  const std::string src = tmp / "src";
  make_tree(src, {"-Users-user-project", kWindows});
  const std::string idx = tmp / "idx";
  IndexSummary s1 = index_tree(idx, src);
  fs::remove(src + "/" + kWindows);
  index_tree(idx, src);
  REQUIRE(all_sessions(idx).at(kWindowsSid).source_deleted);

  IndexSummary full = index_tree(idx, src, full_options());
  CHECK(full.sessions == s1.sessions);
  CHECK(full.messages == s1.messages);
  auto sessions = all_sessions(idx);
  REQUIRE(sessions.count(kWindowsSid) == 1);
  CHECK(sessions.at(kWindowsSid).source_deleted);
  CHECK(sessions.at(kWindowsSid).message_count == 7);
  CHECK(session_messages(idx, kWindowsSid).size() == 7);
}

TEST_CASE("index: bad input never stops a run and is counted in bad_lines", "[index]") {
  TempDir tmp("badinput");
  const std::string src = tmp / "src";
  make_tree(src, {kWindows});
  const std::string p = src + "/-bad/";
  std::mt19937 rng(1234);
  std::string junk(64 * 1024, '\0');
  for (auto& ch : junk) ch = static_cast<char>(rng() & 0xff);
  for (size_t i = 1000; i < junk.size(); i += 4000) junk[i] = '\n';  // many "lines"
  junk += "\n";
  write_file(p + "x.jsonl", junk);
  write_file(p + "empty.jsonl", "");
  write_file(p + "s-utf8.jsonl", user_line("s-utf8", "u1", "before the bad bytes") +
                                     user_line("s-utf8", "u2", std::string("bad \xff\xfe\xc0\xaf bytes"), "2026-03-01T10:00:01.000Z") +
                                     assistant_line("s-utf8", "u3", "after the bad bytes", "m-u3", 1, 1, "2026-03-01T10:00:02.000Z"));
  std::string big(2u << 20, 'b');
  for (size_t i = 0; i < big.size(); i += 100) big[i] = ' ';
  write_file(p + "s-big.jsonl", user_line("s-big", "b1", "bigword " + big) +
                                    assistant_line("s-big", "b2", "after big", "m-b2", 1, 1));
  write_file(p + "s-junk.jsonl", "[1,2,3]\n\"a string\"\nnull\n{\"type\":\"user\",oops}\n" +
                                     user_line("s-junk", "j1", "valid after junk") + "{\"type\":\"summary\"}{broken\n");
  const std::string half = user_line("s-half2", "hb", "never finished");
  write_file(p + "s-half2.jsonl", user_line("s-half2", "ha", "finished") + half.substr(0, half.size() / 2));
  fs::create_directories(p + "dir.jsonl");  // a directory with a transcript's name

  const std::string idx = tmp / "idx";
  IndexSummary s;
  REQUIRE_NOTHROW(s = index_tree(idx, src));
  CHECK_FALSE(s.busy);
  CHECK(s.files_unreadable == 0);
  // junk: 4 lines + 1 glued piece (+ the garbage lines); invalid UTF-8: skipped and counted, or repaired.
  CHECK(s.bad_lines >= 5 + 10);
  auto u2 = message_by_uuid(idx, "s-utf8", "u2");
  if (u2) CHECK(valid_utf8(u2->text));
  else CHECK(s.bad_lines >= 5 + 10 + 1);
  CHECK(message_by_uuid(idx, "s-utf8", "u1").has_value());
  CHECK(message_by_uuid(idx, "s-utf8", "u3").has_value());
  auto b1 = message_by_uuid(idx, "s-big", "b1");
  REQUIRE(b1.has_value());
  CHECK(b1->text.size() >= big.size());
  CHECK(message_by_uuid(idx, "s-big", "b2").has_value());
  CHECK(message_by_uuid(idx, "s-junk", "j1").has_value());
  CHECK(message_by_uuid(idx, "s-half2", "ha").has_value());
  CHECK_FALSE(message_by_uuid(idx, "s-half2", "hb").has_value());
  auto sessions = all_sessions(idx);
  CHECK(sessions.count("x") == 0);
  CHECK(sessions.count("empty") == 0);
  CHECK(sessions.at(kWindowsSid).message_count == 7);

  // Nothing changed: nothing re-read, no bad line counted twice.
  IndexSummary again = index_tree(idx, src);
  CHECK(again.bad_lines == 0);
  CHECK(again.new_messages == 0);
  CHECK(again.messages == s.messages);

  // The CLI run succeeds, reports the bad lines, and names the offending files with --verbose.
  const std::string idx2 = tmp / "cli-idx";
  RunResult r = run_osearch({"--index", idx2, "--source", "claude=" + src, "--format", "json", "--verbose", "index"});
  INFO("stdout: " << r.out.substr(0, 2000) << "\nstderr: " << r.err.substr(0, 2000));
  CHECK(r.exit_code == 0);
  CHECK(r.out.find("\"bad_lines\":" + std::to_string(s.bad_lines)) != std::string::npos);
  CHECK((r.out + r.err).find("x.jsonl") != std::string::npos);
  CHECK((r.out + r.err).find("s-junk.jsonl") != std::string::npos);

  if (::geteuid() != 0) {
    // An unreadable file is reported and skipped; the rest is indexed.
    const std::string locked = p + "s-locked.jsonl";
    write_file(locked, user_line("s-locked", "k1", "secret"));
    ::chmod(locked.c_str(), 0);
    IndexSummary u = index_tree(idx, src);
    CHECK(u.files_unreadable == 1);
    bool named = false;
    for (const auto& pr : u.problems) named = named || pr.find(locked) != std::string::npos;
    CHECK(named);
    ::chmod(locked.c_str(), 0600);
  }
}

TEST_CASE("index: test helper run_process captures output and exit status without a shell", "[index][util]") {
  TempDir tmp("util");
  // 3 MB through cat: stdin written while stdout is drained (no pipe deadlock), bytes unchanged.
  std::string big(3u << 20, 'x');
  for (size_t i = 0; i < big.size(); i += 997) big[i] = static_cast<char>('a' + i % 26);
  RunResult cat = run_process("/bin/cat", {}, big, RunOptions{});
  CHECK(cat.exit_code == 0);
  CHECK(cat.out == big);
  CHECK(cat.err.empty());

  // Arguments are passed verbatim (no shell: quotes, $ and ; are plain bytes).
  RunResult echo = run_process("/bin/echo", {"a b", "$HOME;", "'q'"}, "", RunOptions{});
  CHECK(echo.out == "a b $HOME; 'q'\n");

  // Exit codes, stderr, environment and working directory.
  RunOptions opt;
  opt.env["OSEARCH_TEST_VAR"] = "v1";
  opt.env["HOME"] = std::nullopt;
  opt.cwd = tmp.path();
  RunResult env = run_process("/usr/bin/env", {}, "", opt);
  CHECK(env.out.find("OSEARCH_TEST_VAR=v1\n") != std::string::npos);
  CHECK(env.out.find("\nHOME=") == std::string::npos);
  RunResult pwd = run_process("/bin/pwd", {}, "", opt);
  CHECK(pwd.out == fs::canonical(tmp.path()).string() + "\n");
  RunResult ls = run_process("/bin/ls", {tmp / "missing"}, "", RunOptions{});
  CHECK(ls.exit_code != 0);
  CHECK_FALSE(ls.err.empty());

  // A missing program: 127 and a message, never an exception.
  RunResult none = run_process(tmp / "no-such-binary", {}, "", RunOptions{});
  CHECK(none.exit_code == 127);
  CHECK(none.err.find("cannot exec") != std::string::npos);

  // A hung child is killed at the timeout.
  RunOptions quick;
  quick.timeout = std::chrono::milliseconds(200);
  RunResult slow = run_process("/bin/sleep", {"10"}, "", quick);
  CHECK(slow.timed_out);
  CHECK(slow.term_signal == SIGKILL);

  // The CLI itself.
  RunResult v = run_osearch({"--version"});
  CHECK(v.exit_code == 0);
  CHECK_FALSE(v.out.empty());
}

TEST_CASE("index: a session's models are listed in one order whichever of its files was read first", "[index]") {
  // Read in the order the files came, they were listed in that order: a refresh that met the
  // subagent's transcript first answered otherwise than a clean build.
  TempDir tmp("models");
  const std::string src = tmp / "src", idx = tmp / "idx", ref = tmp / "ref";
  const std::string sid = "0de15a11-0000-4000-8000-000000000001";
  const auto with_model = [](std::string line, const std::string& model) {
    line.replace(line.find("claude-test"), 11, model);
    return line;
  };
  write_file(src + "/-w-proj/" + sid + "/subagents/agent-a1b2c3d.jsonl",
             with_model(assistant_line(sid, "m-agent", "from the agent", "msg-agent", 1, 1), "zeta-model"));
  index_tree(idx, src);
  write_file(src + "/-w-proj/" + sid + ".jsonl",
             user_line(sid, "m-user", "a prompt") +
                 with_model(assistant_line(sid, "m-main", "from the main thread", "msg-main", 1, 1), "alpha-model"));
  index_tree(idx, src);
  index_tree(ref, src);
  for (const std::string& index : {idx, ref}) {
    const RunResult r = run_osearch({"--index", index, "--format", "json", "list", "--no-refresh"});
    INFO(index << ": " << r.out << r.err);
    REQUIRE(r.exit_code == 0);
    CHECK(r.out.find(R"("models":["alpha-model","zeta-model"])") != std::string::npos);
  }
}

TEST_CASE("index: a session without a main transcript is named and placed the same whichever agent file came first", "[index]") {
  // Its facts came from the agent file read last: a refresh that met the files in another order than
  // a clean build answered with another path, branch and cwd.
  TempDir tmp("agents-only");
  const std::string src = tmp / "src", idx = tmp / "idx", ref = tmp / "ref";
  const std::string sid = "0de15a11-0000-4000-8000-000000000002";
  const auto agent_line = [&](const std::string& uuid, const std::string& ts, const std::string& branch,
                              const std::string& cwd) {
    std::string line = user_line(sid, uuid, "an agent's prompt", ts, R"("agentId":"a1",)");
    line.replace(line.find(R"("isSidechain":false)"), 19, R"("isSidechain":true)");
    line.replace(line.find(R"("cwd":"/w/proj")"), 15, R"("cwd":")" + cwd + "\"");
    line.replace(line.find(R"("gitBranch":"main")"), 18, R"("gitBranch":")" + branch + "\"");
    return line;
  };
  // The earliest message is in two files at once (the first path names the session); the latest
  // names the branch and cwd.
  const std::string early_z = src + "/-w-proj/agent-zz.jsonl", early_a = src + "/-w-proj/agent-aa.jsonl";
  const std::string late = src + "/-w-proj/agent-mm.jsonl";
  write_file(late, agent_line("u-late", "2026-03-01T10:05:00.000Z", "late-branch", "/w/proj/late"));
  index_tree(idx, src);
  write_file(early_z, agent_line("u-z", "2026-03-01T10:00:00.000Z", "early-branch", "/w/proj/early"));
  index_tree(idx, src);
  write_file(early_a, agent_line("u-a", "2026-03-01T10:00:00.000Z", "early-branch", "/w/proj/early"));
  index_tree(idx, src);
  index_tree(ref, src);
  for (const std::string& index : {idx, ref}) {
    const SessionRec s = all_sessions(index).at(sid);
    INFO(index);
    CHECK(s.jsonl_path == early_a);
    CHECK(s.git_branch == "late-branch");
    CHECK(s.cwd == "/w/proj/late");
    CHECK(s.project_path == "/w/proj/early");
  }
  // Its main transcript, once there, names and places it.
  append_file(src + "/-w-proj/" + sid + ".jsonl", user_line(sid, "u-main", "the main prompt", "2026-03-01T09:00:00.000Z"));
  index_tree(idx, src);
  const SessionRec s = all_sessions(idx).at(sid);
  CHECK(s.jsonl_path == src + "/-w-proj/" + sid + ".jsonl");
  CHECK(s.project_path == "/w/proj");
  const std::string ref2 = tmp / "ref2";
  index_tree(ref2, src);
  CHECK_SAME_INDEX(idx, fingerprint(ref2));
}

TEST_CASE("index: a transcript moved to another directory, or put back where it was, is not source_deleted",
          "[index]") {
  // A session keeps the paths of its vanished files, so a moved or restored transcript's messages
  // are read as ones it already has: the session's transcript must become the file just read.
  // Orphan sessions (a subagent file standing in for the transcript) stayed marked after a move,
  // and every session after a transcript was put back where it was.
  TempDir tmp("moved");
  const std::string src = tmp / "src", stash = tmp / "stash", idx = tmp / "idx";
  copy_projects(src, "");
  fs::create_directories(stash);
  std::vector<std::string> projects;
  for (const auto& e : fs::directory_iterator(src)) projects.push_back(e.path().filename().string());
  auto move_all = [&](const std::string& from, const std::string& from_suffix, const std::string& to,
                      const std::string& to_suffix) {
    for (const auto& p : projects) fs::rename(from + "/" + p + from_suffix, to + "/" + p + to_suffix);
  };
  auto check = [&](bool deleted) {
    const auto sessions = all_sessions(idx);
    CHECK(sessions.size() >= 20);
    size_t orphans = 0;
    for (const auto& [sid, s] : sessions) {
      INFO(sid << " " << s.jsonl_path);
      CHECK(s.source_deleted == deleted);
      CHECK(fs::exists(s.jsonl_path) == !deleted);
      orphans += !s.has_main;
    }
    CHECK(orphans > 0);
  };
  index_tree(idx, src);
  check(false);
  move_all(src, "", stash, "");
  index_tree(idx, src);
  check(true);
  move_all(stash, "", src, "-moved");  // under new directory names
  index_tree(idx, src);
  check(false);
  move_all(src, "-moved", stash, "-moved");
  index_tree(idx, src);
  check(true);
  move_all(stash, "-moved", src, "-moved");  // back where they were
  IndexSummary back = index_tree(idx, src);
  CHECK(back.problems.empty());
  check(false);
}
