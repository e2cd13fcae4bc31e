#include "engine/index/garbage.h"

#include "engine/index/index_parts.h"
#include "engine/store/codec.h"
#include "engine/store/records_store.h"

namespace osearch {

GarbageCounts read_garbage_counts(const LmdbTxn& txn, const Dbis& db) {
  GarbageCounts c;
  auto read = [&](const char* key) -> std::optional<uint64_t> {
    auto v = txn.get(db.meta, key);
    if (!v || v->size() != 8) return std::nullopt;
    return get_be64(*v);
  };
  c.text_bytes = read(meta_key::kGarbageTextBytes);
  c.hidden_documents = read(meta_key::kGarbageDocuments);
  return c;
}

void put_garbage_counts(LmdbTxn& txn, const Dbis& db, uint64_t text_bytes, uint64_t hidden_documents) {
  Store::put_meta_u64(txn, db, meta_key::kGarbageTextBytes, text_bytes);
  Store::put_meta_u64(txn, db, meta_key::kGarbageDocuments, hidden_documents);
}

uint64_t message_documents(const std::string& index_dir, const XapianLayout& layout) {
  return open_index_databases(index_dir, layout).message_docs;
}

std::optional<uint64_t> hidden_documents_now(const LmdbTxn& txn, const Dbis& db, const std::string& index_dir) {
  if (txn.get(db.meta, meta_key::kInFlight)) return std::nullopt;
  const uint64_t docs = message_documents(index_dir, read_parts(txn, db).layout);
  const uint64_t messages = Store::entries(txn, db.messages);
  // Fewer documents than messages is damage (the reader names it), not a count.
  if (docs < messages) return std::nullopt;
  return docs - messages;
}

bool count_unknown_garbage(LmdbTxn& txn, const Dbis& db, const std::string& index_dir) {
  const GarbageCounts c = read_garbage_counts(txn, db);
  bool wrote = false;
  if (!c.text_bytes) {
    uint64_t live = 0;
    bool whole = true;
    LmdbCursor cur(txn, db.messages);
    for (bool ok = cur.first(); ok && whole; ok = cur.next()) {
      auto m = MessageRec::decode(cur.key(), cur.value());
      if (!m) whole = false;  // a damaged record: its entry's size is not known, nor the garbage
      else live += text_entry_bytes(cur.key().size(), m->text_len);
    }
    const uint64_t log = Store::meta_u64(txn, db, meta_key::kTextBytes);
    if (whole && live <= log) {
      Store::put_meta_u64(txn, db, meta_key::kGarbageTextBytes, log - live);
      wrote = true;
    }
  }
  if (!c.hidden_documents)
    if (auto hidden = hidden_documents_now(txn, db, index_dir)) {
      Store::put_meta_u64(txn, db, meta_key::kGarbageDocuments, *hidden);
      wrote = true;
    }
  return wrote;
}

std::optional<uint64_t> GarbageReport::hidden_document_bytes() const {
  if (!counts.hidden_documents) return std::nullopt;
  if (message_documents == 0) return 0;
  const uint64_t hidden = std::min(*counts.hidden_documents, message_documents);
  return static_cast<uint64_t>(static_cast<long double>(message_db_bytes) * hidden / message_documents);
}

std::optional<uint64_t> GarbageReport::bytes() const {
  auto docs = hidden_document_bytes();
  if (!counts.text_bytes || !docs) return std::nullopt;
  return *counts.text_bytes + *docs;
}

GarbageReport garbage_report(const std::string& index_dir, const LmdbTxn& txn, const Dbis& db) {
  GarbageReport g;
  g.counts = read_garbage_counts(txn, db);
  const IndexParts parts = read_parts(txn, db);
  g.text_log_bytes = parts.text_bytes;
  g.message_documents = message_documents(index_dir, parts.layout);
  g.message_db_bytes = TextIndexWriter::dir_bytes(parts.layout.main_dir(index_dir));
  for (const auto& s : parts.layout.shards) g.message_db_bytes += TextIndexWriter::dir_bytes(index_dir + "/" + s);
  return g;
}

bool worth_compacting(const GarbageReport& g, const CompactRule& rule) {
  const std::optional<uint64_t> bytes = g.bytes();
  if (!bytes || *bytes < rule.min_bytes) return false;
  const auto share_of = [&](uint64_t part, uint64_t whole) {
    return whole > 0 && static_cast<double>(part) >= rule.min_share * static_cast<double>(whole);
  };
  return share_of(*g.counts.text_bytes, g.text_log_bytes) ||
         share_of(*g.counts.hidden_documents, g.message_documents);
}

}  // namespace osearch
