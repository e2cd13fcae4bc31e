// Carrying one session whole: every record of it and its texts, read from an env (the live one, or
// an old one being salvaged), migrated across schema steps, and written into an env. Salvage
// (`index --full`, a schema upgrade), `export --sessions` and `import` all go through here, so a
// session is carried one way only.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "engine/store/lmdb.h"
#include "engine/store/records_store.h"
#include "engine/store/store.h"
#include "engine/store/text_log.h"

namespace osearch {

struct KeyValue {
  std::string key, value;
};

// One session as read, checked before anything is written.
struct ArchivedSession {
  std::string id;
  SessionRec rec;
  std::string rec_bytes;
  std::vector<std::pair<MessageRec, std::string>> messages;  // record, text
  std::vector<KeyValue> tool_calls, tool_results, usage_seen, subagents, session_files, files, workflows,
      workflow_agents;
};

// The tables a session is read from (an old env may lack some: nullopt).
struct ArchiveTables {
  std::optional<MDB_dbi> sessions, messages, tool_calls, tool_results, usage_seen, subagents, session_files, files,
      workflows, workflow_agents;
  static ArchiveTables of(const Dbis& db);
};

// What a session written by an older schema needs redone to be stored by this one.
struct SchemaSteps {
  bool legacy_files = false;   // from 10 or 11: file states are dropped (see archive_io.cpp)
  bool meta_rules_12 = false;  // from 10-12: which messages are meta
  bool tool_paths_13 = false;  // from 10-13: tool-call paths absolute, apply_patch's files
};
// nullopt when sessions of schema `from` cannot be carried to `to` (older than the oldest step
// known, or newer than this build).
std::optional<SchemaSteps> schema_steps(uint64_t from, uint64_t to);

// Every record of `sid` and its texts, migrated by `steps`; nullopt when a record does not decode
// or a text is not there whole.
std::optional<ArchivedSession> read_session(const LmdbTxn& r, const ArchiveTables& t, const TextLogReader& text,
                                            const std::string& sid, const SchemaSteps& steps);
// Redoes `steps` on a session read as it was stored; false when a record does not decode.
bool apply_steps(ArchivedSession& s, const SchemaSteps& steps);

// Writes every record of `s` and appends its texts to `log` (records point into it: sync the log
// before the commit), with the derived orders and aggregates. Numbers the session first when `w`'s
// env has not (msg_uuid is keyed by the number); returns its number.
uint32_t write_session(LmdbTxn& w, const Dbis& db, TextLogWriter& log, ArchivedSession& s);

// Is none of the session's source files on disk (an archived session)? A session that names no
// file is archived too: nothing can re-read it.
bool sources_gone(const LmdbTxn& r, const Dbis& db, const std::string& sid);

}  // namespace osearch
