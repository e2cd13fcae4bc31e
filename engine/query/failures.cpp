// `failures`: failed tool calls newest first, walking the `failed_results` order backwards (one
// entry per result with is_error, written in the result's transaction), each with its call, the
// error text (the result message's text, cut) and the next messages of the same agent thread.
#include <algorithm>
#include <map>

#include "engine/query/files.h"
#include "engine/store/codec.h"
#include "engine/store/index_damage.h"

namespace osearch {
namespace {

constexpr size_t kMaxNextScan = 500;  // messages looked at for the next ones (other agents interleave)

ShownMessage shown(const IndexReader& reader, MessageRec rec, size_t max_chars) {
  ShownMessage m;
  m.text = cut_chars(reader.message_text(rec), max_chars, m.text_truncated);
  m.rec = std::move(rec);
  return m;
}

// The messages after `key` in its session, of the same agent (a subagent's failure is followed by
// that subagent's next steps, the main thread's by the main thread's), meta hidden unless asked.
std::vector<ShownMessage> next_messages(const IndexReader& reader, const MessageRec& after, const Filters& f,
                                        const FailuresOptions& o) {
  std::vector<ShownMessage> out;
  const std::string pfx = after.session_id + '\0';
  LmdbCursor cur(reader.txn(), reader.db().messages);
  size_t scanned = 0;
  for (bool ok = cur.seek(after.key) && cur.next(); ok && out.size() < o.next_messages && ++scanned <= kMaxNextScan;
       ok = cur.next()) {
    if (cur.key().substr(0, pfx.size()) != pfx) break;
    auto rec = MessageRec::decode(cur.key(), cur.value());
    if (!rec || rec->agent_id != after.agent_id || (rec->hidden_by_default() && !f.include_meta)) continue;
    out.push_back(shown(reader, std::move(*rec), o.max_chars));
  }
  return out;
}

// Whether the failure whose entry is (`result_key`, `stored_name`) is a call of one of `tools`. The
// entry names its call (engine/store/failed_results.h) unless the call was not stored before the
// result, or the index was written before entries named it: then the call is read.
bool of_tools(const IndexReader& reader, std::string_view result_key, std::string_view stored_name,
              const std::vector<std::string>& tools) {
  std::optional<std::string_view> name = stored_name;
  if (stored_name.empty()) {
    auto call = reader.txn().get(reader.db().tool_calls, result_key);
    if (!call) return false;  // no call: no tool to match
    name = ToolCallRec::name_in(*call);
  }
  return name && std::find(tools.begin(), tools.end(), ascii_lower(*name)) != tools.end();
}

}  // namespace

FailuresResult run_failures(IndexReader& reader, const Filters& f, const FailuresOptions& o) {
  FailuresResult result;
  std::map<std::string, std::optional<SessionRec>, std::less<>> sessions;
  LmdbCursor cur(reader.txn(), reader.db().failed_results);
  uint64_t matched = 0;
  for (bool ok = cur.last(); ok; ok = cur.prev()) {
    const std::string_view key = cur.key();
    if (key.size() < 9)  // be64(time) sid \0 id: only a damaged page holds a shorter one
      throw IndexDamaged("records", "`failed_results` holds a key of " + std::to_string(key.size()) + " bytes (a damaged page)");
    const int64_t ts = unsortable_i64(get_be64(key, 0));
    if (f.since_ms && ts < *f.since_ms) break;  // newest first: everything further is older
    if (f.until_ms && ts >= *f.until_ms) continue;
    // pair_key(sid, tool_use_id): the tool_results key. The order holds only results with
    // is_error, written and deleted with them, so counting a failure off the page reads no record
    // but its session's (once per session).
    const std::string_view rk = key.substr(8);
    const std::string_view sid = rk.substr(0, rk.find('\0'));
    auto sit = sessions.find(sid);
    if (sit == sessions.end()) {
      auto s = reader.session(std::string(sid));
      if (s && !f.session_matches(*s)) s.reset();
      sit = sessions.emplace(std::string(sid), std::move(s)).first;
    }
    if (!sit->second) continue;
    if (!f.tools.empty() && !of_tools(reader, rk, cur.value(), f.tools)) continue;
    const bool on_page = matched >= f.offset && result.hits.size() < f.limit;
    ++matched;
    if (!on_page) continue;
    reader.hit_built();
    std::optional<ToolCallRec> call;
    if (auto cv = reader.txn().get(reader.db().tool_calls, rk)) call = ToolCallRec::decode(*cv);
    auto rv = reader.txn().get(reader.db().tool_results, rk);
    auto tr = rv ? ToolResultRec::decode(*rv) : std::nullopt;
    auto msg = tr ? reader.message(tr->message_key) : std::nullopt;
    if (!msg) throw IndexDamaged("records", "a failed result's record or message is missing");
    Failure fail;
    fail.result = std::move(*tr);
    fail.call = std::move(call);
    fail.session = *sit->second;
    fail.next = next_messages(reader, *msg, f, o);
    fail.result_message = shown(reader, std::move(*msg), o.max_chars);
    result.hits.push_back(std::move(fail));
  }
  result.total = matched;
  return result;
}

}  // namespace osearch
