// One write batch of an index run: normalized records from ingest/ are applied to an in-memory
// overlay of the sessions they touch, then flushed crash-safely: the text log (fdatasync) and
// fresh Xapian shards (committed, fsynced) in parallel, then one LMDB transaction (records, file
// offsets, the shard list) that makes both part of the index.
// Lookups that decide idempotency (is this (session, uuid) stored? was this API message's usage
// counted?) consult both the batch and the committed LMDB state.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "engine/store/records_store.h"
#include "engine/store/store.h"
#include "engine/index/text_index.h"
#include "engine/store/text_log.h"
#include "engine/store/usage_agg.h"
#include "ingest/source_file.h"
#include "ingest/records.h"

namespace osearch {

struct BatchCounters {
  uint64_t messages = 0;    // new messages stored
  uint64_t tool_calls = 0;  // new tool calls stored
  uint64_t duplicates = 0;  // (session, uuid) already stored
};

class IngestBatch {
 public:
  // Bulk batches go to fresh parallel shards listed in `layout` (written to LMDB with the batch).
  IngestBatch(Store& store, TextLogWriter& log, TextIndexWriter& xapian, XapianLayout& layout);

  // Applies one line's records from `file` (its state is updated by the caller).
  void add(const SourceFile& file, FileState& state, LineRecords& rec, uint64_t line_offset);
  // A workflow run read from its JSON file.
  void add_workflow(const SourceFile& file, const WorkflowRun& run);
  // Records a file state to write with the next flush.
  void set_file_state(FileState state);
  // Marks sessions whose transcript at `path` vanished.
  void mark_source_deleted(const std::string& session_id, const std::string& path);

  size_t pending_bytes() const { return pending_bytes_; }
  // Time to flush: `flush_bytes` of pending text and records, kMaxBatchLines lines or
  // kMaxBatchSessions sessions, whichever comes first (a million tiny lines must not pile up in one
  // batch, nor the records of thousands of small sessions: each session's keys land in their own
  // places of every B-tree, and the write transaction holds each page it copies).
  bool full(size_t flush_bytes) const {
    return pending_bytes_ >= flush_bytes || pending_lines_ >= kMaxBatchLines || sessions_.size() >= kMaxBatchSessions;
  }
  static constexpr size_t kMaxBatchLines = 20000;
  static constexpr size_t kMaxBatchSessions = 512;
  bool empty() const;
  // Writes the batch; its shards may still be in flight when this returns (see flush()).
  void flush();
  // Flushes and waits until everything is part of the index. The last call of a run.
  void finish();
  const BatchCounters& counters() const { return counters_; }

 private:
  bool takes_progress_copy(const SourceFile& file, const std::string& agent_id);
  // The batch's LMDB lookups and writes fault pages of the records' map (each fault maps 64 KB
  // of it), released after each batch. A session re-read across batches is looked up over its
  // whole key range: every 256 operations, the map's pages are released once they grew by 64 MB,
  // so that one long session cannot make the map resident (LmdbTxn::trim_pages_every). A lower
  // bound costs ordinary builds: 16 MB made the 2 GB build 13 % slower (pages faulted again).
  static constexpr unsigned kMapTrimOps = 256;
  static constexpr size_t kMapTrimSlack = 64u << 20;

  struct PendingMessage {
    MessageRec rec;
    std::string text;
    std::vector<std::string> tool_names;
  };
  struct TouchedSession {
    SessionRec rec;
    int64_t committed_ended_at = 0;  // to move its sess_by_time key
    bool exists_in_store = false;
    std::vector<std::string> committed_titles;  // what its title document holds
    // engine/store/session_numbers.h: its stored number, read when touched. 0 when it has none (a
    // cold build's sessions: none of their messages can be stored yet, so their uuids need no
    // lookup) until the flush gives it one.
    uint32_t number = 0;
    bool number_is_new = false;  // to write with the batch's records
  };

  const LmdbTxn& reader();
  TouchedSession* find_session(const std::string& id);
  uint32_t stored_number(const std::string& id);
  TouchedSession& touch_session(const std::string& id, const SourceFile& file);
  // When the file named as the session's transcript is gone (marked earlier, or found gone in this
  // run), a file just read that stands for the session takes its place: a main transcript, or one of
  // its subagents' files while it has none (an orphan session).
  void adopt_if_source_gone(SessionRec& s, const std::string& sid, const SourceFile& file);
  std::string resolve_session(const SourceFile& file, FileState& state, const LineRecords& rec);
  void add_header(const SourceFile& file, const std::string& sid, const LineRecords& rec);
  void add_message(const SourceFile& file, const std::string& sid, Message& m, uint64_t line_offset);
  void record_tool_calls(const std::string& sid, Message& m, const std::string& message_key, int64_t ts,
                         SessionRec& s, PendingMessage* pm);
  void add_fact(const SourceFile& file, const std::string& sid, SessionFact& f, uint64_t line_offset);
  void apply_fact(TouchedSession& s, const SessionFact& f);
  void resolve_summary_leaf(const std::string& leaf, const std::string& project, const std::string& text,
                            const SourceFile& file, uint64_t line_offset);
  void apply_summary(SessionRec& s, std::string_view value);
  SubagentRec& touch_subagent(const std::string& sid, const std::string& agent_id, const SourceFile* file);
  template <typename Rec>
  Rec& touch_record(std::map<std::string, Rec>& batch, MDB_dbi dbi, const std::string& key, bool* is_new = nullptr);
  WorkflowRec& touch_workflow(const std::string& sid, const std::string& run_id);
  WorkflowAgentRec& touch_workflow_agent(const std::string& sid, const std::string& run_id, const std::string& agent_id);
  bool stored(MDB_dbi dbi, const std::string& key);
  // Usage counting (ingest_batch_usage.cpp): an API message's largest usage, once per session.
  struct SeenUsage {
    std::optional<UsageSeen> value;  // nullopt: counted by an older schema, amount unknown
    bool changed = false;            // to write with the batch
  };
  SeenUsage* find_usage_seen(const std::string& uk);
  TokenUsage count_usage(SessionRec& s, const std::string& uk, MessageRec* carrier, int64_t ts, const std::string& model,
                   const TokenUsage& u);
  TokenUsage count_message_usage(SessionRec& s, MessageRec& r, const Message& m);
  void count_fact_usage(SessionRec& s, const SessionFact& f);
  void count_tool_result(const std::string& sid, const ToolResult& res, int64_t message_ts);
  void write_usage(LmdbTxn& txn);
  void write_lmdb(LmdbTxn& txn);  // the records (no file offsets, no shard list); the caller commits
  void write_file_states(LmdbTxn& txn, const std::map<std::string, FileState>& states);
  void finish_in_flight();
  void number_sessions();  // every touched session's number, before its documents are built

  // A batch whose records are committed while its shards are still being written.
  struct InFlight {
    std::vector<PendingMessage> messages;
    std::map<std::string, TouchedSession> sessions;
    std::vector<MessageDoc> docs;  // point into the two above
    std::map<std::string, FileState> file_states;
    std::unique_ptr<ShardWrite> shards;  // declared last: destroyed (joined) first
  };
  std::unique_ptr<InFlight> in_flight_;

  Store& store_;
  TextLogWriter& log_;
  TextIndexWriter& xapian_;
  XapianLayout& layout_;
  std::optional<LmdbTxn> reader_;

  std::map<std::string, TouchedSession> sessions_;
  std::vector<PendingMessage> messages_;
  std::vector<ToolCallRec> tool_calls_;
  std::vector<ToolResultRec> tool_results_;
  std::unordered_map<std::string, size_t> message_by_uuid_;      // pair_key(sid, uuid) -> index
  std::unordered_map<std::string, std::vector<std::string>> sessions_by_uuid_;  // uuid -> sids (batch)
  std::unordered_set<std::string> tool_call_ids_;                 // pair_key(sid, id)
  std::unordered_map<std::string, std::string> tool_names_;       // pair_key(sid, id) -> name
  std::unordered_map<std::string, SeenUsage> usage_seen_;         // pair_key(sid, api message id | "@line")
  std::map<std::string, TokenUsage> usage_fixes_;  // message key -> the larger usage it now carries
  AggDeltas aggs_;                                  // usage_agg / tool_agg deltas of this batch
  std::unordered_map<std::string, int64_t> tool_call_ts_;  // pair_key(sid, id) -> call time (batch)
  std::unordered_set<std::string> tool_result_ids_;        // pair_key(sid, id) of results in the batch
  std::map<std::string, std::string> leaf_summaries_;             // pair_key(leafUuid, project) -> project \0 rank text
  std::map<std::string, std::vector<SessionFact>> early_facts_;   // facts seen before their session
  // Session key -> the id as written, where the two differ, until the session's record is stored.
  std::map<std::string, std::string> full_ids_;
  std::vector<std::tuple<std::string, std::string, int64_t>> turn_durations_;  // sid, uuid, ms
  std::map<std::string, SubagentRec> subagents_;                  // pair_key(sid, agent)
  std::map<std::string, bool> subagent_is_new_;
  std::map<std::string, WorkflowRec> workflows_;             // pair_key(sid, run)
  std::map<std::string, WorkflowAgentRec> workflow_agents_;  // pair_key(run, agent)
  std::map<std::string, FileState> file_states_;
  std::unordered_map<std::string, bool> progress_copies_;  // path \0 agent -> take its progress copies
  std::vector<std::pair<std::string, std::string>> deleted_sources_;
  size_t pending_bytes_ = 0;  // approx_bytes of the lines added since the last flush
  size_t pending_lines_ = 0;
  BatchCounters counters_;
};

}  // namespace osearch
