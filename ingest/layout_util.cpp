#include "ingest/layout_util.h"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <thread>
#include <unordered_set>

#include "ingest/known_tree.h"
#include "ingest/worker_thread.h"

namespace osearch {
namespace fs = std::filesystem;
namespace {

// 0: a regular file, stat'ed; ENOENT: vanished or not a regular file (skipped); else the errno.
int fill_stat(SourceFile& f, const KnownTree* known) {
  if (const PathStat* k = known ? known->stat_of(f.path) : nullptr) {
    if (k->type != PathStat::Type::File) return ENOENT;
    f.dev = k->dev;
    f.ino = k->ino;
    f.size = k->size;
    f.mtime_ns = k->mtime_ns;
    return 0;
  }
  struct stat st {};
  if (::stat(f.path.c_str(), &st) != 0) return errno == ENOTDIR ? ENOENT : errno;
  if (!S_ISREG(st.st_mode)) return ENOENT;
  f.dev = static_cast<uint64_t>(st.st_dev);
  f.ino = static_cast<uint64_t>(st.st_ino);
  f.size = static_cast<uint64_t>(st.st_size);
  f.mtime_ns = static_cast<int64_t>(st.st_mtim.tv_sec) * 1000000000LL + st.st_mtim.tv_nsec;
  return 0;
}

}  // namespace

bool ends_with(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

bool is_missing(const std::error_code& ec) {
  return ec == std::errc::no_such_file_or_directory || ec == std::errc::not_a_directory;
}

void stat_into(const char* path, PathStat& p, int& err) {
  err = 0;
  p.type = PathStat::Type::Missing;
  p.dev = p.ino = p.size = 0;
  p.mtime_ns = 0;
  struct stat st {};
  if (::stat(path, &st) != 0) {
    if (errno != ENOENT && errno != ENOTDIR) {
      err = errno;
      p.type = PathStat::Type::Other;
    }
    return;
  }
  p.type = S_ISDIR(st.st_mode) ? PathStat::Type::Dir : S_ISREG(st.st_mode) ? PathStat::Type::File : PathStat::Type::Other;
  p.dev = static_cast<uint64_t>(st.st_dev);
  p.ino = static_cast<uint64_t>(st.st_ino);
  p.size = static_cast<uint64_t>(st.st_size);
  p.mtime_ns = static_cast<int64_t>(st.st_mtim.tv_sec) * 1000000000LL + st.st_mtim.tv_nsec;
}

PathStat stat_path(const std::string& path, int& err) {
  PathStat p;
  p.path = path;
  stat_into(path.c_str(), p, err);
  return p;
}

PathStat look_at(const std::string& path, int& err, const DiscoveryResult& r) {
  if (const PathStat* k = r.known ? r.known->stat_of(path) : nullptr) {
    err = 0;
    PathStat p = *k;
    p.listed = false;
    return p;
  }
  return stat_path(path, err);
}

PathStat observe(const fs::path& path, DiscoveryResult& r) {
  int err = 0;
  PathStat p = look_at(path.string(), err, r);
  if (err) r.errors.push_back(p.path + ": " + std::strerror(err));
  r.observed.push_back(p);
  return p;
}

std::vector<DirEntry> list_dir(const fs::path& dir, DiscoveryResult& r) {
  std::vector<DirEntry> out;
  // Observed before it is listed: an entry added while we list changes the mtime after the one kept.
  if (observe(dir, r).type == PathStat::Type::Missing) return out;
  r.observed.back().listed = true;
  if (const auto* known = r.known ? r.known->listing_of(dir.string()) : nullptr) {
    out.reserve(known->size());
    for (const PathStat* e : *known) out.emplace_back(std::string_view(e->path), e->type);
    return out;
  }
  std::error_code ec;
  // (No skip_permission_denied: it would turn an unreadable dir into an empty one, silently.)
  fs::directory_iterator it(dir, ec);
  for (; !ec && it != fs::directory_iterator(); it.increment(ec)) out.emplace_back(*it);
  if (ec && !is_missing(ec)) r.errors.push_back(dir.string() + ": " + ec.message());
  return out;
}

bool probe_dir(const fs::path& dir, DiscoveryResult& r) { return observe(dir, r).type == PathStat::Type::Dir; }

bool open_root(const std::string& root, DiscoveryResult& r) {
  // (Grown once: a list of tens of thousands of files doubling its way up faults in twice its pages.)
  if (r.known) r.files.reserve(r.known->transcripts_under(root) + 1);
  int err = 0;
  PathStat p = look_at(root, err, r);
  r.observed.push_back(p);
  if (p.type == PathStat::Type::Dir) return true;
  if (err)
    r.errors.push_back(root + ": " + std::strerror(err));
  else if (p.type != PathStat::Type::Missing)
    r.errors.push_back(root + ": source root is not a directory");
  return false;
}

void stat_and_sort(DiscoveryResult& r) {
  // Stat every file (size, inode, mtime): the bulk of a no-op refresh, so in two threads.
  std::vector<int> err(r.files.size(), 0);
  auto stat_range = [&](size_t from, size_t to) {
    for (size_t i = from; i < to; ++i) err[i] = fill_stat(r.files[i], r.known);
  };
  const size_t half = r.files.size() / 2;
  if (r.files.size() >= 256) {
    std::thread other = start_worker(stat_range, half, r.files.size());
    stat_range(0, half);
    other.join();
  } else {
    stat_range(0, r.files.size());
  }
  // The stat'ed files to the front, then sorted through their indices and put in place by following
  // the permutation's cycles: each moved about once, no second array of tens of thousands of
  // SourceFiles (whose fresh pages cost ~10 µs each to fault in on some machines).
  size_t kept = 0;
  for (size_t i = 0; i < r.files.size(); ++i) {
    if (err[i] == 0) {
      if (kept != i) r.files[kept] = std::move(r.files[i]);
      ++kept;
    } else if (err[i] != ENOENT) {  // (vanished or not a regular file: skipped)
      r.file_errors.push_back(r.files[i].path + ": " + std::strerror(err[i]));
    } else {  // a listed file that is not there (omp's registry, Codex's session index) may come
      r.observed.push_back(look_at(r.files[i].path, err[i], r));
    }
  }
  r.files.resize(kept);
  std::sort(r.file_errors.begin(), r.file_errors.end());
  // (Listings a refresh knows come in path order.)
  if (std::is_sorted(r.files.begin(), r.files.end(), [](const SourceFile& a, const SourceFile& b) { return a.path < b.path; }))
    return;
  std::vector<uint32_t> order(kept);
  for (size_t i = 0; i < kept; ++i) order[i] = static_cast<uint32_t>(i);
  std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) { return r.files[a].path < r.files[b].path; });
  // Position k takes the file at order[k]; a cycle ends where it began (order[k] == k: in place).
  for (size_t start = 0; start < kept; ++start) {
    if (order[start] == start) continue;
    SourceFile first = std::move(r.files[start]);
    size_t at = start;
    while (order[at] != start) {
      const size_t from = order[at];
      r.files[at] = std::move(r.files[from]);
      order[at] = static_cast<uint32_t>(at);
      at = from;
    }
    r.files[at] = std::move(first);
    order[at] = static_cast<uint32_t>(at);
  }
}

void drop_covered_missing(std::vector<PathStat>& observed) {
  std::unordered_set<std::string> dirs;
  size_t kept = 0;
  for (size_t i = 0; i < observed.size(); ++i) {
    const PathStat& o = observed[i];
    if (o.type == PathStat::Type::Missing) {
      const size_t slash = o.path.rfind('/');
      if (slash != std::string::npos && slash > 0 && dirs.contains(o.path.substr(0, slash))) continue;
    }
    if (kept != i) observed[kept] = std::move(observed[i]);
    if (observed[kept].type == PathStat::Type::Dir) dirs.insert(observed[kept].path);
    ++kept;
  }
  observed.resize(kept);
}

}  // namespace osearch
