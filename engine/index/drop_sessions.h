// Dropping sessions from the live index: the one path for a session whose file is re-read whole
// (engine/index/indexer.cpp) and for `osearch prune` (engine/query/archive_ops.h).
#pragma once

#include <functional>
#include <set>
#include <string>
#include <string_view>

#include "engine/index/text_index.h"
#include "engine/store/records_store.h"
#include "engine/store/store.h"

namespace osearch {

enum class DropMode {
  Reread,  // the sessions' files are read again whole in this run (clears an interrupted batch's mark)
  Prune,   // the sessions go for good
};

// A file read again from its first byte; a session its lines name is decided again by them.
void reset_for_reread(FileState& st);

// Drops every record of the given sessions (their files are then re-read whole). Returns the
// source files that fed them, with their offsets reset.
// Their message documents stay in Xapian (it keeps no termlists to delete them by): the session's
// epoch goes up in the same transaction, which hides them from every query from then on. Their text
// log entries stay too. Both are counted as garbage in the same transaction (engine/index/garbage.h)
// until a compaction reclaims them (engine/index/compact.h).
// `at_point` (tests) is called with "titles" once the title documents are deleted and "records"
// once the records are (a re-read deletes titles first, a prune records first: drop_sessions.cpp).
std::set<std::string> drop_sessions(Store& store, TextIndexWriter& xapian, const std::set<std::string>& sids,
                                    DropMode mode, const std::function<void(std::string_view)>& at_point = {});

}  // namespace osearch
