#include "ingest/claude_layout.h"

#include "ingest/bounded_id.h"
#include "ingest/layout_util.h"

#include <cstring>
#include <filesystem>
#include <string_view>
#include <system_error>

namespace osearch {
namespace fs = std::filesystem;
namespace {

// "agent-abc.jsonl" -> "abc"
std::string agent_id_of(std::string_view file_name) {
  std::string_view stem = file_name.substr(0, file_name.size() - 6);
  if (stem.substr(0, 6) == "agent-") stem.remove_prefix(6);
  return bounded_id(stem);
}

void add_agent_files(const fs::path& dir, const SourceFile& proto, SourceKind kind, DiscoveryResult& r) {
  for (const auto& e : list_dir(dir, r)) {
    const std::string_view name = e.name();
    std::error_code ec;
    if (!e.is_regular_file(ec) || !ends_with(name, ".jsonl")) continue;
    SourceFile f = proto;
    f.kind = kind;
    f.path = e.path_view();
    f.agent_id = agent_id_of(name);
    r.files.push_back(std::move(f));
  }
}

}  // namespace

std::string subagent_meta_path(const std::string& transcript_path) {
  std::string p = transcript_path;
  if (ends_with(p, ".jsonl")) p.resize(p.size() - 6);
  return p + ".meta.json";
}

DiscoveryResult discover_claude(const std::string& given, const KnownTree* known) {
  DiscoveryResult r;
  r.known = known;
  if (!open_root(given, r)) return r;
  // Claude's config dir (~/.claude, $CLAUDE_CONFIG_DIR) given for the projects dir inside it: a
  // project dir is never named so (an encoded cwd starts with '-'), and without this the root
  // would list no session at all.
  const fs::path projects = fs::path(given) / "projects";
  const std::string root = probe_dir(projects, r) ? projects.string() : given;
  std::error_code ec;
  for (const auto& project : list_dir(root, r)) {
    if (!project.is_directory(ec)) continue;
    SourceFile proto;
    proto.project = project.name();
    for (const auto& e : list_dir(project.path(), r)) {
      const std::string_view name = e.name();
      if (e.is_regular_file(ec) && ends_with(name, ".jsonl")) {
        SourceFile f = proto;
        f.path = e.path_view();
        if (name.rfind("agent-", 0) == 0) {
          f.kind = SourceKind::ClaudeRootAgent;
          f.agent_id = agent_id_of(name);
        } else {
          f.kind = SourceKind::ClaudeMain;
          const std::string_view stem = std::string_view(name).substr(0, name.size() - 6);
          f.session_id = bounded_id(stem);
          if (f.session_id.size() != stem.size()) f.session_id_full = std::string(stem);
        }
        r.files.push_back(std::move(f));
      } else if (e.is_directory(ec)) {
        SourceFile sub = proto;
        sub.session_id = bounded_id(name);
        if (sub.session_id.size() != name.size()) sub.session_id_full = name;
        // Observed before the probes inside it: a subagents or workflows dir created there later
        // moves its mtime, so those probes need no record of their own (drop_covered_missing).
        if (observe(e.path(), r).type != PathStat::Type::Dir) continue;
        // A session dir we may not enter is one problem, not one per probe below.
        const fs::path subagents = e.path() / "subagents";
        int err = 0;
        const PathStat subagents_stat = look_at(subagents.string(), err, r);
        r.observed.push_back(subagents_stat);
        if (err) {
          r.errors.push_back(e.path().string() + ": " + std::strerror(err));
          continue;
        }
        for (const auto& wf : list_dir(e.path() / "workflows", r)) {
          if (!wf.is_regular_file(ec) || !ends_with(wf.name(), ".json")) continue;
          SourceFile f = sub;
          f.kind = SourceKind::ClaudeWorkflowRun;
          f.path = wf.path_view();
          r.files.push_back(std::move(f));
        }
        if (subagents_stat.type != PathStat::Type::Dir) continue;
        add_agent_files(subagents, sub, SourceKind::ClaudeNestedAgent, r);
        fs::path workflows = subagents / "workflows";
        if (!probe_dir(workflows, r)) continue;
        for (const auto& run : list_dir(workflows, r)) {
          if (!run.is_directory(ec)) continue;
          SourceFile wf = sub;
          wf.workflow_run = bounded_id(run.name());
          add_agent_files(run.path(), wf, SourceKind::ClaudeWorkflowAgent, r);
        }
      }
    }
  }
  stat_and_sort(r);
  return r;
}

}  // namespace osearch
