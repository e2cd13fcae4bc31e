#include "ingest/claude_layout.h"

#include "ingest/bounded_id.h"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <string_view>
#include <system_error>
#include <thread>

namespace osearch {
namespace fs = std::filesystem;
namespace {

bool ends_with(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

// 0: a regular file, stat'ed; ENOENT: vanished or not a regular file (skipped); else the errno.
int fill_stat(SourceFile& f) {
  struct stat st {};
  if (::stat(f.path.c_str(), &st) != 0) return errno == ENOTDIR ? ENOENT : errno;
  if (!S_ISREG(st.st_mode)) return ENOENT;
  f.dev = static_cast<uint64_t>(st.st_dev);
  f.ino = static_cast<uint64_t>(st.st_ino);
  f.size = static_cast<uint64_t>(st.st_size);
  f.mtime_ns = static_cast<int64_t>(st.st_mtim.tv_sec) * 1000000000LL + st.st_mtim.tv_nsec;
  return 0;
}

bool is_missing(const std::error_code& ec) {
  return ec == std::errc::no_such_file_or_directory || ec == std::errc::not_a_directory;
}

// "agent-abc.jsonl" -> "abc"
std::string agent_id_of(std::string_view file_name) {
  std::string_view stem = file_name.substr(0, file_name.size() - 6);
  if (stem.substr(0, 6) == "agent-") stem.remove_prefix(6);
  return bounded_id(stem);
}

// The entries of `dir`; a dir that is missing is empty, one that cannot be read is an error.
std::vector<fs::directory_entry> list_dir(const fs::path& dir, std::vector<std::string>& errors) {
  std::vector<fs::directory_entry> out;
  std::error_code ec;
  // (No skip_permission_denied: it would turn an unreadable dir into an empty one, silently.)
  fs::directory_iterator it(dir, ec);
  for (; !ec && it != fs::directory_iterator(); it.increment(ec)) out.push_back(*it);
  if (ec && !is_missing(ec)) errors.push_back(dir.string() + ": " + ec.message());
  return out;
}

// Is `dir` a directory? Missing is a plain no; a dir we may not look into is also reported.
bool probe_dir(const fs::path& dir, std::vector<std::string>& errors) {
  std::error_code ec;
  fs::file_status st = fs::status(dir, ec);
  if (ec && !is_missing(ec)) errors.push_back(dir.string() + ": " + ec.message());
  return !ec && fs::is_directory(st);
}

void add_agent_files(const fs::path& dir, const SourceFile& proto, SourceKind kind, std::vector<SourceFile>& out,
                     std::vector<std::string>& errors) {
  for (const auto& e : list_dir(dir, errors)) {
    std::string name = e.path().filename().string();
    std::error_code ec;
    if (!e.is_regular_file(ec) || !ends_with(name, ".jsonl")) continue;
    SourceFile f = proto;
    f.kind = kind;
    f.path = e.path().string();
    f.agent_id = agent_id_of(name);
    out.push_back(std::move(f));
  }
}

}  // namespace

std::string subagent_meta_path(const std::string& transcript_path) {
  std::string p = transcript_path;
  if (ends_with(p, ".jsonl")) p.resize(p.size() - 6);
  return p + ".meta.json";
}

DiscoveryResult discover_claude(const std::string& root) {
  DiscoveryResult r;
  std::error_code ec;
  const fs::file_status root_status = fs::status(root, ec);
  if (ec || !fs::is_directory(root_status)) {
    if (ec && !is_missing(ec))
      r.errors.push_back(root + ": " + ec.message());
    else if (!ec)
      r.errors.push_back(root + ": source root is not a directory");
    return r;
  }
  for (const auto& project : list_dir(root, r.errors)) {
    if (!project.is_directory(ec)) continue;
    SourceFile proto;
    proto.project = project.path().filename().string();
    for (const auto& e : list_dir(project.path(), r.errors)) {
      std::string name = e.path().filename().string();
      if (e.is_regular_file(ec) && ends_with(name, ".jsonl")) {
        SourceFile f = proto;
        f.path = e.path().string();
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
        // A session dir we may not enter is one problem, not one per probe below.
        const fs::path subagents = e.path() / "subagents";
        std::error_code access;
        const fs::file_status subagents_status = fs::status(subagents, access);
        if (access && !is_missing(access)) {
          r.errors.push_back(e.path().string() + ": " + access.message());
          continue;
        }
        for (const auto& wf : list_dir(e.path() / "workflows", r.errors)) {
          std::string wname = wf.path().filename().string();
          if (!wf.is_regular_file(ec) || !ends_with(wname, ".json")) continue;
          SourceFile f = sub;
          f.kind = SourceKind::ClaudeWorkflowRun;
          f.path = wf.path().string();
          r.files.push_back(std::move(f));
        }
        if (access || !fs::is_directory(subagents_status)) continue;
        add_agent_files(subagents, sub, SourceKind::ClaudeNestedAgent, r.files, r.errors);
        fs::path workflows = subagents / "workflows";
        if (!probe_dir(workflows, r.errors)) continue;
        for (const auto& run : list_dir(workflows, r.errors)) {
          if (!run.is_directory(ec)) continue;
          SourceFile wf = sub;
          wf.workflow_run = bounded_id(run.path().filename().string());
          add_agent_files(run.path(), wf, SourceKind::ClaudeWorkflowAgent, r.files, r.errors);
        }
      }
    }
  }
  // Stat every file (size, inode, mtime): the bulk of a no-op refresh, so in two threads.
  std::vector<int> err(r.files.size(), 0);
  auto stat_range = [&](size_t from, size_t to) {
    for (size_t i = from; i < to; ++i) err[i] = fill_stat(r.files[i]);
  };
  const size_t half = r.files.size() / 2;
  if (r.files.size() >= 256) {
    std::thread other(stat_range, half, r.files.size());
    stat_range(0, half);
    other.join();
  } else {
    stat_range(0, r.files.size());
  }
  std::vector<SourceFile> files;
  files.reserve(r.files.size());
  for (size_t i = 0; i < r.files.size(); ++i) {
    if (err[i] == 0)
      files.push_back(std::move(r.files[i]));
    else if (err[i] != ENOENT)  // (vanished or not a regular file: skipped)
      r.file_errors.push_back(r.files[i].path + ": " + std::strerror(err[i]));
  }
  std::sort(r.file_errors.begin(), r.file_errors.end());
  r.files = std::move(files);
  std::sort(r.files.begin(), r.files.end(), [](const SourceFile& a, const SourceFile& b) { return a.path < b.path; });
  return r;
}

}  // namespace osearch
