// Writing the source-watch record (its format: source_watch_format.h).
#include <algorithm>

#include "engine/index/source_watch.h"
#include "engine/index/source_watch_format.h"

namespace osearch {
using namespace source_watch_format;
namespace {

// A path to record: views of the run's observations and files (tens of thousands: no copies).
struct Entry {
  std::string_view path;
  PathStat::Type type = PathStat::Type::Missing;
  uint64_t dev = 0, ino = 0, size = 0;
  int64_t mtime_ns = 0;
  bool listed = false;
  const SourceFile* file = nullptr;      // a transcript
  const PathStat* observed = nullptr;    // else an observation
};

bool path_before(const Entry& a, const Entry& b) {
  if (a.path != b.path) return a.path < b.path;
  return (a.file != nullptr) < (b.file != nullptr);
}

size_t shared_prefix(std::string_view a, std::string_view b) {
  size_t n = 0;
  while (n < a.size() && n < b.size() && a[n] == b[n]) ++n;
  return n;
}

}  // namespace

std::string encode_source_watch(const std::vector<SourceRoot>& roots, const std::vector<PathStat>& observed,
                                const std::vector<SourceFile>& files, int64_t now_ns) {
  std::vector<Entry> entries;
  entries.reserve(observed.size() + files.size());
  if (has_recent_directory(observed, now_ns)) return {};
  for (const auto& f : files)
    entries.push_back({f.path, PathStat::Type::File, f.dev, f.ino, f.size, f.mtime_ns, false, &f, nullptr});
  // The files come sorted but for the session indexes at their end: sorted whole only when not, the
  // observations (a few per directory) apart, then merged in.
  if (!std::is_sorted(entries.begin(), entries.end(), path_before)) std::sort(entries.begin(), entries.end(), path_before);
  const size_t files_end = entries.size();
  for (const auto& o : observed) entries.push_back({o.path, o.type, o.dev, o.ino, o.size, o.mtime_ns, o.listed, nullptr, &o});
  std::sort(entries.begin() + static_cast<std::ptrdiff_t>(files_end), entries.end(), path_before);
  std::inplace_merge(entries.begin(), entries.begin() + static_cast<std::ptrdiff_t>(files_end), entries.end(), path_before);
  // A root is observed twice (opened, then listed): one entry, listed, unless it changed in between.
  size_t kept = 0;
  for (size_t i = 0; i < entries.size(); ++i) {
    if (kept > 0 && entries[i].observed && entries[kept - 1].observed &&
        entries[kept - 1].observed->same_as(*entries[i].observed)) {
      entries[kept - 1].listed = entries[kept - 1].listed || entries[i].listed;
      continue;
    }
    if (kept != i) entries[kept] = entries[i];
    ++kept;
  }
  entries.resize(kept);

  // The header is put in front of the body once it is written: room for it is kept, so the record is
  // built in one buffer (a few MB at tens of thousands of files, each fresh page a fault).
  Encoder e;
  e.bytes().append(kMagic);
  encode_roots(e, roots);
  const size_t blocks = (entries.size() + kBlockEntries - 1) / kBlockEntries;
  const size_t header_room = e.bytes().size() + 3 * 10 + 4 * blocks;  // (three varints, the blocks' starts)
  Encoder body;
  body.bytes().reserve(header_room + entries.size() * 72);
  std::vector<uint32_t> starts;
  std::string_view prev_path, prev_agent, prev_project;
  for (size_t i = 0; i < entries.size(); ++i) {
    if (i % kBlockEntries == 0) {
      if (body.bytes().size() > UINT32_MAX) return {};
      starts.push_back(static_cast<uint32_t>(body.bytes().size()));
      prev_path = prev_agent = prev_project = {};
    }
    const Entry& en = entries[i];
    const std::string_view path = en.path;
    const size_t shared = shared_prefix(prev_path, path);
    body.u64(shared);
    body.str(path.substr(shared));
    prev_path = path;
    uint64_t flags = static_cast<uint64_t>(en.type);
    if (!en.file && en.listed) flags |= kListed;
    if (en.file) {
      flags |= kTranscript;
      if (en.file->session_id == stem_of(path)) flags |= kSessionIsStem;
      if (!prev_agent.empty() && en.file->agent == prev_agent) flags |= kSameAgent;
      if (!prev_project.empty() && en.file->project == prev_project) flags |= kSameProject;
    }
    body.u64(flags);
    body.u64(en.dev);
    body.u64(en.ino);
    put_fixed64(body.bytes(), en.size);
    put_fixed64(body.bytes(), static_cast<uint64_t>(en.mtime_ns));
    if (!en.file) continue;
    const SourceFile& f = *en.file;
    body.u64(static_cast<uint64_t>(f.kind));
    if (!(flags & kSameAgent)) body.str(f.agent);
    if (!(flags & kSameProject)) body.str(f.project);
    if (!(flags & kSessionIsStem)) body.str(f.session_id);
    body.str(f.session_id_full);
    body.str(f.agent_id);
    body.str(f.workflow_run);
    prev_agent = f.agent;
    prev_project = f.project;
  }
  e.u64(entries.size());
  e.u64(starts.size());
  e.u64(body.bytes().size());
  for (uint32_t s : starts) put_fixed32(e.bytes(), s);
  body.bytes().insert(0, e.bytes());  // (in place when the room above was enough)
  return body.take();
}

}  // namespace osearch
