// The parts an LMDB env names besides itself: the Xapian generation and its shards, the titles
// database and the text log. Readers and the writer resolve every part name from the env they
// opened, so `index --full` can build a whole new generation beside the live one and switch to it
// with the one rename of records.current (engine/index/rebuild.h).
#pragma once

#include <string>
#include <string_view>

#include "engine/store/lmdb.h"
#include "engine/store/store.h"
#include "engine/index/text_index.h"

namespace osearch {

struct IndexParts {
  XapianLayout layout;              // xapian-<gen>, its shards and parts, titles
  std::string text_log = "text";    // <text_log>.log + <text_log>.idx
  uint64_t text_bytes = 0, text_entries = 0;  // committed sizes of the text log
};

// Throws when meta names a part outside the forms below (a damaged or hostile env must not make
// the writer open a path of its choosing).
IndexParts read_parts(const LmdbTxn& txn, const Dbis& db);
// `stem` or `stem`-<digits>: the only names a text log ("text") or titles dir ("titles") may have.
bool is_part_name(std::string_view name, std::string_view stem);
// The generation and shard list (the part names are written once, by the rebuild that creates them).
void write_layout(LmdbTxn& txn, const Dbis& db, const XapianLayout& layout);
void write_part_names(LmdbTxn& txn, const Dbis& db, const IndexParts& parts);

// Removes every database dir and text log of the index dir that `parts` does not name: left by a
// crash, an old generation or a rebuild that was interrupted. Only the writer calls it.
void remove_unnamed_parts(const std::string& index_dir, const IndexParts& parts);

}  // namespace osearch
