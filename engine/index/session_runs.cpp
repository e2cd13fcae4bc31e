#include "engine/index/session_runs.h"

#include <set>

#include "engine/index/index_parts.h"
#include "engine/index/text_index.h"
#include "engine/store/codec.h"
#include "engine/store/session_numbers.h"
#include "engine/store/store.h"

namespace osearch {

namespace {
// uuid (length-prefixed), be64 revision, be32 document count, then the runs.
std::string header_of(const Xapian::Database& one) {
  const std::string uuid = one.get_uuid();
  std::string out;
  out += static_cast<char>(std::min<size_t>(uuid.size(), 255));
  out.append(uuid, 0, std::min<size_t>(uuid.size(), 255));
  put_be64(out, static_cast<uint64_t>(one.get_revision()));
  put_be32(out, one.get_doccount());
  return out;
}
}  // namespace

std::optional<std::string> encode_session_runs(const Xapian::Database& one) {
  std::string out = header_of(one);
  uint32_t first = 0, last = 0, number = 0;
  bool open = false;
  const auto close_run = [&] {
    if (!open) return;
    put_be32(out, first);
    put_be32(out, last);
    put_be32(out, number);
  };
  for (auto it = one.valuestream_begin(kSlotSession); it != one.valuestream_end(kSlotSession); ++it) {
    const std::optional<uint32_t> n = number_of_session_value(*it);
    if (!n) return std::nullopt;  // not a message or title document's value: keep to the values
    const Xapian::docid did = it.get_docid();
    if (open && *n == number && did == last + 1) {
      last = did;
      continue;
    }
    close_run();
    first = last = did;
    number = *n;
    open = true;
  }
  close_run();
  return out;
}

std::optional<SessionRuns> SessionRuns::for_database(std::string_view encoded, const Xapian::Database& one) {
  const std::string header = header_of(one);
  if (!encoded.starts_with(header)) return std::nullopt;  // another database, or another revision of it
  const std::string_view runs = encoded.substr(header.size());
  if (runs.size() % kRunBytes != 0) return std::nullopt;
  return SessionRuns(runs);
}

std::optional<uint32_t> SessionRuns::number_of(Xapian::docid local) const {
  // The last run starting at or before `local`.
  size_t lo = 0, hi = size();
  while (lo < hi) {
    const size_t mid = lo + (hi - lo) / 2;
    if (get_be32(runs_, mid * kRunBytes) <= local)
      lo = mid + 1;
    else
      hi = mid;
  }
  if (lo == 0) return std::nullopt;
  const size_t at = (lo - 1) * kRunBytes;
  if (get_be32(runs_, at + 4) < local) return std::nullopt;
  return get_be32(runs_, at + 8);
}

size_t keep_session_runs(const Store& store) {
  const Dbis& db = store.db();
  LmdbTxn txn(store.env(), false);
  // The databases a reader opens, in its order (open_index_databases): main, shards, titles.
  const IndexDatabases dbs = open_index_databases(store.dir(), read_parts(txn, db).layout);
  size_t read = 0;
  std::set<std::string> keys;
  for (const auto& [name, one] : dbs.parts) {
    const std::string key = std::string(kSessionRunsPrefix) + name;
    keys.insert(key);
    const std::optional<std::string_view> kept = txn.get(db.meta, key);
    if (kept && SessionRuns::for_database(*kept, one)) continue;
    ++read;
    if (std::optional<std::string> runs = encode_session_runs(one))
      txn.put(db.meta, key, *runs);
    else if (kept)
      txn.del(db.meta, key);
  }
  std::vector<std::string> stale;
  {
    // (closed before the commit: LMDB frees a write transaction's cursors with it)
    LmdbCursor cur(txn, db.meta);
    for (bool ok = cur.seek(kSessionRunsPrefix); ok && cur.key().starts_with(kSessionRunsPrefix); ok = cur.next())
      if (!keys.count(std::string(cur.key()))) stale.emplace_back(cur.key());
  }
  for (const auto& k : stale) txn.del(db.meta, k);
  txn.commit();
  return read;
}

}  // namespace osearch
