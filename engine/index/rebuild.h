// `index --full` (and a schema change): a new generation built beside the live one, then made live
// with one rename. Until the rename readers answer from the old generation; a crash before it
// leaves the old generation working and a new one no pointer names, which the next writer removes.
//
//   begin_rebuild   picks fresh names (records-<k>, text-<k>.log, titles-<k>, xapian-<g>), salvages
//                   memories and archived sessions from the old env (engine/index/salvage.h)
//   index_salvaged  gives the salvaged messages and titles their Xapian documents
//   (the usual ingest into the new env)
//   switch_to_rebuilt  syncs the new env, renames records.current, removes the old generation
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/index/index_parts.h"
#include "engine/index/indexer.h"
#include "engine/store/store.h"
#include "engine/index/text_index.h"

namespace osearch {

struct Rebuild {
  std::string env_name;  // records-<k>, not named by records.current until the switch
  IndexParts parts;      // the new generation's part names
};

// Fresh names for a whole new generation beside the live one (records-<k>, text-<k>, titles-<k>,
// xapian-<g>: numbers above any in the index dir), with its titles database created empty. Nothing
// names them until the switch; the next writer removes them if the switch never comes.
Rebuild new_generation(const std::string& index_dir);

// Salvage problems and losses go into `summary`. Never maps the old env in this process.
// `at_point` (tests) is handed to the salvage child (SalvageTarget::at_point).
Rebuild begin_rebuild(const std::string& index_dir, const std::vector<SourceRoot>& roots, uint64_t schema,
                      IndexSummary& summary, const std::function<void(std::string_view)>& at_point = {});

// Writes the Xapian documents of the messages already in `store` (all salvaged, or all carried over
// by a compaction: the new env holds nothing else yet) into fresh shards listed in `layout`, and
// their sessions' titles, with the DocBuilder ingest uses, at epoch 0. `threads` shards are written
// at once.
void index_salvaged(Store& store, TextIndexWriter& xapian, XapianLayout& layout, unsigned threads = 1);

// Makes the rebuilt env live and removes the old generation's parts. `store` must be the rebuilt
// env with no transaction alive; afterwards it is open on the live env (the same one).
void switch_to_rebuilt(Store& store, const Rebuild& rebuild, const std::function<void(std::string_view)>& at_point);

}  // namespace osearch
