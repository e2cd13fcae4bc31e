#include "engine/index/ingest_batch.h"

#include <algorithm>
#include <chrono>

#include "engine/index/subagent_copies.h"
#include "engine/store/codec.h"
#include "engine/store/session_numbers.h"
#include "engine/store/trace.h"
#include "ingest/agent_layout.h"
#include "ingest/bounded_id.h"
#include "ingest/claude.h"
#include "ingest/claude_layout.h"
#include "ingest/tool_paths.h"

namespace osearch {

IngestBatch::IngestBatch(Store& store, TextLogWriter& log, TextIndexWriter& xapian, XapianLayout& layout)
    : store_(store), log_(log), xapian_(xapian), layout_(layout) {}

const LmdbTxn& IngestBatch::reader() {
  if (!reader_) {
    reader_.emplace(store_.env(), true);
    reader_->trim_pages_every(kMapTrimOps, kMapTrimSlack);
  }
  return *reader_;
}

bool IngestBatch::stored(MDB_dbi dbi, const std::string& key) { return reader().get(dbi, key).has_value(); }

bool IngestBatch::empty() const {
  return messages_.empty() && sessions_.empty() && file_states_.empty() && deleted_sources_.empty() &&
         leaf_summaries_.empty() && workflows_.empty() && workflow_agents_.empty();
}

// A stored session's number (0: none), read once per batch: it keys the session's msg_uuid
// entries, which each of its messages looks up (add_message).
uint32_t IngestBatch::stored_number(const std::string& id) {
  return find_session_number(reader(), store_.db(), id).value_or(0);
}

IngestBatch::TouchedSession* IngestBatch::find_session(const std::string& id) {
  auto it = sessions_.find(id);
  if (it != sessions_.end()) return &it->second;
  auto v = reader().get(store_.db().sessions, id);
  if (!v) return nullptr;
  auto rec = SessionRec::decode(*v);
  if (!rec) return nullptr;
  TouchedSession t;
  t.rec = std::move(*rec);
  t.committed_ended_at = t.rec.ended_at;
  t.exists_in_store = true;
  t.committed_titles = t.rec.searchable_titles();
  t.number = stored_number(id);
  return &sessions_.emplace(id, std::move(t)).first->second;
}

IngestBatch::TouchedSession& IngestBatch::touch_session(const std::string& id, const SourceFile& file) {
  if (TouchedSession* s = find_session(id)) return *s;
  TouchedSession t;
  t.rec.id = id;
  if (file.session_id == id) t.rec.full_id = file.session_id_full;
  if (auto full = full_ids_.find(id); full != full_ids_.end()) t.rec.full_id = full->second;
  t.rec.agent = file.agent;
  t.rec.project = file.project;
  t.number = stored_number(id);  // (find_session found no record that decodes; a number may still be stored)
  TouchedSession& s = sessions_.emplace(id, std::move(t)).first->second;
  if (auto early = early_facts_.find(id); early != early_facts_.end()) {
    for (const auto& f : early->second) apply_fact(s, f);
    early_facts_.erase(early);
  }
  return s;
}

std::string IngestBatch::resolve_session(const SourceFile& file, FileState& state, const LineRecords& rec) {
  // The stored key of an id as a line or path gives it (bounded, plus its full form when cut).
  auto key_of = [&](const std::string& bounded, const std::string& full) {
    const std::string& written = full.empty() ? bounded : full;
    std::string key = session_key(file, written);
    if (key != written) full_ids_.emplace(key, written);  // users see and resume the id as written
    return key;
  };
  // A session index names a session on each line (it only titles sessions, never makes one).
  if (file.kind == SourceKind::CodexSessionIndex) return key_of(rec.session_id_field, rec.session_id_full);
  if (!session_from_lines(file.kind)) return key_of(file.session_id, file.session_id_full);
  // Root agent files, omp/pi and Codex transcripts belong to the session their lines name; the
  // first one decides (a forked Codex rollout repeats its parent's session_meta after its own).
  if (state.session_id.empty() && !rec.session_id_field.empty())
    state.session_id = key_of(rec.session_id_field, rec.session_id_full);
  if (!state.session_id.empty()) {
    // Decided in an earlier run (a Codex session_meta is written long before the first message).
    if (!full_ids_.count(state.session_id))
      if (std::string written = written_session_id(file, state.session_id); !written.empty())
        full_ids_.emplace(state.session_id, std::move(written));
    return state.session_id;
  }
  // Before any line named it (omp's title slot precedes the header), or in a file where none does:
  // the id the file's name carries. A message settles it, so later lines cannot split the file.
  std::string fallback = file.session_id.empty() ? std::string() : key_of(file.session_id, file.session_id_full);
  if (!rec.messages.empty()) state.session_id = fallback;
  return fallback;
}

void IngestBatch::add(const SourceFile& file, FileState& state, LineRecords& rec, uint64_t line_offset) {
  std::string sid = resolve_session(file, state, rec);
  if (sid.empty()) return;
  pending_bytes_ += approx_bytes(rec);
  ++pending_lines_;
  if (rec.is_header && !is_subagent_kind(file.kind) && sid == state.session_id) add_header(file, sid, rec);
  // Several messages of one line get consecutive key offsets: a line is longer than its message count.
  for (size_t i = 0; i < rec.messages.size(); ++i) {
    Message& m = rec.messages[i];
    if (m.from_progress && !takes_progress_copy(file, m.agent_id)) continue;
    add_message(file, sid, m, line_offset + i);
  }
  for (auto& f : rec.facts) {
    // Usage is counted once per line: a rollout read again under a new name (.jsonl.zst) repeats it.
    // (Not "@" + to_string(…): GCC 12 warns a false -Wrestrict on it.)
    if (f.kind == SessionFact::Kind::Usage && f.ref_uuid.empty()) f.ref_uuid.assign("@").append(std::to_string(line_offset));
    add_fact(file, sid, f, line_offset);
  }
}

// A subagent's message copied into a Claude transcript's progress line: taken only from a main
// transcript (an agent's own are not read for copies) when the subagent has no transcript of its
// own (engine/index/subagent_copies.h). Asked once per (transcript, agent) in a batch.
bool IngestBatch::takes_progress_copy(const SourceFile& file, const std::string& agent_id) {
  if (file.kind != SourceKind::ClaudeMain) return false;
  std::string key = file.path;
  key.append(1, '\0').append(agent_id);
  auto it = progress_copies_.find(key);
  if (it == progress_copies_.end())
    it = progress_copies_.emplace(std::move(key), !subagent_transcript_exists(file.path, agent_id)).first;
  return it->second;
}

// An omp/pi/Codex file is a session from its header on, with or without messages (one that never
// gets any, such as a Codex rollout that only hit a rate limit, is still listed).
void IngestBatch::add_header(const SourceFile& file, const std::string& sid, const LineRecords& rec) {
  SessionRec& s = touch_session(sid, file).rec;
  if (!s.has_main || s.source_deleted) {
    s.has_main = true;
    s.jsonl_path = file.path;
    s.source_deleted = false;
  }
  if (!rec.header_cwd.empty()) {
    if (s.project_path.empty()) s.project_path = rec.header_cwd;
    if (s.cwd.empty()) s.cwd = rec.header_cwd;
    if (s.project.empty()) s.project = project_slug(rec.header_cwd);
  }
  if (rec.header_time_ms > 0) {
    if (s.started_at == 0 || rec.header_time_ms < s.started_at) s.started_at = rec.header_time_ms;
    s.ended_at = std::max(s.ended_at, rec.header_time_ms);
  }
}

void IngestBatch::add_message(const SourceFile& file, const std::string& sid, Message& m, uint64_t line_offset) {
  std::string uuid_key = pair_key(sid, m.uuid);
  // Stored once per (session, uuid); a tool call is still once per (session, id), whatever line holds it.
  std::string existing_key;
  bool same_content = true;
  // (Every path below touches the session: this only looks it up first. A session without a stored
  // number has no messages to find.)
  const uint32_t stored_as = touch_session(sid, file).number;
  if (auto it = message_by_uuid_.find(uuid_key); it != message_by_uuid_.end()) {
    existing_key = messages_[it->second].rec.key;
    same_content = messages_[it->second].text == m.text;
  } else if (auto key = stored_as ? find_message_key(reader(), store_.db(), stored_as, m.uuid) : std::nullopt) {
    existing_key = std::string(*key);
    // Stored in an earlier batch: its text is in the log; a repeat has the same length.
    if (auto bytes = reader().get(store_.db().messages, existing_key))
      if (auto rec = MessageRec::decode(existing_key, *bytes)) same_content = rec->text_len == m.text.size();
  }
  if (!existing_key.empty() && !same_content && !m.text.empty()) {
    // The uuid again with other words (a damaged line and its rewrite, a hand-edited file): both
    // are kept, the later one under "<uuid>#<line offset>", so no text is lost unsaid.
    m.uuid = bounded_id(m.uuid + "#" + std::to_string(line_offset));
    add_message(file, sid, m, line_offset);
    return;
  }
  if (!existing_key.empty()) {
    ++counters_.duplicates;
    // The same messages under a new name (Codex compresses a finished rollout to .jsonl.zst and
    // removes the .jsonl; a project directory moved), or under the old name put back: the session's
    // transcript is the file just read.
    adopt_if_source_gone(touch_session(sid, file).rec, sid, file);
    record_tool_calls(sid, m, existing_key, timestamp_of_message_key(existing_key), touch_session(sid, file).rec,
                      nullptr);
    // Its usage, should the stored message be a copy from a progress line (no usage): a subagent's
    // transcript read after its parent's copies were. Once per API message, so a true repeat adds nothing.
    if (!m.from_progress && m.usage.any() && !m.api_message_id.empty())
      count_usage(touch_session(sid, file).rec, pair_key(sid, m.api_message_id), nullptr, m.timestamp_ms, m.model,
                  m.usage);
    return;
  }
  TouchedSession& ts = touch_session(sid, file);
  SessionRec& s = ts.rec;
  // Until a session has a main transcript, its facts come from its agents' files, met in whatever
  // order the runs met them: as in a transcript read in order, the earliest message names the file
  // (of two as early, the first path) and the project path, and the latest the branch, version and cwd.
  const bool from_main = !is_subagent_kind(file.kind);
  const bool earliest = m.timestamp_ms > 0 && (s.started_at == 0 || m.timestamp_ms < s.started_at);
  const bool latest = m.timestamp_ms >= s.ended_at;
  if (from_main) {
    if (!s.has_main) s.project_path.clear();  // an agent's (a worktree's) stood in until now
    s.has_main = true;
    s.jsonl_path = file.path;
    s.source_deleted = false;
  } else if (!s.has_main && (s.jsonl_path.empty() || earliest ||
                              (m.timestamp_ms == s.started_at && file.path < s.jsonl_path))) {
    s.jsonl_path = file.path;  // orphan session: its subagent file stands in for the transcript
    s.source_deleted = false;
  } else {
    adopt_if_source_gone(s, sid, file);
  }

  PendingMessage pm;
  MessageRec& r = pm.rec;
  r.uuid = m.uuid;
  r.session_id = sid;
  r.type = m.type;
  r.parent_uuid = m.parent_uuid;
  r.logical_parent_uuid = m.logical_parent_uuid;
  r.timestamp_ms = m.timestamp_ms;
  r.role = m.role;
  r.content_type = m.content_type;
  r.is_meta = m.is_meta;
  r.is_sidechain = m.is_sidechain || is_subagent_kind(file.kind);
  r.model = m.model;
  r.agent_id = m.agent_id.empty() ? file.agent_id : m.agent_id;
  r.cwd = m.cwd;
  r.git_branch = m.git_branch;
  r.skill = m.skill;
  r.api_message_id = m.api_message_id;
  r.key = message_key(sid, m.timestamp_ms, file_tag(file.path), line_offset);

  // Streamed chunks share one API message: its largest usage counts, once per session.
  const TokenUsage counted = count_message_usage(s, r, m);
  aggs_.add_usage(sid, r.timestamp_ms, r.model, {}, 0, 1);

  ++s.message_count;
  if (m.timestamp_ms > 0) {
    if (s.started_at == 0 || m.timestamp_ms < s.started_at) s.started_at = m.timestamp_ms;
    if (m.timestamp_ms > s.ended_at) s.ended_at = m.timestamp_ms;
  }
  if (from_main || !s.has_main) {
    const bool last_word = from_main || latest;
    if (!m.git_branch.empty() && last_word) s.git_branch = m.git_branch;
    if (!m.version.empty() && last_word) s.version = m.version;
    if (!m.cwd.empty()) {
      if (s.project_path.empty() || (!from_main && earliest)) s.project_path = m.cwd;
      if (last_word) s.cwd = m.cwd;
    }
    // Agents other than Claude name no project dir: the project is the cwd's slug, as Claude's is.
    if (s.project.empty() && !s.project_path.empty()) s.project = project_slug(s.project_path);
  }
  if (!m.model.empty() && m.model != "<synthetic>") s.add_model(m.model);
  if (s.first_prompt.empty() && r.role == Role::User && r.content_type == ContentType::Text && !r.is_meta &&
      !r.is_sidechain && m.prompt_offset < m.text.size() &&
      m.text.find_first_not_of(" \t\r\n", m.prompt_offset) != std::string::npos)
    s.first_prompt = m.text.substr(m.prompt_offset, 2000);

  record_tool_calls(sid, m, r.key, r.timestamp_ms, s, &pm);
  for (auto& res : m.tool_results) {
    // A result that names no tool use answers no call, and its record would be keyed by the session
    // alone: a second such result replaced the first, whose message `failures` and `thread` then
    // showed with the other's text. It stays a message (its text searchable), like a call without an
    // id, which is not recorded either.
    const bool answers_a_call = !res.tool_use_id.empty();
    if (answers_a_call) {
      // The result carries its call's tool name, so --tool and tool: find outputs too.
      std::string tk = pair_key(sid, res.tool_use_id);
      if (auto it = tool_names_.find(tk); it != tool_names_.end()) {
        pm.tool_names.push_back(it->second);
      } else if (auto v = reader().get(store_.db().tool_calls, tk)) {
        if (auto tc = ToolCallRec::decode(*v)) pm.tool_names.push_back(tc->name);
      }
      r.tool_call_ids.push_back(res.tool_use_id);
    }
    count_tool_result(sid, res, r.timestamp_ms);
    ToolResultRec tr;
    tr.tool_use_id = std::move(res.tool_use_id);
    tr.session_id = sid;
    tr.message_key = r.key;
    tr.file_path = std::move(res.file_path);
    tr.is_error = res.is_error;
    if (!m.workflow_run_id.empty()) {
      WorkflowRec& wf = touch_workflow(sid, m.workflow_run_id);
      wf.parent_tool_use_id = tr.tool_use_id;
      if (wf.task_id.empty()) wf.task_id = m.workflow_task_id;
      if (wf.status.empty()) wf.status = m.workflow_status;
    }
    if (!m.spawned_agent_id.empty()) {
      SubagentRec& sa = touch_subagent(sid, m.spawned_agent_id, nullptr);
      sa.parent_tool_use_id = tr.tool_use_id;
      sa.duration_ms = m.spawned_duration_ms;
      sa.total_tokens = m.spawned_total_tokens;
    }
    if (answers_a_call) tool_results_.push_back(std::move(tr));
  }
  if (file.kind == SourceKind::ClaudeWorkflowAgent && !file.workflow_run.empty()) {
    WorkflowAgentRec& wa = touch_workflow_agent(sid, file.workflow_run, file.agent_id);
    ++wa.message_count;
    if (wa.transcript_path.empty()) {
      wa.transcript_path = file.path;
      if (auto meta = read_subagent_meta(subagent_meta_path(file.path))) {
        wa.agent_type = meta->agent_type;
        wa.description = meta->description;
      }
    }
  }
  // A subagent's message: from its transcript, or a copy from its parent's progress line.
  const std::string& subagent = is_subagent_kind(file.kind) ? file.agent_id : m.agent_id;
  if ((is_subagent_kind(file.kind) || m.from_progress) && !subagent.empty()) {
    SubagentRec& sa = touch_subagent(sid, subagent, is_subagent_kind(file.kind) ? &file : nullptr);
    ++sa.message_count;
    // As the session counts it: each API message once, a later larger chunk by its difference.
    sa.tokens.add(counted);
    if (m.from_progress) sa.usage_complete = false;  // copies carry no usage: its tokens are unknown
    if (!r.model.empty() && r.model != "<synthetic>") sa.model = r.model;
    if (sa.workflow_run_id.empty()) sa.workflow_run_id = file.workflow_run;
    if (m.timestamp_ms > 0) {
      if (sa.first_ts == 0 || m.timestamp_ms < sa.first_ts) sa.first_ts = m.timestamp_ms;
      sa.last_ts = std::max(sa.last_ts, m.timestamp_ms);
    }
  }

  // A title summary written earlier (or in another file of the project) may end at this message.
  std::string_view summary;
  std::string from_store;
  const std::string leaf_key = pair_key(m.uuid, s.project);
  if (auto it = leaf_summaries_.find(leaf_key); it != leaf_summaries_.end()) {
    summary = it->second;
  } else if (auto v = reader().get(store_.db().leaf_summary, leaf_key)) {
    from_store = std::string(*v);
    summary = from_store;
  }
  if (!summary.empty()) apply_summary(s, summary);

  pm.text = std::move(m.text);
  message_by_uuid_.emplace(uuid_key, messages_.size());
  sessions_by_uuid_[m.uuid].push_back(sid);
  messages_.push_back(std::move(pm));
  ++counters_.messages;
}

void IngestBatch::record_tool_calls(const std::string& sid, Message& m, const std::string& message_key,
                                    int64_t ts, SessionRec& s, PendingMessage* pm) {
  for (auto& call : m.tool_calls) {
    std::string tk = pair_key(sid, call.id);
    if (pm) {
      pm->tool_names.push_back(call.name);
      pm->rec.tool_call_ids.push_back(call.id);
    }
    if (call.id.empty() || tool_call_ids_.count(tk) || stored(store_.db().tool_calls, tk)) continue;
    tool_call_ids_.insert(tk);
    tool_names_[tk] = call.name;
    tool_call_ts_[tk] = ts;
    aggs_.add_tool(sid, ts, call.name, 1, 0);
    ToolCallRec tc;
    tc.id = call.id;
    tc.session_id = sid;
    tc.message_key = message_key;
    tc.name = std::move(call.name);
    tc.input_json = std::move(call.input_json);
    // Stored absolute (against the call's cwd), so an edit written as `src/a.rs` is found by its full path.
    tc.file_path = resolve_tool_path(call.file_path, m.cwd);
    for (const auto& p : call.extra_paths) tc.extra_paths.push_back(resolve_tool_path(p, m.cwd));
    tc.timestamp_ms = ts;
    for (const auto& path : tc.paths()) aggs_.add_file(path, sid);  // as tc_by_path holds them
    tool_calls_.push_back(std::move(tc));
    ++s.tool_call_count;
    ++counters_.tool_calls;
  }
}

SubagentRec& IngestBatch::touch_subagent(const std::string& sid, const std::string& agent_id, const SourceFile* file) {
  std::string key = pair_key(sid, agent_id);
  bool is_new = false;
  bool first_touch = !subagents_.count(key);
  SubagentRec& rec = touch_record(subagents_, store_.db().subagents, key, &is_new);
  if (first_touch) subagent_is_new_[key] = is_new;
  rec.agent_id = agent_id;
  rec.session_id = sid;
  if (file && rec.transcript_path.empty()) {
    rec.transcript_path = file->path;
    if (auto meta = read_subagent_meta(subagent_meta_path(file->path))) {
      rec.agent_type = meta->agent_type;
      rec.description = meta->description;
      if (rec.parent_tool_use_id.empty()) rec.parent_tool_use_id = meta->tool_use_id;
    }
  }
  return rec;
}

// The batch's copy of a record: loaded from LMDB on first touch, else a new one.
template <typename Rec>
Rec& IngestBatch::touch_record(std::map<std::string, Rec>& batch, MDB_dbi dbi, const std::string& key, bool* is_new) {
  auto it = batch.find(key);
  if (it != batch.end()) return it->second;
  Rec rec;
  bool fresh = true;
  if (auto v = reader().get(dbi, key)) {
    if (auto old = Rec::decode(*v)) {
      rec = std::move(*old);
      fresh = false;
    }
  }
  if (is_new) *is_new = fresh;
  return batch.emplace(key, std::move(rec)).first->second;
}

WorkflowRec& IngestBatch::touch_workflow(const std::string& sid, const std::string& run_id) {
  WorkflowRec& rec = touch_record(workflows_, store_.db().workflows, pair_key(sid, run_id));
  rec.run_id = run_id;
  rec.session_id = sid;
  return rec;
}

WorkflowAgentRec& IngestBatch::touch_workflow_agent(const std::string& sid, const std::string& run_id,
                                                    const std::string& agent_id) {
  WorkflowAgentRec& rec = touch_record(workflow_agents_, store_.db().workflow_agents, pair_key(run_id, agent_id));
  rec.run_id = run_id;
  rec.agent_id = agent_id;
  rec.session_id = sid;
  return rec;
}

void IngestBatch::add_workflow(const SourceFile& file, const WorkflowRun& run) {
  WorkflowRec& wf = touch_workflow(file.session_id, run.run_id);
  wf.path = file.path;
  wf.task_id = run.task_id.empty() ? wf.task_id : run.task_id;
  wf.name = run.name;
  wf.status = run.status.empty() ? wf.status : run.status;
  wf.script = run.script;
  wf.result_json = run.result_json;
  wf.timestamp_ms = run.timestamp_ms;
  wf.duration_ms = run.duration_ms;
  wf.total_tokens = run.total_tokens;
  wf.agent_count = run.agents.size();
  for (const auto& a : run.agents) {
    WorkflowAgentRec& wa = touch_workflow_agent(file.session_id, run.run_id, a.agent_id);
    wa.phase = a.phase;
    wa.label = a.label;
    wa.model = a.model;
    wa.state = a.state;
    wa.duration_ms = a.duration_ms;
    wa.tokens = a.tokens;
    wa.tool_calls = a.tool_calls;
  }
}

void IngestBatch::set_file_state(FileState state) {
  std::string path = state.path;
  file_states_[std::move(path)] = std::move(state);
}

void IngestBatch::adopt_if_source_gone(SessionRec& s, const std::string& sid, const SourceFile& file) {
  if (is_subagent_kind(file.kind) && s.has_main) return;
  // The old name may be found gone in this very run (marked at the flush, after this read).
  const bool gone = s.source_deleted || std::find(deleted_sources_.begin(), deleted_sources_.end(),
                                                  std::pair(sid, s.jsonl_path)) != deleted_sources_.end();
  if (!gone) return;
  s.jsonl_path = file.path;
  s.source_deleted = false;
}

void IngestBatch::mark_source_deleted(const std::string& session_id, const std::string& path) {
  deleted_sources_.emplace_back(session_id, path);
}

}  // namespace osearch
