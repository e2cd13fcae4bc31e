#include "engine/reader.h"

#include "engine/codec.h"

#include <unistd.h>

#include <filesystem>

namespace osearch {

IndexReader::IndexReader(const std::string& dir) : store_(dir, Store::Mode::Read) {
  // LMDB is committed last, so everything it points at (Xapian databases, text log bytes) exists —
  // unless a writer compacted and removed a database between our snapshot and the open: then take
  // a newer snapshot.
  for (int attempt = 0;; ++attempt) {
    txn_ = std::make_unique<LmdbTxn>(store_.env(), true);
    XapianLayout layout;
    layout.generation = Store::meta_u64(*txn_, db(), meta_key::kXapianGeneration);
    if (auto v = txn_->get(db().meta, meta_key::kXapianShards)) layout.shards = XapianLayout::decode_shards(*v);
    try {
      xapian_ = open_index_database(dir, layout);
      break;
    } catch (const Xapian::DatabaseOpeningError&) {
      if (attempt >= 20) throw;
      txn_.reset();
      ::usleep(20000);
    }
  }
  LmdbCursor ep(*txn_, db().epochs);
  for (bool ok = ep.first(); ok; ok = ep.next()) epochs_.emplace(ep.key(), get_be32(ep.value()));
  text_.open(dir, Store::meta_u64(*txn_, db(), meta_key::kTextBytes),
             Store::meta_u64(*txn_, db(), meta_key::kTextEntries));
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
