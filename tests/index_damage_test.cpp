// Fault injection: each part of a built index truncated, deleted, zeroed, overwritten or replaced by
// a symbolic link. Every query command must then exit 1 with `index-damaged` (never a signal, never a
// smaller answer), `check` must name the part, and `index --full` must repair what it rebuilds.
#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <functional>
#include <random>
#include <set>

#include <simdjson.h>

#include <catch2/catch.hpp>

#include "test_util.h"
#include "tests/sweep.h"

using namespace osearch_test;

namespace {

struct Answers {
  std::string keyword, content, list;  // "total|sorted session ids"
  bool operator==(const Answers&) const = default;
};

std::string summarize(const std::string& json) {
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  if (parser.parse(simdjson::padded_string(json)).get(doc) != simdjson::SUCCESS) return "unparsable: " + json;
  std::set<std::string> ids;
  for (simdjson::dom::element h : doc["results"].get_array()) ids.emplace(std::string_view(h["session_id"].get_string()));
  std::string out = std::to_string(int64_t(doc["total"].get_int64())) + "|";
  for (const auto& id : ids) out += id + ",";
  return out;
}

struct Damage {
  const char* name;
  std::function<void(const std::string& idx, const std::string& outside)> apply;
  const char* part;        // what `check` and the error must name
  bool full_repairs;       // `index --full` starts this part over today
};

std::string env_dir(const std::string& idx) {
  std::string name = fs::exists(idx + "/records.current") ? read_file(idx + "/records.current") : "records";
  while (!name.empty() && name.back() == '\n') name.pop_back();
  return idx + "/" + name;
}

std::string only_entry(const std::string& idx, const std::string& prefix) {
  std::string found;
  for (const auto& e : fs::directory_iterator(idx)) {
    const std::string n = e.path().filename().string();
    if (n.rfind(prefix, 0) == 0) found = n;
  }
  return found;
}

void overwrite(const std::string& path, uint64_t at, std::string_view bytes) {
  int fd = ::open(path.c_str(), O_WRONLY);
  REQUIRE(fd >= 0);
  REQUIRE(::pwrite(fd, bytes.data(), bytes.size(), static_cast<off_t>(at)) == static_cast<ssize_t>(bytes.size()));
  ::close(fd);
}

std::string random_bytes(size_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::string s(n, '\0');
  for (auto& c : s) c = static_cast<char>(rng());
  return s;
}

// A clean index of tests/data/claude with one listed shard besides the main database: the corpus
// minus one project indexed first, that project added by an incremental run.
struct CleanIndex {
  TempDir tmp{"damage"};
  std::string src = tmp / "src", idx = tmp / "clean";
  Answers answers;
  std::string shard;

  CleanIndex() {
    fs::create_directories(src);
    const std::string late = "-home-marco-projects-spotter";
    for (const auto& e : fs::directory_iterator(claude_data_dir()))
      if (e.is_directory() && e.path().filename() != late) copy_tree(e.path().string(), src + "/" + e.path().filename().string());
    REQUIRE(run({"index"}, idx).exit_code == 0);
    copy_tree(claude_data_dir() + "/" + late, src + "/" + late);
    REQUIRE(run({"index"}, idx).exit_code == 0);
    shard = only_entry(idx, "shard-");
    if (shard.empty()) shard = only_entry(idx, "part-");
    answers = query(idx);
  }
  RunResult run(std::vector<std::string> args, const std::string& index, bool refresh = true,
                const RunOptions& options = {}) const {
    args.insert(args.end(), {"--index", index, "--source", "claude=" + src, "--format", "json"});
    if (!refresh) args.push_back("--no-refresh");
    return run_osearch(args, "", options);
  }
  Answers query(const std::string& index) const {
    Answers a;
    RunResult k = run({"keyword", "error", "--limit", "1000"}, index), c = run({"content", "func", "--limit", "1000"}, index),
              l = run({"list", "--limit", "1000"}, index);
    INFO(k.err << c.err << l.err);
    REQUIRE((k.ok() && c.ok() && l.ok()));
    a.keyword = summarize(k.out);
    a.content = summarize(c.out);
    a.list = summarize(l.out);
    return a;
  }
};

CleanIndex& clean() {
  static CleanIndex c;
  return c;
}

// The damaged parts `check` names in its JSON.
std::set<std::string> damaged_parts(const std::string& json) {
  std::set<std::string> out;
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  if (parser.parse(simdjson::padded_string(json)).get(doc) != simdjson::SUCCESS) return {"unparsable: " + json};
  for (simdjson::dom::element p : doc["parts"].get_array())
    if (!bool(p["ok"].get_bool())) out.emplace(std::string_view(p["part"].get_string()));
  return out;
}

// Does a damaged part start with `prefix` ("shard-" names shard-1-0)?
bool names(const std::set<std::string>& parts, const std::string& prefix) {
  for (const auto& p : parts)
    if (p.rfind(prefix, 0) == 0) return true;
  return false;
}

void expect_damaged(const CleanIndex& c, const std::string& idx, const std::string& part) {
  const std::vector<std::vector<std::string>> commands = {
      {"keyword", "error"}, {"content", "func"}, {"list"}, {"status"}};
  for (bool refresh : {true, false})
    for (const auto& cmd : commands) {
      RunResult r = c.run(cmd, idx, refresh);
      INFO(cmd[0] << (refresh ? "" : " --no-refresh") << "\nstdout: " << r.out << "\nstderr: " << r.err);
      CHECK(r.term_signal == 0);
      CHECK(r.exit_code == 1);
      CHECK(r.err.find("\"kind\":\"index-damaged\"") != std::string::npos);
      CHECK(r.err.find(part) != std::string::npos);
      if (cmd[0] == "status") CHECK(r.out.find("\"damaged\":[{") != std::string::npos);
    }
  RunResult chk = c.run({"check"}, idx, false);
  INFO("check: " << chk.out << chk.err);
  CHECK(chk.term_signal == 0);
  CHECK(chk.exit_code == 1);
  CHECK(names(damaged_parts(chk.out), part));
}

void expect_repaired(const CleanIndex& c, const std::string& idx) {
  RunResult full = c.run({"index", "--full"}, idx);
  INFO("index --full: " << full.err);
  REQUIRE(full.exit_code == 0);
  RunResult chk = c.run({"check"}, idx, false);
  INFO("check: " << chk.out << chk.err);
  CHECK(chk.exit_code == 0);
  CHECK(c.query(idx) == c.answers);
}

const std::vector<Damage>& damages() {
  static const std::vector<Damage> all = {
      {"text.log truncated", [](const std::string& i, const std::string&) { fs::resize_file(i + "/text.log", file_size(i + "/text.log") / 2); },
       "text.log", true},
      {"text.log deleted", [](const std::string& i, const std::string&) { fs::remove(i + "/text.log"); }, "text.log", true},
      {"text.log zero-filled tail",
       [](const std::string& i, const std::string&) {
         const uint64_t n = file_size(i + "/text.log");
         overwrite(i + "/text.log", n - 4096, std::string(4096, '\0'));
       },
       "text.log", true},
      {"text.idx truncated", [](const std::string& i, const std::string&) { fs::resize_file(i + "/text.idx", file_size(i + "/text.idx") - 8); },
       "text.idx", true},
      {"text.idx deleted", [](const std::string& i, const std::string&) { fs::remove(i + "/text.idx"); }, "text.idx", true},
      {"xapian main deleted", [](const std::string& i, const std::string&) { fs::remove_all(i + "/" + only_entry(i, "xapian-")); },
       "xapian-", true},
      {"listed shard deleted", [](const std::string& i, const std::string&) { fs::remove_all(i + "/" + clean().shard); }, "shard-",
       true},
      {"titles deleted", [](const std::string& i, const std::string&) { fs::remove_all(i + "/titles"); }, "titles", true},
      {"data.mdb truncated",
       [](const std::string& i, const std::string&) {
         const std::string f = env_dir(i) + "/data.mdb";
         fs::resize_file(f, file_size(f) / 2);
       },
       "records", false},
      {"data.mdb garbage meta",
       [](const std::string& i, const std::string&) {
         overwrite(env_dir(i) + "/data.mdb", 16, random_bytes(128, 1));
         overwrite(env_dir(i) + "/data.mdb", 4096 + 16, random_bytes(128, 2));
       },
       "records", false},
      {"records.current garbage", [](const std::string& i, const std::string&) { write_file(i + "/records.current", "garbage\n"); },
       "records.current", false},
  };
  return all;
}

}  // namespace

TEST_CASE("damage: every damaged part is named by every command and by check, and --full repairs it", "[hardening][damage]") {
  CleanIndex& c = clean();
  REQUIRE_FALSE(c.shard.empty());
  for (const auto& d : damages()) {
    DYNAMIC_SECTION(d.name) {
      TempDir t{"damaged"};
      const std::string idx = t / "index";
      copy_tree(c.idx, idx);
      d.apply(idx, t / "outside");
      expect_damaged(c, idx, d.part);
      if (d.full_repairs) expect_repaired(c, idx);
    }
  }
}

// LMDB (not instrumented) trusts its pages: garbage can make it copy from past the end of the map,
// which the binary's fault guard turns into index-damaged. Under ASan, its memcpy interceptor and
// signal handlers would report that first; the children of this test run as the released binary
// does, with those off (no effect on a build without ASan).
static RunOptions as_released() {
  RunOptions o;
  const char* asan = std::getenv("ASAN_OPTIONS");
  o.env["ASAN_OPTIONS"] = std::string(asan ? asan : "") + ":replace_intrin=0:handle_segv=0:handle_sigbus=0";
  return o;
}

TEST_CASE("damage: random bytes in the middle of data.mdb are an error or a sound answer, never a signal", "[hardening][damage]") {
  CleanIndex& c = clean();
  TempDir t{"damaged"};
  const std::string idx = t / "index";
  copy_tree(c.idx, idx);
  const std::string data = env_dir(idx) + "/data.mdb";
  const uint64_t pages = file_size(data) / 4096;
  REQUIRE(pages > 8);
  // Pages spread over the file: B-tree branch and leaf pages of every database, the free-page
  // list, the main database's root. A page can hold values that still decode, so a command may
  // answer; it must never die by a signal, and check must find most of them.
  size_t checked = 0, found = 0;
  for (uint64_t page = 2; page < pages; page += std::max<uint64_t>(1, pages / 30)) {
    overwrite(data, page * 4096, random_bytes(4096, static_cast<unsigned>(page)));
    // Every command both ways in the plain build; under the sanitizers (five times the cost) the
    // query both ways and status, which still reach the reader and the writer's refresh.
    using Call = std::pair<std::vector<std::string>, bool>;
    const Call keyword{{"keyword", "error"}, false}, keyword_fresh{{"keyword", "error"}, true};
    const Call list{{"list"}, false}, list_fresh{{"list"}, true}, status{{"status"}, false}, status_fresh{{"status"}, true};
    for (const auto& [cmd, refresh] :
         sweep({keyword, list, status, keyword_fresh, list_fresh, status_fresh}, {keyword, keyword_fresh, status})) {
      RunResult r = c.run(cmd, idx, refresh, as_released());
      INFO("page " << page << ": " << cmd[0] << (refresh ? "" : " --no-refresh") << "\nstdout: " << r.out.substr(0, 500)
                   << "\nstderr: " << r.err);
      CHECK(r.term_signal == 0);
      CHECK((r.exit_code == 0 || r.exit_code == 1));
      if (r.exit_code == 1) CHECK(r.err.find("\"kind\":\"index-damaged\"") != std::string::npos);
    }
    RunResult chk = c.run({"check"}, idx, false, as_released());
    INFO("page " << page << ": check\n" << chk.out);
    CHECK(chk.term_signal == 0);
    CHECK((chk.exit_code == 0 || chk.exit_code == 1));
    ++checked;
    if (chk.exit_code == 1) {
      ++found;
      CHECK(names(damaged_parts(chk.out), "records"));
    }
    fs::remove_all(idx);
    copy_tree(c.idx, idx);
  }
  INFO(found << " of " << checked << " damaged pages found by check");
  // Random bytes on a free page or in a value that still decodes harm no answer and are not
  // findable: most, not all (74-80 % here, depending on where the build put its pages).
  CHECK(found * 3 >= checked * 2);
}

TEST_CASE("damage: a deleted lock.mdb is re-created and everything works", "[hardening][damage]") {
  CleanIndex& c = clean();
  TempDir t{"damaged"};
  const std::string idx = t / "index";
  copy_tree(c.idx, idx);
  fs::remove(env_dir(idx) + "/lock.mdb");
  RunResult chk = c.run({"check"}, idx, false);
  INFO(chk.out << chk.err);
  CHECK(chk.exit_code == 0);
  CHECK(c.query(idx) == c.answers);
  RunResult st = c.run({"status"}, idx);
  CHECK(st.exit_code == 0);
  CHECK(st.out.find("\"damaged\":[]") != std::string::npos);
}

TEST_CASE("damage: index parts that are symbolic links are refused, their targets untouched", "[hardening][damage]") {
  CleanIndex& c = clean();
  // Each part moved out of the index and linked back; the target must never change, whatever runs.
  const std::vector<std::pair<std::string, std::string>> parts = {
      {"text.log", "text.log"}, {"text.idx", "text.idx"}, {"titles", "titles"}, {"records.current", "records.current"},
      {"writer.lock", "writer.lock"}, {"records", "records"}, {"records/data.mdb", "records"}, {"records/lock.mdb", "records"},
      {"SHARD", "shard-"}};
  for (const auto& [rel_in, part] : parts) {
    DYNAMIC_SECTION(rel_in) {
      TempDir t{"symlinked"};
      const std::string idx = t / "index", outside = t / "outside";
      copy_tree(c.idx, idx);
      REQUIRE_FALSE(fs::exists(idx + "/records.current"));  // the clean index never repacked: env dir is records/
      if (rel_in == "records.current") write_file(idx + "/records.current", "records\n");
      const std::string rel = rel_in == "SHARD" ? c.shard : rel_in;
      fs::rename(idx + "/" + rel, outside);
      fs::create_symlink(outside, idx + "/" + rel);
      auto snapshot = [&] {
        std::string all;
        if (fs::is_directory(outside)) {
          for (const auto& f : list_files(outside)) all += f + ":" + read_file(outside + "/" + f) + "\n";
        } else {
          all = read_file(outside);
        }
        return all;
      };
      const std::string before = snapshot();
      const std::vector<std::vector<std::string>> commands = {{"keyword", "error"}, {"content", "func"}, {"list"}, {"status"}};
      for (const auto& cmd : commands) {
        RunResult r = c.run(cmd, idx);
        INFO(cmd[0] << "\nstdout: " << r.out << "\nstderr: " << r.err);
        CHECK(r.term_signal == 0);
        CHECK(r.exit_code == 1);
        CHECK(r.err.find("\"kind\":\"index-damaged\"") != std::string::npos);
        CHECK(r.err.find("symbolic link") != std::string::npos);
      }
      RunResult chk = c.run({"check"}, idx, false);
      INFO("check: " << chk.out << chk.err);
      CHECK(chk.exit_code == 1);
      CHECK(names(damaged_parts(chk.out), part));
      RunResult inc = c.run({"index"}, idx);
      INFO("index: " << inc.err);
      CHECK(inc.exit_code == 1);
      CHECK(inc.err.find("symbolic link") != std::string::npos);
      // A full rebuild refuses the link too, or (a derived database it starts over) removes the
      // link itself; it never writes through it.
      RunResult full = c.run({"index", "--full"}, idx);
      INFO("index --full: " << full.err);
      if (full.exit_code == 0) {
        CHECK(c.run({"check"}, idx, false).exit_code == 0);
      } else {
        CHECK(full.exit_code == 1);
        CHECK(full.err.find("symbolic link") != std::string::npos);
      }
      CHECK(snapshot() == before);
    }
  }
}

TEST_CASE("damage: the index directory itself may be a symbolic link", "[hardening][damage]") {
  CleanIndex& c = clean();
  TempDir t{"linkdir"};
  copy_tree(c.idx, t / "real");
  fs::create_directory_symlink(t / "real", t / "index");
  CHECK(c.query(t / "index") == c.answers);
  RunResult chk = c.run({"check"}, t / "index", false);
  INFO(chk.out << chk.err);
  CHECK(chk.exit_code == 0);
}

TEST_CASE("damage: check finds zeroed bytes in the middle of text.log, which the open's tail check cannot", "[hardening][damage]") {
  CleanIndex& c = clean();
  TempDir t{"damaged"};
  const std::string idx = t / "index";
  copy_tree(c.idx, idx);
  overwrite(idx + "/text.log", file_size(idx + "/text.log") / 2, std::string(4096, '\0'));
  RunResult chk = c.run({"check"}, idx, false);
  INFO(chk.out << chk.err);
  CHECK(chk.exit_code == 1);
  CHECK(damaged_parts(chk.out) == std::set<std::string>{"text.log"});
  expect_repaired(c, idx);
}

TEST_CASE("damage: check finds a text changed inside one entry, every header intact", "[hardening][damage]") {
  // Bytes changed (not zeroed) inside a message's text: every entry still ends where the next
  // begins, so only the record's checksum of the text can tell (MessageRec::text_crc).
  CleanIndex& c = clean();
  TempDir t{"changed-text"};
  const std::string idx = t / "index";
  copy_tree(c.idx, idx);
  const size_t pos = read_file(idx + "/text.log").find("the ", file_size(idx + "/text.log") / 3);  // inside some text
  REQUIRE(pos != std::string::npos);
  overwrite(idx + "/text.log", pos, "Q");
  RunResult chk = c.run({"check"}, idx, false);
  INFO(chk.out << chk.err);
  CHECK(chk.exit_code == 1);
  CHECK(damaged_parts(chk.out) == std::set<std::string>{"text.log"});
  CHECK(chk.out.find("checksum") != std::string::npos);
  // status (the checks every open makes, no deep pass) does not read every text.
  RunResult st = c.run({"status"}, idx, false);
  CHECK(st.exit_code == 0);
  expect_repaired(c, idx);
}

TEST_CASE("damage: the writer leaves a truncated text.log as it is instead of extending it with zeros", "[hardening][damage]") {
  CleanIndex& c = clean();
  TempDir t{"damaged"};
  const std::string idx = t / "index";
  copy_tree(c.idx, idx);
  const uint64_t cut = file_size(idx + "/text.log") / 2;
  fs::resize_file(idx + "/text.log", cut);
  RunResult r = c.run({"index"}, idx);
  INFO(r.err);
  CHECK(r.exit_code == 1);
  CHECK(r.err.find("\"kind\":\"index-damaged\"") != std::string::npos);
  CHECK(file_size(idx + "/text.log") == cut);
}

TEST_CASE("damage: check is read-only: it neither waits for the writer lock nor reads the sources", "[hardening][damage]") {
  CleanIndex& c = clean();
  TempDir t{"checkro"};
  const std::string idx = t / "index";
  copy_tree(c.idx, idx);
  const int fd = ::open((idx + "/writer.lock").c_str(), O_RDWR | O_CREAT, 0600);
  REQUIRE(fd >= 0);
  REQUIRE(::flock(fd, LOCK_EX) == 0);  // an indexer "running"
  RunOptions opt;
  opt.timeout = std::chrono::milliseconds(60000);
  RunResult chk = run_osearch({"check", "--index", idx, "--format", "json"}, "", opt);
  ::close(fd);
  INFO(chk.out << chk.err);
  CHECK_FALSE(chk.timed_out);
  CHECK(chk.exit_code == 0);
  CHECK(chk.out.find("\"ok\":true") != std::string::npos);
  // The sources were never read: the index is byte for byte what it was.
  CHECK(read_file(env_dir(idx) + "/data.mdb") == read_file(env_dir(c.idx) + "/data.mdb"));
}
