// Flushing an IngestBatch: text log -> Xapian -> one LMDB transaction (see ingest_batch.h).
#include <chrono>

#include "engine/codec.h"
#include "engine/ingest_batch.h"
#include "engine/trace.h"

namespace osearch {
namespace {

std::string sess_time_key(int64_t ended_at, std::string_view sid) {
  std::string k;
  put_be64(k, sortable_i64(ended_at));
  k.append(sid);
  return k;
}

// Above this much text a batch is split over two shard writers.
constexpr size_t kParallelShardBytes = 4u << 20;

}  // namespace

void IngestBatch::flush() {
  if (empty()) return;
  PhaseTimer timer("flush");
  // 1. Xapian. New messages go to fresh shard databases (in parallel for big batches): a fresh
  // database takes documents several times faster than a large one, and a shard only becomes part
  // of the index in the LMDB transaction below, so a crash never leaves documents LMDB does not
  // know about. Every message here is a new (session, uuid) pair, so no shard repeats another.
  // Title documents are replaced in place in the titles database.
  std::vector<MessageDoc> docs;
  docs.reserve(messages_.size());
  for (const auto& pm : messages_)
    docs.push_back({&pm.rec, pm.text, &sessions_.at(pm.rec.session_id).rec, &pm.tool_names,
                    xapian_.epoch_of(pm.rec.session_id)});
  std::unique_ptr<ShardWrite> shards;
  if (!docs.empty()) shards = xapian_.start_shards(docs, pending_bytes_ >= kParallelShardBytes ? 2 : 1);
  // 2. The text log, while the shards are written: it must be durable before LMDB points into
  // it, and the shards are not part of the index before that same LMDB commit either.
  for (auto& pm : messages_) {
    uint8_t flags = entry_flags(pm.rec.hidden_by_default(), static_cast<unsigned>(pm.rec.role),
                                static_cast<unsigned>(pm.rec.content_type));
    pm.rec.text_offset = log_.append(pm.rec.key, flags, pm.text);  // shard threads never read these two
    pm.rec.text_len = pm.text.size();
  }
  log_.sync();
  timer.mark("text log");
  // Still while the shards are written: titles, and the LMDB transaction up to its commit. Nothing
  // of it is visible before the commit below, which waits for the shards.
  bool titles_changed = false;
  for (auto& [id, ts] : sessions_) {
    if (ts.rec.message_count == 0) continue;
    if (ts.rec.title() != ts.committed_title || !ts.exists_in_store) {
      xapian_.set_session_title(ts.rec);
      titles_changed = true;
    }
  }
  if (titles_changed) xapian_.commit();
  reader_.reset();
  LmdbTxn txn(store_.env(), false);
  write_lmdb(txn);
  timer.mark("titles+lmdb");
  if (shards) {
    shards->wait();
    for (const auto& name : shards->names()) layout_.shards.push_back(name);
  }
  timer.mark("xapian");
  // 3. LMDB records and file offsets become visible with the shards that index them.
  const Dbis& db = store_.db();
  Store::put_meta_u64(txn, db, meta_key::kXapianGeneration, layout_.generation);
  txn.put(db.meta, meta_key::kXapianShards, layout_.encode_shards());
  txn.commit();
  store_.env().release_resident_pages();
  timer.mark("lmdb");

  sessions_.clear();
  messages_.clear();
  tool_calls_.clear();
  tool_results_.clear();
  message_by_uuid_.clear();
  sessions_by_uuid_.clear();
  tool_call_ids_.clear();
  tool_names_.clear();
  usage_seen_.clear();
  leaf_summaries_.clear();
  turn_durations_.clear();
  subagents_.clear();
  subagent_is_new_.clear();
  workflows_.clear();
  workflow_agents_.clear();
  file_states_.clear();
  deleted_sources_.clear();
  pending_bytes_ = 0;
  // early_facts_ survive: their session may still appear in a later batch of the same run.
}

void IngestBatch::write_lmdb(LmdbTxn& txn) {
  const Dbis& db = store_.db();

  // Turn durations land on their message, in this batch or already stored.
  for (const auto& [sid, uuid, ms] : turn_durations_) {
    std::string uk = pair_key(uuid, sid);
    if (auto it = message_by_uuid_.find(uk); it != message_by_uuid_.end()) {
      messages_[it->second].rec.turn_duration_ms = ms;
    } else if (auto key = txn.get(db.msg_uuid, uk)) {
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
    txn.put(db.msg_uuid, pair_key(pm.rec.uuid, pm.rec.session_id), pm.rec.key);
  }
  for (const auto& tc : tool_calls_) {
    txn.put(db.tool_calls, pair_key(tc.session_id, tc.id), tc.encode());
    if (!tc.file_path.empty()) txn.put(db.tc_by_path, pair_key(tc.file_path, pair_key(tc.session_id, tc.id)), "");
  }
  for (const auto& tr : tool_results_) txn.put(db.tool_results, pair_key(tr.session_id, tr.tool_use_id), tr.encode());
  for (const auto& uk : usage_seen_) txn.put(db.usage_seen, uk, "");
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
  for (auto& [id, ts] : sessions_) {
    if (ts.rec.message_count == 0) continue;  // a transcript with no messages is not a session
    if (ts.exists_in_store) txn.del(db.sess_by_time, sess_time_key(ts.committed_ended_at, id));
    txn.put(db.sess_by_time, sess_time_key(ts.rec.ended_at, id), "");
    txn.put(db.sess_by_project, pair_key(ts.rec.project, id), "");
    txn.put(db.sessions, id, ts.rec.encode());
  }
  for (const auto& [path, st] : file_states_) {
    txn.put(db.files, path, st.encode());
    // Every file that fed a session is named here: drops and --full's archive check find them.
    if (!st.session_id.empty()) txn.put(db.session_files, pair_key(st.session_id, path), "");
  }
  Store::put_meta_u64(txn, db, meta_key::kTextBytes, log_.bytes());
  Store::put_meta_u64(txn, db, meta_key::kTextEntries, log_.entries());
  auto now = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch());
  Store::put_meta_u64(txn, db, meta_key::kLastIndexedAt, static_cast<uint64_t>(now.count()));
}

}  // namespace osearch
