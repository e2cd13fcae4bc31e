#include "engine/index/drop_sessions.h"

#include "engine/index/garbage.h"

#include "engine/store/codec.h"
#include "engine/store/records_store.h"
#include "engine/store/session_numbers.h"
#include "engine/store/usage_agg.h"
#include "ingest/source_file.h"

namespace osearch {

// A file read again from its first byte; a session its lines name is decided again by them.
void reset_for_reread(FileState& st) {
  st.offset = st.lines = st.bad_lines = st.repaired_lines = st.oversized_lines = st.tail_len = 0;
  st.tail_crc = 0;
  st.carry = FileCarry{};
  st.links_unread = false;
  if (session_from_lines(st.kind)) st.session_id.clear();
}

// Drops every record of the given sessions (their files are then re-read whole). Returns the
// source files that fed them, with their offsets reset.
// Their message documents stay in Xapian (it keeps no termlists to delete them by): the session's
// epoch goes up in the same transaction, which hides them from every query from then on.
std::set<std::string> drop_sessions(Store& store, TextIndexWriter& xapian, const std::set<std::string>& sids,
                                    DropMode mode, const std::function<void(std::string_view)>& at_point) {
  // The title documents and the records cannot go in one commit. A re-read deletes the titles
  // first (the session's file, read again, titles it anew). A prune drops the records first: a
  // kill between leaves title documents of sessions that are gone, which queries skip and `check`
  // accepts, where the other order would leave titled sessions without their documents.
  auto delete_titles = [&] {
    for (const auto& sid : sids) xapian.delete_session_title(sid);
    xapian.commit();
    if (at_point) at_point("titles");
  };
  if (mode == DropMode::Reread) delete_titles();
  const Dbis& db = store.db();
  LmdbTxn txn(store.env(), false);
  for (const auto& sid : sids) {
    uint32_t epoch = xapian.epoch_of(sid) + 1;
    txn.put(db.epochs, sid, epoch_value(epoch));
    xapian.epochs()[sid] = epoch;
  }
  std::set<std::string> paths;
  uint64_t garbage = Store::meta_u64(txn, db, meta_key::kTextGarbage);
  // What the drop leaves behind (engine/index/garbage.h), counted here, in its own transaction.
  const GarbageCounts before = read_garbage_counts(txn, db);
  uint64_t dropped_messages = 0, dropped_text_bytes = 0;
  bool sizes_known = true;
  for (const auto& sid : sids) {
    const std::string pfx = sid + '\0';
    // msg_uuid is keyed by the session's number: its entries go as one range, even those of a
    // message record that no longer decodes.
    if (auto number = find_session_number(txn, db, sid)) delete_prefixed(txn, db.msg_uuid, message_uuid_key(*number));
    delete_prefixed(txn, db.messages, pfx, [&](std::string_view key, std::string_view value) {
      if (auto rec = MessageRec::decode(key, value)) {
        dropped_text_bytes += text_entry_bytes(key.size(), rec->text_len);
      } else {
        sizes_known = false;
      }
      ++garbage;  // its text log entry stays behind: content scans must check entries against records
      ++dropped_messages;
    });
    delete_prefixed(txn, db.tool_calls, pfx, [&](std::string_view, std::string_view value) {
      if (auto tc = ToolCallRec::decode(value))
        for (const auto& path : tc->paths()) {
          txn.del(db.tc_by_path, tool_path_key(path, sid, tc->id));
          txn.del(db.file_agg, pair_key(path, sid));
        }
    });
    delete_prefixed(txn, db.tool_results, pfx, [&](std::string_view, std::string_view value) {
      if (auto tr = ToolResultRec::decode(value); tr && tr->is_error)
        txn.del(db.failed_results, failed_result_key(timestamp_of_message_key(tr->message_key), sid, tr->tool_use_id));
    });
    delete_prefixed(txn, db.usage_seen, pfx);
    delete_session_aggregates(txn, db, sid);
    delete_prefixed(txn, db.subagents, pfx);
    delete_prefixed(txn, db.workflows, pfx, [&](std::string_view key, std::string_view) {
      delete_prefixed(txn, db.workflow_agents, std::string(key.substr(pfx.size())) + '\0');
    });
    delete_prefixed(txn, db.session_files, pfx, [&](std::string_view, std::string_view path) { paths.emplace(path); });
    if (auto v = txn.get(db.sessions, sid)) {
      if (auto rec = SessionRec::decode(*v)) {
        txn.del(db.sess_by_time, session_time_key(rec->ended_at, sid));
        txn.del(db.sess_by_project, pair_key(rec->project, sid));
      }
      txn.del(db.sessions, sid);
    }
  }
  Store::put_meta_u64(txn, db, meta_key::kTextGarbage, garbage);
  // A re-read drops an interrupted batch's sessions among the others: its mark is done with. A
  // prune runs after the refresh that cleared it.
  if (mode == DropMode::Reread) txn.del(db.meta, meta_key::kInFlight);
  // A record that does not decode hides its entry's size: the count becomes unknown (the next
  // `osearch index` counts it again) rather than wrong. An unknown count stays unknown.
  if (before.text_bytes && sizes_known)
    Store::put_meta_u64(txn, db, meta_key::kGarbageTextBytes, *before.text_bytes + dropped_text_bytes);
  else
    txn.del(db.meta, meta_key::kGarbageTextBytes);
  // Documents: counted outright (each live message owns one document; the rest are hidden). That
  // also holds after dropping an interrupted batch, whose messages never got their documents. With
  // a batch still in flight (a prune without its refresh), each dropped message hid its document.
  if (auto hidden = hidden_documents_now(txn, db, store.dir()))
    Store::put_meta_u64(txn, db, meta_key::kGarbageDocuments, *hidden);
  else if (before.hidden_documents)
    Store::put_meta_u64(txn, db, meta_key::kGarbageDocuments, *before.hidden_documents + dropped_messages);
  for (const auto& path : paths) {
    auto v = txn.get(db.files, file_key(path));
    if (!v) continue;
    auto st = FileState::decode(path, *v);
    if (!st) continue;
    reset_for_reread(*st);
    st->size = 0;  // never "unchanged": the next run reads it whole
    txn.put(db.files, file_key(path), st->encode());
    txn.del(db.file_links, file_key(path));
  }
  txn.commit();
  if (at_point) at_point("records");
  if (mode == DropMode::Prune) delete_titles();
  return paths;
}


}  // namespace osearch
