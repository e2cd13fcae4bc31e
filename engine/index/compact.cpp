#include "engine/index/compact.h"

#include <sys/statvfs.h>
#include <xapian.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <vector>

#include "engine/index/index_parts.h"
#include "engine/index/rebuild.h"
#include "engine/index/text_index.h"
#include "engine/store/errors.h"
#include "engine/store/records_store.h"
#include "engine/store/store_repack.h"
#include "engine/store/text_log.h"
#include "engine/store/text_reads.h"
#include "engine/store/trace.h"

namespace osearch {
namespace fs = std::filesystem;
namespace {

// Like the repack's: a few MB of dirty pages per transaction, not the whole env until the end.
constexpr uint64_t kCommitEntries = 50000;
constexpr uint64_t kCommitBytes = 32u << 20;
// Below this an env's slack is not worth a repack.
constexpr uint64_t kRepackMinBytes = 4u << 20;

uint64_t tree_bytes(const std::string& dir) {
  uint64_t total = 0;
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(dir, ec); !ec && it != fs::recursive_directory_iterator();
       it.increment(ec))
    if (it->is_regular_file(ec)) total += it->file_size(ec);
  return total;
}

// Free space asked beyond the compacted copy's size before an automatic compaction.
constexpr uint64_t kRoomMargin = 64u << 20;

uint64_t free_bytes(const std::string& dir) {
  struct statvfs st {};
  if (::statvfs(dir.c_str(), &st) != 0) return UINT64_MAX;  // unknown: let the compaction find out
  return static_cast<uint64_t>(st.f_bavail) * st.f_frsize;
}

// Meta entries that describe a generation (its parts, their sizes, its garbage, a batch in flight):
// the new generation writes its own. Every other entry (schema, last run, the source watch record,
// keys of a newer version) is carried over as it is.
bool describes_generation(std::string_view key) {
  for (const char* k : {meta_key::kTextBytes, meta_key::kTextEntries, meta_key::kXapianGeneration,
                        meta_key::kXapianShards, meta_key::kTextGarbage, meta_key::kInFlight, meta_key::kTextLogName,
                        meta_key::kTitlesName, meta_key::kGarbageTextBytes, meta_key::kGarbageDocuments})
    if (key == k) return true;
  return false;
}

// Every named database of the env (the keys of the unnamed one): a table this version does not
// know is carried over too.
std::vector<std::string> named_databases(const LmdbTxn& txn) {
  std::vector<std::string> names;
  LmdbCursor cur(txn, 1 /* MAIN_DBI */);
  for (bool ok = cur.first(); ok; ok = cur.next()) names.emplace_back(cur.key());
  return names;
}

size_t entries_of(const LmdbTxn& txn, MDB_dbi dbi) { return Store::entries(txn, dbi); }

// Step 2 (compact.h): the records of `live` into the empty env of `fresh`, texts into `log`.
class RecordsCopy {
 public:
  RecordsCopy(const Store& live, Store& fresh, TextLogWriter& log, const std::function<void(std::string_view)>& at_point,
              const std::function<bool()>& should_stop)
      : live_(live), fresh_(fresh), log_(log), at_point_(at_point), should_stop_(should_stop) {}

  // Copies, checks the counts and commits the meta that names `new_parts`; throws on anything not
  // carried over whole.
  void run(const IndexParts& new_parts) {
    LmdbTxn src(live_.env(), true);
    if (src.get(live_.db().meta, meta_key::kInFlight))
      throw std::runtime_error("a batch is in flight (the next `osearch index` finishes it)");
    const IndexParts old = read_parts(src, live_.db());
    TextLogReader text;
    text.open(live_.dir(), old.text_bytes, old.text_entries, old.text_log);
    TextReads text_reads(text);  // every text is read once through the map
    std::map<std::string, size_t> want;  // entries per copied table
    for (const auto& name : named_databases(src)) {
      if (name == "meta" || name == "epochs") continue;  // written below / left empty
      MDB_dbi from = src.open_db(name.c_str());
      const bool messages = name == "messages";
      LmdbCursor cur(src, from);
      for (bool ok = cur.first(); ok; ok = cur.next()) {
        std::string_view value = cur.value();
        std::string rewritten;
        if (messages) {
          rewritten = carry_message(text, text_reads, cur.key(), value);
          value = rewritten;
        }
        put(name, cur.key(), value);
      }
      want[name] = entries_of(src, from);
    }
    commit();
    // Meta last, in the transaction that makes the copy whole.
    log_.sync();
    LmdbTxn w(fresh_.env(), false);
    const Dbis& db = fresh_.db();
    LmdbCursor meta(src, live_.db().meta);
    for (bool ok = meta.first(); ok; ok = meta.next())
      if (!describes_generation(meta.key())) w.put(db.meta, meta.key(), meta.value());
    write_part_names(w, db, new_parts);
    Store::put_meta_u64(w, db, meta_key::kTextBytes, log_.bytes());
    Store::put_meta_u64(w, db, meta_key::kTextEntries, log_.entries());
    Store::put_meta_u64(w, db, meta_key::kTextGarbage, 0);
    put_garbage_counts(w, db, 0, 0);
    for (const auto& [name, n] : want) {
      const size_t got = entries_of(w, w.open_db(name.c_str(), MDB_CREATE));
      if (got != n)
        throw std::runtime_error("`" + name + "` holds " + std::to_string(got) + " entries after the copy, want " +
                                 std::to_string(n));
    }
    if (log_.entries() != want["messages"])
      throw std::runtime_error("the new text log holds " + std::to_string(log_.entries()) + " entries for " +
                               std::to_string(want["messages"]) + " messages");
    w.commit();
  }

 private:
  // The message's record, pointing at its text appended to the new log: checked whole first.
  std::string carry_message(const TextLogReader& text, TextReads& text_reads, std::string_view key,
                            std::string_view value) {
    auto m = MessageRec::decode(key, value);
    if (!m) throw std::runtime_error("a message record does not decode (run `osearch check`)");
    TextEntry e;
    if (!text.entry_at(m->text_offset, e) || e.key != key || e.text.size() != m->text_len)
      throw std::runtime_error("a message's text is not whole in the text log (run `osearch check`)");
    m->text_offset = log_.append(key, e.flags, e.text);
    text_reads.read(e.text.size());
    return m->encode();
  }

  // Keys come in order and the tables start empty: appended, pages are filled.
  void put(const std::string& name, std::string_view key, std::string_view value) {
    if (!txn_) txn_ = std::make_unique<LmdbTxn>(fresh_.env(), false);
    auto [it, fresh] = dbis_.try_emplace(name, 0);
    if (fresh) it->second = txn_->open_db(name.c_str(), MDB_CREATE);
    txn_->put(it->second, key, value, MDB_APPEND);
    // Every page of the live env is read once (the map would hold it all: 1.1 GB of a 2 GB corpus's
    // index resident before this).
    if (++copied_ % kTrimEvery == 0) live_.env().trim_resident_pages(kTrimSlack);
    bytes_ += key.size() + value.size();
    if (++pending_ >= kCommitEntries || bytes_ >= kCommitBytes) commit();
  }

  // The text log first, then the records that point into it (the writer's order).
  void commit() {
    if (!txn_) return;
    log_.sync();
    txn_->commit();
    txn_.reset();
    fresh_.env().release_resident_pages();  // the copy's pages, written once
    pending_ = bytes_ = 0;
    if (at_point_) at_point_("compact-commit");
    if (should_stop_ && should_stop_()) throw CompactionStopped();
  }

  const Store& live_;
  Store& fresh_;
  TextLogWriter& log_;
  const std::function<void(std::string_view)>& at_point_;
  const std::function<bool()>& should_stop_;
  std::unique_ptr<LmdbTxn> txn_;
  std::map<std::string, MDB_dbi> dbis_;  // handles outlive their transaction once it commits
  uint64_t pending_ = 0, bytes_ = 0;
  static constexpr uint64_t kTrimEvery = 4096;        // entries copied between two looks at the RSS
  static constexpr size_t kTrimSlack = 32u << 20;      // the live env's pages grown before a release
  uint64_t copied_ = 0;
};

// Step 3: every message document and title, then the shards merged into the generation's main
// database. Checked: one document per message.
void index_carried(Store& fresh, const Rebuild& rb) {
  const std::string& dir = fresh.dir();
  XapianLayout layout = rb.parts.layout;
  TextIndexWriter xapian(dir, layout);
  index_salvaged(fresh, xapian, layout, 2);
  XapianLayout merged = layout;
  if (!layout.shards.empty()) merged = xapian.compact(layout);
  LmdbTxn w(fresh.env(), false);
  write_layout(w, fresh.db(), merged);
  const uint64_t messages = Store::entries(w, fresh.db().messages);
  const uint64_t docs = message_documents(dir, merged);
  if (docs != messages)
    throw std::runtime_error("the new databases hold " + std::to_string(docs) + " documents for " +
                             std::to_string(messages) + " messages");
  w.commit();
  std::error_code ec;
  for (const auto& s : layout.shards)
    if (std::find(merged.shards.begin(), merged.shards.end(), s) == merged.shards.end()) fs::remove_all(dir + "/" + s, ec);
}

// A repack copies the whole env. Worth it after a run that stored a quarter of the messages or
// more (a cold build, --full, a big catch-up: their random inserts left pages half full), or when
// free pages exceed ~30% of the used ones.
bool worth_repacking(const Store& store, const IndexSummary& s) {
  const RecordsStats st = records_stats(store);
  PhaseTimer timer("repack");
  timer.count("data_bytes", st.file_bytes);
  timer.count("free_pages", st.free_pages);
  timer.count("pages", st.pages);
  if (st.file_bytes < kRepackMinBytes) return false;
  const uint64_t used = st.pages > st.free_pages ? st.pages - st.free_pages : 0;
  return s.new_messages * 4 >= s.messages || st.free_pages * 10 > used * 3;
}

bool repack_due(const Store& store, const IndexOptions& options, const IndexSummary& summary) {
  return options.repack == Repack::Always || (options.repack == Repack::Auto && worth_repacking(store, summary));
}

// Xapian keeps a write's errno only in its text.
bool names_no_space(const Xapian::Error& e) {
  const char* errno_text = e.get_error_string();
  const std::string text = e.get_description() + " " + (errno_text ? errno_text : "");
  return text.find(std::strerror(ENOSPC)) != std::string::npos || text.find(std::strerror(EDQUOT)) != std::string::npos;
}

// Runs `step` (a compaction or a repack): everything is committed before it, so a failure leaves
// the index as it was and is reported, not fatal, unless the disk is full (the user must hear it).
template <typename Step>
bool reported_step(Store& store, IndexSummary& summary, const std::string& what, Step&& step) {
  try {
    step();
    return true;
  } catch (const NoSpace&) {
    throw;
  } catch (const LmdbError& e) {
    if (write_failed_for_space(e.code, store.dir()))
      throw NoSpace(no_space_message(store.dir(), what + ": " + e.what()));
    summary.problems.push_back(what + " failed, the index is unchanged: " + e.what());
  } catch (const Xapian::Error& e) {
    if (names_no_space(e)) throw NoSpace(no_space_message(store.dir(), what + ": Xapian: " + e.get_description()));
    summary.problems.push_back(what + " failed, the index is unchanged: Xapian: " + e.get_description());
  } catch (const CompactionStopped& e) {
    summary.interrupted = true;
    summary.problems.push_back(what + " was stopped before its switch: the index is unchanged");
  } catch (const std::system_error& e) {
    if (is_no_space(e.code().value())) throw NoSpace(no_space_message(store.dir(), what + ": " + e.what()));
    summary.problems.push_back(what + " failed, the index is unchanged: " + e.what());
  } catch (const std::exception& e) {
    summary.problems.push_back(what + " failed, the index is unchanged: " + e.what());
  }
  return false;
}

}  // namespace

CompactResult compact_index(Store& store, const std::function<void(std::string_view)>& at_point,
                            const std::function<bool()>& should_stop) {
  PhaseTimer timer("compact-index");
  const auto t0 = std::chrono::steady_clock::now();
  const std::string dir = store.dir();
  CompactResult res;
  res.bytes_before = tree_bytes(dir);
  IndexParts live_parts;
  {
    LmdbTxn r(store.env(), true);
    res.reclaimed = read_garbage_counts(r, store.db());
    live_parts = read_parts(r, store.db());
  }
  const Rebuild rb = new_generation(dir);
  bool switched = false;
  try {
    {
      Store fresh(dir, rb.env_name);
      {
        TextLogWriter log;
        log.open(dir, 0, 0, rb.parts.text_log);
        RecordsCopy(store, fresh, log, at_point, should_stop).run(rb.parts);
      }
      timer.mark("records");
      if (should_stop && should_stop()) throw CompactionStopped();
      index_carried(fresh, rb);
      timer.mark("xapian");
      if (at_point) at_point("salvaged");
      if (should_stop && should_stop()) throw CompactionStopped();
      // The switch: after the rename the new generation is live, whatever happens next.
      switch_to_rebuilt(fresh, rb, [&](std::string_view point) {
        if (point == "switched") switched = true;
        if (at_point) at_point(point);
      });
    }
    store.reopen();  // the env records.current names now (the new one)
  } catch (...) {
    if (!switched) {
      // Give the space back now (the next writer would remove these parts anyway); the live
      // generation was never touched.
      std::error_code ec;
      fs::remove_all(dir + "/" + rb.env_name, ec);
      remove_unnamed_parts(dir, live_parts);
      throw;
    }
    // The new generation is live and whole: only reopening it or removing the old one failed, which
    // the next writer redoes. This process must not go on with the old env.
    res.problem = "the compaction switched to the new generation, but its cleanup failed (the next run redoes it)";
    store.reopen();
  }
  timer.mark("switch");
  res.bytes_after = tree_bytes(dir);
  res.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return res;
}

namespace {

// Is the garbage worth a compaction now, with room for it? Failures are reported, not fatal.
bool weigh_garbage(Store& store, const IndexOptions& options, IndexSummary& summary) {
  try {
    LmdbTxn r(store.env(), true);
    const GarbageReport g = garbage_report(store.dir(), r, store.db());
    if (!worth_compacting(g, CompactRule{options.compact_min_bytes})) return false;
    // The new generation sits beside the old one until the switch: without room for it, a run
    // would fail with no-space each time. The user can free space and ask for it.
    const uint64_t size = tree_bytes(store.dir());
    const uint64_t needed = size - std::min(size, *g.bytes()) + kRoomMargin;  // (worth_compacting knows the bytes)
    if (free_bytes(store.dir()) < needed) {
      summary.problems.push_back("garbage passes the compaction rule, but the disk lacks room for the compacted copy (" +
                                 std::to_string(needed >> 20) + " MB): `osearch index --compact` once there is");
      return false;
    }
    return true;
  } catch (const std::exception& e) {  // the next open names what is damaged; the run itself is done
    summary.problems.push_back(std::string("garbage could not be weighed: ") + e.what());
  } catch (const Xapian::Error& e) {
    summary.problems.push_back("garbage could not be weighed: Xapian: " + e.get_description());
  }
  return false;
}

}  // namespace

void finish_run(Store& store, const IndexOptions& options, IndexSummary& summary,
                const std::function<void()>& settle_layout) {
  if (summary.interrupted) {
    if (options.compact == Compact::Always)
      summary.problems.push_back("the compaction was left for the next `osearch index --compact` (the run was stopped)");
    return;
  }
  if (summary.rebuilt) return;  // (see compact.h)
  bool compact = options.compact == Compact::Always;
  if (options.compact == Compact::Auto) {
    // No garbage at all (a cold build) cannot pass the rule: a repack may then run beside the
    // run's shard compaction. Anything else is weighed over the final layout.
    bool none = false;
    try {
      const GarbageCounts c = read_garbage_counts(LmdbTxn(store.env(), true), store.db());
      none = c.text_bytes == 0u && c.hidden_documents == 0u;
    } catch (const std::exception&) {  // weighed again below, where failures are reported
    }
    if (!none) {
      settle_layout();
      compact = weigh_garbage(store, options, summary);
    }
  }
  if (compact) {
    settle_layout();
    CompactResult c;
    if (reported_step(store, summary, "compaction", [&] { c = compact_index(store, options.at_point, options.should_stop); })) {
      summary.compacted = true;
      summary.compact_bytes_before = c.bytes_before;
      summary.compact_bytes_after = c.bytes_after;
      summary.compact_text_bytes = c.reclaimed.text_bytes;
      summary.compact_hidden_documents = c.reclaimed.hidden_documents;
      summary.compact_seconds = c.seconds;
      if (!c.problem.empty()) summary.problems.push_back(c.problem);
      return;  // its env was written in key order: nothing for a repack to win
    }
    // A failed compaction reopened the live env: its repack may still be due.
  }
  if (summary.interrupted) return;
  if (repack_due(store, options, summary))
    reported_step(store, summary, "LMDB repack", [&] { repack_records(store); });
}

void repack_before_switch(Store& store, const IndexOptions& options, IndexSummary& summary, Rebuild& rebuild) {
  if (!repack_due(store, options, summary)) return;
  std::string copy;
  if (reported_step(store, summary, "LMDB repack", [&] { repack_unlisted_records(store, copy); }))
    rebuild.env_name = copy;
}

}  // namespace osearch
