#include "engine/index/index_parts.h"

#include <algorithm>
#include <filesystem>
#include <stdexcept>
#include <vector>

namespace osearch {
namespace fs = std::filesystem;

bool is_part_name(std::string_view name, std::string_view stem) {
  if (name == stem) return true;
  if (name.size() <= stem.size() + 1 || name.size() > stem.size() + 19 || !name.starts_with(stem) ||
      name[stem.size()] != '-')
    return false;
  return std::all_of(name.begin() + static_cast<std::ptrdiff_t>(stem.size()) + 1, name.end(),
                     [](char c) { return c >= '0' && c <= '9'; });
}

IndexParts read_parts(const LmdbTxn& txn, const Dbis& db) {
  IndexParts p;
  p.layout.generation = Store::meta_u64(txn, db, meta_key::kXapianGeneration);
  if (auto v = txn.get(db.meta, meta_key::kXapianShards)) p.layout.shards = XapianLayout::decode_shards(*v);
  if (auto v = txn.get(db.meta, meta_key::kTitlesName); v && !v->empty()) p.layout.titles = std::string(*v);
  if (auto v = txn.get(db.meta, meta_key::kTextLogName); v && !v->empty()) p.text_log = std::string(*v);
  if (!is_part_name(p.layout.titles, XapianLayout::kLegacyTitles) || !is_part_name(p.text_log, "text"))
    throw std::runtime_error("the index names an invalid titles dir or text log (run `osearch index --full`)");
  p.text_bytes = Store::meta_u64(txn, db, meta_key::kTextBytes);
  p.text_entries = Store::meta_u64(txn, db, meta_key::kTextEntries);
  return p;
}

void write_layout(LmdbTxn& txn, const Dbis& db, const XapianLayout& layout) {
  Store::put_meta_u64(txn, db, meta_key::kXapianGeneration, layout.generation);
  txn.put(db.meta, meta_key::kXapianShards, layout.encode_shards());
}

void write_part_names(LmdbTxn& txn, const Dbis& db, const IndexParts& parts) {
  write_layout(txn, db, parts.layout);
  txn.put(db.meta, meta_key::kTitlesName, parts.layout.titles);
  txn.put(db.meta, meta_key::kTextLogName, parts.text_log);
}

void remove_unnamed_parts(const std::string& index_dir, const IndexParts& parts) {
  TextIndexWriter::remove_unreferenced(index_dir, parts.layout);
  std::vector<fs::path> doomed;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(index_dir, ec)) {
    const std::string name = e.path().filename().string();
    const bool text_part = (name.rfind("text", 0) == 0) && (name.ends_with(".log") || name.ends_with(".idx"));
    if (!text_part) continue;
    const std::string stem = name.substr(0, name.size() - 4);
    if (stem == "text" || stem.rfind("text-", 0) == 0) {
      if (stem != parts.text_log) doomed.push_back(e.path());
    }
  }
  for (const auto& p : doomed) fs::remove(p, ec);
}

}  // namespace osearch
