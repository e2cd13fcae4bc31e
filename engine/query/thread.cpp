// `thread`: one session's messages in key order (time, then file, then line), a page of them, each
// with its text and its tool calls joined with their results. Also the session resolution every
// session-scoped command shares, and the message view `context` and `trace` print.
#include "engine/query/thread.h"

#include <algorithm>
#include <set>

#include "engine/index/tokenizer.h"
#include "engine/store/index_damage.h"
#include "engine/store/session_numbers.h"
#include "ingest/bounded_id.h"
#include "ingest/utf8.h"

namespace osearch {
namespace {

constexpr size_t kMaxCandidatesShown = 20;
constexpr const char* kAgentSuffixes[] = {"@omp", "@pi", "@codex"};

SessionRec decode_session(std::string_view bytes) {
  auto s = SessionRec::decode(bytes);
  if (!s) throw IndexDamaged("records", "a session record does not decode (a damaged page)");
  return std::move(*s);
}

std::string describe(const SessionRec& s) {
  std::string d = s.id + " (" + s.agent;
  if (!s.project.empty()) d += ", " + s.project;
  const std::string title = s.title();
  if (!title.empty()) d += ", \"" + title.substr(0, 60) + (title.size() > 60 ? "…" : "") + "\"";
  return d + ")";
}

[[noreturn]] void ambiguous(std::string_view typed, const std::vector<SessionRec>& cands, size_t count) {
  std::string msg = "session '" + std::string(typed) + "' matches " + std::to_string(count) + " sessions:";
  for (const auto& s : cands) msg += "\n  " + describe(s);
  if (count > cands.size()) msg += "\n  … and " + std::to_string(count - cands.size()) + " more";
  msg += "\ntype more of the id (an omp/pi/Codex session also as <id>@<agent>)";
  throw BadInput("ambiguous-session", msg);
}

const ToolResultRec* find_result(const IndexReader& reader, const std::string& key, std::optional<ToolResultRec>& slot) {
  auto v = reader.txn().get(reader.db().tool_results, key);
  if (!v) return nullptr;
  slot = ToolResultRec::decode(*v);
  if (!slot) throw IndexDamaged("records", "a tool result record does not decode (a damaged page)");
  return &*slot;
}

std::optional<ToolCallRec> find_call(const IndexReader& reader, const std::string& key) {
  auto v = reader.txn().get(reader.db().tool_calls, key);
  if (!v) return std::nullopt;
  auto tc = ToolCallRec::decode(*v);
  if (!tc) throw IndexDamaged("records", "a tool call record does not decode (a damaged page)");
  return tc;
}

}  // namespace

SessionRec resolve_session(const IndexReader& reader, std::string_view typed) {
  if (typed.empty()) throw BadInput("unknown-session", "no session id given");
  // An exact id first: as stored, or an omp/pi/Codex id as written ("<id>" stored as "<id>@omp").
  std::vector<SessionRec> exact;
  std::set<std::string> seen;
  auto try_exact = [&](const std::string& key) {
    if (seen.count(key)) return;
    if (auto s = reader.session(key)) {
      seen.insert(key);
      exact.push_back(std::move(*s));
    }
  };
  const std::string as_typed(typed);
  const std::string lower = ascii_lower(typed);
  for (const std::string& form : {as_typed, lower}) {
    try_exact(bounded_id(form));
    for (const char* suffix : kAgentSuffixes) try_exact(bounded_id(form + suffix));
  }
  if (exact.size() == 1) return std::move(exact.front());
  if (exact.size() > 1) ambiguous(typed, exact, exact.size());

  // Else a prefix of one stored id (ids are mostly lower-case: the typed case, then lower case).
  std::vector<SessionRec> cands;
  size_t count = 0;
  LmdbCursor cur(reader.txn(), reader.db().sessions);
  for (const std::string& prefix : {as_typed, lower}) {
    if (prefix.size() > kMaxIdBytes) continue;
    for (bool ok = cur.seek(prefix); ok && cur.key().starts_with(prefix); ok = cur.next()) {
      if (!seen.insert(std::string(cur.key())).second) continue;
      ++count;
      if (cands.size() < kMaxCandidatesShown) cands.push_back(decode_session(cur.value()));
    }
  }
  if (count == 1) return std::move(cands.front());
  if (count == 0) throw BadInput("unknown-session", "no session id is or starts with '" + as_typed + "'");
  ambiguous(typed, cands, count);
}

std::string_view cut_view(std::string_view text, size_t max_chars, bool& truncated) {
  truncated = false;
  if (max_chars == 0 || text.size() <= max_chars) return text;
  size_t pos = 0;
  for (size_t chars = 0; pos < text.size() && chars < max_chars; ++chars) {
    const size_t len = utf8_sequence(text, pos);
    pos += len ? len : 1;  // an invalid byte is one character (printed as U+FFFD)
  }
  truncated = pos < text.size();
  return text.substr(0, pos);
}

MessageView load_message_view(const IndexReader& reader, MessageRec rec, size_t max_chars) {
  MessageView v;
  v.text = cut_view(reader.message_text(rec), max_chars, v.truncated);
  const std::string sid = session_of_message_key(rec.key);
  for (const auto& id : rec.tool_call_ids) {
    const std::string key = pair_key(sid, id);
    std::optional<ToolResultRec> slot;
    const ToolResultRec* res = find_result(reader, key, slot);
    auto call = find_call(reader, key);
    if (res && res->message_key == rec.key) {
      // A tool message: the call it answers (its text is the message's own text).
      ToolResultView r;
      r.tool_use_id = id;
      r.tool_name = call ? call->name : "";
      r.message_uuid = rec.uuid;
      r.is_error = res->is_error;
      r.found = true;
      v.tool_results.push_back(std::move(r));
      continue;
    }
    ToolCallView c;
    c.id = id;
    if (call) {
      c.name = call->name;
      c.input_json = call->input_json;
      c.file_path = call->file_path;
    }
    if (res) {
      c.result.tool_use_id = id;
      c.result.tool_name = c.name;
      c.result.is_error = res->is_error;
      c.result.found = true;
      if (auto rm = reader.message(res->message_key)) {
        c.result.message_uuid = rm->uuid;
        c.result.text = cut_view(reader.message_text(*rm), max_chars, c.result.truncated);
      }
    }
    v.tool_calls.push_back(std::move(c));
  }
  v.rec = std::move(rec);
  return v;
}

ThreadResult run_thread(const IndexReader& reader, std::string_view session, const ThreadOptions& o) {
  ThreadResult r;
  r.session = resolve_session(reader, session);
  const std::string& sid = r.session.id;
  std::string anchor_key;
  if (!o.around.empty()) {
    auto k = find_message_key(reader.txn(), reader.db(), sid, o.around);
    if (!k) throw BadInput("unknown-message", "session " + r.session.shown_id() + " has no message " + o.around);
    anchor_key = std::string(*k);
  }
  // One key range: the session's records only, decoded without their text. The keys of the visible
  // ones are kept; a whole thread keeps their records too (all are shown), a page reads its own again
  // (a long session's records would cost more memory than reading them twice).
  const bool whole = anchor_key.empty() && o.offset == 0 && o.limit == 0;
  std::vector<std::string> visible;
  std::vector<MessageRec> records;  // whole: visible's records, in the same order
  size_t anchor = 0;
  const std::string prefix = sid + '\0';
  LmdbCursor cur(reader.txn(), reader.db().messages);
  for (bool ok = cur.seek(prefix); ok && cur.key().starts_with(prefix); ok = cur.next()) {
    const bool is_anchor = !anchor_key.empty() && cur.key() == anchor_key;
    std::optional<MessageRec> m;
    if (whole || (!o.include_meta && !is_anchor)) {
      m = MessageRec::decode(cur.key(), cur.value());
      if (!m) throw IndexDamaged("records", "a message record does not decode (a damaged page)");
      if (!o.include_meta && !is_anchor && m->hidden_by_default()) continue;  // the anchor is always shown
    }
    if (is_anchor) anchor = visible.size();
    visible.emplace_back(cur.key());
    if (whole) records.push_back(std::move(*m));
  }
  r.total = visible.size();
  size_t begin, end;
  if (!anchor_key.empty()) {
    begin = anchor - std::min(o.window, anchor);
    end = std::min(visible.size(), anchor + std::min(o.window, visible.size()) + 1);
  } else {
    begin = std::min(o.offset, visible.size());
    end = o.limit ? begin + std::min(o.limit, visible.size() - begin) : visible.size();
  }
  r.first_index = begin;
  r.truncated = end - begin < visible.size();
  r.messages.reserve(end - begin);
  for (size_t i = begin; i < end; ++i) {
    std::optional<MessageRec> m = whole ? std::move(records[i]) : reader.message(visible[i]);
    if (!m) throw IndexDamaged("records", "a message record vanished inside one read transaction");
    r.messages.push_back(load_message_view(reader, std::move(*m), o.max_chars));
  }
  return r;
}

}  // namespace osearch
