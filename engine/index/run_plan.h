// What a run reads: the files of its plan that changed, and what becomes of those that are gone
// (engine/index/indexer.cpp runs the plan).
#pragma once

#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "engine/index/emptied_roots.h"
#include "engine/index/indexer.h"
#include "engine/index/ingest_batch.h"
#include "engine/index/stored_states.h"
#include "engine/store/records_store.h"
#include "engine/store/store.h"
#include "ingest/source_file.h"

namespace osearch {

// A file to read. Tens of thousands of them are planned at once (a Codex tree holds a file per
// session), so an item points into the run's file list and holds a state only when the index had
// one for the file: a fresh file's state is made when its reading starts.
struct WorkItem {
  const SourceFile* file;
  std::unique_ptr<FileState> state;  // null: read from the start, nothing carried
  uint64_t offset() const { return state ? state->offset : 0; }
};

// Whether `f`, whose stored state is `was`, must be read again whole: replaced (another file now, or
// deleted before), shrunk, rewritten in place (the bytes before its offset changed), or touched
// without growing. Its session is then read again whole, every file of it.
bool read_again_whole(const SourceFile& f, const FileStateView& was);

// The planned files that changed since their stored states, each with the state to read on from
// (none: from the start); unchanged ones count as skipped. A replaced file's session goes to `drop`,
// to be read again whole.
std::vector<WorkItem> plan_work(const std::vector<const SourceFile*>& to_plan, const StoredStates& states,
                                std::set<std::string>& drop, IndexSummary& summary);

// Marks deleted every stored file under the roots that discovery did not find, and its session's
// source as deleted (the session itself stays: only the index holds it now).
void mark_vanished_files(const StoredStates& states, const std::unordered_set<std::string_view>& discovered,
                         const std::vector<SourceRoot>& roots, IngestBatch& batch, EmptiedRoots& emptied,
                         IndexSummary& summary);

// Takes out of `drop` every session (but an interrupted batch's) that a transcript fed which is gone
// now: discovery did not find it and it is not there (an unreadable one counts as gone: keep).
void keep_sessions_with_vanished_files(const Store& store, std::set<std::string>& drop,
                                       const std::set<std::string>& interrupted,
                                       const std::unordered_set<std::string_view>& discovered);

// The carried links of the files about to be read on from where they stopped (the plan decoded
// every state without them). The writer lock keeps the states as the plan read them.
void load_skipped_links(const Store& store, std::vector<WorkItem>& work);

}  // namespace osearch
