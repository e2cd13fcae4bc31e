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

// The sessions rows are grouped or filtered by, each viewed once (SessionFacets: no record is
// copied out; a page's rows read theirs at the end), and a number per session (distinct: counts
// sessions per row). Every view, and every id it is given, is in the read transaction's pages: the
// cache lives inside run_stats, within that transaction.
class SessionCache {
 public:
  struct Entry {
    bool allowed = false;  // a known session that passes the filters
    uint32_t number = 0;
    std::string_view id, shown_id, project, agent;  // (empty when no record is needed)
  };
  // `need_records` false: no filter or grouping reads the session, so none is read (every session
  // passes; rows only need its number).
  SessionCache(const IndexReader& reader, const Filters& f, bool need_records)
      : reader_(reader), filters_(f), need_records_(need_records), records_(reader.txn(), reader.db().sessions) {}

  // The usage and tool walks go in key order, a session's rows together: its first row finds it
  // past the last one known (appended, so `sorted_` stays in id order, its record a step or two on
  // along the records' cursor), a second walk finds it by a binary search. Only an id out of that
  // order (the files walks) goes to the hash map and looks its record up from the root.
  const Entry& get(std::string_view sid) {
    if (last_ && sid == last_sid_) return *last_;
    Entry* e = nullptr;
    if (auto it = others_.find(sid); it != others_.end()) {  // (empty but for the files walks)
      e = &it->second;
    } else if (sorted_.empty() || sid > sorted_.back().first) {
      sorted_.emplace_back(sid, make(sid, need_records_ ? record_ahead(sid) : std::nullopt));
      e = &sorted_.back().second;
    } else if (auto it = std::lower_bound(sorted_.begin(), sorted_.end(), sid,
                                          [](const auto& x, std::string_view v) { return x.first < v; });
               it != sorted_.end() && it->first == sid) {
      e = &it->second;
    } else {
      auto [at, fresh] = others_.try_emplace(sid);
      if (fresh) at->second = make(sid, need_records_ ? reader_.txn().get(reader_.db().sessions, sid) : std::nullopt);
      e = &at->second;
    }
    last_sid_ = sid;
    last_ = e;  // (until the next get: `sorted_` may grow)
    return *e;
  }

 private:
  // The record of `sid`, the next id in key order after the last one asked: a few steps along the
  // cursor, or a seek when the walk skipped more sessions than that.
  std::optional<std::string_view> record_ahead(std::string_view sid) {
    constexpr int kSteps = 8;
    bool ok = positioned_ && records_.key() < sid;
    for (int i = 0; ok && i < kSteps && records_.key() < sid; ++i) ok = records_.next();
    if (!positioned_ || !ok || records_.key() < sid) ok = records_.seek(sid);
    positioned_ = ok;
    if (!ok || records_.key() != sid) return std::nullopt;
    return records_.value();
  }

  Entry make(std::string_view sid, std::optional<std::string_view> bytes) {
    Entry e;
    e.number = ++count_;
    if (!need_records_) {
      e.allowed = true;
      return e;
    }
    if (!bytes) return e;  // unknown: its rows are not counted
    IndexReader::view_session(*bytes, facets_);
    if (!filters_.session_matches(facets_)) return e;
    e.allowed = true;
    e.id = sid;
    e.shown_id = facets_.shown_id();
    e.project = facets_.project;
    e.agent = facets_.agent;
    return e;
  }

  const IndexReader& reader_;
  const Filters& filters_;
  const bool need_records_;
  LmdbCursor records_;
  bool positioned_ = false;
  SessionFacets facets_;
  std::vector<std::pair<std::string_view, Entry>> sorted_;
  std::unordered_map<std::string_view, Entry> others_;  // node-based: entries stay put
  uint32_t count_ = 0;
  std::string_view last_sid_;
  const Entry* last_ = nullptr;
};

// The day (YYYY-MM-DD) a bucket falls in, local or UTC. Exact: offsets are multiples of 15 minutes.
// (Asked once per bucket: the grouper keeps the answer.)
std::string day_name(uint32_t bucket, bool utc) {
  const time_t t = static_cast<time_t>(bucket_start_ms(bucket) / 1000);
  struct tm tm {};
  if (!(utc ? gmtime_r(&t, &tm) : localtime_r(&t, &tm))) return {};
  char buf[16];
  std::strftime(buf, sizeof buf, "%Y-%m-%d", &tm);
  return buf;
}

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
  Grouper(std::string_view by, bool utc) : by_(by_of(by)), utc_(utc) {}

  StatsRow& row(const SessionCache::Entry& e, uint32_t bucket, std::string_view name) {
    if (e.number != current_) {
      current_ = e.number;
      session_slot_ = nullptr;
    }
    Slot* slot;
    if (by_ == By::Session || by_ == By::Project || by_ == By::Agent) {
      if (!session_slot_)
        session_slot_ = &find(by_ == By::Session ? e.shown_id : by_ == By::Project ? e.project : e.agent);
      slot = session_slot_;
      if (by_ == By::Session) slot->session_id = e.id;
    } else if (by_ == By::Day) {
      Slot*& s = by_bucket_[bucket];
      if (!s) s = &find(day_name(bucket, utc_));
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

  // A grouped row, viewed where the grouper keeps it: its key, and its session's id when grouped
  // by session.
  struct Row {
    StatsRow* row;
    std::string_view key, session_id;
  };
  // The rows (their `key` left unset: only a shown row needs its own copy) with their distinct
  // session counts; `all_sessions` counts sessions over every row. They live as long as the grouper.
  std::vector<Row> take(int64_t& all_sessions) {
    std::vector<Row> out;
    out.reserve(slots_.size());
    std::vector<bool> seen;  // by session number (given from 1 up, one per session met)
    all_sessions = 0;
    for (auto& [key, slot] : slots_) {
      std::sort(slot.sessions.begin(), slot.sessions.end());
      slot.sessions.erase(std::unique(slot.sessions.begin(), slot.sessions.end()), slot.sessions.end());
      slot.row.sessions = static_cast<int64_t>(slot.sessions.size());
      for (uint32_t n : slot.sessions) {
        if (n >= seen.size()) seen.resize(std::max<size_t>(n + 1, seen.size() * 2));
        if (!seen[n]) {
          seen[n] = true;
          ++all_sessions;
        }
      }
      out.push_back({&slot.row, key, slot.session_id});
    }
    return out;
  }

 private:
  struct Slot {
    StatsRow row;
    uint32_t last_session = 0;  // session numbers start at 1
    std::vector<uint32_t> sessions;
    std::string_view session_id;  // by session: the row's (SessionCache::Entry::id)
  };
  enum class By { Session, Project, Agent, Day, Name };
  static By by_of(std::string_view by) {
    if (by == "session") return By::Session;
    if (by == "project") return By::Project;
    if (by == "agent") return By::Agent;
    if (by == "day") return By::Day;
    return By::Name;  // model, tool, file
  }
  // Keys come in runs (the files walk goes in path order, a session's rows by tool or model
  // together): the last slot found answers a run without a search of the map.
  Slot& find(std::string_view key) {
    if (last_slot_ && key == last_key_) return *last_slot_;
    // A key past every other (the next path of the files walk) goes at the end without a search.
    auto it = !slots_.empty() && slots_.rbegin()->first < key ? slots_.end() : slots_.lower_bound(key);
    if (it == slots_.end() || it->first != key) it = slots_.emplace_hint(it, std::string(key), Slot{});
    last_key_ = it->first;
    last_slot_ = &it->second;
    return *last_slot_;
  }
  By by_;
  bool utc_;
  std::map<std::string, Slot, std::less<>> slots_;  // node-based: slots and their keys stay put
  std::string_view last_key_;
  Slot* last_slot_ = nullptr;
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
    if (!e.allowed) continue;
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
    if (!e.allowed) continue;
    const ToolAgg a = ToolAgg::decode(cur.value());
    StatsRow& r = g.row(e, k->bucket, k->name);
    r.tool_calls += a.calls;
    r.failures += a.failures;
  }
}

// Most-touched files: file_agg holds one row per (file, session) with its tool call count; a time
// or tool filter needs each call, from tc_by_path (reversed path \0 sid \0 call id), whose value
// holds the call's time and tool (its record is read only for an entry written before it did).
void walk_files(IndexReader& reader, const Filters& f, SessionCache& sessions, Grouper& g) {
  const bool needs_call = f.since_ms || f.until_ms || !f.tools.empty();
  if (!needs_call) {
    LmdbCursor cur(reader.txn(), reader.db().file_agg);
    for (bool ok = cur.first(); ok; ok = cur.next()) {
      const std::string_view key = cur.key();
      const size_t z = key.find('\0');
      if (z == std::string_view::npos) continue;
      const SessionCache::Entry& e = sessions.get(key.substr(z + 1));
      if (!e.allowed) continue;
      const std::string_view long_path = decode_file_long_path(cur.value());  // (a key cuts a long one)
      g.row(e, 0, long_path.empty() ? key.substr(0, z) : long_path).tool_calls += decode_file_count(cur.value());
    }
    return;
  }
  LmdbCursor cur(reader.txn(), reader.db().tc_by_path);
  std::string whole;  // the path a key holds whole (reused)
  for (bool ok = cur.first(); ok; ok = cur.next()) {
    // reversed(path) \0 sid \0 call id: the key or the value's long path is the path; for an entry
    // without a value, the call's record says which of its paths the key is.
    const std::string_view key = cur.key();
    const size_t z1 = key.find('\0');
    const size_t z2 = z1 == std::string_view::npos ? z1 : key.find('\0', z1 + 1);
    if (z2 == std::string_view::npos) continue;
    const std::string_view sid = key.substr(z1 + 1, z2 - z1 - 1);
    const SessionCache::Entry& e = sessions.get(sid);
    if (!e.allowed) continue;
    const std::string_view reversed = key.substr(0, z1);
    if (auto entry = ToolPathEntry::decode(cur.value())) {
      if (!in_time(f, entry->timestamp_ms) || !tool_allowed(f, entry->name)) continue;
      if (entry->long_path.empty()) {
        whole.assign(reversed.rbegin(), reversed.rend());
        ++g.row(e, 0, whole).tool_calls;
      } else {
        ++g.row(e, 0, entry->long_path).tool_calls;
      }
      continue;
    }
    auto v = reader.txn().get(reader.db().tool_calls, key.substr(z1 + 1));
    auto tc = v ? ToolCallRec::decode(*v) : std::nullopt;
    if (!tc || !in_time(f, tc->timestamp_ms) || !tool_allowed(f, tc->name)) continue;
    for (const auto& path : tc->paths())
      if (reversed_path(path) == reversed) {
        ++g.row(e, 0, path).tool_calls;
        break;
      }
  }
}

// The first `count` rows in the answer's order: newest day first; else the largest first (tokens,
// calls or touches), then by key. Keys are distinct (one row each), so the order is total and
// sorting only the page's share of the rows gives the page a full sort would.
std::vector<size_t> first_rows(const std::vector<Grouper::Row>& rows, size_t count, StatsKind kind,
                               const std::string& by) {
  auto weight = [&](const StatsRow& r) {
    if (kind == StatsKind::Tools || kind == StatsKind::Files) return r.tool_calls;
    return usage_total(r.tokens);
  };
  const bool by_day = by == "day";
  std::vector<size_t> order(rows.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  count = std::min(count, order.size());
  std::partial_sort(order.begin(), order.begin() + static_cast<ptrdiff_t>(count), order.end(), [&](size_t x, size_t y) {
    const StatsRow& a = *rows[x].row;
    const StatsRow& b = *rows[y].row;
    if (by_day) return rows[x].key > rows[y].key;
    if (weight(a) != weight(b)) return weight(a) > weight(b);
    return rows[x].key < rows[y].key;
  });
  order.resize(count);
  return order;
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
  // A row is counted when its bucket starts inside [since, until): the window moves to bucket ends.
  const bool bucketed = o.kind != StatsKind::Files;
  const auto bucket_end = [&](int64_t ms) {
    if (!bucketed) return ms;
    int64_t q = ms / kUsageBucketMs;
    if (ms % kUsageBucketMs > 0) ++q;  // (division truncates: for ms < 0 that is up already)
    return q * kUsageBucketMs;
  };
  if (filters.since_ms) res.since_ms = bucket_end(*filters.since_ms);
  if (filters.until_ms) res.until_ms = bucket_end(*filters.until_ms);
  res.bucket_minutes = bucketed ? static_cast<int>(kUsageBucketMs / 60000) : 0;
  std::vector<Grouper::Row> rows = g.take(res.totals.sessions);
  // Rows of messages without a model hold message counts only: not a model of `models`.
  if (res.by == "model")
    std::erase_if(rows, [](const Grouper::Row& r) { return r.key.empty() && !r.row->tokens.any(); });
  for (const auto& r : rows) add_row(res.totals, *r.row);
  res.totals.key = "total";
  res.total_rows = rows.size();
  const size_t from = std::min(filters.offset, rows.size());
  const size_t to = std::min(rows.size(), from + filters.limit);
  const std::vector<size_t> order = first_rows(rows, to, o.kind, res.by);
  for (size_t i = from; i < to; ++i) {
    const Grouper::Row& r = rows[order[i]];
    StatsRow& row = *r.row;
    row.key = r.key;
    // Only the page's rows read their whole session record (for the title and resume_hint).
    if (!r.session_id.empty())
      if (auto s = reader.session(r.session_id)) row.session = std::make_shared<const SessionRec>(std::move(*s));
    res.rows.push_back(std::move(row));
  }
  return res;
}

}  // namespace osearch
