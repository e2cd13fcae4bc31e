// Read side of the index: one LMDB read transaction, the Xapian database and the mapped text log,
// all describing the same committed state. Cheap to open per command.
#pragma once

#include <xapian.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engine/index/indexer.h"
#include "engine/store/records_store.h"
#include "engine/store/store.h"
#include "engine/index/session_runs.h"
#include "engine/index/text_index.h"
#include "engine/store/text_log.h"
#include "memory/memory.h"

namespace osearch {

struct IndexCounts {
  uint64_t sessions = 0, messages = 0, tool_calls = 0, memories = 0;
  int64_t last_indexed_at = 0;
};

class IndexReader {
 public:
  // Throws StoreMissing when there is no index, IndexDamaged when a part of it is missing, a link,
  // shorter than LMDB's committed size or inconsistent with it (see index_damage.h).
  explicit IndexReader(const std::string& dir);
  const LmdbTxn& txn() const { return *txn_; }
  const Dbis& db() const { return store_.db(); }
  Xapian::Database& xapian() { return xapian_; }
  // Xapian's reopen after a DatabaseModifiedError: its databases may be at newer revisions then,
  // so the runs read for the opened ones are dropped.
  void reopen_xapian();
  const Xapian::Database& xapian() const { return xapian_; }
  // The databases xapian() combines, in its order (the same handles). A count that may stop early
  // goes through them one at a time: over several at once, Xapian goes on to the last match.
  const std::vector<Xapian::Database>& databases() const { return databases_; }
  // Whether databases()[i] is the memories' text index (the only one holding memory documents).
  bool is_memory_database(size_t i) const { return memories_at_ == i; }
  const TextLogReader& text() const { return *text_; }
  const std::string& dir() const { return store_.dir(); }
  // Epochs of re-read sessions: documents of an older epoch are not answers (see text_index.h).
  const DocumentEpochs& epochs() const { return epochs_; }
  // At most how many message documents belong to an older epoch (documents past the messages
  // that have theirs; 0 without epochs).
  uint64_t old_epoch_documents() const;

  std::optional<SessionRec> session(std::string_view id) const;
  // Views a stored session record's bytes (SessionFacets); throws IndexDamaged, as session() does,
  // when they do not decode.
  static void view_session(std::string_view bytes, SessionFacets& out);
  // A session's value in the documents' session slot (its number, engine/store/session_numbers.h);
  // nullopt when it has none (no document of this index names it).
  std::optional<std::string> session_value(std::string_view id) const;
  // The session a document's session value names; nullopt for a memory's value or a number no
  // session has.
  std::optional<std::string> session_of_value(std::string_view value) const;
  // The session value of the document `did` of xapian() as its database's kept runs give it
  // (engine/index/session_runs.h); false when they cannot say (no runs for its database, a
  // document without a session value): the caller reads the document's value then.
  bool session_value_of_document(Xapian::docid did, std::string& out) const;
  // The session value of `doc`, a document of databases()[i] as a decider or a match spy over that
  // database alone sees it (its own ids): from the database's runs where they say, else its value.
  void session_value_in_database(size_t i, const Xapian::Document& doc, std::string& out) const;
  // Whether the runs cover every message database (keyword's own collapse is worth it then).
  bool has_session_runs() const { return runs_cover_messages_; }
  // Whether document `did` of xapian() is in the titles database (a session's title document).
  bool is_title_document(Xapian::docid did) const;
  std::optional<MessageRec> message(std::string_view key) const;
  std::string_view message_text(const MessageRec& m) const { return text_->text(m.text_offset, m.text_len); }
  // message_text read into `buffer` (TextLogReader::text_copy), for a few messages scattered over
  // the log; a long text stays in the map, where a search for its first match touches only the
  // pages before it.
  std::string_view message_text(const MessageRec& m, std::string& buffer) const {
    constexpr uint64_t kCopyLimit = 256u << 10;
    return m.text_len > kCopyLimit ? message_text(m) : text_->text_copy(m.text_offset, m.text_len, buffer);
  }
  IndexCounts counts() const;
  // A page of thousands of hits reads records and texts from all over the index, and their pages
  // stay mapped: 576 MB (file-backed) for 100,000 `content` hits of a 2 GB corpus's index. A query
  // calls this once per hit it builds; every kCheckEveryHits, once the file-backed pages grew by
  // kHitPagesSlack since the last release, the maps' pages are let go. They stay in the page
  // cache, and a view still held into them pages back in when touched (the maps are read-only).
  static constexpr uint64_t kCheckEveryHits = 128;
  static constexpr size_t kHitPagesSlack = 64u << 20;
  void hit_built();
  // Tests: check every `every` hits, release past `slack` bytes; and how many releases there were.
  void set_hit_pages(uint64_t every, size_t slack) {
    hit_check_every_ = every;
    hit_pages_slack_ = slack;
  }
  uint64_t page_releases() const { return page_releases_; }
  // Memories (engine/store/memory_store.h) as of opening: their text index is one more Xapian
  // sub-database of xapian(), so keyword ranks them with messages.
  const std::vector<memory::Record>& memories() const { return memories_; }
  const memory::Record* memory(std::string_view id) const;

  // Whether this reader still shows what a refresh and a new reader would (a long-lived frontend
  // keeps one open): no process committed since it opened, records.current and the memories are
  // the ones it opened, and, with `roots`, the quick check's record finds every source file
  // unchanged (stat calls only). Reads through this reader's own env, never a second open of it
  // (LMDB allows one per process). Any doubt answers false.
  bool still_current(const std::vector<SourceRoot>* roots) const;

 private:
  void open_parts(const std::string& dir);  // Xapian and the text log, checked against the snapshot
  bool session_value_by_runs(size_t i, Xapian::docid did, std::string& out) const;  // databases()[i]'s own id
  static std::string fs_name(const std::string& path);
  Store store_;
  std::unique_ptr<LmdbTxn> txn_;
  Xapian::Database xapian_;
  std::vector<Xapian::Database> databases_;  // what xapian_ combines
  uint64_t message_docs_ = 0;  // in the message databases: older epochs' too
  std::vector<std::optional<SessionRuns>> runs_;  // per database of xapian_, in its order
  bool runs_cover_messages_ = false;
  std::optional<size_t> titles_at_;  // the titles database's place in xapian_
  std::optional<size_t> memories_at_;  // the memories' text index's
  DocumentEpochs epochs_;
  std::optional<TextLogReader> text_;
  void open_memories(const std::string& dir);
  std::vector<memory::Record> memories_;  // by id
  std::optional<uint64_t> memory_generation_;  // of the memory env as opened; nullopt: none
  uint64_t hits_built_ = 0;
  uint64_t hit_check_every_ = kCheckEveryHits;
  size_t hit_pages_slack_ = kHitPagesSlack;
  uint64_t page_releases_ = 0;
  size_t pages_after_release_ = 0;       // resident file-backed pages after the last release of both maps
  size_t pages_after_text_release_ = 0;  // and after the last of the text log's alone
};

}  // namespace osearch
