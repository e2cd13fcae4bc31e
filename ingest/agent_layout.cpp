#include "ingest/agent_layout.h"

#include <fstream>
#include <algorithm>
#include <set>
#include <unordered_set>

#include "ingest/bounded_id.h"
#include "ingest/layout_util.h"

namespace osearch {
namespace fs = std::filesystem;
namespace {

void set_session_id(SourceFile& f, std::string_view id) {
  f.session_id = bounded_id(id);
  if (f.session_id.size() != id.size()) f.session_id_full = std::string(id);
}

SourceFile pi_session_file(std::string path, const std::string& agent) {
  SourceFile f;
  f.path = std::move(path);
  f.kind = SourceKind::PiSession;
  f.agent = agent;
  set_session_id(f, pi_family_id_from_name(file_name_of(f.path)));
  return f;
}

// The sessions dir of a root: `sessions/` in it (an ~/.omp/agent given as the source),
// `agent/sessions/` (an ~/.omp), else the root itself (the usual ~/.omp/agent/sessions).
fs::path sessions_dir_of(const fs::path& root, DiscoveryResult& r) {
  if (probe_dir(root / "sessions", r)) return root / "sessions";
  // The agent's home (~/.omp, ~/.pi) given for the agent dir inside it.
  if (probe_dir(root / "agent" / "sessions", r)) return root / "agent" / "sessions";
  return root;
}

// omp's registry of sessions kept outside the sessions dir: each file holds one absolute path.
void add_custom_session_files(const fs::path& agent_dir, std::set<std::string>& seen, DiscoveryResult& r) {
  for (const auto& e : list_dir(agent_dir / "custom-session-files", r)) {
    std::error_code ec;
    if (!e.is_regular_file(ec)) continue;
    observe(e.path(), r);  // (before it is read: a later rewrite changes what was kept)
    std::ifstream in(e.path());
    std::string line;
    while (std::getline(in, line)) {
      while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.pop_back();
      if (line.empty() || line.front() != '/' || !ends_with(line, ".jsonl")) continue;
      std::string p = fs::path(line).lexically_normal().string();
      if (seen.insert(p).second) r.files.push_back(pi_session_file(std::move(p), "omp"));
    }
  }
}

bool is_rollout_name(std::string_view name) {
  return name.substr(0, 8) == "rollout-" && (ends_with(name, ".jsonl") || ends_with(name, ".jsonl.zst"));
}

void walk_codex(const fs::path& dir, int depth, DiscoveryResult& r) {
  if (depth > 6) return;
  for (const auto& e : list_dir(dir, r)) {
    std::error_code ec;
    const std::string_view name = e.name();
    if (e.is_directory(ec)) {
      walk_codex(e.path(), depth + 1, r);
    } else if (e.is_regular_file(ec) && is_rollout_name(name)) {
      SourceFile f;
      f.path = e.path_view();
      f.kind = SourceKind::CodexRollout;
      f.agent = "codex";
      set_session_id(f, codex_id_from_name(name));
      r.files.push_back(std::move(f));
    }
  }
}

}  // namespace

std::string pi_family_id_from_name(std::string_view name) {
  if (ends_with(name, ".jsonl")) name.remove_suffix(6);
  size_t us = name.find('_');
  return std::string(us == std::string_view::npos ? name : name.substr(us + 1));
}

std::string codex_id_from_name(std::string_view name) {
  if (ends_with(name, ".zst")) name.remove_suffix(4);
  if (ends_with(name, ".jsonl")) name.remove_suffix(6);
  // rollout-2025-10-31T17-00-00-<uuid>: a uuid is 36 chars with dashes at 8, 13, 18, 23.
  if (name.size() >= 36) {
    std::string_view tail = name.substr(name.size() - 36);
    if (tail[8] == '-' && tail[13] == '-' && tail[18] == '-' && tail[23] == '-') return std::string(tail);
  }
  return std::string(name);
}

std::string project_slug(std::string_view cwd) {
  std::string out;
  out.reserve(cwd.size());
  for (size_t i = 0; i < cwd.size();) {
    const auto c = static_cast<unsigned char>(cwd[i]);
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')) {
      out.push_back(static_cast<char>(c));
      ++i;
      continue;
    }
    // One '-' per UTF-16 unit, as Claude Code's JavaScript replace makes it: two for a 4-byte character.
    size_t len = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 1;
    out.append(len == 4 ? 2 : 1, '-');
    i += std::min(len, cwd.size() - i);
  }
  return out;
}

DiscoveryResult discover_pi_family(const std::string& root, const std::string& agent, const KnownTree* known) {
  DiscoveryResult r;
  r.known = known;
  if (!open_root(root, r)) return r;
  const fs::path sessions = sessions_dir_of(root, r);
  std::set<std::string> seen;
  auto add_session = [&](std::string_view p) {
    if (seen.emplace(p).second) r.files.push_back(pi_session_file(std::string(p), agent));
  };
  for (const auto& e : list_dir(sessions, r)) {
    std::error_code ec;
    if (e.is_regular_file(ec) && ends_with(e.name(), ".jsonl")) {
      add_session(e.path_view());
      continue;
    }
    if (!e.is_directory(ec)) continue;
    // A cwd dir: its transcripts, and beside each `<stem>.jsonl` an artifacts dir `<stem>/` whose
    // .jsonl files are the session's subagents (omp).
    const auto entries = list_dir(e.path(), r);
    std::set<std::string> stems;
    for (const auto& f : entries) {
      const std::string_view fname = f.name();
      if (f.is_regular_file(ec) && ends_with(fname, ".jsonl")) {
        add_session(f.path_view());
        stems.emplace(fname.substr(0, fname.size() - 6));
      }
    }
    for (const auto& d : entries) {
      const std::string dname(d.name());
      if (!stems.count(dname) || !d.is_directory(ec)) continue;
      for (const auto& sub : list_dir(d.path(), r)) {
        const std::string_view sname = sub.name();
        if (!sub.is_regular_file(ec) || !ends_with(sname, ".jsonl")) continue;
        SourceFile f;
        f.path = sub.path_view();
        f.kind = SourceKind::PiSubagent;
        f.agent = agent;
        set_session_id(f, pi_family_id_from_name(dname + ".jsonl"));
        f.agent_id = bounded_id(std::string_view(sname).substr(0, sname.size() - 6));
        r.files.push_back(std::move(f));
      }
    }
  }
  if (agent == "omp") add_custom_session_files(sessions.parent_path(), seen, r);
  stat_and_sort(r);
  return r;
}

DiscoveryResult discover_codex(const std::string& root, const KnownTree* known) {
  DiscoveryResult r;
  r.known = known;
  if (!open_root(root, r)) return r;
  fs::path home;
  if (probe_dir(fs::path(root) / "sessions", r)) {
    home = root;
    walk_codex(home / "sessions", 0, r);
    walk_codex(home / "archived_sessions", 0, r);
  } else {
    home = fs::path(root).parent_path();
    walk_codex(root, 0, r);
  }
  // A rollout compressed beside its plain copy: the plain one is read.
  if (std::any_of(r.files.begin(), r.files.end(), [](const SourceFile& f) { return ends_with(f.path, ".zst"); })) {
    std::unordered_set<std::string_view> plain;
    for (const auto& f : r.files)
      if (ends_with(f.path, ".jsonl")) plain.insert(f.path);
    // (Decided before any file moves: `plain` views their paths.)
    std::vector<bool> shadowed(r.files.size());
    for (size_t i = 0; i < r.files.size(); ++i) {
      const std::string& p = r.files[i].path;
      shadowed[i] = ends_with(p, ".zst") && plain.count(std::string_view(p).substr(0, p.size() - 4));
    }
    size_t kept = 0;
    for (size_t i = 0; i < r.files.size(); ++i) {
      if (shadowed[i]) continue;
      if (kept != i) r.files[kept] = std::move(r.files[i]);
      ++kept;
    }
    r.files.resize(kept);
  }
  stat_and_sort(r);
  DiscoveryResult index;
  index.known = known;
  SourceFile f;
  f.path = (home / "session_index.jsonl").string();
  f.kind = SourceKind::CodexSessionIndex;
  f.agent = "codex";
  index.files.push_back(std::move(f));
  stat_and_sort(index);
  for (auto& i : index.files) r.files.push_back(std::move(i));
  for (auto& e : index.file_errors) r.file_errors.push_back(std::move(e));
  for (auto& o : index.observed) r.observed.push_back(std::move(o));
  return r;
}

}  // namespace osearch
