// The Xapian side of the store: one document per message (plus one per session title), its terms
// from engine/tokenizer, boolean filter terms and value slots. Doc data stays empty: the text lives
// in the text log and the record in LMDB (value slot kSlotKey holds the LMDB message key).
//
// Layout: a main database `xapian-<gen>` plus, during a bulk load, shards `shard-<gen>-<n>` written
// in parallel into fresh databases (a fresh database indexes several times faster than merging
// into a large one). LMDB lists the shards that belong to the index; at the end of the run they
// are compacted with the main database into `xapian-<gen+1>`. Title documents live apart in
// `titles-<k>/` (`titles/` in older indexes), the one database that is updated in place. Readers
// open main + listed shards + titles.
//
// Message databases have no termlists (DB_NO_TERMLIST: a third faster to build, 40 % smaller), so
// their documents cannot be deleted. A session whose file is re-read instead gets a new epoch
// (LMDB `epochs`); its documents carry it in kSlotEpoch and queries drop those of older epochs.
#pragma once

#include <xapian.h>

#include <atomic>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <thread>
#include <unordered_map>
#include <vector>

#include "engine/store/records_store.h"
#include "engine/index/term_counter.h"
#include "engine/index/uuid_lookup.h"
#include "engine/index/tokenizer.h"

namespace osearch {

// Boolean term prefixes (Omega convention: Q = unique id, X… = custom).
namespace prefix {
inline constexpr std::string_view kUnique = "Q";
inline constexpr std::string_view kSession = "XS";
inline constexpr std::string_view kProject = "XP";
inline constexpr std::string_view kAgent = "XA";
inline constexpr std::string_view kRole = "XR";
inline constexpr std::string_view kType = "XT";
inline constexpr std::string_view kTool = "XK";
inline constexpr std::string_view kModel = "XM";
inline constexpr std::string_view kBranch = "XB";
inline constexpr std::string_view kHidden = "XHIDDEN";  // meta or command: hidden unless --include-meta
inline constexpr std::string_view kTitleDoc = "XTITLE";
inline constexpr std::string_view kNoPositions = "XNOPOS";  // indexed without positions (tool I/O, thinking)
inline constexpr std::string_view kMessageUuid = "XU";  // the message's uuid: finds it without its session
}  // namespace prefix

inline constexpr Xapian::valueno kSlotTime = 0;     // be64(sortable ms); a message's also its line (time_line_value)
inline constexpr Xapian::valueno kSlotSession = 1;  // the session's number (engine/store/session_numbers.h): the collapse key
inline constexpr Xapian::valueno kSlotKey = 2;      // LMDB message key ("" for title docs)
inline constexpr Xapian::valueno kSlotEpoch = 3;    // session epoch, absent while it is 0
inline constexpr Xapian::valueno kSlotMemory = 4;   // memory documents only: the memory id (memory_index.h)

// Session id -> epoch, for the (few) sessions that were ever dropped and re-read.
using SessionEpochs = std::unordered_map<std::string, uint32_t>;
std::string epoch_value(uint32_t epoch);

// The same epochs as a query meets them: keyed by the documents' session value (the session's
// number), so that checking a matching document (every one, once a session was re-read) decodes nothing.
class DocumentEpochs {
 public:
  void add(std::string session_value, uint32_t epoch) { by_value_.emplace(std::move(session_value), epoch); }
  void clear() { by_value_.clear(); }
  bool empty() const { return by_value_.empty(); }
  // The epoch of the session whose value is `value`, or null when it was never re-read.
  const uint32_t* find(const std::string& value) const {
    auto it = by_value_.find(value);
    return it == by_value_.end() ? nullptr : &it->second;
  }
  template <class F>
  void for_each_value(F&& f) const {
    for (const auto& entry : by_value_) f(entry.first);
  }

 private:
  std::unordered_map<std::string, uint32_t> by_value_;
};
// Is `doc` a current document? (Title documents always are.)
bool is_live(const Xapian::Document& doc, const DocumentEpochs& epochs);
// The same for a document whose session value the caller has read: each value read seeks its
// slot's chunk again (Xapian keeps none).
bool is_live(const Xapian::Document& doc, const std::string& session_value, const DocumentEpochs& epochs);

// A boolean term, lower-cased; bounded to kMaxBooleanTermBytes (Xapian's limit is ~245 bytes) by
// hashing the tail of a longer value, identically on the index and the query side.
inline constexpr size_t kMaxBooleanTermBytes = 240;
std::string boolean_term(std::string_view pfx, std::string_view value);
// Prose gets positions (phrase search); tool output, thinking and tool input do not: positions cost
// about a third of indexing throughput and double the index (notes/engine.md §1.3). A phrase in a
// message without them is checked on its text (engine/query/phrase_check.h).
bool wants_positions(const MessageRec& m);

// The term that finds a message by its uuid (as stored: bounded).
inline std::string message_uuid_term(std::string_view uuid) { return boolean_term(prefix::kMessageUuid, uuid); }
std::string time_value(int64_t ms);
// A message document's time value: its time, then its line, be32(file tag) be64(offset) (the message
// key's tail after the session id), so that messages of one time sort in the session's own order
// under --sort newest|oldest. Ties went by relevance, whose statistics move with every refresh and
// compaction. An index of older builds keeps the bare time on its documents until they are built again.
std::string time_line_value(int64_t ms, std::string_view message_key);
// The greatest time value of `ms`, a line's included: the inclusive end of a time range.
std::string time_value_end(int64_t ms);

// Session ids of the message documents whose uuid term is `uuid` (as stored: bounded), each once
// (read from their message key: no session number to look up).
// Candidates only: the term is lower-cased and an older epoch's documents keep theirs, so callers
// confirm each in `msg_uuid` (find_message_key). This is how a uuid alone is found: `msg_uuid` is
// keyed by session number so that indexing appends at its right edge instead of all over the tree.
std::vector<std::string> sessions_with_uuid_term(const Xapian::Database& db, std::string_view uuid);

// What a message document is made of.
struct MessageDoc {
  const MessageRec* rec;
  std::string_view text;
  const SessionRec* session;
  const std::vector<std::string>* tool_names;
  uint32_t epoch = 0;
  uint32_t session_number = 0;  // the session's (engine/store/session_numbers.h)
};

// Builds documents; one per thread (it reuses buffers).
// A text's first word stands at position 2, not 1. Xapian 1.4 reads the positions of a term a
// document holds without any (an identifier's part, a compound) as one position 0 when a phrase asks
// for its first word there (GlassPositionList::skip_to(0) on an empty list), so `"run all"` matched
// a message that starts "All clean" and names runWingmanReview. With no word at 1 that position 0
// completes no phrase. (Schema 24; earlier indexes started at 1.)
inline constexpr uint32_t kFirstPosition = 2;

class DocBuilder {
 public:
  Xapian::Document message(const MessageDoc& m);
  // The uuid term (message_uuid_term) of the last message() built.
  const std::string& uuid_term() const { return uuid_term_; }
  Xapian::Document title(const SessionRec& s, uint32_t session_number);
  static std::string title_unique_term(std::string_view session_id);
  // Free text the way messages are indexed (engine/index/memory_index.cpp: memory documents).
  // Returns the positions `text` took; with `first_position`, its positions start that far on (a
  // second text of one document after the first, so that no phrase runs from one into the other).
  uint32_t add_text(Xapian::Document& doc, std::string_view text, bool positions, uint32_t first_position = 0) {
    return index_text(doc, text, positions, first_position);
  }

 private:
  uint32_t index_text(Xapian::Document& doc, std::string_view text, bool positions, uint32_t first_position = 0);
  Tokenizer tokenizer_;
  TermCounter counter_;
  std::string gutter_scratch_, term_buf_, uuid_term_;
};

struct XapianLayout {
  uint64_t generation = 0;
  // Directory names under the index dir: fresh shards (`shard-…`) and the second half of the last
  // compaction (`part-<gen>`), which counts as main database, not as new data.
  std::vector<std::string> shards;
  // The title database's dir name: "titles" in an index built before names came from LMDB meta,
  // titles-<k> since (a fresh one per `index --full`).
  std::string titles = kLegacyTitles;
  static constexpr const char* kLegacyTitles = "titles";
  std::string main_dir(const std::string& index_dir) const;
  std::string part_dir(const std::string& index_dir) const;
  static bool is_part(std::string_view name) { return name.rfind("part-", 0) == 0; }
  std::string titles_dir(const std::string& index_dir) const { return index_dir + "/" + titles; }
  std::string encode_shards() const;
  static std::vector<std::string> decode_shards(std::string_view s);
};

// Sets a database directory to 0700 and its files to 0600.
void restrict_permissions(const std::string& dir);

// Main + shards + titles as one read-only database.
struct IndexDatabases {
  Xapian::Database all;
  // The databases `all` combines, in its order, with their dir names (SessionRuns reads them).
  std::vector<std::pair<std::string, Xapian::Database>> parts;
  Xapian::doccount message_docs = 0;  // main + shards: every message document, older epochs' too
  bool titles = false;                // the titles database exists (legacy titles/ is created with the first title)
};
// Throws IndexDamaged naming a listed database that is missing, a link, or cannot be opened (a
// titles-<k> or shard removed after a newer generation took over included: the reader retries
// when records.current has moved).
IndexDatabases open_index_databases(const std::string& index_dir, const XapianLayout& layout);

// Fresh shard databases being written by background threads, one per shard, which share out the
// documents as they go. `docs` must outlive it; the destructor waits.
class ShardWrite {
 public:
  ShardWrite(std::string index_dir, std::span<const MessageDoc> docs, std::vector<std::string> names);
  ~ShardWrite();
  ShardWrite(const ShardWrite&) = delete;
  ShardWrite& operator=(const ShardWrite&) = delete;
  const std::vector<std::string>& names() const { return names_; }
  // Waits until every shard is committed and fsynced; rethrows the first writer's error.
  void wait();
  // After wait(): the fingerprints of the uuid terms shard `t` holds (uuid_lookup.h), moved out.
  std::vector<uint32_t> take_uuid_fingerprints(size_t t) { return std::move(fingerprints_.at(t)); }

 private:
  void write(size_t t);
  std::string index_dir_;
  std::span<const MessageDoc> docs_;
  std::vector<std::string> names_;
  std::vector<std::vector<uint32_t>> fingerprints_;  // per shard, written by its thread
  std::atomic<size_t> next_{0};  // the next document to take
  std::vector<std::exception_ptr> errors_;
  std::vector<std::thread> threads_;
};

class TextIndexWriter {
 public:
  // Throws IndexDamaged when a database the layout lists is missing or a link (check_layout).
  TextIndexWriter(const std::string& index_dir, const XapianLayout& layout);
  static void check_layout(const std::string& index_dir, const XapianLayout& layout);
  void set_session_title(const SessionRec& s, uint32_t session_number);
  void delete_session_title(std::string_view session_id);
  void commit();  // the titles database (shards commit as they are written)

  // Epochs of sessions that were dropped and re-read: loaded from LMDB when a run starts, bumped
  // when one is dropped; new documents of such a session carry its epoch.
  SessionEpochs& epochs() { return epochs_; }
  uint32_t epoch_of(const std::string& session_id) const {
    auto it = epochs_.find(session_id);
    return it == epochs_.end() ? 0 : it->second;
  }

  // Starts writing `docs` into `threads` fresh shard databases in the background (see ShardWrite).
  std::unique_ptr<ShardWrite> start_shards(std::span<const MessageDoc> docs, unsigned threads);
  // Merges main + shards into the next generation's main database and part (in two threads);
  // returns the new layout.
  XapianLayout compact(const XapianLayout& layout);
  // The same without a writer (it touches no open database): for a compaction beside other work
  // (engine/index/shard_compaction.h).
  static XapianLayout compact_databases(const std::string& index_dir, const XapianLayout& layout);
  // Merges the fresh shards alone into one new shard (main and part untouched); returns the new layout.
  XapianLayout merge_shards(const XapianLayout& layout);
  // sessions_with_uuid_term over the committed message databases of `layout` (main, part, listed
  // shards; not the titles) that may hold the uuid (engine/index/uuid_lookup.h).
  std::vector<std::string> committed_sessions_with_uuid(const XapianLayout& layout, std::string_view uuid) {
    return uuid_lookup_.sessions(layout.main_dir(index_dir_), layout.shards, uuid);
  }
  // Keeps the uuid fingerprints of shards `w` wrote (after its wait()): a lookup skips a shard
  // that cannot hold the uuid.
  void remember_uuids(ShardWrite& w);
  static uint64_t dir_bytes(const std::string& dir);
  // Removes database directories the layout does not reference (leftovers of crashes and old gens,
  // title databases included).
  static void remove_unreferenced(const std::string& index_dir, const XapianLayout& layout);

 private:
  Xapian::WritableDatabase& titles_db();
  std::string index_dir_;
  XapianLayout layout_;
  Xapian::WritableDatabase db_;
  bool open_ = false;
  DocBuilder builder_;
  SessionEpochs epochs_;
  uint64_t next_shard_ = 0;
  UuidTermLookup uuid_lookup_;
};

}  // namespace osearch
