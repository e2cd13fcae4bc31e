#include "engine/reader.h"

#include "engine/codec.h"
#include "engine/index_parts.h"

#include <unistd.h>

#include <filesystem>

namespace osearch {

IndexReader::IndexReader(const std::string& dir) : store_(dir, Store::Mode::Read) {
  // LMDB is committed last, so everything it points at (Xapian databases, text log bytes) exists —
  // unless a writer removed a part between our snapshot and the open: a compaction (then a newer
  // snapshot names the new databases) or the switch of `index --full` to a new generation (then
  // records.current names a new env, whose parts we resolve again).
  auto pointer_moved = [&] {
    return current_records_name(dir) != std::filesystem::path(store_.env_dir()).filename().string();
  };
  for (int attempt = 0;; ++attempt) {
    txn_ = std::make_unique<LmdbTxn>(store_.env(), true);
    const IndexParts parts = read_parts(*txn_, db());
    try {
      xapian_ = open_index_database(dir, parts.layout);
      text_.emplace();
      if (text_->open(dir, parts.text_bytes, parts.text_entries, parts.text_log) || attempt >= 20 || !pointer_moved())
        break;
    } catch (const Xapian::DatabaseOpeningError&) {
      if (attempt >= 20) throw;
    }
    txn_.reset();
    if (pointer_moved())
      store_.reopen();
    else
      ::usleep(20000);
  }
  LmdbCursor ep(*txn_, db().epochs);
  for (bool ok = ep.first(); ok; ok = ep.next()) epochs_.emplace(ep.key(), get_be32(ep.value()));
}

std::optional<SessionRec> IndexReader::session(std::string_view id) const {
  auto v = txn_->get(db().sessions, id);
  if (!v) return std::nullopt;
  return SessionRec::decode(*v);
}

std::optional<MessageRec> IndexReader::message(std::string_view key) const {
  auto v = txn_->get(db().messages, key);
  if (!v) return std::nullopt;
  return MessageRec::decode(key, *v);
}

IndexCounts IndexReader::counts() const {
  IndexCounts c;
  c.sessions = Store::entries(*txn_, db().sessions);
  c.messages = Store::entries(*txn_, db().messages);
  c.tool_calls = Store::entries(*txn_, db().tool_calls);
  c.memories = Store::entries(*txn_, db().memories);
  c.last_indexed_at = static_cast<int64_t>(Store::meta_u64(*txn_, db(), meta_key::kLastIndexedAt));
  return c;
}

}  // namespace osearch
