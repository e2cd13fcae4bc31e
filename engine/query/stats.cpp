// `stats`: walks the aggregate rows (one per session × 15-minute bucket × model or tool), not the
// messages; `files` walks tc_by_path keys. Session records are read once per session seen.
#include "engine/query/stats.h"

#include <algorithm>
#include <ctime>
#include <map>
#include <unordered_map>

#include "engine/store/usage_agg.h"

namespace osearch {
namespace {

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  return out;
}

const std::vector<std::string>& valid_by(StatsKind k) {
  static const std::vector<std::string> tokens = {"day", "session", "project", "model", "agent"};
  static const std::vector<std::string> tools = {"tool", "session", "project", "day", "agent"};
  static const std::vector<std::string> files = {"file"};
  static const std::vector<std::string> models = {"model"};
  static const std::vector<std::string> daily = {"day"};
  switch (k) {
    case StatsKind::Tokens: return tokens;
    case StatsKind::Tools: return tools;
    case StatsKind::Files: return files;
    case StatsKind::Models: return models;
    case StatsKind::Daily: return daily;
  }
  return tokens;
}

// The session records rows are grouped or filtered by, read once each. Rows of one session are
// adjacent in every walk, so the last answer is kept at hand.
class SessionCache {
 public:
  struct Entry {
    std::shared_ptr<const SessionRec> rec;  // null when unknown or filtered out
    uint32_t number = 0;            // distinct per session: counts sessions per row
  };
  // `need_records` false: no filter or grouping reads the session, so none is read (every session
  // passes with an empty record; rows only need its number).
  SessionCache(const IndexReader& reader, const Filters& f, bool need_records)
      : reader_(reader), filters_(f), need_records_(need_records) {}
  const Entry& get(std::string_view sid) {
    if (last_ && sid == last_sid_) return *last_;
    auto [it, fresh] = cache_.try_emplace(std::string(sid));
    if (fresh) {
      it->second.number = static_cast<uint32_t>(cache_.size());
      if (!need_records_) {
        if (!empty_) empty_ = std::make_shared<const SessionRec>();
        it->second.rec = empty_;
        last_sid_ = it->first;
        last_ = &it->second;
        return it->second;
      }
      auto s = reader_.session(sid);
      if (s && filters_.session_matches(*s)) it->second.rec = std::make_shared<const SessionRec>(std::move(*s));
    }
    last_sid_ = it->first;
    last_ = &it->second;
    return it->second;
  }

 private:
  const IndexReader& reader_;
  const Filters& filters_;
  const bool need_records_;
  std::shared_ptr<const SessionRec> empty_;
  std::unordered_map<std::string, Entry> cache_;  // node-based: entries stay put
  std::string last_sid_;
  const Entry* last_ = nullptr;
};

// The day (YYYY-MM-DD) a bucket falls in, local or UTC. Exact: offsets are multiples of 15 minutes.
class DayNames {
 public:
  explicit DayNames(bool utc) : utc_(utc) {}
  const std::string& of(uint32_t bucket) {
    auto [it, fresh] = names_.try_emplace(bucket);
    if (fresh) {
      const time_t t = static_cast<time_t>(bucket_start_ms(bucket) / 1000);
      struct tm tm {};
      if (utc_ ? gmtime_r(&t, &tm) : localtime_r(&t, &tm)) {
        char buf[16];
        std::strftime(buf, sizeof buf, "%Y-%m-%d", &tm);
        it->second = buf;
      }
    }
    return it->second;
  }

 private:
  bool utc_;
  std::unordered_map<uint32_t, std::string> names_;
};

bool in_time(const Filters& f, int64_t ms) {
  return (!f.since_ms || ms >= *f.since_ms) && (!f.until_ms || ms < *f.until_ms);
}

bool any_contains(const std::vector<std::string>& needles, std::string_view hay) {
  if (needles.empty()) return true;
  const std::string h = lower(hay);
  return std::any_of(needles.begin(), needles.end(), [&](const std::string& n) { return h.find(n) != std::string::npos; });
}

bool tool_allowed(const Filters& f, std::string_view tool) {
  if (f.tools.empty()) return true;
  const std::string t = lower(tool);
  return std::find(f.tools.begin(), f.tools.end(), t) != f.tools.end();
}

// Rows by key. A row is found once per session run (by session, project, agent) or per bucket
// (by day), not by building its key for every aggregate row.
class Grouper {
 public:
  Grouper(std::string by, bool utc) : by_(std::move(by)), days_(utc) {}

  StatsRow& row(const SessionCache::Entry& e, uint32_t bucket, std::string_view name) {
    if (e.number != current_) {
      current_ = e.number;
      session_slot_ = nullptr;
    }
    Slot* slot;
    if (by_ == "session" || by_ == "project" || by_ == "agent") {
      if (!session_slot_) session_slot_ = &find(by_ == "session" ? e.rec->shown_id() : by_ == "project" ? e.rec->project : e.rec->agent);
      slot = session_slot_;
      if (by_ == "session" && !slot->row.session) slot->row.session = e.rec;
    } else if (by_ == "day") {
      Slot*& s = by_bucket_[bucket];
      if (!s) s = &find(days_.of(bucket));
      slot = s;
    } else {
      slot = &find(name);  // model, tool, file
    }
    if (slot->last_session != e.number) {
      slot->last_session = e.number;
      slot->sessions.push_back(e.number);
    }
    return slot->row;
  }

  // The rows with their distinct session counts; `all_sessions` counts sessions over every row.
  std::vector<StatsRow> take(int64_t& all_sessions) {
    std::vector<StatsRow> out;
    out.reserve(slots_.size());
    std::vector<uint32_t> all;
    for (auto& [key, slot] : slots_) {
      std::sort(slot.sessions.begin(), slot.sessions.end());
      slot.sessions.erase(std::unique(slot.sessions.begin(), slot.sessions.end()), slot.sessions.end());
      slot.row.sessions = static_cast<int64_t>(slot.sessions.size());
      all.insert(all.end(), slot.sessions.begin(), slot.sessions.end());
      slot.row.key = key;
      out.push_back(std::move(slot.row));
    }
    std::sort(all.begin(), all.end());
    all_sessions = std::unique(all.begin(), all.end()) - all.begin();
    return out;
  }

 private:
  struct Slot {
    StatsRow row;
    uint32_t last_session = 0;  // session numbers start at 1
    std::vector<uint32_t> sessions;
  };
  Slot& find(std::string_view key) {
    auto it = slots_.find(key);
    if (it == slots_.end()) it = slots_.emplace(std::string(key), Slot{}).first;
    return it->second;
  }
  std::string by_;
  DayNames days_;
  std::map<std::string, Slot, std::less<>> slots_;  // node-based: slots stay put
  std::unordered_map<uint32_t, Slot*> by_bucket_;
  uint32_t current_ = 0;
  Slot* session_slot_ = nullptr;
};

void add_row(StatsRow& to, const StatsRow& r) {
  to.tokens.add(r.tokens);
  to.api_messages += r.api_messages;
  to.messages += r.messages;
  to.tool_calls += r.tool_calls;
  to.failures += r.failures;
}

void walk_usage(IndexReader& reader, const Filters& f, bool model_filter, SessionCache& sessions, Grouper& g) {
  LmdbCursor cur(reader.txn(), reader.db().usage_agg);
  for (bool ok = cur.first(); ok; ok = cur.next()) {
    auto k = parse_agg_key(cur.key());
    if (!k || !in_time(f, bucket_start_ms(k->bucket))) continue;
    if (model_filter && !any_contains(f.models, k->name)) continue;
    const SessionCache::Entry& e = sessions.get(k->sid);
    if (!e.rec) continue;
    const UsageAgg a = UsageAgg::decode(cur.value());
    StatsRow& r = g.row(e, k->bucket, k->name);
    r.tokens.add(a.tokens);
    r.api_messages += a.api_messages;
    r.messages += a.messages;
  }
}

void walk_tools(IndexReader& reader, const Filters& f, SessionCache& sessions, Grouper& g) {
  LmdbCursor cur(reader.txn(), reader.db().tool_agg);
  for (bool ok = cur.first(); ok; ok = cur.next()) {
    auto k = parse_agg_key(cur.key());
    if (!k || !in_time(f, bucket_start_ms(k->bucket)) || !tool_allowed(f, k->name)) continue;
    const SessionCache::Entry& e = sessions.get(k->sid);
    if (!e.rec) continue;
    const ToolAgg a = ToolAgg::decode(cur.value());
    StatsRow& r = g.row(e, k->bucket, k->name);
    r.tool_calls += a.calls;
    r.failures += a.failures;
  }
}

// Most-touched files: file_agg holds one row per (file, session) with its tool call count; a time
// or tool filter needs each call, from tc_by_path (reversed path \0 sid \0 call id) and its record.
void walk_files(IndexReader& reader, const Filters& f, SessionCache& sessions, Grouper& g) {
  const bool needs_call = f.since_ms || f.until_ms || !f.tools.empty();
  if (!needs_call) {
    LmdbCursor cur(reader.txn(), reader.db().file_agg);
    for (bool ok = cur.first(); ok; ok = cur.next()) {
      const std::string_view key = cur.key();
      const size_t z = key.find('\0');
      if (z == std::string_view::npos) continue;
      const SessionCache::Entry& e = sessions.get(key.substr(z + 1));
      if (e.rec) g.row(e, 0, key.substr(0, z)).tool_calls += decode_file_count(cur.value());
    }
    return;
  }
  LmdbCursor cur(reader.txn(), reader.db().tc_by_path);
  for (bool ok = cur.first(); ok; ok = cur.next()) {
    // reversed(path) \0 sid \0 call id: the call's record says which of its paths the key is.
    const std::string_view key = cur.key();
    const size_t z1 = key.find('\0');
    const size_t z2 = z1 == std::string_view::npos ? z1 : key.find('\0', z1 + 1);
    if (z2 == std::string_view::npos) continue;
    const std::string_view sid = key.substr(z1 + 1, z2 - z1 - 1);
    const SessionCache::Entry& e = sessions.get(sid);
    if (!e.rec) continue;
    auto v = reader.txn().get(reader.db().tool_calls, key.substr(z1 + 1));
    auto tc = v ? ToolCallRec::decode(*v) : std::nullopt;
    if (!tc || !in_time(f, tc->timestamp_ms) || !tool_allowed(f, tc->name)) continue;
    const std::string_view reversed = key.substr(0, z1);
    for (const auto& path : tc->paths())
      if (reversed_path(path) == reversed) {
        ++g.row(e, 0, path).tool_calls;
        break;
      }
  }
}

// Newest day first; else the largest first (tokens, calls or touches), then by key.
void sort_rows(std::vector<StatsRow>& rows, StatsKind kind, const std::string& by) {
  auto weight = [&](const StatsRow& r) {
    if (kind == StatsKind::Tools || kind == StatsKind::Files) return r.tool_calls;
    return usage_total(r.tokens);
  };
  std::stable_sort(rows.begin(), rows.end(), [&](const StatsRow& a, const StatsRow& b) {
    if (by == "day") return a.key > b.key;
    if (weight(a) != weight(b)) return weight(a) > weight(b);
    return a.key < b.key;
  });
}

}  // namespace

StatsKind parse_stats_kind(std::string_view word) {
  if (word == "tokens") return StatsKind::Tokens;
  if (word == "tools") return StatsKind::Tools;
  if (word == "files") return StatsKind::Files;
  if (word == "models") return StatsKind::Models;
  if (word == "daily") return StatsKind::Daily;
  throw BadInput("usage", "stats takes tokens, tools, files, models or daily, not '" + std::string(word) + "'");
}

std::string stats_kind_name(StatsKind k) {
  switch (k) {
    case StatsKind::Tokens: return "tokens";
    case StatsKind::Tools: return "tools";
    case StatsKind::Files: return "files";
    case StatsKind::Models: return "models";
    case StatsKind::Daily: return "daily";
  }
  return "tokens";
}

std::string stats_default_by(StatsKind k) { return valid_by(k).front(); }

void check_stats_by(StatsKind k, const std::string& by) {
  const auto& ok = valid_by(k);
  if (std::find(ok.begin(), ok.end(), by) != ok.end()) return;
  std::string list;
  for (const auto& b : ok) list += (list.empty() ? "" : "|") + b;
  throw BadInput("usage", "stats " + stats_kind_name(k) + " takes --by " + list + ", not '" + by + "'");
}

StatsResult run_stats(IndexReader& reader, const Filters& filters, const StatsOptions& o) {
  StatsResult res;
  res.kind = stats_kind_name(o.kind);
  res.by = o.by.empty() ? stats_default_by(o.kind) : o.by;
  check_stats_by(o.kind, res.by);
  // Token kinds filter --model on each row's model; the others on the session's models.
  const bool token_kind = o.kind == StatsKind::Tokens || o.kind == StatsKind::Models || o.kind == StatsKind::Daily;
  // Tokens are not spent by a tool: a --tool there would be ignored, so it is refused.
  if (token_kind && !filters.tools.empty())
    throw BadInput("usage", "--tool applies to stats tools and files, not stats " + res.kind);
  Filters session_filters = filters;
  if (token_kind) session_filters.models.clear();
  const bool by_session_field = res.by == "session" || res.by == "project" || res.by == "agent";
  SessionCache sessions(reader, session_filters, by_session_field || session_filters.has_session_level());
  Grouper g(res.by, o.utc);
  switch (o.kind) {
    case StatsKind::Tokens:
    case StatsKind::Models: walk_usage(reader, filters, true, sessions, g); break;
    case StatsKind::Tools: walk_tools(reader, filters, sessions, g); break;
    case StatsKind::Files: walk_files(reader, filters, sessions, g); break;
    case StatsKind::Daily:
      walk_usage(reader, filters, true, sessions, g);
      if (filters.models.empty()) walk_tools(reader, filters, sessions, g);
      break;
  }
  std::vector<StatsRow> rows;
  for (auto& row : g.take(res.totals.sessions)) {
    // Rows of messages without a model hold message counts only: not a model of `models`.
    if (res.by == "model" && row.key.empty() && !row.tokens.any()) continue;
    add_row(res.totals, row);
    rows.push_back(std::move(row));
  }
  res.totals.key = "total";
  sort_rows(rows, o.kind, res.by);
  res.total_rows = rows.size();
  const size_t from = std::min(filters.offset, rows.size());
  const size_t to = std::min(rows.size(), from + filters.limit);
  res.rows.assign(std::make_move_iterator(rows.begin() + static_cast<std::ptrdiff_t>(from)),
                  std::make_move_iterator(rows.begin() + static_cast<std::ptrdiff_t>(to)));
  return res;
}

}  // namespace osearch
