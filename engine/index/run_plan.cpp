#include "engine/index/run_plan.h"

#include <fcntl.h>
#include <unistd.h>

#include <filesystem>
#include <string_view>

#include "engine/index/drop_sessions.h"
#include "engine/index/salvage.h"
#include "engine/store/crc32c.h"
#include "engine/store/lmdb.h"
#include "ingest/jsonl_reader.h"
#include "ingest/layout_util.h"

namespace osearch {
namespace {

// The bytes before the stored offset are those the last read consumed (FileState::tail_crc). A file
// that cannot be read here says nothing (its read reports it); a compressed rollout's offset is in
// decompressed bytes, and is never rewritten. A state written before tails were kept cannot tell
// an append from a rewrite: its file is read whole once, and keeps a tail from then on.
bool tail_unchanged(const SourceFile& f, const FileStateView& was) {
  if (f.path.ends_with(".zst")) return true;
  if (!was.tail_kept) return was.offset == 0;
  if (was.tail_len == 0 || was.tail_len > kTailBytes || was.offset < was.tail_len) return true;
  const int fd = ::open(f.path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return true;
  char bytes[kTailBytes];
  const ssize_t n = ::pread(fd, bytes, was.tail_len, static_cast<off_t>(was.offset - was.tail_len));
  ::close(fd);
  if (n < 0) return true;
  return static_cast<uint64_t>(n) == was.tail_len &&
         crc32c(std::string_view(bytes, static_cast<size_t>(n))) == was.tail_crc;
}

// omp's title slot (ingest/pi_family.cpp: line 1, `{"type":"title",…}` padded to 256 bytes) is the
// one part of a transcript a writer rewrites in place. A file that cannot be read here says no (its
// read reports it).
bool starts_with_title_slot(const SourceFile& f) {
  static constexpr std::string_view kSlotStart = R"({"type":"title")";
  const int fd = ::open(f.path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  char head[kSlotStart.size()];
  const ssize_t n = ::pread(fd, head, sizeof head, 0);
  ::close(fd);
  return n == static_cast<ssize_t>(sizeof head) && std::string_view(head, sizeof head) == kSlotStart;
}

}  // namespace

bool read_again_whole(const SourceFile& f, const FileStateView& was) {
  // A compressed rollout's offset counts decompressed bytes: only its own size can show a shrink.
  const bool shrunk = f.path.ends_with(".zst") ? f.size < was.size : f.size < was.offset;
  if (was.deleted || was.dev != f.dev || was.ino != f.ino || shrunk) return true;
  if (f.mtime_ns == was.mtime_ns && f.size == was.size) return false;
  // Touched without growing. The writers only append (their mtime moves with their size), so bytes
  // changed in place may lie anywhere before the offset, past what the tail shows: a same-length
  // redaction, a sync tool writing the file over. It is read whole. Not an omp session file that
  // starts with a title slot: omp rewrites the slot so, and it is read again on its own. A compressed
  // rollout's offset counts decompressed bytes; a workflow run and Codex's session index are read
  // whole anyway.
  if (f.size == was.size && !f.path.ends_with(".zst") && f.kind != SourceKind::ClaudeWorkflowRun &&
      f.kind != SourceKind::CodexSessionIndex && !(head_rewritten_in_place(f.kind) && starts_with_title_slot(f)))
    return true;
  // Grown: an append keeps the bytes before the offset, a rewrite does not.
  return !tail_unchanged(f, was);
}

std::vector<WorkItem> plan_work(const std::vector<const SourceFile*>& to_plan, const StoredStates& states,
                                std::set<std::string>& drop, IndexSummary& summary) {
  std::vector<WorkItem> work;
  bool codex_changed = false;
  for (const SourceFile* planned : to_plan) {
    const SourceFile& f = *planned;
    const FileStateView* stored = states.find(f.path);
    FileState st;
    const bool known_file = stored != nullptr;
    if (known_file) {
      const FileStateView& was = *stored;
      const bool replaced = read_again_whole(f, was);
      // A session index is read whole whenever a rollout changed: the sessions its earlier lines
      // named may only now exist.
      const bool reread_index = f.kind == SourceKind::CodexSessionIndex && codex_changed;
      if (!replaced && f.size == was.size && f.mtime_ns == was.mtime_ns && !reread_index) {
        ++summary.files_skipped;
        continue;
      }
      st = was.state();  // (only for a file read again: most are skipped above)
      if (replaced) {
        if (!st.session_id.empty()) drop.insert(st.session_id);
        reset_for_reread(st);
      }
    }
    if (f.kind == SourceKind::CodexRollout) codex_changed = true;
    if (f.kind == SourceKind::CodexSessionIndex) reset_for_reread(st);
    work.push_back({&f, known_file ? std::make_unique<FileState>(std::move(st)) : nullptr});
  }
  return work;
}

void mark_vanished_files(const StoredStates& states, const std::unordered_set<std::string_view>& discovered,
                         const std::vector<SourceRoot>& roots, IngestBatch& batch, EmptiedRoots& emptied,
                         IndexSummary& summary) {
  std::vector<std::string> root_dirs;
  for (const auto& r : roots) root_dirs.push_back(r.dir);
  for (const FileStateView& was : states.all()) {
    if (was.deleted || discovered.count(was.path)) continue;
    const std::string path(was.path);
    if (!under_any(path, root_dirs)) continue;
    FileState gone = was.state();  // without its links (the plan's decode): a file that comes back is read whole
    gone.deleted = true;
    batch.set_file_state(std::move(gone));
    if (!was.session_id.empty()) batch.mark_source_deleted(std::string(was.session_id), path);
    ++summary.files_deleted;
    emptied.marked_deleted(path);
  }
}

void keep_sessions_with_vanished_files(const Store& store, std::set<std::string>& drop,
                                       const std::set<std::string>& interrupted,
                                       const std::unordered_set<std::string_view>& discovered) {
  if (drop.empty()) return;
  LmdbTxn r(store.env(), true);
  for (auto it = drop.begin(); it != drop.end();) {
    bool vanished = false;
    if (!interrupted.count(*it)) {
      const std::string pfx = *it + '\0';
      LmdbCursor cur(r, store.db().session_files);
      for (bool ok = cur.seek(pfx); ok && cur.key().starts_with(pfx) && !vanished; ok = cur.next()) {
        const std::string path(cur.value());
        std::error_code ec;
        vanished = !discovered.count(path) && !std::filesystem::exists(path, ec);
      }
    }
    it = vanished ? drop.erase(it) : std::next(it);
  }
}

void load_skipped_links(const Store& store, std::vector<WorkItem>& work) {
  std::optional<LmdbTxn> r;
  for (auto& w : work) {
    if (!w.state || !w.state->links_unread) continue;
    if (!r) r.emplace(store.env(), true);
    if (auto v = r->get(store.db().file_links, file_key(w.state->path))) w.state->carry.skipped_links = std::string(*v);
    w.state->links_unread = false;
  }
}

}  // namespace osearch
