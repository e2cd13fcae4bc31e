// QueryIndex: the default path's freshness beside the query (cli/query_index.h).
#include "cli/query_index.h"

#include <cstdio>
#include <future>
#include <string>
#include <system_error>

#include "cli/huge_pages.h"
#include "cli/terminal_text.h"
#include "engine/index/indexer.h"
#include "engine/index/source_watch.h"
#include "engine/index/watch_beat.h"
#include "engine/query/memories.h"
#include "engine/store/errors.h"
#include "ingest/worker_thread.h"

namespace osearch {
namespace {

// The newest recorded sources stat'ed before a query starts beside the rest of the walk: what an
// agent's own session changes (its transcript, the directory a new session file appears in).
constexpr size_t kRecentSources = 16;

// The default path's first steps: memory files edited since their last read are re-read (a stat per
// active memory; their own env and lock, so this never waits for an indexer). False when no source
// needs checking: --no-refresh, or a live `index --watch` vouches that the index is current.
bool sources_need_checking(const Context& ctx) {
  if (ctx.no_refresh) return false;
  refresh_memories(ctx.index_dir, true);
  return !watcher_keeps_current(ctx.index_dir, ctx.roots);
}

// The incremental run of the default path (after sources_need_checking); `known`: see refresh_changed.
uint64_t refresh_run(const Context& ctx, bool& stale, const WatchCheck* known = nullptr) {
  IndexOptions opts;
  opts.wait_for_lock = false;     // a running indexer keeps going; we answer from the committed state
  opts.skip_if_read_only = true;  // a backup or another user's index: answer from it as it is
  opts.quick_check = true;        // an unchanged corpus costs stat calls only
  opts.known_check = known;
  opts.count_unknown_garbage = false;
  // A refresh that turns out to be a build runs as `index` does, without huge pages (cli/huge_pages.h).
  opts.planned = [](const IndexProgress& plan) { huge_pages_off_for_bulk_read(plan.bytes_total); };
  try {
    IndexSummary s = run_index(ctx.index_dir, ctx.roots, opts);
    stale = s.busy || s.read_only;
    // Said once, by the refresh that marks them: stdout stays the answer.
    for (const auto& line : s.emptied_roots) {
      if (ctx.warnings) ctx.warnings->push_back(line);
      if (!ctx.quiet) print_warning(line);
    }
    return s.files_changed + s.files_deleted;
  } catch (const NoSpace& e) {
    // What was committed is consistent: answer from it, flagged stale, and say why.
    if (!ctx.quiet) std::fprintf(stderr, "osearch: warning: the index was not refreshed: %s\n", e.what());
    stale = true;
    return 0;
  }
}

}  // namespace

uint64_t refresh_before_query(const Context& ctx, bool& stale) {
  stale = false;
  return sources_need_checking(ctx) ? refresh_run(ctx, stale) : 0;
}

uint64_t refresh_changed(const Context& ctx, const WatchCheck& check, bool& stale) {
  return refresh_run(ctx, stale, &check);
}

QueryIndex::QueryIndex(const Context& ctx) : ctx_(ctx) {
  if (ctx.readers) {
    reader_ = &ctx.readers->open(ctx, refreshed_files, stale);
    return;
  }
  if (sources_need_checking(ctx) && !open_checking()) refreshed_files = refresh_run(ctx, stale);
  if (!reader_) {
    own_ = std::make_unique<IndexReader>(ctx.index_dir);
    reader_ = own_.get();
  }
}

bool QueryIndex::open_checking() {
  std::unique_ptr<IndexReader> r;
  try {
    r = std::make_unique<IndexReader>(ctx_.index_dir);
  } catch (...) {
    return false;  // no index yet, or damage: the refresh path creates it, or names what is wrong
  }
  const std::optional<std::string_view> record = quick_check_record(r->txn(), r->db());
  if (!record) return false;
  // The walker starts first: the newest sources are stat'ed while it is under way. It views the
  // record in r's snapshot: r (then own_) outlives it, as every path below joins the walk first.
  walk_ = std::make_shared<SourceWalk>(*record, ctx_.roots);
  // (On another CPU than the query's from its start: ingest/worker_thread.h.)
  try {
    std::packaged_task<void()> walk([walk = walk_] { walk->work(); });
    std::future<void> done = walk.get_future();
    walker_thread_ = start_worker<std::jthread>(std::move(walk));
    walker_ = std::move(done);
  } catch (const std::system_error&) {
    // No second thread: confirm() walks it all.
  }
  bool recent_unchanged = false;
  try {
    recent_unchanged = recent_sources_unchanged(*record, ctx_.roots, kRecentSources);
  } catch (...) {
    // (Not thrown past here: the walker must stop before r, whose snapshot it reads, goes.)
  }
  if (!recent_unchanged) {
    walk_->abandon();
    walker_thread_ = {};  // joined; the walk's exception, if any, goes with walker_: the refresh decides
    walker_ = {};
    walk_.reset();
    return false;
  }
  own_ = std::move(r);
  reader_ = own_.get();
  return true;
}

bool QueryIndex::confirmed() {
  if (walk_) {
    bool failed = false;
    try {
      walk_->work();  // the blocks the walker has not taken yet
    } catch (...) {
      failed = true;
    }
    try {
      if (walker_.valid()) walker_.get();
    } catch (...) {
      failed = true;
    }
    changed_ = failed || !walk_->unchanged();  // in doubt the refresh decides, and reports
    walk_.reset();
  }
  return !changed_;
}

void QueryIndex::refresh_and_reopen() {
  // The reader's env is closed before a writer opens it: LMDB allows one open per process.
  reader_ = nullptr;
  own_.reset();
  changed_ = false;
  refreshed_files = refresh_run(ctx_, stale);
  own_ = std::make_unique<IndexReader>(ctx_.index_dir);
  reader_ = own_.get();
}

}  // namespace osearch
