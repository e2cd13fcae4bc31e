// run_index: the guard around one index run (engine/index/indexer.cpp holds the run itself): can the
// index be written, the writer lock, and the errors a user must see plainly (engine/store/errors.h).
#include <xapian.h>

#include <cerrno>
#include <cstring>
#include <string>
#include <system_error>

#include <optional>

#include "engine/index/garbage.h"
#include "engine/index/indexer.h"
#include "engine/index/schema.h"
#include "engine/index/source_watch.h"
#include "engine/store/errors.h"
#include "engine/store/store.h"
#include "engine/store/trace.h"

namespace osearch {
namespace {

// Xapian keeps the errno of a failed write only as text: in its error string, or inside the
// message when the failure was wrapped ("Modifications failed (… (No space left on device))").
bool names_no_space(const Xapian::Error& e) {
  const char* errno_text = e.get_error_string();
  const std::string text = e.get_description() + " " + (errno_text ? errno_text : "");
  return text.find(std::strerror(ENOSPC)) != std::string::npos || text.find(std::strerror(EDQUOT)) != std::string::npos;
}

// A query's quick check, before the lock and before anything is opened for writing (so it works
// on a read-only index too). nullopt: the full run decides (no record, another schema, a crash's
// leftovers, a moved directory, a file that shrank or went away). Any error here is the full run's
// to find and report.
struct QuickCheck {
  WatchCheck check;
  IndexSummary unchanged;        // the run's answer when nothing changed: files and totals
  bool garbage_unknown = false;  // an index written before the garbage counters
};

std::optional<QuickCheck> quick_check(const std::string& index_dir, const std::vector<SourceRoot>& roots) {
  try {
    PhaseTimer timer("quick");
    Store store(index_dir, Store::Mode::Read);
    LmdbTxn r(store.env(), true);
    timer.mark("open");
    auto record = quick_check_record(r, store.db());
    if (!record) return std::nullopt;
    QuickCheck q;
    q.check = check_source_watch(*record, roots);
    timer.count("record bytes", record->size());
    timer.mark("check");
    if (!q.check.guides_run()) return std::nullopt;
    if (q.check.unchanged()) {
      q.unchanged.files_seen = q.unchanged.files_skipped = q.check.files;
      q.unchanged.plan = "unchanged";
      detail::read_totals(r, store.db(), q.unchanged);
      const GarbageCounts g = read_garbage_counts(r, store.db());
      q.garbage_unknown = !g.text_bytes || !g.hidden_documents;
    }
    return q;
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

}  // namespace

std::optional<std::string_view> quick_check_record(const LmdbTxn& txn, const Dbis& db) {
  if (Store::meta_u64(txn, db, meta_key::kSchema) != kSchemaVersion) return std::nullopt;
  if (txn.get(db.meta, meta_key::kInFlight)) return std::nullopt;
  return txn.get(db.meta, meta_key::kSourceWatch);
}

// Write access first (a read-only index is not an error for a query), then the writer lock, then
// the run; a full disk anywhere below becomes NoSpace, whatever layer noticed it.
IndexSummary run_index(const std::string& index_dir, const std::vector<SourceRoot>& roots, const IndexOptions& options) {
  IndexSummary summary;
  const WatchCheck* given = options.known_check;
  if (!options.quick_check || options.full || !given || !given->guides_run() || given->unchanged())
    given = nullptr;
  std::optional<QuickCheck> known;
  if (options.quick_check && !options.full && !given) known = quick_check(index_dir, roots);
  if (known && known->check.unchanged() && !(options.count_unknown_garbage && known->garbage_unknown))
    return known->unchanged;
  auto read_only = [&](const std::string& why) {
    if (!options.skip_if_read_only)
      throw ReadOnlyIndex("the index at " + index_dir + " is read-only (" + why +
                          "): `osearch index` cannot update it; queries answer from it as it is");
    summary.read_only = true;
    return summary;
  };
  std::string why;
  if (!index_writable(index_dir, why)) return read_only(why);
  try {
    WriterLock lock(index_dir, options.wait_for_lock, options.should_stop);
    if (!lock.locked()) {
      (options.wait_for_lock ? summary.interrupted : summary.busy) = true;
      return summary;
    }
    return detail::index_under_lock(index_dir, roots, options, given ? given : known ? &known->check : nullptr);
  } catch (const IndexError& e) {
    if (dynamic_cast<const ReadOnlyIndex*>(&e)) return read_only(e.what());
    throw;
  } catch (const Xapian::Error& e) {
    if (names_no_space(e)) throw NoSpace(no_space_message(index_dir, "Xapian: " + e.get_description()));
    throw;
  } catch (const std::system_error& e) {  // std::filesystem and friends
    if (e.code().category() == std::generic_category() || e.code().category() == std::system_category())
      if (is_no_space(e.code().value())) throw NoSpace(no_space_message(index_dir, e.what()));
    throw;
  }
}

}  // namespace osearch
