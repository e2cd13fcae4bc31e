#include "engine/index/source_watch.h"

#include <time.h>

#include <algorithm>
#include <atomic>
#include <functional>
#include <memory>
#include <unordered_map>
#include <unordered_set>
#include <set>
#include <thread>

#include "engine/index/source_watch_format.h"
#include "engine/store/codec.h"
#include "engine/store/store.h"
#include "ingest/known_tree.h"
#include "ingest/layout_util.h"
#include "ingest/worker_thread.h"

namespace osearch {
using namespace source_watch_format;
namespace {

constexpr int64_t kTrustAfterNs = 2'000'000'000;  // a directory's mtime settles after this

// What one thread found in its blocks.
struct BlockFindings {
  bool ok = true;               // every entry decoded
  bool layout_changed = false;
  size_t files = 0;
  std::vector<SourceFile> changed;
  std::vector<size_t> patch_at;  // where each changed file's size and mtime are in the record
  std::vector<SourceFile> session_indexes;
  size_t only_seen = 0;  // transcripts of `only` found
  std::vector<PathStat> moved_dirs;  // as they are now (Seen::EntriesMoved)
};

SourceFile source_file(const std::string& path, const PathStat& now, uint64_t kind, std::string_view agent,
                       std::string_view project, std::string_view sid, std::string_view sid_full,
                       std::string_view agent_id, std::string_view run) {
  SourceFile f;
  f.path = path;
  f.dev = now.dev;
  f.ino = now.ino;
  f.size = now.size;
  f.mtime_ns = now.mtime_ns;
  f.kind = static_cast<SourceKind>(kind);
  f.agent = std::string(agent);
  f.project = std::string(project);
  f.session_id = std::string(sid);
  f.session_id_full = std::string(sid_full);
  f.agent_id = std::string(agent_id);
  f.workflow_run = std::string(run);
  return f;
}

// How a recorded entry stands now. A registry or missing path must be exactly as recorded; a
// directory too, or the same directory whose entries changed (EntriesMoved: listed again, the
// rest of the tree taken as recorded, ingest/known_tree.h); a transcript must be the same file,
// not shorter (Grown: appended to or rewritten in place, for a targeted read). Anything else
// (replaced, gone, shrunk, no longer a file) is Moved: the full plan's.
enum class Seen { Same, Grown, EntriesMoved, Moved };
Seen judge(const PathStat& was, const PathStat& is, bool transcript) {
  if (!transcript) {
    if (is.type != was.type || is.dev != was.dev || is.ino != was.ino) return Seen::Moved;
    if (is.size == was.size && is.mtime_ns == was.mtime_ns) return Seen::Same;
    return is.type == PathStat::Type::Dir ? Seen::EntriesMoved : Seen::Moved;
  }
  if (is.type != PathStat::Type::File || is.dev != was.dev || is.ino != was.ino || is.size < was.size) return Seen::Moved;
  return is.size != was.size || is.mtime_ns != was.mtime_ns ? Seen::Grown : Seen::Same;
}

// Called for each entry when the blocks are only decoded: its stat as recorded (path included), and
// whether it is a transcript.
using EntryVisitor = std::function<void(const PathStat& was, bool transcript)>;

// `starts` holds one more element: the blocks' end.
// With `decode_only`, nothing is stat'ed: the blocks are decoded (`check`: is the record whole?)
// and each entry handed to it.
// With `only`, just those paths are stat'ed: every other entry is taken as recorded.
void check_blocks(std::string_view record, size_t entries_at, const std::vector<uint32_t>& starts, size_t first,
                  size_t last, uint64_t n, const std::atomic<bool>& stop, BlockFindings& out,
                  const EntryVisitor* decode_only = nullptr, const std::set<std::string>* only = nullptr) {
  std::string path;
  PathStat is;  // the entry's stat, when stat'ed (its path is `path`)
  for (size_t b = first; b < last && !stop.load(std::memory_order_relaxed); ++b) {
    Decoder r(record, entries_at + starts[b]);
    const uint64_t count = std::min<uint64_t>(kBlockEntries, n - b * kBlockEntries);
    path.clear();
    std::string_view agent, project;
    for (uint64_t i = 0; i < count; ++i) {
      const uint64_t shared = r.u64();
      const std::string_view suffix = r.str();
      if (!r.ok() || shared > path.size()) return void(out.ok = false);
      path.resize(shared);
      path.append(suffix);
      const uint64_t flags = r.u64();
      PathStat was;
      was.type = static_cast<PathStat::Type>(flags & kTypeMask);
      was.listed = flags & kListed;
      was.dev = r.u64();
      was.ino = r.u64();
      const size_t stat_at = r.pos();
      was.size = r.fixed(8);
      was.mtime_ns = static_cast<int64_t>(r.fixed(8));
      uint64_t kind = 0;
      std::string_view sid, sid_full, agent_id, run;
      if (flags & kTranscript) {
        kind = r.u64();
        if (!(flags & kSameAgent)) agent = r.str();
        if (!(flags & kSameProject)) project = r.str();
        sid = flags & kSessionIsStem ? stem_of(path) : r.str();
        sid_full = r.str();
        agent_id = r.str();
        run = r.str();
      }
      if (!r.ok()) return void(out.ok = false);
      if (decode_only) {
        was.path = path;
        (*decode_only)(was, flags & kTranscript);
        continue;
      }
      const bool looked_at = !only || only->contains(path);
      if (only && looked_at && (flags & kTranscript)) ++out.only_seen;
      int err = 0;
      if (looked_at) stat_into(path.c_str(), is, err);  // (no path copied: the walk stats thousands)
      const PathStat& now = looked_at ? is : was;
      const Seen seen = judge(was, now, flags & kTranscript);
      // (A check narrowed to named files reads no directory's entries: the full check's to find.)
      if (seen == Seen::Moved || (seen == Seen::EntriesMoved && only)) {
        out.layout_changed = true;
      } else if (seen == Seen::EntriesMoved) {
        out.moved_dirs.push_back(now);
        out.moved_dirs.back().path = path;
      } else if (flags & kTranscript) {
        ++out.files;
        if (seen == Seen::Grown) {
          out.changed.push_back(source_file(path, now, kind, agent, project, sid, sid_full, agent_id, run));
          out.patch_at.push_back(stat_at);
        }
        if (static_cast<SourceKind>(kind) == SourceKind::CodexSessionIndex)
          out.session_indexes.push_back(source_file(path, now, kind, agent, project, sid, sid_full, agent_id, run));
      }
      if (out.layout_changed) return;
    }
    if (r.pos() != entries_at + starts[b + 1]) return void(out.ok = false);  // a block ends where the next begins
  }
}

// The entry count, the blocks' starts (plus their end) and where they begin, after the roots at `at`.
struct Layout {
  uint64_t n = 0;
  std::vector<uint32_t> starts;
  size_t entries_at = 0;
};
std::optional<Layout> read_layout(std::string_view record, size_t at) {
  Decoder r(record, at);
  Layout l;
  l.n = r.u64();
  const uint64_t blocks = r.u64();
  const uint64_t body_bytes = r.u64();
  if (!r.ok() || blocks != (l.n + kBlockEntries - 1) / kBlockEntries || blocks > record.size() / 4) return std::nullopt;
  l.starts.resize(blocks);
  for (auto& s : l.starts) s = static_cast<uint32_t>(r.fixed(4));
  if (!r.ok() || record.size() - r.pos() != body_bytes || body_bytes > UINT32_MAX) return std::nullopt;
  l.entries_at = r.pos();
  l.starts.push_back(static_cast<uint32_t>(body_bytes));
  if (l.starts[0] != 0) return std::nullopt;
  for (size_t b = 0; b < blocks; ++b)
    if (l.starts[b] >= l.starts[b + 1]) return std::nullopt;
  return l;
}

// The layout of a record kept for these roots (nullopt: other roots, or it does not decode), and
// where its entries' header begins.
std::optional<Layout> layout_for(std::string_view record, const std::vector<SourceRoot>& roots) {
  Encoder head;
  encode_roots(head, roots);
  if (!trusted_magic(record)) return std::nullopt;
  if (record.substr(kMagic.size(), head.bytes().size()) != head.bytes()) return std::nullopt;
  return read_layout(record, kMagic.size() + head.bytes().size());
}

// Decodes every entry of a record of any roots, handing each to `visit`. False: it does not decode whole.
bool visit_entries(std::string_view record, const EntryVisitor& visit) {
  if (!has_magic(record)) return false;
  Decoder r(record, kMagic.size());
  const uint64_t roots = r.u64();
  for (uint64_t i = 0; i < roots && r.ok(); ++i) {
    r.str();
    r.str();
  }
  if (!r.ok()) return false;
  const std::optional<Layout> layout = read_layout(record, r.pos());
  if (!layout) return false;
  std::atomic<bool> stop{false};
  BlockFindings found;
  check_blocks(record, layout->entries_at, layout->starts, 0, layout->starts.size() - 1, layout->n, stop, found, &visit);
  return found.ok;
}

}  // namespace

bool source_watch_decodes(std::string_view record) {
  return visit_entries(record, [](const PathStat&, bool) {});
}

namespace {

// The directory whose inotify watch sees a change to `path`: itself for a directory, else its parent.
void add_watch_dir(std::vector<std::string>& dirs, const std::string& path, PathStat::Type type) {
  if (type == PathStat::Type::Dir) {
    dirs.push_back(path);
    return;
  }
  const size_t slash = path.rfind('/');
  if (slash != std::string::npos) dirs.push_back(slash == 0 ? "/" : path.substr(0, slash));
}

std::vector<std::string> sorted_unique(std::vector<std::string> dirs) {
  std::sort(dirs.begin(), dirs.end());
  dirs.erase(std::unique(dirs.begin(), dirs.end()), dirs.end());
  return dirs;
}

}  // namespace

std::vector<std::string> source_watch_dirs(std::string_view record) {
  std::vector<std::string> dirs;
  const bool whole = visit_entries(record, [&](const PathStat& was, bool) { add_watch_dir(dirs, was.path, was.type); });
  if (!whole) return {};
  return sorted_unique(std::move(dirs));
}

std::vector<std::string> discovery_watch_dirs(const std::vector<PathStat>& observed, const std::vector<SourceFile>& files) {
  std::vector<std::string> dirs;
  for (const auto& o : observed) add_watch_dir(dirs, o.path, o.type);
  for (const auto& f : files) add_watch_dir(dirs, f.path, PathStat::Type::File);
  return sorted_unique(std::move(dirs));
}

bool has_recent_directory(const std::vector<PathStat>& observed, int64_t now_ns) {
  return std::any_of(observed.begin(), observed.end(), [&](const PathStat& o) {
    return o.type == PathStat::Type::Dir && o.mtime_ns > now_ns - kTrustAfterNs;
  });
}

SourceWalk::SourceWalk(std::string_view record, const std::vector<SourceRoot>& roots) : record_(record) {
  const std::optional<Layout> layout = layout_for(record_, roots);
  if (!layout) return;
  entries_ = layout->n;
  entries_at_ = layout->entries_at;
  starts_ = layout->starts;
  usable_ = true;
}

void SourceWalk::work() {
  if (!usable_) return;
  const size_t blocks = starts_.size() - 1;
  std::atomic<bool> stop{false};
  for (size_t b; !differs_.load(std::memory_order_relaxed) && (b = next_.fetch_add(1)) < blocks;) {
    BlockFindings found;
    check_blocks(record_, entries_at_, starts_, b, b + 1, entries_, stop, found);
    if (!found.ok || found.layout_changed || !found.changed.empty() || !found.moved_dirs.empty()) differs_ = true;
  }
}

bool recent_sources_unchanged(std::string_view record, const std::vector<SourceRoot>& roots, size_t count) {
  if (!layout_for(record, roots)) return false;
  struct Recent {
    PathStat was;
    bool transcript = false;
  };
  std::vector<Recent> recent;  // the `count` newest so far, newest first
  const bool whole = visit_entries(record, [&](const PathStat& was, bool transcript) {
    if (recent.size() == count && was.mtime_ns <= recent.back().was.mtime_ns) return;
    auto at = std::find_if(recent.begin(), recent.end(), [&](const Recent& r) { return r.was.mtime_ns < was.mtime_ns; });
    recent.insert(at, {was, transcript});
    if (recent.size() > count) recent.pop_back();
  });
  if (!whole) return false;
  for (const auto& r : recent) {
    int err = 0;
    if (judge(r.was, stat_path(r.was.path, err), r.transcript) != Seen::Same) return false;
  }
  return true;
}

namespace {

// The record's every path as `check` found it: the recorded stat where it found that, the new one
// of a grown transcript or a directory whose entries moved. Null when the record does not decode.
std::shared_ptr<const KnownTree> known_tree_of(std::string_view record, const WatchCheck& check) {
  std::unordered_map<std::string_view, const PathStat*> moved;
  std::unordered_map<std::string_view, const SourceFile*> grown;
  for (const auto& d : check.moved_dirs) moved.emplace(d.path, &d);
  for (const auto& f : check.changed) grown.emplace(f.path, &f);
  auto tree = std::make_shared<KnownTree>();
  const bool whole = visit_entries(record, [&](const PathStat& was, bool transcript) {
    if (transcript) {
      if (auto g = grown.find(was.path); g != grown.end()) {
        const SourceFile& f = *g->second;
        return tree->add(PathStat{f.path, PathStat::Type::File, f.dev, f.ino, f.size, f.mtime_ns}, true, false);
      }
    } else if (auto m = moved.find(was.path); m != moved.end()) {
      PathStat now = *m->second;
      now.listed = was.listed;
      return tree->add(std::move(now), false, true);
    }
    tree->add(was, transcript, false);
  });
  if (!whole) return nullptr;
  tree->finish();
  return tree;
}

}  // namespace

WatchCheck check_source_watch(std::string_view record, const std::vector<SourceRoot>& roots,
                              const std::set<std::string>* only) {
  WatchCheck out;
  const std::optional<Layout> layout = layout_for(record, roots);
  if (!layout) return out;
  const uint64_t n = layout->n;
  const size_t entries_at = layout->entries_at, blocks = layout->starts.size() - 1;
  const std::vector<uint32_t>& starts = layout->starts;

  std::atomic<bool> stop{false};
  BlockFindings first, second;
  const size_t half = blocks / 2;
  if (only) {  // a decode and a few stats: one thread
    check_blocks(record, entries_at, starts, 0, blocks, n, stop, first, nullptr, only);
    if (first.ok && first.only_seen != only->size()) first.layout_changed = true;  // not all recorded transcripts
  } else if (n >= 256) {
    auto run_second = [&] {
      check_blocks(record, entries_at, starts, half, blocks, n, stop, second);
      if (!second.ok || second.layout_changed) stop = true;
    };
    std::thread other = start_worker(run_second);
    check_blocks(record, entries_at, starts, 0, half, n, stop, first);
    if (!first.ok || first.layout_changed) stop = true;
    other.join();
  } else {
    check_blocks(record, entries_at, starts, 0, blocks, n, stop, first);
  }
  if (!first.ok || !second.ok) return out;
  out.usable = true;
  if (first.layout_changed || second.layout_changed) return out;
  out.files = first.files + second.files;
  for (BlockFindings* f : {&first, &second}) {
    for (auto& c : f->changed) out.changed.push_back(std::move(c));
    for (auto& c : f->session_indexes) out.session_indexes.push_back(std::move(c));
    for (auto& d : f->moved_dirs) out.moved_dirs.push_back(std::move(d));
  }
  if (!out.moved_dirs.empty()) {
    out.known_tree = known_tree_of(record, out);
    if (!out.known_tree) out.usable = false;
    return out;
  }
  out.layout_unchanged = true;
  if (out.changed.empty()) return out;
  out.updated_record = std::string(record);
  size_t k = 0;
  for (BlockFindings* f : {&first, &second})
    for (size_t at : f->patch_at) {
      const SourceFile& c = out.changed[k++];
      std::string fixed;
      put_fixed64(fixed, c.size);
      put_fixed64(fixed, static_cast<uint64_t>(c.mtime_ns));
      out.updated_record.replace(at, fixed.size(), fixed);
    }
  return out;
}

std::vector<SourceFile> files_to_read(const WatchCheck& check) {
  std::vector<SourceFile> out = check.changed;
  const bool rollout_changed = std::any_of(out.begin(), out.end(), [](const SourceFile& f) {
    return f.kind == SourceKind::CodexRollout;
  });
  if (rollout_changed)
    for (const auto& f : check.session_indexes)
      if (std::none_of(out.begin(), out.end(), [&](const SourceFile& c) { return c.path == f.path; })) out.push_back(f);
  return out;
}

std::optional<std::vector<const SourceFile*>> files_to_plan(const WatchCheck& check,
                                                            const std::vector<SourceFile>& files) {
  const KnownTree& tree = *check.known_tree;
  std::unordered_set<std::string_view> grown;
  for (const auto& f : check.changed) grown.insert(f.path);
  std::vector<const SourceFile*> out;
  size_t recorded = 0;
  bool rollout_moved = false;  // (every rollout comes before the session indexes)
  for (const auto& f : files) {
    const bool was_recorded = tree.is_transcript(f.path);
    recorded += was_recorded;
    // A session index is read whole whenever a rollout changed (as files_to_read does).
    const bool reread_index = f.kind == SourceKind::CodexSessionIndex && rollout_moved;
    if (was_recorded && !grown.count(f.path) && !reread_index) continue;
    out.push_back(&f);
    rollout_moved = rollout_moved || f.kind == SourceKind::CodexRollout;
  }
  if (recorded != tree.transcripts()) return std::nullopt;
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
