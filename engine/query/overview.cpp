// `overview`: one walk of the session records, newest first (sess_by_time), gathering per-project
// and per-agent counts and the current project's recent sessions. No message is read.
#include <algorithm>
#include <map>
#include <unordered_map>

#include "engine/index/tokenizer.h"
#include "engine/query/memories.h"
#include "engine/query/orient.h"
#include "engine/store/lmdb.h"

namespace osearch {
namespace {

constexpr const char* kKnownAgents[] = {"claude", "omp", "pi", "codex"};

// How deep `path` sits above (or at) `cwd`: its length, or -1 when cwd is not inside it. The
// filesystem root is never a project (every cwd is inside it).
int64_t ancestor_depth(std::string_view path, std::string_view cwd) {
  while (path.size() > 1 && path.back() == '/') path.remove_suffix(1);
  if (path.empty() || path == "/") return -1;
  if (cwd.size() < path.size() || cwd.compare(0, path.size(), path) != 0) return -1;
  if (cwd.size() > path.size() && cwd[path.size()] != '/') return -1;
  return static_cast<int64_t>(path.size());
}

struct ProjectAcc {
  ProjectSummary summary;
  std::vector<std::string> recent_ids;  // newest first, at most OverviewOptions::sessions
};

}  // namespace

Overview run_overview(IndexReader& reader, const OverviewOptions& o) {
  Overview out;
  std::unordered_map<std::string, ProjectAcc> projects;
  std::vector<std::string> order;  // projects by last activity, newest first (first seen in the walk)
  std::map<std::string, AgentTotals> agents;
  const std::string wanted = ascii_lower(o.project);
  std::string cwd = o.cwd;
  while (cwd.size() > 1 && cwd.back() == '/') cwd.pop_back();
  std::string by_cwd;  // project whose path holds the cwd most closely
  int64_t by_cwd_depth = -1;

  // Each record viewed (SessionFacets), not decoded whole: the walk copies a project's strings once.
  SessionFacets s;
  LmdbCursor cur(reader.txn(), reader.db().sess_by_time);
  for (bool ok = cur.last(); ok; ok = cur.prev()) {
    auto bytes = reader.txn().get(reader.db().sessions, parse_session_time_key(cur.key()).sid);
    if (!bytes) continue;
    IndexReader::view_session(*bytes, s);
    auto [it, fresh] = projects.try_emplace(std::string(s.project));
    ProjectAcc& p = it->second;
    if (fresh) {
      order.push_back(it->first);
      p.summary.project = it->first;
      p.summary.last_activity = s.ended_at;
    }
    if (p.summary.project_path.empty()) p.summary.project_path = s.project_path;
    ++p.summary.sessions;
    p.summary.messages += s.message_count;
    if (std::find(p.summary.agents.begin(), p.summary.agents.end(), s.agent) == p.summary.agents.end())
      p.summary.agents.emplace_back(s.agent);
    if (p.recent_ids.size() < o.sessions) p.recent_ids.emplace_back(s.id);
    AgentTotals& a = agents[std::string(s.agent)];
    a.agent = s.agent;
    ++a.sessions;
    a.messages += s.message_count;
    ++out.sessions_total;
    out.messages_total += s.message_count;
    if (wanted.empty() && !cwd.empty()) {
      const int64_t d = std::max(ancestor_depth(s.project_path, cwd), ancestor_depth(s.cwd, cwd));
      if (d > by_cwd_depth) {  // ties keep the newer session's project (seen first)
        by_cwd_depth = d;
        by_cwd = s.project;
      }
    }
  }

  // The current project: an exact --project name or path, else the most recently active one it is
  // a substring of; without --project, the project holding the cwd.
  const std::string* current = nullptr;
  if (!wanted.empty()) {
    for (const auto& name : order) {
      const ProjectSummary& p = projects[name].summary;
      if (ascii_lower(p.project) == wanted || ascii_lower(p.project_path) == wanted) {
        current = &name;
        break;
      }
      if (!current && (ascii_lower(p.project).find(wanted) != std::string::npos ||
                       ascii_lower(p.project_path).find(wanted) != std::string::npos))
        current = &name;
    }
    out.matched_by = current ? "project" : "";
  } else {
    out.cwd = cwd;
    if (by_cwd_depth >= 0) {
      current = &*std::find(order.begin(), order.end(), by_cwd);
      out.matched_by = "cwd";
    }
  }
  if (current) {
    const ProjectAcc& p = projects[*current];
    out.current = p.summary;
    for (const auto& id : p.recent_ids)
      if (auto s = reader.session(id)) out.recent_sessions.push_back(std::move(*s));
    MemoryList mine = project_memories(reader.memories(), p.summary.project, p.summary.project_path, o.memories);
    out.memories_total = mine.total;
    for (auto& m : mine.items) out.memories.push_back(std::move(m.record));
  }

  out.projects_total = order.size();
  for (size_t i = 0; i < order.size() && i < o.projects; ++i) out.projects.push_back(projects[order[i]].summary);
  for (const char* name : kKnownAgents) {
    AgentTotals t = agents.count(name) ? agents[name] : AgentTotals{};
    t.agent = name;
    out.agents.push_back(t);
    agents.erase(name);
  }
  for (auto& [name, t] : agents) out.agents.push_back(t);
  return out;
}

}  // namespace osearch
