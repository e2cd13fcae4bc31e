// The open, fresh index a query command answers from, and how its freshness is paid for.
#pragma once

#include <future>
#include <memory>
#include <thread>
#include <type_traits>

#include "cli/options.h"
#include "engine/index/source_watch.h"
#include "engine/query/reader.h"

namespace osearch {

// Lazy freshness shared by the query commands: an incremental refresh unless --no-refresh.
// Returns the number of files that changed; sets `stale` when another indexer held the lock.
uint64_t refresh_before_query(const Context& ctx, bool& stale);
// The same refresh, reading just the transcripts `check` names: the caller's own check on the
// snapshot it held (a long-lived frontend's SourceGate, engine/index/source_gate.h).
uint64_t refresh_changed(const Context& ctx, const WatchCheck& check, bool& stale);

// ctx.readers' reader when set (the MCP server and the web app keep one open); else a reader of its
// own, fresh on the default path. There the quick check's stat walk (every recorded source) runs in a
// second thread beside the query instead of before it: the reader opens first, the walk starts, the
// newest few sources are stat'ed meanwhile, and only when they are as recorded does run() start the
// query while the walk goes on (the query's thread takes the blocks left once it is done). Should the
// walk find a change, the answer is dropped unprinted, the index is refreshed and the query runs
// again on the new snapshot. A change among the newest sources (a transcript being written)
// refreshes first, so no query is wasted on the common change.
class QueryIndex {
 public:
  explicit QueryIndex(const Context& ctx);
  IndexReader& reader() { return *reader_; }

  // Runs `attempt(reader())` and returns what it returns, once the sources are known unchanged since
  // the snapshot it read (see above). `attempt` must print nothing before it calls confirm() (run()
  // calls it after `attempt` returns); an error it throws is only rethrown once confirmed.
  template <typename Attempt>
  decltype(auto) run(Attempt&& attempt) {
    for (;;) {
      try {
        if constexpr (std::is_void_v<std::invoke_result_t<Attempt&, IndexReader&>>) {
          attempt(reader());
          confirm();
          return;
        } else {
          auto result = attempt(reader());
          confirm();
          return result;
        }
      } catch (const SourcesChanged&) {
      } catch (...) {
        if (confirmed()) throw;
      }
      refresh_and_reopen();
    }
  }
  // Waits for the background check; throws SourcesChanged (run() catches it) when it found a change.
  void confirm() {
    if (!confirmed()) throw SourcesChanged{};
  }

  uint64_t refreshed_files = 0;  // valid after run()
  bool stale = false;

 private:
  struct SourcesChanged {};
  bool open_checking();  // the reader, with the background check started; false: refresh first
  bool confirmed();
  void refresh_and_reopen();

  const Context& ctx_;
  std::unique_ptr<IndexReader> own_;
  IndexReader* reader_ = nullptr;
  std::shared_ptr<SourceWalk> walk_;  // the stat walk of every recorded source, shared with walker_
  std::future<void> walker_;  // the walk's end, its exception included
  bool changed_ = false;      // the walk found a change, and no refresh has run since
  std::jthread walker_thread_;  // last: joined before the members above go
};

}  // namespace osearch
