#include "engine/store/records_store.h"

#include <algorithm>

#include "engine/store/codec.h"

namespace osearch {
namespace {

std::string_view first_line_trimmed(std::string_view s, size_t max_bytes) {
  size_t b = s.find_first_not_of(" \t\r\n");
  if (b == std::string_view::npos) return {};
  s.remove_prefix(b);
  size_t nl = s.find('\n');
  if (nl != std::string_view::npos) s = s.substr(0, nl);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\r' || s.back() == '\t')) s.remove_suffix(1);
  if (s.size() > max_bytes) {
    size_t cut = max_bytes;
    while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80) --cut;  // UTF-8 boundary
    s = s.substr(0, cut);
  }
  return s;
}

}  // namespace

void encode_usage(Encoder& e, const TokenUsage& u) {
  e.i64(u.input);
  e.i64(u.output);
  e.i64(u.cache_creation);
  e.i64(u.cache_read);
}

TokenUsage decode_usage(Decoder& d) {
  TokenUsage u;
  u.input = d.i64();
  u.output = d.i64();
  u.cache_creation = d.i64();
  u.cache_read = d.i64();
  return u;
}

std::string_view TitleFields::title() const {
  for (const std::string_view t : {custom, ai, summary, last_prompt, first_prompt})
    if (std::string_view line = first_line_trimmed(t, 200); !line.empty()) return line;
  return {};
}

void TitleFields::searchable(std::vector<std::string_view>& out) const {
  out.clear();
  auto add = [&](std::string_view t) {
    if (!t.empty() && std::find(out.begin(), out.end(), t) == out.end()) out.push_back(t);
  };
  add(title());
  add(first_line_trimmed(custom, 200));
  add(first_line_trimmed(ai, 200));
  for (auto t = earlier.rbegin(); t != earlier.rend(); ++t) add(*t);
}

namespace {
// The record's title fields as views; the earlier titles only when asked (title() reads none).
TitleFields title_fields(const SessionRec& r, bool with_earlier) {
  TitleFields f{r.custom_title, r.ai_title, r.summary_title, r.last_prompt, r.first_prompt, {}};
  if (with_earlier) f.earlier.assign(r.earlier_titles.begin(), r.earlier_titles.end());
  return f;
}
}  // namespace

std::string SessionRec::title() const { return std::string(title_fields(*this, false).title()); }

std::vector<std::string> SessionRec::searchable_titles() const {
  std::vector<std::string_view> views;
  title_fields(*this, true).searchable(views);
  return {views.begin(), views.end()};
}

void SessionRec::replace_title(std::string& field, std::string text) {
  std::string old(first_line_trimmed(field, 200));
  field = std::move(text);
  if (old.empty() || old == first_line_trimmed(field, 200)) return;
  std::erase(earlier_titles, old);
  earlier_titles.push_back(std::move(old));
  if (earlier_titles.size() > kMaxEarlierTitles) earlier_titles.erase(earlier_titles.begin());
}

std::string SessionRec::encode() const {
  Encoder e;
  e.u64(3);  // record version (2 added full_id at the end, 3 earlier_titles)
  for (const std::string* s : {&id, &agent, &project, &project_path, &cwd, &jsonl_path, &git_branch, &version,
                               &custom_title, &ai_title, &summary_title, &last_prompt, &first_prompt, &away_summary,
                               &summary_rank})
    e.str(*s);
  e.i64(started_at);
  e.i64(ended_at);
  e.u64(message_count);
  e.u64(tool_call_count);
  e.u64(subagent_count);
  e.b(has_main);
  e.b(source_deleted);
  e.u64(models.size());
  for (const auto& m : models) e.str(m);
  encode_usage(e, tokens);
  e.str(full_id);
  e.u64(earlier_titles.size());
  for (const auto& t : earlier_titles) e.str(t);
  return e.take();
}

std::optional<SessionRec> SessionRec::decode(std::string_view bytes) {
  Decoder d(bytes);
  SessionRec r;
  const uint64_t version = d.u64();
  for (std::string* s : {&r.id, &r.agent, &r.project, &r.project_path, &r.cwd, &r.jsonl_path, &r.git_branch,
                         &r.version, &r.custom_title, &r.ai_title, &r.summary_title, &r.last_prompt, &r.first_prompt,
                         &r.away_summary, &r.summary_rank})
    *s = std::string(d.str());
  r.started_at = d.i64();
  r.ended_at = d.i64();
  r.message_count = d.u64();
  r.tool_call_count = d.u64();
  r.subagent_count = d.u64();
  r.has_main = d.b();
  r.source_deleted = d.b();
  uint64_t n = d.u64();
  for (uint64_t i = 0; i < n && d.ok(); ++i) r.models.emplace_back(d.str());
  // (written in the order read before they were kept sorted)
  if (!std::is_sorted(r.models.begin(), r.models.end())) std::sort(r.models.begin(), r.models.end());
  r.tokens = decode_usage(d);
  if (version >= 2) r.full_id = std::string(d.str());
  if (version >= 3) {
    const uint64_t titles = d.u64();
    for (uint64_t i = 0; i < titles && d.ok(); ++i) r.earlier_titles.emplace_back(d.str());
  }
  if (!d.ok()) return std::nullopt;
  return r;
}

bool SessionFacets::decode(std::string_view bytes) {
  Decoder d(bytes);
  const uint64_t version = d.u64();
  id = d.str();
  agent = d.str();
  project = d.str();
  project_path = d.str();
  cwd = d.str();
  d.str();  // jsonl_path
  git_branch = d.str();
  d.str();  // version
  titles.custom = d.str();
  titles.ai = d.str();
  titles.summary = d.str();
  titles.last_prompt = d.str();
  titles.first_prompt = d.str();
  d.str();  // away_summary
  d.str();  // summary_rank
  started_at = d.i64();
  ended_at = d.i64();
  message_count = d.u64();
  d.u64();  // tool call and subagent counts
  d.u64();
  d.b();
  d.b();
  models.clear();
  const uint64_t n = d.u64();
  for (uint64_t i = 0; i < n && d.ok(); ++i) models.push_back(d.str());
  // (as SessionRec::decode: older builds wrote them as read)
  if (!std::is_sorted(models.begin(), models.end())) std::sort(models.begin(), models.end());
  decode_usage(d);
  full_id = version >= 2 ? d.str() : std::string_view();
  titles.earlier.clear();
  if (version >= 3) {
    const uint64_t n_titles = d.u64();
    for (uint64_t i = 0; i < n_titles && d.ok(); ++i) titles.earlier.push_back(d.str());
  }
  return d.ok();
}

std::string MessageRec::encode() const {
  Encoder e;
  e.u64(1);
  // session_id is the key's prefix: not repeated in the value.
  for (const std::string* s : {&uuid, &type, &parent_uuid, &logical_parent_uuid, &model, &agent_id, &cwd,
                               &git_branch, &skill, &api_message_id})
    e.str(*s);
  e.i64(timestamp_ms);
  e.u64(static_cast<uint64_t>(role));
  e.u64(static_cast<uint64_t>(content_type));
  e.b(is_meta);
  e.b(is_sidechain);
  encode_usage(e, usage);
  e.i64(turn_duration_ms);
  e.u64(text_offset);
  e.u64(text_len);
  e.u64(tool_call_ids.size());
  for (const auto& t : tool_call_ids) e.str(t);
  if (text_crc) e.u64(*text_crc);  // appended: a record written before it existed ends here
  return e.take();
}

std::optional<std::pair<uint64_t, uint64_t>> MessageRec::text_span_in(std::string_view bytes) {
  Decoder d(bytes);  // the layout of encode(), up to text_len
  d.u64();
  for (int skipped = 0; skipped < 10; ++skipped) d.str();
  d.i64();
  d.u64();
  d.u64();
  d.b();
  d.b();
  decode_usage(d);
  d.i64();
  const uint64_t offset = d.u64(), len = d.u64();
  if (!d.ok()) return std::nullopt;
  return std::pair{offset, len};
}

std::optional<MessageRec> MessageRec::decode(std::string_view key, std::string_view bytes) {
  Decoder d(bytes);
  MessageRec r;
  r.key = std::string(key);
  r.session_id = session_of_message_key(key);
  d.u64();
  for (std::string* s : {&r.uuid, &r.type, &r.parent_uuid, &r.logical_parent_uuid, &r.model, &r.agent_id, &r.cwd,
                         &r.git_branch, &r.skill, &r.api_message_id})
    *s = std::string(d.str());
  r.timestamp_ms = d.i64();
  r.role = static_cast<Role>(d.u64() & 3);
  uint64_t ct = d.u64();
  r.content_type = ct <= static_cast<uint64_t>(ContentType::Unknown) ? static_cast<ContentType>(ct) : ContentType::Unknown;
  r.is_meta = d.b();
  r.is_sidechain = d.b();
  r.usage = decode_usage(d);
  r.turn_duration_ms = d.i64();
  r.text_offset = d.u64();
  r.text_len = d.u64();
  uint64_t n = d.u64();
  for (uint64_t i = 0; i < n && d.ok(); ++i) r.tool_call_ids.emplace_back(d.str());
  if (d.ok() && !d.at_end()) {
    const uint64_t crc = d.u64();
    if (crc > UINT32_MAX) return std::nullopt;
    r.text_crc = static_cast<uint32_t>(crc);
  }
  if (!d.ok()) return std::nullopt;
  return r;
}

std::vector<std::string> ToolCallRec::paths() const {
  std::vector<std::string> out;
  if (!file_path.empty()) out.push_back(file_path);
  for (const auto& p : extra_paths)
    if (!p.empty() && std::find(out.begin(), out.end(), p) == out.end()) out.push_back(p);
  return out;
}

std::string ToolCallRec::encode() const {
  Encoder e;
  for (const std::string* s : {&id, &session_id, &message_key, &name, &input_json, &file_path}) e.str(*s);
  e.i64(timestamp_ms);
  if (!extra_paths.empty()) {  // appended: a record written before it existed ends here
    e.u64(extra_paths.size());
    for (const auto& p : extra_paths) e.str(p);
  }
  return e.take();
}

std::optional<ToolCallRec> ToolCallRec::decode(std::string_view bytes) {
  Decoder d(bytes);
  ToolCallRec r;
  for (std::string* s : {&r.id, &r.session_id, &r.message_key, &r.name, &r.input_json, &r.file_path})
    *s = std::string(d.str());
  r.timestamp_ms = d.i64();
  if (d.ok() && !d.at_end()) {
    const uint64_t n = d.u64();
    for (uint64_t i = 0; i < n && d.ok(); ++i) r.extra_paths.emplace_back(d.str());
  }
  if (!d.ok()) return std::nullopt;
  return r;
}

std::optional<std::string_view> ToolCallRec::name_in(std::string_view bytes) {
  Decoder d(bytes);
  for (int skipped = 0; skipped < 3; ++skipped) d.str();  // id, session_id, message_key
  const std::string_view name = d.str();
  if (!d.ok()) return std::nullopt;
  return name;
}

std::string ToolResultRec::encode() const {
  Encoder e;
  for (const std::string* s : {&tool_use_id, &session_id, &message_key, &file_path}) e.str(*s);
  e.b(is_error);
  return e.take();
}

std::optional<ToolResultRec> ToolResultRec::decode(std::string_view bytes) {
  Decoder d(bytes);
  ToolResultRec r;
  for (std::string* s : {&r.tool_use_id, &r.session_id, &r.message_key, &r.file_path}) *s = std::string(d.str());
  r.is_error = d.b();
  if (!d.ok()) return std::nullopt;
  return r;
}

std::string SubagentRec::encode() const {
  Encoder e;
  for (const std::string* s : {&agent_id, &session_id, &parent_tool_use_id, &agent_type, &description, &transcript_path})
    e.str(*s);
  for (int64_t v : {duration_ms, total_tokens, first_ts, last_ts}) e.i64(v);
  e.u64(message_count);
  encode_usage(e, tokens);
  e.str(model);
  e.str(workflow_run_id);
  e.b(usage_complete);
  return e.take();
}

std::optional<SubagentRec> SubagentRec::decode(std::string_view bytes) {
  Decoder d(bytes);
  SubagentRec r;
  for (std::string* s : {&r.agent_id, &r.session_id, &r.parent_tool_use_id, &r.agent_type, &r.description,
                         &r.transcript_path})
    *s = std::string(d.str());
  for (int64_t* v : {&r.duration_ms, &r.total_tokens, &r.first_ts, &r.last_ts}) *v = d.i64();
  r.message_count = d.u64();
  r.usage_complete = !d.at_end();  // schema 14 fields; a record salvaged from an older index has none
  if (r.usage_complete) {
    r.tokens = decode_usage(d);
    r.model = std::string(d.str());
    r.workflow_run_id = std::string(d.str());
    r.usage_complete = d.at_end() || d.b();
  }
  if (!d.ok()) return std::nullopt;
  return r;
}

std::string WorkflowRec::encode() const {
  Encoder e;
  for (const std::string* s : {&run_id, &session_id, &task_id, &parent_tool_use_id, &name, &status, &script,
                               &result_json, &path})
    e.str(*s);
  for (int64_t v : {timestamp_ms, duration_ms, total_tokens}) e.i64(v);
  e.u64(agent_count);
  return e.take();
}

std::optional<WorkflowRec> WorkflowRec::decode(std::string_view bytes) {
  Decoder d(bytes);
  WorkflowRec r;
  for (std::string* s : {&r.run_id, &r.session_id, &r.task_id, &r.parent_tool_use_id, &r.name, &r.status, &r.script,
                         &r.result_json, &r.path})
    *s = std::string(d.str());
  for (int64_t* v : {&r.timestamp_ms, &r.duration_ms, &r.total_tokens}) *v = d.i64();
  r.agent_count = d.u64();
  if (!d.ok()) return std::nullopt;
  return r;
}

std::string WorkflowAgentRec::encode() const {
  Encoder e;
  for (const std::string* s : {&run_id, &agent_id, &session_id, &phase, &label, &model, &state, &agent_type,
                               &description, &transcript_path})
    e.str(*s);
  for (int64_t v : {duration_ms, tokens, tool_calls}) e.i64(v);
  e.u64(message_count);
  return e.take();
}

std::optional<WorkflowAgentRec> WorkflowAgentRec::decode(std::string_view bytes) {
  Decoder d(bytes);
  WorkflowAgentRec r;
  for (std::string* s : {&r.run_id, &r.agent_id, &r.session_id, &r.phase, &r.label, &r.model, &r.state, &r.agent_type,
                         &r.description, &r.transcript_path})
    *s = std::string(d.str());
  for (int64_t* v : {&r.duration_ms, &r.tokens, &r.tool_calls}) *v = d.i64();
  r.message_count = d.u64();
  if (!d.ok()) return std::nullopt;
  return r;
}

std::string FileState::encode() const {
  Encoder e;
  e.u64(static_cast<uint64_t>(kind));
  for (const std::string* s : {&agent, &project, &session_id, &agent_id}) e.str(*s);
  for (uint64_t v : {dev, ino, size}) e.u64(v);
  e.i64(mtime_ns);
  e.u64(offset);
  e.u64(lines);
  e.u64(bad_lines);
  e.b(deleted);
  e.u64(repaired_lines);
  e.u64(oversized_lines);
  e.str(path);  // the key holds a bounded form of it (file_key)
  for (const std::string* s : {&carry.cwd, &carry.git_branch, &carry.version, &carry.model, &carry.last_entry_id})
    e.str(*s);
  const TokenUsage& u = carry.usage_total;
  for (int64_t v : {u.input, u.output, u.cache_creation, u.cache_read}) e.i64(v);
  e.b(carry.header_seen);
  e.u64(carry.pending_user_text);
  e.i64(carry.last_timestamp_ms);
  e.str("");  // skipped_links live in `file_links` since schema 16 (an older state holds them here)
  e.u64(tail_len);
  e.u64(tail_crc);
  return e.take();
}

namespace {

// Reads an encoded FileState field by field into `f`, or, without `f`, only walks it (a view).
// Either way `v` gets the fields a plan compares.
bool read_file_state(std::string_view bytes, FileStateView& v, FileState* f) {
  Decoder d(bytes);
  auto str = [&](std::string* into) {
    std::string_view s = d.str();
    if (into) *into = std::string(s);
    return s;
  };
  const auto kind = static_cast<SourceKind>(d.u64());
  str(f ? &f->agent : nullptr);
  str(f ? &f->project : nullptr);
  v.session_id = str(f ? &f->session_id : nullptr);
  str(f ? &f->agent_id : nullptr);
  v.dev = d.u64();
  v.ino = d.u64();
  v.size = d.u64();
  v.mtime_ns = d.i64();
  v.offset = d.u64();
  const uint64_t lines = d.u64(), bad_lines = d.u64();
  v.deleted = d.b();
  const uint64_t repaired_lines = d.u64(), oversized_lines = d.u64();
  v.path = str(f ? &f->path : nullptr);
  FileCarry unused;
  FileCarry& carry = f ? f->carry : unused;
  // The adapter's carry, appended field by field: a state written before a field existed ends early.
  if (!d.at_end()) {
    for (std::string* s : {&carry.cwd, &carry.git_branch, &carry.version, &carry.model, &carry.last_entry_id})
      str(f ? s : nullptr);
    TokenUsage& u = carry.usage_total;
    for (int64_t* x : {&u.input, &u.output, &u.cache_creation, &u.cache_read}) *x = d.i64();
    carry.header_seen = d.b();
  }
  if (!d.at_end()) carry.pending_user_text = d.u64();
  if (!d.at_end()) carry.last_timestamp_ms = d.i64();
  if (!d.at_end()) str(f ? &carry.skipped_links : nullptr);  // inline only in a state written before schema 16
  if (!d.at_end()) {
    v.tail_len = d.u64();
    const uint64_t crc = d.u64();
    if (crc > UINT32_MAX) return false;
    v.tail_crc = static_cast<uint32_t>(crc);
    v.tail_kept = true;
  }
  if (!d.ok()) return false;
  v.bytes = bytes;
  if (f) {
    f->kind = kind;
    f->dev = v.dev;
    f->ino = v.ino;
    f->size = v.size;
    f->mtime_ns = v.mtime_ns;
    f->offset = v.offset;
    f->tail_len = v.tail_len;
    f->tail_crc = v.tail_crc;
    f->lines = lines;
    f->bad_lines = bad_lines;
    f->deleted = v.deleted;
    f->repaired_lines = repaired_lines;
    f->oversized_lines = oversized_lines;
    f->links_unread = carry.skipped_links.empty();  // then they are in `file_links`, if any
  }
  return true;
}

}  // namespace

std::optional<FileState> FileState::decode(std::string_view /*key*/, std::string_view bytes) {
  FileState f;
  FileStateView v;
  if (!read_file_state(bytes, v, &f)) return std::nullopt;
  return f;
}

std::optional<FileStateView> FileStateView::parse(std::string_view bytes) {
  FileStateView v;
  if (!read_file_state(bytes, v, nullptr)) return std::nullopt;
  return v;
}

FileState FileStateView::state() const {
  FileState f;
  FileStateView again;
  read_file_state(bytes, again, &f);  // (parse checked these bytes)
  return f;
}

}  // namespace osearch
