// Flushing an IngestBatch: shards and text log in parallel, then LMDB in two steps (see flush()).
#include <future>
#include <set>

#include "engine/store/codec.h"
#include "engine/store/session_numbers.h"
#include "engine/index/ingest_batch.h"
#include "engine/store/failed_results.h"
#include "engine/store/crc32c.h"
#include "engine/store/trace.h"
#include "ingest/timeutil.h"

namespace osearch {
namespace {

// Above this much text a batch is split over two shard writers.
constexpr size_t kParallelShardBytes = 4u << 20;

}  // namespace

// A batch is committed to LMDB in two steps so that the next batch can be read while its shards
// are written:
//   A. right after the text log is synced: the batch's records, plus the list of its sessions as
//      "in flight" (meta kInFlight). The next batch's lookups see them from here on.
//   B. once its shards are committed and fsynced: the file offsets and the shard list, and the
//      in-flight list is cleared. Only now do the lines count as indexed.
// A crash between A and B leaves records whose documents never reached a listed shard; the next
// run drops those sessions (their epoch goes up) and reads their files again.
void IngestBatch::flush() {
  finish_in_flight();
  if (empty()) {
    pending_bytes_ = pending_lines_ = 0;
    return;
  }
  PhaseTimer timer("flush");
  number_sessions();
  auto flight = std::make_unique<InFlight>();
  // 1. Xapian. New messages go to fresh shard databases (in parallel for big batches): a fresh
  // database takes documents several times faster than a large one, and a shard only becomes part
  // of the index in step B, so a crash never leaves documents LMDB does not know about. Every
  // message here is a new (session, uuid) pair, so no shard repeats another. Title documents are
  // replaced in place in the titles database.
  flight->docs.reserve(messages_.size());
  for (const auto& pm : messages_) {
    const TouchedSession& ts = sessions_.at(pm.rec.session_id);
    flight->docs.push_back({&pm.rec, pm.text, &ts.rec, &pm.tool_names, xapian_.epoch_of(pm.rec.session_id), ts.number});
  }
  if (!flight->docs.empty())
    flight->shards = xapian_.start_shards(flight->docs, pending_bytes_ >= kParallelShardBytes ? 2 : 1);
  // 2. The text log, while the shards are written: durable before step A points into it.
  for (auto& pm : messages_) {
    uint8_t flags = entry_flags(pm.rec.hidden_by_default(), static_cast<unsigned>(pm.rec.role),
                                static_cast<unsigned>(pm.rec.content_type));
    pm.rec.text_offset = log_.append(pm.rec.key, flags, pm.text);  // shard threads never read these two
    pm.rec.text_len = pm.text.size();
    pm.rec.text_crc = crc32c(pm.text);
  }
  log_.sync();
  timer.mark("text log");
  // 3. The titles database on a thread of its own while the records are put (a batch of many
  // short sessions spends as long on each), committed before them as when it ran first: a title
  // document never lags its record. The thread reads the sessions' title fields, which
  // write_lmdb leaves alone; a session it adds to sessions_ is not in the list.
  std::vector<const TouchedSession*> titled;
  for (const auto& [id, ts] : sessions_)
    if (ts.rec.message_count != 0 || ts.rec.has_main) titled.push_back(&ts);
  auto titles = std::async(std::launch::async, [this, titled = std::move(titled)] {
    bool changed = false;
    for (const TouchedSession* ts : titled) {
      if (ts->rec.searchable_titles() != ts->committed_titles || !ts->exists_in_store) {
        xapian_.set_session_title(ts->rec, ts->number);
        changed = true;
      }
    }
    if (changed) xapian_.commit();
  });
  // 4. Step A (or everything at once when there is no shard to wait for).
  reader_.reset();
  {
    LmdbTxn txn(store_.env(), false);
    txn.trim_pages_every(kMapTrimOps, kMapTrimSlack);
    write_lmdb(txn);
    timer.mark("lmdb records");
    titles.get();  // rethrows the thread's error: the records are then not committed
    timer.mark("titles");
    if (flight->shards) {
      std::set<std::string> sids;
      for (const auto& [id, ts] : sessions_) sids.insert(id);
      for (const auto& pm : messages_) sids.insert(pm.rec.session_id);
      std::string list;
      for (const auto& sid : sids) list += sid + '\n';
      txn.put(store_.db().meta, meta_key::kInFlight, list);
    } else {
      write_file_states(txn, file_states_);
    }
    txn.commit();
  }
  // Their records hold the full ids now (touch_session reads a stored record's): only a session not
  // written yet needs its entry, so the map does not grow with every session of a Codex tree.
  for (const auto& [id, ts] : sessions_)
    if (ts.rec.message_count != 0 || ts.rec.has_main) full_ids_.erase(id);
  store_.env().release_resident_pages();
  timer.mark("lmdb commit");
  if (flight->shards) {
    // The shard threads still read these: they move (node and buffer addresses stay put).
    flight->messages = std::move(messages_);
    flight->sessions = std::move(sessions_);
    flight->file_states = std::move(file_states_);
    in_flight_ = std::move(flight);
  }

  sessions_.clear();
  messages_.clear();
  tool_calls_.clear();
  tool_results_.clear();
  message_by_uuid_.clear();
  sessions_by_uuid_.clear();
  tool_call_ids_.clear();
  tool_names_.clear();
  usage_seen_.clear();
  usage_fixes_.clear();
  aggs_.clear();
  tool_call_ts_.clear();
  tool_result_ids_.clear();
  leaf_summaries_.clear();
  turn_durations_.clear();
  subagents_.clear();
  subagent_is_new_.clear();
  workflows_.clear();
  workflow_agents_.clear();
  file_states_.clear();
  deleted_sources_.clear();
  pending_bytes_ = 0;
  pending_lines_ = 0;
  // early_facts_ survive: their session may still appear in a later batch of the same run.
}

// Numbers are looked up in a fresh snapshot (another writer of this process, a rebuild's or an
// import's, may have numbered sessions since this batch's lookups began) and given in order after
// the last one there; they are written with the records in step A, before any document that holds
// them is listed (step B): a crash before step A leaves only unlisted shards with them.
void IngestBatch::number_sessions() {
  reader_.reset();
  const Dbis& db = store_.db();
  uint32_t last = 0;
  bool last_read = false;
  for (auto& [id, ts] : sessions_) {
    if (ts.number) continue;
    if (auto n = find_session_number(reader(), db, id)) {
      ts.number = *n;
      continue;
    }
    if (!last_read) last = last_session_number(reader(), db), last_read = true;
    ts.number = last = next_session_number(last);
    ts.number_is_new = true;
  }
}

// Step B for the batch in flight: wait for its shards, then make them and its file offsets part of
// the index in one transaction.
void IngestBatch::finish_in_flight() {
  if (!in_flight_) return;
  PhaseTimer timer("flush");
  in_flight_->shards->wait();
  xapian_.remember_uuids(*in_flight_->shards);
  timer.mark("xapian");
  XapianLayout next = layout_;
  for (const auto& name : in_flight_->shards->names()) next.shards.push_back(name);
  reader_.reset();
  LmdbTxn txn(store_.env(), false);
  txn.trim_pages_every(kMapTrimOps, kMapTrimSlack);  // (a file state per file: their pages lie all over)
  write_file_states(txn, in_flight_->file_states);
  const Dbis& db = store_.db();
  Store::put_meta_u64(txn, db, meta_key::kXapianGeneration, next.generation);
  txn.put(db.meta, meta_key::kXapianShards, next.encode_shards());
  txn.del(db.meta, meta_key::kInFlight);
  txn.commit();
  store_.env().release_resident_pages();
  layout_ = std::move(next);
  in_flight_.reset();
  timer.mark("lmdb offsets");
}

void IngestBatch::finish() {
  flush();
  finish_in_flight();
}

void IngestBatch::write_file_states(LmdbTxn& txn, const std::map<std::string, FileState>& states) {
  const Dbis& db = store_.db();
  for (const auto& [path, st] : states) {
    txn.put(db.files, file_key(path), st.encode());
    // Its links beside it, in the same transaction; a state decoded without them (a file gone)
    // keeps none: such a file is read whole should it come back.
    if (!st.carry.skipped_links.empty())
      txn.put(db.file_links, file_key(path), st.carry.skipped_links);
    else
      txn.del(db.file_links, file_key(path));
    // Every file that fed a session is named here: drops and --full's archive check find them.
    // The value is the path (the key holds a bounded form of it).
    if (!st.session_id.empty()) txn.put(db.session_files, pair_key(st.session_id, path), path);
  }
}

void IngestBatch::write_lmdb(LmdbTxn& txn) {
  const Dbis& db = store_.db();

  // Turn durations land on their message, in this batch or already stored.
  for (const auto& [sid, uuid, ms] : turn_durations_) {
    if (auto it = message_by_uuid_.find(pair_key(sid, uuid)); it != message_by_uuid_.end()) {
      messages_[it->second].rec.turn_duration_ms = ms;
    } else if (auto key = find_message_key(txn, db, sid, uuid)) {
      std::string k(*key);
      if (auto v = txn.get(db.messages, k)) {
        if (auto rec = MessageRec::decode(k, *v)) {
          rec->turn_duration_ms = ms;
          txn.put(db.messages, k, rec->encode());
        }
      }
    }
  }
  for (const auto& pm : messages_) {
    txn.put(db.messages, pm.rec.key, pm.rec.encode());
    txn.put(db.msg_uuid, message_uuid_key(sessions_.at(pm.rec.session_id).number, pm.rec.uuid), pm.rec.key);
  }
  for (const auto& tc : tool_calls_) {
    txn.put(db.tool_calls, pair_key(tc.session_id, tc.id), tc.encode());
    for (const auto& path : tc.paths())
      txn.put(db.tc_by_path, tool_path_key(path, tc.session_id, tc.id), tool_path_value(tc, path));
  }
  for (const auto& tr : tool_results_) {
    txn.put(db.tool_results, pair_key(tr.session_id, tr.tool_use_id), tr.encode());
    if (tr.is_error)  // the order `failures` walks, in the result's transaction (after the calls)
      put_failed_result(txn, db, timestamp_of_message_key(tr.message_key), tr.session_id, tr.tool_use_id);
  }
  write_usage(txn);  // after the messages: a larger chunk's usage lands on its stored message
  for (const auto& [leaf, value] : leaf_summaries_) txn.put(db.leaf_summary, leaf, value);
  for (const auto& [key, rec] : subagents_) {
    if (subagent_is_new_[key]) {
      if (auto it = sessions_.find(rec.session_id); it != sessions_.end()) ++it->second.rec.subagent_count;
    }
    txn.put(db.subagents, key, rec.encode());
  }
  for (const auto& [key, rec] : workflows_) txn.put(db.workflows, key, rec.encode());
  for (const auto& [key, rec] : workflow_agents_) txn.put(db.workflow_agents, key, rec.encode());
  for (const auto& [sid, path] : deleted_sources_) {
    TouchedSession* s = nullptr;
    if (auto it = sessions_.find(sid); it != sessions_.end()) {
      s = &it->second;
    } else if (auto v = txn.get(db.sessions, sid)) {
      if (auto rec = SessionRec::decode(*v)) {
        TouchedSession t;
        t.rec = std::move(*rec);
        t.committed_ended_at = t.rec.ended_at;
        t.exists_in_store = true;
        s = &sessions_.emplace(sid, std::move(t)).first->second;
      }
    }
    if (s && s->rec.jsonl_path == path) s->rec.source_deleted = true;
  }
  for (auto& [id, ts] : sessions_)
    if (ts.number_is_new) put_session_number(txn, db, id, ts.number);
  for (auto& [id, ts] : sessions_) {
    // A Claude transcript with no messages is not a session (summary-only files title others); a
    // header made one (add_header).
    if (ts.rec.message_count == 0 && !ts.rec.has_main) continue;
    if (ts.exists_in_store) txn.del(db.sess_by_time, session_time_key(ts.committed_ended_at, id));
    txn.put(db.sess_by_time, session_time_key(ts.rec.ended_at, id), "");
    txn.put(db.sess_by_project, pair_key(ts.rec.project, id), "");
    txn.put(db.sessions, id, ts.rec.encode());
  }
  Store::put_meta_u64(txn, db, meta_key::kTextBytes, log_.bytes());
  Store::put_meta_u64(txn, db, meta_key::kTextEntries, log_.entries());
  Store::put_meta_u64(txn, db, meta_key::kLastIndexedAt, static_cast<uint64_t>(current_time_ms()));
}

}  // namespace osearch
