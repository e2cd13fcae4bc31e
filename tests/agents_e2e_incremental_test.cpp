// Mixed-agent end to end, incremental (issue 8): appended bytes only, omp's title slot rewritten in
// place, atomically replaced files, half-written lines, zstd-compressed Codex rollouts and the
// session_index.jsonl side file, through the `osearch` binary.
#include "tests/agents_e2e_fixture.h"

#include <sys/stat.h>

#include <optional>
#include <zstd.h>

using namespace agents_e2e;

namespace {

// Moves the file's mtime `seconds` ahead (a rewrite in place within one clock tick still shows).
void bump_mtime(const std::string& path, int seconds) {
  struct stat st {};
  REQUIRE(::stat(path.c_str(), &st) == 0);
  struct timespec times[2] = {st.st_atim, st.st_mtim};
  times[1].tv_sec += seconds;
  REQUIRE(::utimensat(AT_FDCWD, path.c_str(), times, 0) == 0);
}

// Writes `bytes` at offset 0 without truncating: the file keeps its size and inode.
void overwrite_head(const std::string& path, std::string_view bytes) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
  REQUIRE(fd >= 0);
  REQUIRE(::pwrite(fd, bytes.data(), bytes.size(), 0) == static_cast<ssize_t>(bytes.size()));
  ::close(fd);
}

// omp's 256-byte title slot line (newline included) naming `title`.
std::string title_slot(const std::string& title) {
  std::string line = R"({"type":"title","v":1,"title":")" + title +
                     R"(","source":"user","updatedAt":"2026-11-01T11:00:00.000Z","pad":")";
  const size_t tail = 3;  // "}\n after the pad
  REQUIRE(line.size() + tail <= 256);
  line.append(256 - tail - line.size(), ' ');
  line += "\"}\n";
  REQUIRE(line.size() == 256);
  return line;
}

std::string zstd_compress(const std::string& data) {
  std::string out(ZSTD_compressBound(data.size()), '\0');
  size_t n = ZSTD_compress(out.data(), out.size(), data.data(), data.size(), 3);
  REQUIRE_FALSE(ZSTD_isError(n));
  out.resize(n);
  return out;
}

std::optional<Json> find_session(const Json& list, const std::string& id, const std::string& agent) {
  for (const auto& h : list["results"].a)
    if (h["session_id"].s == id && h["agent"].s == agent) return h;
  return std::nullopt;
}

std::string pi_line(const std::string& id, const std::string& parent, const std::string& text) {
  return R"({"type":"message","id":")" + id + R"(","parentId":")" + parent +
         R"(","timestamp":"2026-11-02T11:00:00.000Z","message":{"role":"user","content":[{"type":"text","text":")" +
         text + R"("}],"timestamp":1}})" + "\n";
}
std::string codex_user_line(const std::string& text) {
  return R"({"timestamp":"2026-11-03T11:00:00.000Z","type":"event_msg","payload":{"type":"user_message","message":")" +
         text + R"("}})" + "\n";
}

}  // namespace

TEST_CASE("agents: appended lines of each agent are found and only they are read", "[agents]") {
  Mixed fx;
  struct Append {
    std::string path, bytes, word, id, agent;
  };
  const std::vector<Append> appends = {
      {fx.omp_path(), pi_line("e0000100", "e0000019", "late ompappendword"), "ompappendword", kOmpId, "omp"},
      {fx.pi_path(), pi_line("e0000100", "e0000019", "late piappendword"), "piappendword", kPiId, "pi"},
      {fx.codex_path(), codex_user_line("late codexappendword"), "codexappendword", kCodexId, "codex"},
      {fx.claude + "/" + kClaudeRel,
       R"({"parentUuid":null,"isSidechain":false,"type":"user","cwd":"/path/to/Demo","sessionId":")" + kClaudeId +
           R"(","message":{"role":"user","content":"late claudeappendword"},"uuid":"0e2c1b0a-0000-4000-8000-000000000001","timestamp":"2025-09-03T00:50:00.000Z"})" +
           "\n",
       "claudeappendword", kClaudeId, "claude"},
  };
  for (const auto& a : appends) {
    INFO("append to " << a.agent);
    const Json before = fx.json({"list", "--agent", a.agent});
    const auto s0 = find_session(before, a.id, a.agent);
    REQUIRE(s0 .has_value());
    const int64_t count0 = (*s0)["message_count"].i;
    append_file(a.path, a.bytes);
    const Json summary = fx.index();
    // A changed rollout makes the engine read session_index.jsonl again (its lines may name
    // sessions only now seen); every other file is read from where the last run stopped.
    const bool codex = a.agent == "codex";
    const int64_t side = codex ? static_cast<int64_t>(file_size(fx.codex + "/session_index.jsonl")) : 0;
    CHECK(summary["bytes_read"].i == static_cast<int64_t>(a.bytes.size()) + side);
    CHECK(summary["files_changed"].i == (codex ? 2 : 1));
    for (const char* action : {"keyword", "content"}) {
      const Json j = fx.json({action, a.word});
      REQUIRE(j["total"].i == 1);
      CHECK(j["results"][0]["session_id"].s == a.id);
      CHECK(j["results"][0]["agent"].s == a.agent);
    }
    const auto s1 = find_session(fx.json({"list", "--agent", a.agent}), a.id, a.agent);
    REQUIRE(s1 .has_value());
    CHECK((*s1)["message_count"].i == count0 + 1);
  }
  // Nothing changed: nothing read.
  CHECK(fx.index()["bytes_read"].i == 0);
  const Json st = fx.json({"status"});
  for (const auto& [agent, n] : kSessionCounts) CHECK(st["agents"][agent].i == n);
}

TEST_CASE("agents: omp's title slot rewritten in place shows the new title; the old one stays findable", "[agents]") {
  Mixed fx;
  const std::string path = fx.omp_path();
  const auto size0 = file_size(path);
  overwrite_head(path, title_slot("Yakrewrite title"));
  bump_mtime(path, 5);
  REQUIRE(file_size(path) == size0);
  auto s = find_session(fx.json({"list", "--agent", "omp"}), kOmpId, "omp");
  REQUIRE(s .has_value());
  CHECK((*s)["title"].s == "Yakrewrite title");
  const Json kw = fx.json({"keyword", "yakrewrite"});
  CHECK(fx.json({"content", "Yakrewrite"})["total"].i == 1);
  REQUIRE(kw["total"].i == 1);
  CHECK(kw["results"][0]["session_id"].s == kOmpId);
  CHECK(kw["results"][0]["title"].s == "Yakrewrite title");
  // A word once in a title is still found (SessionRec::earlier_titles), the session shown with its new title.
  const Json old_kw = fx.json({"keyword", "zebraslot"});
  REQUIRE(old_kw["total"].i == 1);
  CHECK(old_kw["results"][0]["title"].s == "Yakrewrite title");
  CHECK(fx.json({"content", "Zebraslot"})["total"].i == 1);
  // And again, with the same length as the first title.
  overwrite_head(path, title_slot("Zebraslot again"));
  bump_mtime(path, 10);
  s = find_session(fx.json({"list", "--agent", "omp"}), kOmpId, "omp");
  REQUIRE(s .has_value());
  CHECK((*s)["title"].s == "Zebraslot again");
  CHECK(fx.json({"keyword", "yakrewrite"})["results"][0]["title"].s == "Zebraslot again");
  CHECK(fx.json({"keyword", "ompuserword"})["results"][0]["title"].s == "Zebraslot again");
}

TEST_CASE("agents: an atomically replaced file is read whole with its old records gone", "[agents]") {
  Mixed fx;
  const std::string pi_new = std::string(R"({"type":"session","version":3,"id":")") + kPiId +
                             R"(","timestamp":"2026-11-02T10:00:00.000Z","cwd":"/work/pi-proj"})" + "\n" +
                             pi_line("a0000001", "", "rewritten pireplacedword");
  replace_file(fx.pi_path(), pi_new);
  const std::string omp_old = read_file(fx.omp_path());
  std::string omp_new = omp_old.substr(0, omp_old.find('\n', 257) + 1) + pi_line("a0000001", "", "new ompreplacedword");
  replace_file(fx.omp_path(), omp_new);
  const std::string cx_old = read_file(fx.codex_path());
  replace_file(fx.codex_path(), cx_old.substr(0, cx_old.find('\n') + 1) + codex_user_line("fresh codexreplacedword"));
  fx.index();
  // One new message each; the omp session keeps its untouched subagent's three (task, prompt, answer).
  for (const auto& [word, id, count] : std::vector<std::tuple<std::string, std::string, int64_t>>{
           {"pireplacedword", kPiId, 1}, {"ompreplacedword", kOmpId, 4}, {"codexreplacedword", kCodexId, 1}}) {
    INFO(word);
    const Json j = fx.json({"keyword", word});
    REQUIRE(j["total"].i == 1);
    CHECK(j["results"][0]["session_id"].s == id);
    CHECK(j["results"][0]["message_count"].i == count);
  }
  for (const char* gone : {"piuserword", "pibashword", "ompuserword", "ompresultword", "codexuserword", "codexresultword"})
    check_not_found(fx, gone);
  // The subagent transcript did not change: it is still part of the omp session.
  CHECK(fx.json({"keyword", "ompsubagentword"})["results"][0]["session_id"].s == kOmpId);
  const Json st = fx.json({"status"});
  for (const auto& [agent, n] : kSessionCounts) CHECK(st["agents"][agent].i == n);
}

TEST_CASE("agents: a half-written last line waits until it is complete", "[agents]") {
  Mixed fx;
  const std::string full_pi = pi_line("e0000100", "e0000019", "slow pihalfword");
  const std::string full_cx = codex_user_line("slow codexhalfword");
  append_file(fx.pi_path(), full_pi.substr(0, full_pi.size() / 2));
  append_file(fx.codex_path(), full_cx.substr(0, full_cx.size() - 8));
  fx.index();
  check_not_found(fx, "pihalfword");
  check_not_found(fx, "codexhalfword");
  append_file(fx.pi_path(), full_pi.substr(full_pi.size() / 2));
  append_file(fx.codex_path(), full_cx.substr(full_cx.size() - 8));
  check_found(fx, "pihalfword", {kPiId, "pi", kPiCwd, pi_hint(kPiCwd, fx.pi_path()), "Pititleword name"});
  check_found(fx, "codexhalfword",
              {kCodexId, "codex", kCodexCwd, codex_hint(kCodexCwd, kCodexId), "Codexthreadword thread"});
}

TEST_CASE("agents: a Codex rollout compressed to .jsonl.zst stays the same one session", "[agents]") {
  Mixed fx;
  const auto s0p = find_session(fx.json({"list", "--agent", "codex"}), kCodexId, "codex");
  REQUIRE(s0p .has_value());
  const Json s0 = *s0p;
  const std::string plain = fx.codex_path();
  const std::string zst = plain + ".zst";

  // Side by side with its plain copy: read once.
  write_file(zst, zstd_compress(read_file(plain)));
  fx.index();
  auto check_same = [&](const char* when) {
    INFO(when);
    const Json list = fx.json({"list", "--agent", "codex"});
    CHECK(list["total"].i == kSessionCounts.at("codex"));
    auto s = find_session(list, kCodexId, "codex");
    REQUIRE(s .has_value());
    CHECK((*s)["message_count"].i == s0["message_count"].i);
    CHECK((*s)["tokens"]["input"].i == s0["tokens"]["input"].i);
    CHECK((*s)["tokens"]["output"].i == s0["tokens"]["output"].i);
    CHECK((*s)["tokens"]["cache_read"].i == s0["tokens"]["cache_read"].i);
    CHECK((*s)["source_deleted"].b == false);
    CHECK((*s)["title"].s == "Codexthreadword thread");
    const Json kw = fx.json({"keyword", "codexuserword", "--by", "message"});
    CHECK(kw["total"].i == 1);
    const Json ct = fx.json({"content", "codexresultword"});
    REQUIRE(ct["total"].i == 1);
    CHECK(ct["results"][0]["match_count"].i == 1);
  };
  check_same("side by side");

  // Compressed, plain copy removed (what Codex does).
  fs::remove(plain);
  fx.index();
  check_same("compressed only");
  CHECK(fx.json({"status"})["agents"]["codex"].i == kSessionCounts.at("codex"));
  CHECK(fx.index()["bytes_read"].i == 0);
}

TEST_CASE("agents: --source codex given CODEX_HOME or its sessions dir; session_index titles", "[agents]") {
  Mixed fx(false);
  SECTION("CODEX_HOME") {}
  SECTION("sessions dir") { fx.codex_source = fx.codex + "/sessions"; }
  fx.index();
  const bool home = !fx.codex_source;
  const Json list = fx.json({"list", "--agent", "codex"});
  // archived_sessions/ belongs to CODEX_HOME; given sessions/ alone it is not read.
  CHECK(list["total"].i == (home ? 4 : 3));
  const auto s2 = find_session(list, kCodex2Id, "codex");
  REQUIRE(s2 .has_value());
  CHECK((*s2)["title"].s == "Codexindexword title");
  CHECK(find_session(list, kCodexId, "codex") .has_value());

  // A name written after the rollout was indexed.
  append_file(fx.codex + "/session_index.jsonl",
              R"({"id":")" + kCodexNoNewlineId + R"(","thread_name":"Latenameword title","updated_at":"2026-11-04T00:00:00Z"})" + "\n");
  const auto sn = find_session(fx.json({"list", "--agent", "codex"}), kCodexNoNewlineId, "codex");
  REQUIRE(sn .has_value());
  CHECK((*sn)["title"].s == "Latenameword title");
  CHECK(fx.json({"content", "Latenameword"})["total"].i == 1);
  const Json kw = fx.json({"keyword", "latenameword"});
  REQUIRE(kw["total"].i == 1);
  CHECK(kw["results"][0]["session_id"].s == kCodexNoNewlineId);
}

TEST_CASE("agents: --source given an agent's home above its sessions finds the same sessions", "[agents]") {
  // ~/.claude for ~/.claude/projects, ~/.omp and ~/.pi for their agent/sessions: each once listed
  // no session, without a word.
  Mixed fx;
  const auto sessions_of = [&] {
    std::set<std::string> out;
    const Json list = fx.json({"list", "--limit", "100"});  // (held: the loop reads into it)
    for (const auto& s : list["results"].a) out.insert(s["agent"].s + " " + s["session_id"].s);
    return out;
  };
  const std::set<std::string> want = sessions_of();
  REQUIRE(want.size() == 12);
  const std::string claude_home = fx.tmp / "claude-home", omp_home = fx.tmp / "omp-home", pi_home = fx.tmp / "pi-home";
  fs::create_directories(claude_home);
  fs::create_directories(omp_home);
  fs::create_directories(pi_home);
  fs::rename(fx.claude, claude_home + "/projects");
  fs::rename(fx.omp, omp_home + "/agent");  // custom-session-files/ moves with it
  fs::rename(fx.pi, pi_home + "/agent");
  fx.claude = claude_home;
  fx.omp = omp_home;
  fx.pi = pi_home;
  fx.idx = fx.tmp / "index-homes";
  const Json summary = fx.index();
  CHECK(summary["files_unreadable"].i == 0);
  CHECK(sessions_of() == want);  // the omp session outside its sessions dir included
}
