#include "engine/index/source_watch.h"

#include <time.h>

#include <algorithm>
#include <thread>

#include "engine/store/codec.h"
#include "engine/store/store.h"
#include "ingest/layout_util.h"
#include "ingest/worker_thread.h"

namespace osearch {
namespace {

constexpr std::string_view kMagic = "osw1";
constexpr int64_t kTrustAfterNs = 2'000'000'000;  // a directory's mtime settles after this
constexpr uint64_t kTranscript = 8;               // type flag: the entry is a transcript with its SourceFile
constexpr uint64_t kSameAgent = 1, kSameProject = 2;

struct Entry {
  PathStat stat;
  const SourceFile* file = nullptr;  // a transcript (encoding only)
};

bool path_before(const Entry& a, const Entry& b) {
  if (a.stat.path != b.stat.path) return a.stat.path < b.stat.path;
  return (a.file != nullptr) < (b.file != nullptr);
}

PathStat stat_of(const SourceFile& f) {
  return PathStat{f.path, PathStat::Type::File, f.dev, f.ino, f.size, f.mtime_ns};
}

size_t shared_prefix(std::string_view a, std::string_view b) {
  size_t n = 0;
  while (n < a.size() && n < b.size() && a[n] == b[n]) ++n;
  return n;
}

void encode_roots(Encoder& e, const std::vector<SourceRoot>& roots) {
  e.u64(roots.size());
  for (const auto& r : roots) {
    e.str(r.agent);
    e.str(r.dir);
  }
}

// Stats `paths` into `out` (two threads when there are many: the bulk of the check).
void stat_all(const std::vector<std::string>& paths, std::vector<PathStat>& out) {
  out.resize(paths.size());
  auto range = [&](size_t from, size_t to) {
    int err = 0;
    for (size_t i = from; i < to; ++i) out[i] = stat_path(paths[i], err);
  };
  if (paths.size() < 256) return range(0, paths.size());
  const size_t half = paths.size() / 2;
  std::thread other = start_worker(range, half, paths.size());
  range(0, half);
  other.join();
}

}  // namespace

std::string encode_source_watch(const std::vector<SourceRoot>& roots, const std::vector<PathStat>& observed,
                                const std::vector<SourceFile>& files, int64_t now_ns) {
  std::vector<Entry> entries;
  entries.reserve(observed.size() + files.size());
  for (const auto& o : observed) {
    if (o.type == PathStat::Type::Dir && o.mtime_ns > now_ns - kTrustAfterNs) return {};
    entries.push_back({o, nullptr});
  }
  for (const auto& f : files) entries.push_back({stat_of(f), &f});
  std::sort(entries.begin(), entries.end(), path_before);
  // A root is observed twice (opened, then listed): one entry each, unless it changed in between.
  entries.erase(std::unique(entries.begin(), entries.end(),
                            [](const Entry& a, const Entry& b) { return !a.file && !b.file && a.stat == b.stat; }),
                entries.end());

  Encoder e;
  e.bytes().append(kMagic);
  encode_roots(e, roots);
  e.u64(entries.size());
  std::string_view prev_path, prev_agent, prev_project;
  for (const auto& en : entries) {
    const std::string& path = en.stat.path;
    const size_t shared = shared_prefix(prev_path, path);
    e.u64(shared);
    e.str(std::string_view(path).substr(shared));
    prev_path = path;
    e.u64(static_cast<uint64_t>(en.stat.type) | (en.file ? kTranscript : 0));
    e.u64(en.stat.dev);
    e.u64(en.stat.ino);
    e.u64(en.stat.size);
    e.i64(en.stat.mtime_ns);
    if (!en.file) continue;
    const SourceFile& f = *en.file;
    e.u64(static_cast<uint64_t>(f.kind));
    const uint64_t same = (f.agent == prev_agent ? kSameAgent : 0) | (f.project == prev_project ? kSameProject : 0);
    e.u64(same);
    if (!(same & kSameAgent)) e.str(f.agent);
    if (!(same & kSameProject)) e.str(f.project);
    prev_agent = f.agent;
    prev_project = f.project;
    e.str(f.session_id);
    e.str(f.session_id_full);
    e.str(f.agent_id);
    e.str(f.workflow_run);
  }
  return e.take();
}

WatchCheck check_source_watch(std::string_view record, const std::vector<SourceRoot>& roots) {
  WatchCheck out;
  if (record.substr(0, kMagic.size()) != kMagic) return out;
  Encoder expected_roots;
  encode_roots(expected_roots, roots);
  record.remove_prefix(kMagic.size());
  if (record.substr(0, expected_roots.bytes().size()) != expected_roots.bytes()) return out;
  Decoder d(record.substr(expected_roots.bytes().size()));

  const uint64_t n = d.u64();
  if (!d.ok() || n > record.size()) return out;
  std::vector<std::string> paths;
  std::vector<PathStat> recorded;
  std::vector<SourceFile> files;
  std::vector<size_t> file_of(n, SIZE_MAX);  // entry -> index in files
  paths.reserve(n);
  recorded.reserve(n);
  std::string path, agent, project;
  for (uint64_t i = 0; i < n; ++i) {
    const uint64_t shared = d.u64();
    const std::string_view suffix = d.str();
    if (!d.ok() || shared > path.size()) return out;
    path.resize(shared);
    path.append(suffix);
    const uint64_t type = d.u64();
    PathStat st;
    st.path = path;
    st.type = static_cast<PathStat::Type>(type & 3);
    st.dev = d.u64();
    st.ino = d.u64();
    st.size = d.u64();
    st.mtime_ns = d.i64();
    if (type & kTranscript) {
      SourceFile f;
      f.path = path;
      f.kind = static_cast<SourceKind>(d.u64());
      const uint64_t same = d.u64();
      if (!(same & kSameAgent)) agent = std::string(d.str());
      if (!(same & kSameProject)) project = std::string(d.str());
      f.agent = agent;
      f.project = project;
      f.session_id = std::string(d.str());
      f.session_id_full = std::string(d.str());
      f.agent_id = std::string(d.str());
      f.workflow_run = std::string(d.str());
      f.dev = st.dev;
      f.ino = st.ino;
      f.size = st.size;
      f.mtime_ns = st.mtime_ns;
      file_of[i] = files.size();
      files.push_back(std::move(f));
    }
    if (!d.ok()) return out;
    paths.push_back(path);
    recorded.push_back(std::move(st));
  }
  if (!d.at_end()) return out;
  out.usable = true;
  out.files = files.size();

  std::vector<PathStat> now;
  stat_all(paths, now);
  out.layout_unchanged = true;
  for (size_t i = 0; i < n && out.layout_unchanged; ++i) {
    const PathStat& was = recorded[i];
    const PathStat& is = now[i];
    if (file_of[i] == SIZE_MAX) {
      out.layout_unchanged = is == was;
      continue;
    }
    // A transcript replaced, gone or no longer a file is for discovery to sort out.
    if (is.type != PathStat::Type::File || is.dev != was.dev || is.ino != was.ino) {
      out.layout_unchanged = false;
    } else if (is.size < was.size) {
      out.layout_unchanged = false;
    } else if (is.size != was.size || is.mtime_ns != was.mtime_ns) {
      SourceFile& f = files[file_of[i]];
      f.size = is.size;
      f.mtime_ns = is.mtime_ns;
      out.changed.push_back(f);
    }
  }
  if (!out.layout_unchanged) out.changed.clear();
  if (out.layout_unchanged && !out.changed.empty()) {
    out.all_files = std::move(files);
    for (size_t i = 0; i < n; ++i)
      if (file_of[i] == SIZE_MAX) out.observed.push_back(std::move(recorded[i]));
  }
  return out;
}

std::vector<SourceFile> files_to_read(const WatchCheck& check) {
  std::vector<SourceFile> out = check.changed;
  const bool rollout_changed = std::any_of(out.begin(), out.end(), [](const SourceFile& f) {
    return f.kind == SourceKind::CodexRollout;
  });
  if (rollout_changed)
    for (const auto& f : check.all_files)
      if (f.kind == SourceKind::CodexSessionIndex &&
          std::none_of(out.begin(), out.end(), [&](const SourceFile& c) { return c.path == f.path; }))
        out.push_back(f);
  return out;
}

std::optional<std::string> read_source_watch(const Store& store) {
  LmdbTxn r(store.env(), true);
  auto v = r.get(store.db().meta, meta_key::kSourceWatch);
  if (!v) return std::nullopt;
  return std::string(*v);
}

void keep_source_watch(const Store& store, const std::string& record) {
  LmdbTxn w(store.env(), false);
  auto v = w.get(store.db().meta, meta_key::kSourceWatch);
  if (v ? *v == record : record.empty()) return;
  if (record.empty())
    w.del(store.db().meta, meta_key::kSourceWatch);
  else
    w.put(store.db().meta, meta_key::kSourceWatch, record);
  w.commit();
}

int64_t wall_clock_ns() {
  struct timespec ts {};
  ::clock_gettime(CLOCK_REALTIME, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1000000000LL + ts.tv_nsec;
}

}  // namespace osearch
