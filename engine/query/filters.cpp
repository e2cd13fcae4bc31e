#include <algorithm>
#include <variant>

#include "engine/query/query.h"
#include "engine/index/tokenizer.h"
#include "ingest/bounded_id.h"
#include "ingest/timeutil.h"

namespace osearch {
namespace {

// (No lower-cased copy: a pass over every session asks this of each.)
bool contains_ci(std::string_view hay, std::string_view needle_lower) {
  if (needle_lower.empty()) return true;
  if (hay.size() < needle_lower.size()) return false;
  for (size_t at = 0; at + needle_lower.size() <= hay.size(); ++at) {
    size_t i = 0;
    while (i < needle_lower.size() && ascii_lower(hay[at + i]) == needle_lower[i]) ++i;
    if (i == needle_lower.size()) return true;
  }
  return false;
}

int64_t parse_time(const std::string& arg, int64_t now_ms, const char* flag) {
  auto r = parse_time_arg(arg, now_ms, local_utc_offset_seconds(now_ms));
  if (auto* err = std::get_if<TimeArgError>(&r)) throw BadInput("bad-time", std::string(flag) + ": " + err->message);
  return std::get<int64_t>(r);
}

}  // namespace

Filters parse_filters(const FilterArgs& a, int64_t now_ms, size_t default_limit) {
  Filters f;
  for (const auto& p : a.project) f.projects.push_back(ascii_lower(p));
  for (const auto& ag : a.agent) {
    std::string l = ascii_lower(ag);
    if (l != "claude" && l != "omp" && l != "pi" && l != "codex")
      throw BadInput("usage", "--agent must be claude, omp, pi or codex, got '" + ag + "'");
    f.agents.push_back(l);
  }
  // Stored session ids are bounded (ingest/bounded_id.h): a full long id is bounded alike.
  for (const auto& s : a.session) f.sessions.push_back(ascii_lower(bounded_id(s)));
  if (!a.since.empty()) f.since_ms = parse_time(a.since, now_ms, "--since");
  if (!a.until.empty()) f.until_ms = parse_time(a.until, now_ms, "--until");
  f.branches = a.branch;
  for (const auto& m : a.model) f.models.push_back(ascii_lower(m));
  for (const auto& r : a.role) {
    Role role;
    if (!parse_role(ascii_lower(r), role) || role == Role::System)
      throw BadInput("usage", "--role must be user, assistant or tool, got '" + r + "'");
    f.roles.push_back(role);
  }
  for (const auto& t : a.type) {
    ContentType ct;
    if (ascii_lower(t) == "memory") {
      f.type_memory = true;
      continue;
    }
    if (!parse_content_type(ascii_lower(t), ct))
      throw BadInput("usage", "--type must be text, thinking, tool_use, tool_result, command, summary or memory, got '" + t + "'");
    f.types.push_back(ct);
  }
  for (const auto& t : a.tool) f.tools.push_back(ascii_lower(t));
  f.cwd = a.cwd;
  while (f.cwd.size() > 1 && f.cwd.back() == '/') f.cwd.pop_back();
  f.include_meta = a.include_meta;
  f.limit = a.limit ? a.limit : default_limit;
  f.offset = a.offset;
  return f;
}

bool Filters::session_id_may_match(std::string_view id) const {
  if (sessions.empty()) return true;
  return std::any_of(sessions.begin(), sessions.end(), [&](const std::string& p) {
    if (id.size() < p.size()) return false;
    for (size_t i = 0; i < p.size(); ++i)  // (the prefixes are lower case already)
      if (ascii_lower(id[i]) != p[i]) return false;
    return true;
  });
}

namespace {
// A record or its facets alike: the same fields, strings or views (no copy of either is made).
template <class Session>
bool session_fields_match(const Filters& f, const Session& s) {
  if (!f.agents.empty() && std::find(f.agents.begin(), f.agents.end(), s.agent) == f.agents.end()) return false;
  if (!f.projects.empty() && std::none_of(f.projects.begin(), f.projects.end(), [&](const std::string& p) {
        return contains_ci(s.project, p) || contains_ci(s.project_path, p);
      }))
    return false;
  if (!f.session_id_may_match(s.id)) return false;
  if (!f.models.empty() && std::none_of(f.models.begin(), f.models.end(), [&](const std::string& m) {
        return std::any_of(s.models.begin(), s.models.end(), [&](std::string_view sm) { return contains_ci(sm, m); });
      }))
    return false;
  if (!f.cwd.empty()) {
    const std::string& c = f.cwd;
    auto under = [&](std::string_view p) {
      return p.compare(0, c.size(), c) == 0 && (p.size() == c.size() || p[c.size()] == '/' || c == "/");
    };
    if (!under(s.cwd) && !under(s.project_path)) return false;
  }
  return true;
}
}  // namespace

bool Filters::session_matches(const SessionFacets& s) const { return session_fields_match(*this, s); }
bool Filters::session_matches(const SessionRec& s) const { return session_fields_match(*this, s); }

bool Filters::kind_matches(bool hidden, Role role, ContentType type) const {
  if (type_memory && types.empty()) return false;  // --type memory alone: no message is an answer
  const bool type_requested = std::find(types.begin(), types.end(), type) != types.end();
  if (!include_meta && hidden && !type_requested) return false;
  if (!roles.empty() && std::find(roles.begin(), roles.end(), role) == roles.end()) return false;
  if (!types.empty() && !type_requested) return false;
  return true;
}

bool Filters::message_matches(const MessageRec& m, const std::vector<std::string>& tool_names) const {
  if (!kind_matches(m.hidden_by_default(), m.role, m.content_type)) return false;
  if (!branches.empty() && std::find(branches.begin(), branches.end(), m.git_branch) == branches.end()) return false;
  if (since_ms && m.timestamp_ms < *since_ms) return false;
  if (until_ms && m.timestamp_ms >= *until_ms) return false;
  if (!tools.empty() && std::none_of(tools.begin(), tools.end(), [&](const std::string& t) {
        return std::any_of(tool_names.begin(), tool_names.end(),
                           [&](const std::string& n) { return ascii_lower(n) == t; });
      }))
    return false;
  return true;
}

}  // namespace osearch
