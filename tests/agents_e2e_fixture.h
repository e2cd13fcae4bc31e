// Shared fixture of the mixed-agent end-to-end tests (tests/agents_e2e_*_test.cpp): Claude, omp, pi
// and Codex sources side by side in one index, queried through the built `osearch` binary.
//
// The omp/pi/Codex files are the hand-written ones of tests/data/mixed (see its README); Claude is
// one real transcript of tests/data/claude. Every searchable place holds a unique word, and the
// constants below name the session each word belongs to.
#pragma once

#include "tests/cli_fixture.h"

#include "cli/options.h"

#include <cctype>
#include <optional>

namespace agents_e2e {

inline std::string mixed_dir() { return test_data_dir() + "/mixed"; }

// Sessions of tests/data/mixed, by the id their header / first session_meta writes.
inline const std::string kOmpId = "01a0b1c2-0000-7000-8000-00000000a001";
inline const std::string kOmp2Id = "01a0b1c2-0000-7000-8000-00000000a002";
inline const std::string kOmpOutsideId = "01a0b1c2-0000-7000-8000-00000000a003";
inline const std::string kPiId = "01a0b1c2-0000-7000-8000-00000000b001";
inline const std::string kPiV1Id = "6f0e4f3a-1b2c-4d5e-8f90-a1b2c3d4e5f6";
inline const std::string kSharedId = "01a0b1c2-0000-7000-8000-00000000c001";
inline const std::string kCodexId = "01a0b1c2-0000-7000-8000-00000000d001";
inline const std::string kCodexParentId = "01a0b1c2-0000-7000-8000-00000000d000";
inline const std::string kCodex2Id = "01a0b1c2-0000-7000-8000-00000000d002";
inline const std::string kCodexLegacyId = "5a6b7c8d-0000-4000-8000-00000000d0aa";
inline const std::string kCodexNoNewlineId = "01a0b1c2-0000-7000-8000-00000000d003";
inline const std::string kClaudeId = "1af7fc5e-8455-4414-9ccd-011d40f70b2a";

// Paths relative to the agent roots of the temp tree.
inline const std::string kOmpRel = "sessions/-work-omp-proj/2026-11-01T10-00-00-000Z_" + kOmpId + ".jsonl";
inline const std::string kOmp2Rel = "sessions/-work-omp-proj/2026-11-01T10-00-00-000Z_" + kOmp2Id + ".jsonl";
inline const std::string kPiRel = "sessions/--work-pi-proj--/2026-11-02T10-00-00-000Z_" + kPiId + ".jsonl";
inline const std::string kPiV1Rel = "sessions/--work-pi-proj--/2025-06-01T08-00-00-000Z_" + kPiV1Id + ".jsonl";
inline const std::string kCodexRel = "sessions/2026/11/03/rollout-2026-11-03T10-00-00-" + kCodexId + ".jsonl";
inline const std::string kCodex2Rel = "sessions/2026/11/03/rollout-2026-11-03T10-30-00-" + kCodex2Id + ".jsonl";
inline const std::string kClaudeRel = "sample-project/" + kClaudeId + ".jsonl";

inline const std::string kOmpCwd = "/work/omp proj";
inline const std::string kPiCwd = "/work/pi-proj";
inline const std::string kCodexCwd = "/work/codex proj";

// Session counts of the fixture tree per agent (the omp subagent is part of its parent).
inline const std::map<std::string, int64_t> kSessionCounts = {{"claude", 1}, {"omp", 4}, {"pi", 3}, {"codex", 4}};

// One index over a temp copy of the mixed corpus.
struct Mixed {
  TempDir tmp{"agents"};
  std::string claude = tmp / "claude";
  std::string omp = tmp / "omp";  // an omp agent dir: sessions/ and custom-session-files/
  std::string pi = tmp / "pi";
  std::string codex = tmp / "codex";  // a CODEX_HOME
  std::string outside = tmp / "outside";
  std::string idx = tmp / "index";
  std::optional<std::string> codex_source;  // another --source codex=DIR than `codex`

  explicit Mixed(bool index_now = true) {
    copy_tree(mixed_dir() + "/omp", omp);
    copy_tree(mixed_dir() + "/pi", pi);
    copy_tree(mixed_dir() + "/codex", codex);
    copy_tree(mixed_dir() + "/omp-outside", outside);
    copy_subtree(claude_data_dir(), kClaudeRel, claude);
    write_file(omp + "/custom-session-files/a1b2c3d",
               outside + "/2026-11-01T12-00-00-000Z_" + kOmpOutsideId + ".jsonl\n");
    if (index_now) index();
  }

  std::vector<std::string> sources() const {
    return {"--source", "claude=" + claude, "--source", "omp=" + omp, "--source", "pi=" + pi,
            "--source", "codex=" + codex_source.value_or(codex)};
  }
  RunResult run(std::vector<std::string> args) const {
    args.insert(args.end(), {"--index", idx, "--format", "json"});
    for (auto& s : sources()) args.push_back(s);
    return run_osearch(args);
  }
  Json json(const std::vector<std::string>& args) const {
    RunResult r = run(args);
    INFO("args: " << Catch::Detail::stringify(args) << "\nstderr: " << r.err);
    REQUIRE(r.exit_code == 0);
    return parse(r.out);
  }
  // `osearch index`: its JSON summary.
  Json index() const { return json({"index"}); }
  // The context an in-process frontend (the MCP server, the web API) runs over this tree with.
  osearch::Context context() const {
    osearch::GlobalOptions g;
    g.index = idx;
    g.format = "json";
    const auto s = sources();
    for (size_t i = 1; i < s.size(); i += 2) g.sources.push_back(s[i]);
    return osearch::resolve_context(g);
  }
  // Every file and directory of the tree an hour old: the quick check trusts no directory changed in
  // the last two seconds, and without its record every refresh takes the full path.
  void settle() const {
    const auto past = fs::file_time_type::clock::now() - std::chrono::hours(1);
    for (const auto& e : fs::recursive_directory_iterator(tmp.path())) fs::last_write_time(e.path(), past);
    fs::last_write_time(tmp.path(), past);
  }

  std::string omp_path(const std::string& rel = kOmpRel) const { return omp + "/" + rel; }
  std::string pi_path(const std::string& rel = kPiRel) const { return pi + "/" + rel; }
  std::string codex_path(const std::string& rel = kCodexRel) const { return codex + "/" + rel; }
};

// The HOME-for-projects mistake (engine/index/emptied_roots.h): one Claude transcript indexed from
// HOME/.claude/projects, then a frontend given HOME itself as the Claude root, which lists nothing
// there, so its first refresh marks the session source_deleted and warns once.
struct EmptiedHome {
  TempDir tmp;
  std::string home = tmp / "home";
  std::string idx = tmp / "idx";

  explicit EmptiedHome(const std::string& name) : tmp(name) {
    const std::string projects = home + "/.claude/projects";
    copy_subtree(claude_data_dir(), kClaudeRel, projects);
    REQUIRE(run_osearch({"--index", idx, "--source", "claude=" + projects, "index"}).exit_code == 0);
  }
  osearch::Context context() const {
    osearch::GlobalOptions g;
    g.index = idx;
    g.format = "json";
    g.quiet = true;
    g.sources = {"claude=" + home};
    return osearch::resolve_context(g);
  }
  std::string warning() const { return "claude source " + home + ": no transcript found there"; }
};

// A shell word as a user would paste it: bare when plainly safe, else in single quotes.
inline std::string quoted(const std::string& s) {
  const bool plain = !s.empty() && std::all_of(s.begin(), s.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || std::string_view("_@%+=:,./-").find(c) != std::string_view::npos;
  });
  return plain ? s : "'" + s + "'";
}
// The hint each agent's own CLI resumes with.
inline std::string omp_hint(const std::string& cwd, const std::string& id) {
  return "cd " + quoted(cwd) + " && omp --resume " + id;
}
inline std::string pi_hint(const std::string& cwd, const std::string& path) {
  return "cd " + quoted(cwd) + " && pi --session " + quoted(path);
}
inline std::string codex_hint(const std::string& cwd, const std::string& id) {
  return "cd " + quoted(cwd) + " && codex resume " + id;
}

// What a word's hit must show.
struct Expect {
  std::string session_id, agent, cwd, resume_hint, title;
};

inline std::set<std::string> agents_of(const Json& results) { return field_set(results, "agent"); }

// `keyword WORD` and `content WORD` both put `e`'s session first with the right fields.
inline void check_found(const Mixed& fx, const std::string& word, const Expect& e,
                        const std::vector<std::string>& extra = {}) {
  for (const char* action : {"keyword", "content"}) {
    std::vector<std::string> args = {action, word};
    args.insert(args.end(), extra.begin(), extra.end());
    const Json j = fx.json(args);
    INFO(action << " " << word);
    REQUIRE(j["results"].a.size() >= 1);
    const Json& h = j["results"][0];
    CHECK(h["session_id"].s == e.session_id);
    CHECK(h["agent"].s == e.agent);
    CHECK(h["project_path"].s == e.cwd);
    CHECK(h["cwd"].s == e.cwd);
    CHECK(h["resume_hint"].s == e.resume_hint);
    if (!e.title.empty()) CHECK(h["title"].s == e.title);
  }
}

// Neither `keyword` nor `content` finds `word` (with `extra` options).
inline void check_not_found(const Mixed& fx, const std::string& word, const std::vector<std::string>& extra = {}) {
  for (const char* action : {"keyword", "content"}) {
    std::vector<std::string> args = {action, word};
    args.insert(args.end(), extra.begin(), extra.end());
    INFO(action << " " << word);
    CHECK(fx.json(args)["total"].i == 0);
  }
}

}  // namespace agents_e2e
