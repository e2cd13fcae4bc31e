#include "engine/index/archive_io.h"

#include <algorithm>
#include <filesystem>
#include <string_view>
#include <unordered_map>

#include <simdjson.h>

#include "engine/index/schema.h"
#include "engine/store/crc32c.h"
#include "engine/store/failed_results.h"
#include "engine/store/session_numbers.h"
#include "engine/store/usage_agg.h"
#include "ingest/claude.h"
#include "ingest/tool_paths.h"

namespace osearch {
namespace {

// Schema 13 stored a tool call's path as the tool wrote it; 14 stores it absolute against the
// cwd of its message and adds the files an apply_patch text names (ingest/tool_paths.h).
void migrate_tool_call_13(ToolCallRec& tc, std::string_view cwd) {
  std::vector<std::string> paths;
  if (!tc.file_path.empty()) paths.push_back(tc.file_path);
  if (tc.input_json.find("*** Begin Patch") != std::string::npos) {
    simdjson::dom::parser parser;
    simdjson::dom::element input;
    if (!parser.parse(tc.input_json).get(input)) {
      std::vector<simdjson::dom::element> todo{input};
      while (!todo.empty()) {  // every string of the input, wherever the patch sits
        simdjson::dom::element e = todo.back();
        todo.pop_back();
        std::string_view text;
        simdjson::dom::array arr;
        simdjson::dom::object obj;
        if (!e.get(text)) {
          if (text.find("*** Begin Patch") != std::string_view::npos)
            for (auto& p : patch_file_paths(text)) paths.push_back(std::move(p));
        } else if (!e.get(arr)) {
          for (simdjson::dom::element child : arr) todo.push_back(child);
        } else if (!e.get(obj)) {
          for (simdjson::dom::key_value_pair field : obj) todo.push_back(field.value);
        }
      }
    }
  }
  tc.file_path.clear();
  tc.extra_paths.clear();
  for (const auto& p : paths) {
    std::string abs = resolve_tool_path(p, cwd);
    if (tc.file_path.empty()) tc.file_path = std::move(abs);
    else if (abs != tc.file_path && std::find(tc.extra_paths.begin(), tc.extra_paths.end(), abs) == tc.extra_paths.end())
      tc.extra_paths.push_back(std::move(abs));
  }
}

// Every tool call of `s` as 14 stores it; false when one does not decode.
bool migrate_tool_calls_13(ArchivedSession& s) {
  std::unordered_map<std::string_view, std::string_view> cwd_of;  // message key -> its cwd
  for (const auto& [m, text] : s.messages) cwd_of.emplace(m.key, m.cwd);
  for (auto& kv : s.tool_calls) {
    auto tc = ToolCallRec::decode(kv.value);
    if (!tc) return false;
    auto it = cwd_of.find(tc->message_key);
    migrate_tool_call_13(*tc, it == cwd_of.end() ? std::string_view(s.rec.cwd) : it->second);
    kv.value = tc->encode();
  }
  return true;
}

// Schema 12 (and 10, 11) hid every command envelope by its content type and kept Claude's
// compaction summaries meta; 13 hides by is_meta alone: an envelope is meta without
// <command-args>, a summary never is (issue 9).
void migrate_message_12(MessageRec& m, std::string_view text) {
  if (m.content_type == ContentType::Command) m.is_meta = m.is_meta || command_args(text).empty();
  if (m.content_type == ContentType::Summary) m.is_meta = false;
}

}  // namespace

ArchiveTables ArchiveTables::of(const Dbis& db) {
  return {db.sessions,      db.messages,      db.tool_calls, db.tool_results, db.usage_seen, db.subagents,
          db.session_files, db.files,         db.workflows,  db.workflow_agents};
}

// Each step, what it changed and how a session stored before it is carried over. Records decode
// as the current ones across every step (fields are only ever appended, and a reader stops cleanly
// at the end of an older record); Xapian documents are rebuilt from the records anyway, so a
// change of terms (the tokenizer, the fold table: 11, 13) needs nothing here.
//   10 -> 11 bounded over-long keys (ids up to 160 bytes are unchanged) and kept full paths in
//            session_files' values (an empty value is read as the key's path) and grew FileState;
//   11 -> 12 added SessionRec::full_id (empty: the id was not bounded), agents besides Claude and
//            the adapter's carry in FileState. A state of 10 or 11 is dropped: its file is gone,
//            and dropping it only means the file is read as new should it come back (messages are
//            stored once per uuid);
//   12 -> 13 changed which messages are meta (migrate_message_12);
//   13 -> 14 stores tool-call paths absolute, with apply_patch's files (migrate_tool_call_13);
//            tc_by_path (reversed paths) and failed_results are derived in write_session;
//   14 -> 15 appended its transcript's usage, model and workflow run to a subagent record, which
//            an older record lacks (SubagentRec::usage_complete says so);
//   15 -> 16 added the usage aggregates (rebuilt for each session by write_session) and a
//            usage_seen value (an older empty one reads as "counted, amount unknown");
//   16 -> 17 keyed msg_uuid session first and gave message documents a uuid term: both are
//            derived (write_session, and the rebuild's documents), so no record changes;
//   17 -> 18 keeps a UUID session id in the documents' session slot as 16 bytes (session_value):
//            the rebuild's documents carry it, no record changes;
//   18 -> 19 puts the session's number in that slot (engine/store/session_numbers.h): the new
//            env numbers its sessions as the rebuild builds their documents, no record changes.
//   19 -> 20 appended the text's CRC-32C to MessageRec (write_session computes it as it appends
//            the text to the new log), and gives a persisted tool result (a "<persisted-output>"
//            preview) its whole output from toolUseResult: the rebuild re-reads every source there
//            is; an archived session keeps the preview it was stored with (its source is gone).
//            Likewise prompts queued mid-turn (queued_command attachments) became user messages.
//   20 -> 21 gave a Claude subagent without a transcript the messages its parent's progress lines
//            repeat: the rebuild re-reads every source there is, no record changes;
//   21 -> 22 keyed msg_uuid by the session's number instead of its id: derived (write_session
//            numbers the session in the new env), no record changes.
//   22 -> 23 changed the tokenizer (terminal escape sequences are separators): the rebuild's
//            documents take the new terms, no record changes.
//   23 -> 24 moved a text's first position from 1 to 2: the rebuild's documents take the new
//            positions, no record changes.
std::optional<SchemaSteps> schema_steps(uint64_t from, uint64_t to) {
  if (from < kOldestMigratedSchema || from > to || to > kSchemaVersion) return std::nullopt;
  SchemaSteps s;
  s.legacy_files = from <= 11;
  s.meta_rules_12 = from <= 12;
  s.tool_paths_13 = from <= 13;
  return s;
}

bool apply_steps(ArchivedSession& s, const SchemaSteps& steps) {
  const std::string pfx = s.id + '\0';
  for (auto& sf : s.session_files)
    if (sf.value.empty()) sf.value = sf.key.substr(pfx.size());  // schema 10 kept the path in the key only
  if (steps.legacy_files) s.files.clear();
  if (steps.meta_rules_12)
    for (auto& [m, text] : s.messages) migrate_message_12(m, text);
  return !steps.tool_paths_13 || migrate_tool_calls_13(s);
}

std::optional<ArchivedSession> read_session(const LmdbTxn& r, const ArchiveTables& t, const TextLogReader& text,
                                            const std::string& sid, const SchemaSteps& steps) {
  if (!t.sessions) return std::nullopt;
  ArchivedSession s;
  s.id = sid;
  auto v = r.get(*t.sessions, sid);
  if (!v) return std::nullopt;
  auto rec = SessionRec::decode(*v);
  if (!rec) return std::nullopt;
  s.rec = std::move(*rec);
  s.rec_bytes = std::string(*v);
  const std::string pfx = sid + '\0';
  bool ok = true;
  for_each_prefixed(r, t.messages, pfx, [&](std::string_view key, std::string_view value) {
    auto m = MessageRec::decode(key, value);
    TextEntry e;
    if (!m || !text.entry_at(m->text_offset, e) || e.key != m->key || e.text.size() != m->text_len) {
      ok = false;
      return;
    }
    s.messages.emplace_back(std::move(*m), std::string(e.text));
  });
  if (!ok) return std::nullopt;
  auto keep = [](std::vector<KeyValue>& out) {
    return [&out](std::string_view k, std::string_view val) { out.push_back({std::string(k), std::string(val)}); };
  };
  for_each_prefixed(r, t.tool_calls, pfx, keep(s.tool_calls));
  for_each_prefixed(r, t.tool_results, pfx, keep(s.tool_results));
  for_each_prefixed(r, t.usage_seen, pfx, keep(s.usage_seen));
  for_each_prefixed(r, t.subagents, pfx, keep(s.subagents));
  for_each_prefixed(r, t.session_files, pfx, keep(s.session_files));
  for_each_prefixed(r, t.workflows, pfx, keep(s.workflows));
  for (auto& sf : s.session_files) {
    const std::string path = sf.value.empty() ? sf.key.substr(pfx.size()) : sf.value;
    if (t.files && !steps.legacy_files)
      if (auto fv = r.get(*t.files, file_key(path))) s.files.push_back({file_key(path), std::string(*fv)});
  }
  for (const auto& wf : s.workflows)
    for_each_prefixed(r, t.workflow_agents, wf.key.substr(pfx.size()) + '\0', keep(s.workflow_agents));
  if (!apply_steps(s, steps)) return std::nullopt;
  return s;
}

uint32_t write_session(LmdbTxn& w, const Dbis& db, TextLogWriter& log, ArchivedSession& s) {
  const uint32_t number = ensure_session_number(w, db, s.id);
  w.put(db.sessions, s.id, s.rec_bytes);
  w.put(db.sess_by_time, session_time_key(s.rec.ended_at, s.id), "");
  w.put(db.sess_by_project, pair_key(s.rec.project, s.id), "");
  for (auto& [m, text] : s.messages) {
    const uint8_t flags = entry_flags(m.hidden_by_default(), static_cast<unsigned>(m.role),
                                      static_cast<unsigned>(m.content_type));
    m.text_offset = log.append(m.key, flags, text);
    m.text_len = text.size();
    m.text_crc = crc32c(text);  // (a record carried over from before schema 20 had none)
    w.put(db.messages, m.key, m.encode());
    w.put(db.msg_uuid, message_uuid_key(number, m.uuid), m.key);
  }
  for (const auto& kv : s.tool_calls) {
    w.put(db.tool_calls, kv.key, kv.value);
    if (auto tc = ToolCallRec::decode(kv.value))
      for (const auto& path : tc->paths()) w.put(db.tc_by_path, tool_path_key(path, s.id, tc->id), tool_path_value(*tc, path));
  }
  for (const auto& kv : s.tool_results) {
    w.put(db.tool_results, kv.key, kv.value);
    if (auto tr = ToolResultRec::decode(kv.value); tr && tr->is_error)
      put_failed_result(w, db, timestamp_of_message_key(tr->message_key), s.id, tr->tool_use_id);  // (after the calls)
  }
  for (const auto& kv : s.usage_seen) w.put(db.usage_seen, kv.key, kv.value);
  for (const auto& kv : s.subagents) w.put(db.subagents, kv.key, kv.value);
  for (const auto& kv : s.session_files) w.put(db.session_files, kv.key, kv.value);
  for (const auto& kv : s.files) w.put(db.files, kv.key, kv.value);
  for (const auto& kv : s.workflows) w.put(db.workflows, kv.key, kv.value);
  for (const auto& kv : s.workflow_agents) w.put(db.workflow_agents, kv.key, kv.value);
  // An older schema kept no aggregates (or others): `stats` reads them, so they are made here.
  rebuild_session_aggregates(w, db, s.id);
  return number;
}

bool sources_gone(const LmdbTxn& r, const Dbis& db, const std::string& sid) {
  bool present = false;
  const std::string pfx = sid + '\0';
  for_each_prefixed(r, db.session_files, pfx, [&](std::string_view key, std::string_view value) {
    std::error_code ec;
    const std::string path(value.empty() ? key.substr(pfx.size()) : value);
    if (!present && std::filesystem::exists(path, ec)) present = true;
  });
  return !present;
}

}  // namespace osearch
