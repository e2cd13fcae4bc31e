// `osearch index --watch` (engine/index/source_watcher.h) and its heartbeat (engine/index/watch_beat.h):
// a query answers without a single stat of a source path while a live watcher vouches for the
// index, and walks as before when the watcher is dead (kill -9), stopped (SIGSTOP), vouches for
// other roots, or its beat file is garbage. Stat calls are counted with strace (installed by
// `make deps`), so the count covers every thread and library of the query process. No timing is
// asserted: the tests wait (up to generous deadlines) for what must happen eventually.
#include "tests/ops_fixture.h"

#include <sys/file.h>

#include "engine/index/source_watch.h"
#include "engine/index/watch_beat.h"
#include "engine/store/store.h"
#include "engine/store/errors.h"

namespace {

std::string find_strace() {
  for (const char* dir : {"/usr/bin", "/bin", "/usr/local/bin"}) {
    const std::string p = std::string(dir) + "/strace";
    if (::access(p.c_str(), X_OK) == 0) return p;
  }
  return {};
}

// How many stat-family calls the query `args` made on paths under `under` (strace -f: every thread).
size_t source_stats(const std::vector<std::string>& args, const std::string& under, const std::string& trace_file) {
  const std::string strace = find_strace();
  INFO("strace is needed to count stat calls: `make deps` installs it");
  REQUIRE_FALSE(strace.empty());
  std::vector<std::string> argv{"-f", "-qq", "-e", "trace=%stat,%lstat,%fstat,statx", "-o", trace_file,
                                osearch_binary()};
  argv.insert(argv.end(), args.begin(), args.end());
  RunOptions opt;
  // LeakSanitizer cannot run under ptrace: the sanitizer build's leak check stays off for this one.
  const char* asan = std::getenv("ASAN_OPTIONS");
  opt.env["ASAN_OPTIONS"] = std::string(asan ? asan : "") + (asan && *asan ? ":" : "") + "detect_leaks=0";
  RunResult r = run_process(strace, argv, "", opt);
  INFO("stderr: " << r.err);
  REQUIRE(r.exit_code == 0);
  size_t n = 0, calls = 0;
  std::istringstream in(read_file(trace_file));
  for (std::string line; std::getline(in, line);) {
    if (line.find("execve(") != std::string::npos) continue;
    ++calls;
    if (line.find(under) != std::string::npos) ++n;
  }
  REQUIRE(calls > 0);  // the trace saw the process at all
  return n;
}

// Each try runs a query or reads the index: every 50 ms is often enough.
template <class Pred>
bool eventually(Pred pred) {
  return poll_until(pred, std::chrono::seconds(30), std::chrono::milliseconds(50));
}

std::string watch_line(const std::string& sid, const std::string& uuid, const std::string& text) {
  return "{\"type\":\"user\",\"uuid\":\"" + uuid + "\",\"sessionId\":\"" + sid +
         "\",\"timestamp\":\"2026-01-19T05:00:00.000Z\",\"cwd\":\"/tmp\",\"message\":{\"role\":\"user\",\"content\":\"" +
         text + "\"}}\n";
}

uint64_t keyword_total(const std::string& idx, const std::string& src, const std::string& word) {
  RunResult r = run_osearch({"--no-refresh", "keyword", word, "--index", idx, "--source", "claude=" + src, "--format", "json"});
  if (r.exit_code != 0) return 0;
  simdjson::dom::parser parser;
  simdjson::dom::element j;
  uint64_t total = 0;
  if (parser.parse(simdjson::padded_string(r.out)).get(j) != simdjson::SUCCESS || j["total"].get(total) != simdjson::SUCCESS)
    return 0;
  return total;
}

// A query, while the watcher vouches, stats no source path. Under load the beat can pass its 1 s
// trust window while strace starts the query, which then rightly walks: a few tries, each after
// the watcher vouches again. A query that always walks still fails.
bool query_skips_walk(const std::vector<std::string>& query, const std::string& src, const std::string& trace,
                      const std::string& idx, const std::vector<SourceRoot>& roots) {
  for (int attempt = 0; attempt < 5; ++attempt)
    if (eventually([&] { return watcher_keeps_current(idx, roots); }) && source_stats(query, src, trace) == 0)
      return true;
  return false;
}

}  // namespace

TEST_CASE("watch beat: believed only from a live holder, for the same roots, recently", "[watch]") {
  TempDir tmp("beat");
  const std::string idx = tmp / "idx";
  const std::vector<SourceRoot> roots{{"claude", tmp / "src"}}, other{{"claude", tmp / "elsewhere"}};
  CHECK_FALSE(watcher_keeps_current(idx, roots));  // no beat file at all
  {
    WatchBeat beat(idx, roots);
    CHECK_FALSE(watcher_keeps_current(idx, roots));  // held, but nothing vouched for yet
    beat.beat(boottime_ns());
    CHECK(watcher_keeps_current(idx, roots));
    CHECK_FALSE(watcher_keeps_current(idx, other));
    CHECK(watcher_state(idx, roots).pid == ::getpid());
    beat.beat(boottime_ns() - 2 * kBeatTrustNs);  // a watcher that stopped beating
    CHECK_FALSE(watcher_keeps_current(idx, roots));
    beat.beat(boottime_ns() + kBeatTrustNs);  // from the future: another clock
    CHECK_FALSE(watcher_keeps_current(idx, roots));
    beat.beat(boottime_ns());
    beat.withdraw();
    CHECK_FALSE(watcher_keeps_current(idx, roots));
    // One watcher per index.
    try {
      WatchBeat second(idx, roots);
      FAIL("a second watcher was admitted");
    } catch (const IndexError& e) {
      CHECK(std::string(e.kind()) == "watcher-running");
      CHECK(std::string(e.what()).find(std::to_string(::getpid())) != std::string::npos);
    }
  }
  CHECK_FALSE(watcher_keeps_current(idx, roots));  // the watcher is gone
}

TEST_CASE("watch beat: a dead watcher's fresh beat and a garbled beat are ignored", "[watch]") {
  TempDir tmp("beat-dead");
  const std::string idx = tmp / "idx";
  const std::vector<SourceRoot> roots{{"claude", tmp / "src"}};
  int ready[2];
  REQUIRE(::pipe(ready) == 0);
  pid_t child = fork_child([&] {
    WatchBeat beat(idx, roots);
    beat.beat(boottime_ns() + 3600LL * 1000000000LL);  // stays "fresh" for any reader that believed it
    beat.beat(boottime_ns());
    (void)!::write(ready[1], "x", 1);
    ::pause();  // killed with -9: no destructor runs
    return 0;
  });
  char c = 0;
  REQUIRE(::read(ready[0], &c, 1) == 1);
  CHECK(watcher_keeps_current(idx, roots));
  REQUIRE(::kill(child, SIGKILL) == 0);
  wait_child(child);
  CHECK(fs::file_size(idx + "/watch.beat") > 0);  // its last beat is still in the file
  CHECK_FALSE(watcher_keeps_current(idx, roots));
  ::close(ready[0]);
  ::close(ready[1]);

  // A holder whose file is not a beat (torn, truncated, another version): not believed.
  const std::string good = read_file(idx + "/watch.beat");
  for (const std::string& bytes : {std::string(), std::string("osb1"), good.substr(0, good.size() - 1),
                                   std::string(good).replace(good.size() - 9, 1, "\x7f"), std::string(200, 'x')}) {
    write_file(idx + "/watch.beat", bytes);
    const int fd = ::open((idx + "/watch.beat").c_str(), O_RDONLY);
    REQUIRE(fd >= 0);
    REQUIRE(::flock(fd, LOCK_EX) == 0);
    CHECK_FALSE(watcher_keeps_current(idx, roots));
    ::close(fd);
  }
}

TEST_CASE("index --watch: queries skip their stat walk while it lives, and walk when it is dead or stopped",
          "[watch]") {
  TempDir tmp("watch-e2e");
  const std::string src = tmp / "src", idx = tmp / "idx", trace = tmp / "trace";
  make_tree(src, {kB3, kWindows});
  const std::vector<SourceRoot> roots{{"claude", src}};
  const std::vector<std::string> query{"list", "--index", idx, "--source", "claude=" + src, "--format", "json"};

  Spawned watcher({"index", "--watch", "--index", idx, "--source", "claude=" + src, "--format", "json"});
  REQUIRE(watcher.read_stderr_until("watching for changes"));
  REQUIRE(eventually([&] { return watcher_keeps_current(idx, roots); }));

  SECTION("no stat of any source path while the watcher vouches; appended lines and new files arrive without one") {
    CHECK(query_skips_walk(query, src, trace, idx, roots));
    CHECK(eventually([&] {  // (the same trust window as above)
      RunResult status = run_osearch({"status", "--index", idx, "--source", "claude=" + src, "--format", "json"});
      return status.out.find("\"watcher\":{\"pid\":" + std::to_string(watcher.pid()) + ",\"current\":true}") !=
             std::string::npos;
    }));
    append_file(src + "/" + kB3, watch_line(kB3Sid, "0a0a0a0a-0000-4000-8000-00000000beef", "watchword zebraquokka"));
    CHECK(eventually([&] { return keyword_total(idx, src, "zebraquokka") == 1; }));
    // A new project directory with a new transcript.
    const std::string fresh_sid = "5e55a0a0-1111-4222-8333-444455556666";
    write_file(src + "/-Users-new-project/" + fresh_sid + ".jsonl",
               watch_line(fresh_sid, "0a0a0a0a-0000-4000-8000-0000000fe5e1", "brandnew okapiword"));
    CHECK(eventually([&] { return keyword_total(idx, src, "okapiword") == 1; }));
    // Once the new directory has settled, the watcher vouches again.
    REQUIRE(eventually([&] { return watcher_keeps_current(idx, roots); }));
    CHECK(query_skips_walk(query, src, trace, idx, roots));
  }

  SECTION("a stopped watcher's beat goes stale: queries walk; it vouches again once continued") {
    REQUIRE(::kill(watcher.pid(), SIGSTOP) == 0);
    REQUIRE(eventually([&] { return !watcher_keeps_current(idx, roots); }));
    CHECK(source_stats(query, src, trace) > 0);
    REQUIRE(::kill(watcher.pid(), SIGCONT) == 0);
    REQUIRE(eventually([&] { return watcher_keeps_current(idx, roots); }));
    CHECK(query_skips_walk(query, src, trace, idx, roots));
  }

  SECTION("kill -9: the beat is ignored at once and queries walk, still finding what was appended") {
    REQUIRE(::kill(watcher.pid(), SIGKILL) == 0);
    watcher.finish();
    CHECK_FALSE(watcher_keeps_current(idx, roots));
    CHECK(source_stats(query, src, trace) > 0);
    RunResult status = run_osearch({"status", "--index", idx, "--source", "claude=" + src, "--format", "json"});
    CHECK(status.out.find("\"watcher\":null") != std::string::npos);
    append_file(src + "/" + kWindows, watch_line(kWindowsSid, "0a0a0a0a-0000-4000-8000-00000000dead", "after death capybaraword"));
    RunResult r = run_osearch({"keyword", "capybaraword", "--index", idx, "--source", "claude=" + src, "--format", "json"});
    CHECK(r.out.find("\"total\":1") != std::string::npos);
  }

  SECTION("another root set is not vouched for; a second watcher is refused") {
    const std::string other = tmp / "other";
    fs::create_directories(other);
    CHECK_FALSE(watcher_keeps_current(idx, {{"claude", other}}));
    RunResult second = run_osearch({"index", "--watch", "--index", idx, "--source", "claude=" + src});
    CHECK(second.exit_code == 1);
    CHECK(error_kind(second.err) == "watcher-running");
  }
}

TEST_CASE("index --watch: a directory too recent for a record does not stop the watcher vouching", "[watch]") {
  // A directory whose mtime is within the last two seconds keeps a run from recording what it saw
  // (engine/index/source_watch.h), so runs take the full plan; the watcher watches what that run
  // listed and goes on vouching. An mtime in the future keeps the directory "recent" for as long as
  // the test needs, without any timing.
  TempDir tmp("watch-recent");
  const std::string src = tmp / "src", idx = tmp / "idx", trace = tmp / "trace";
  make_tree(src, {kB3, kWindows});
  const std::string project = src + "/" + kB3.substr(0, kB3.find('/'));
  struct timespec times[2];
  ::clock_gettime(CLOCK_REALTIME, &times[0]);
  times[0].tv_sec += 3600;
  times[1] = times[0];
  REQUIRE(::utimensat(AT_FDCWD, project.c_str(), times, 0) == 0);
  const std::vector<SourceRoot> roots{{"claude", src}};
  const std::vector<std::string> query{"list", "--index", idx, "--source", "claude=" + src, "--format", "json"};

  Spawned watcher({"index", "--watch", "--index", idx, "--source", "claude=" + src, "--format", "json"});
  REQUIRE(watcher.read_stderr_until("watching for changes"));
  CHECK(query_skips_walk(query, src, trace, idx, roots));
  {
    Store store(idx, Store::Mode::Read);
    CHECK_FALSE(read_source_watch(store));  // (what this test is about: no record, yet vouched for)
  }
  // A line appended in the recent directory arrives, and one in a new transcript beside it.
  append_file(src + "/" + kB3, watch_line(kB3Sid, "0a0a0a0a-0000-4000-8000-00000000f00d", "recentdir wombatword"));
  CHECK(eventually([&] { return keyword_total(idx, src, "wombatword") == 1; }));
  const std::string fresh_sid = "6e55a0a0-1111-4222-8333-444455556666";
  write_file(project + "/" + fresh_sid + ".jsonl", watch_line(fresh_sid, "0a0a0a0a-0000-4000-8000-0000000fe5e2", "numbatword"));
  REQUIRE(::utimensat(AT_FDCWD, project.c_str(), times, 0) == 0);  // (still recent)
  CHECK(eventually([&] { return keyword_total(idx, src, "numbatword") == 1; }));
  CHECK(query_skips_walk(query, src, trace, idx, roots));
}
