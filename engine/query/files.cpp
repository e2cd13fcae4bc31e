// `files PATH`: the tool calls that touched a file, oldest first.
//
// File arguments and patch headers: `tc_by_path` is keyed by the reversed path, so an absolute path
// is one exact range and a suffix ("src/main.rs") one prefix range, never a scan of every path.
// Shell commands: one Xapian lookup of the file name among messages of shell tools, each candidate
// confirmed on the call's own text (engine/query/call_text.h: never the message's prose or its other
// calls), where the path must stand as a whole word.
#include "engine/query/files.h"

#include <algorithm>
#include <map>
#include <unordered_set>

#include "engine/index/text_index.h"
#include "engine/query/call_text.h"
#include "engine/index/tokenizer.h"
#include "ingest/tool_paths.h"

namespace osearch {
namespace {

struct PathQuery {
  std::string target;
  bool suffix = false;
};

bool starts_with(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }

PathQuery parse_path(const FilesOptions& o) {
  std::string p = o.path;
  while (p.size() > 1 && (p.back() == '/' || p.back() == '\\')) p.pop_back();
  if (p.empty()) throw BadInput("usage", "files needs a PATH");
  if (is_absolute_tool_path(p)) return {p[0] == '/' ? resolve_tool_path(p, "") : p, false};
  if (p == "." || p == ".." || starts_with(p, "./") || starts_with(p, "../")) {
    if (!is_absolute_tool_path(o.cwd)) throw BadInput("usage", "cannot resolve " + p + ": the working directory is unknown");
    return {resolve_tool_path(p, o.cwd), false};
  }
  return {p, true};
}

bool path_matches(std::string_view stored, const PathQuery& q) {
  if (stored == q.target) return true;
  if (!q.suffix || stored.size() <= q.target.size() || stored.substr(stored.size() - q.target.size()) != q.target)
    return false;
  const char before = stored[stored.size() - q.target.size() - 1];
  return before == '/' || before == '\\';
}

bool is_path_char(unsigned char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c >= 0x80 ||
         std::string_view("_-.~@+/\\").find(static_cast<char>(c)) != std::string_view::npos;
}

// `needle` in `text` as a whole path: no path character right after it, none right before it
// (a '/' allowed before when `slash_before`: a suffix may follow its directories).
bool contains_path(std::string_view text, std::string_view needle, bool slash_before) {
  if (needle.empty()) return false;
  for (size_t at = text.find(needle); at != std::string_view::npos; at = text.find(needle, at + 1)) {
    const size_t end = at + needle.size();
    const bool after_ok = end == text.size() || !is_path_char(static_cast<unsigned char>(text[end]));
    const unsigned char b = at == 0 ? ' ' : static_cast<unsigned char>(text[at - 1]);
    const bool before_ok = !is_path_char(b) || (slash_before && (b == '/' || b == '\\'));
    if (after_ok && before_ok) return true;
  }
  return false;
}

// `rel` written in `text` as a path relative to the cwd ("src/a.rs", "./src/a.rs").
bool contains_relative(std::string_view text, std::string_view rel) {
  return contains_path(text, rel, false) || contains_path(text, "./" + std::string(rel), false);
}

// A suffix that reaches into the cwd ("alpha/src/a.rs" run in /w/alpha): what a relative path must
// be for the file it names to end with the suffix, for each way the suffix's head can be the cwd's
// tail ("src/a.rs").
bool names_suffix_relative(std::string_view text, std::string_view suffix, std::string_view cwd) {
  if (cwd.empty() || cwd.front() != '/') return false;
  const std::string dir = std::string(cwd == "/" ? "" : cwd) + '/';
  for (size_t slash = suffix.find('/'); slash != std::string_view::npos; slash = suffix.find('/', slash + 1)) {
    const std::string_view head = suffix.substr(0, slash + 1), rel = suffix.substr(slash + 1);
    if (rel.empty() || head.size() > dir.size() || dir.compare(dir.size() - head.size(), head.size(), head) != 0) continue;
    if (head.size() < dir.size() && dir[dir.size() - head.size() - 1] != '/') continue;  // "lpha/" is not /w/alpha's
    if (contains_relative(text, rel)) return true;
  }
  return false;
}

// Does a command run in `cwd` name the file? A path written relative to the cwd ("src/a.rs",
// "./src/a.rs") names the file it resolves to.
bool command_names(std::string_view text, const PathQuery& q, std::string_view cwd) {
  if (q.suffix) return contains_path(text, q.target, true) || names_suffix_relative(text, q.target, cwd);
  if (contains_path(text, q.target, false)) return true;
  if (cwd.empty() || cwd == "/" || !starts_with(q.target, cwd) || q.target.size() <= cwd.size() + 1 ||
      q.target[cwd.size()] != '/')
    return false;
  return contains_relative(text, std::string_view(q.target).substr(cwd.size() + 1));
}

// The Xapian query for messages whose text holds the file name: its whole search form when the
// tokenizer makes it one term, else all of its terms.
std::optional<Xapian::Query> file_name_query(std::string_view target) {
  const size_t slash = target.find_last_of("/\\");
  const std::string_view base = slash == std::string_view::npos ? target : target.substr(slash + 1);
  const std::string whole = search_form(base);
  std::vector<std::string> terms;
  bool has_whole = false;
  Tokenizer tok;
  tok.run(base, [&](std::string_view t, uint32_t, TermKind) {
    if (t == whole) has_whole = true;
    if (std::find(terms.begin(), terms.end(), t) == terms.end()) terms.emplace_back(t);
  });
  if (has_whole) return Xapian::Query(whole);
  if (terms.empty()) return std::nullopt;
  return Xapian::Query(Xapian::Query::OP_AND, terms.begin(), terms.end());
}

class Sessions {
 public:
  Sessions(const IndexReader& r, const Filters& f) : reader_(r), filters_(f) {}
  // The session when it passes the session-level filters, else nullptr.
  const SessionRec* allowed(const std::string& sid) {
    auto it = cache_.find(sid);
    if (it == cache_.end()) {
      auto s = reader_.session(sid);
      if (s && !filters_.session_matches(*s)) s.reset();
      it = cache_.emplace(sid, std::move(s)).first;
    }
    return it->second ? &*it->second : nullptr;
  }

 private:
  const IndexReader& reader_;
  const Filters& filters_;
  std::map<std::string, std::optional<SessionRec>> cache_;
};

bool call_passes(const ToolCallRec& tc, const Filters& f) {
  if (f.since_ms && tc.timestamp_ms < *f.since_ms) return false;
  if (f.until_ms && tc.timestamp_ms >= *f.until_ms) return false;
  if (!f.tools.empty() && std::find(f.tools.begin(), f.tools.end(), ascii_lower(tc.name)) == f.tools.end())
    return false;
  return true;
}

struct Collector {
  IndexReader& reader;
  const Filters& filters;
  Sessions sessions;
  std::unordered_set<std::string> seen;  // tool_calls keys
  std::vector<FileTouch> touches;

  void add(std::string tc_key, ToolCallRec tc, std::string path, const char* how) {
    if (!call_passes(tc, filters) || !seen.insert(tc_key).second) return;
    const SessionRec* s = sessions.allowed(tc.session_id);
    if (!s) return;
    FileTouch t;
    t.call = std::move(tc);
    t.session = *s;
    t.file_path = std::move(path);
    t.how = how;
    touches.push_back(std::move(t));
  }
};

void collect_paths(Collector& c, const PathQuery& q) {
  const std::string rev(q.target.rbegin(), q.target.rend());
  // An exact path is its whole (bounded) key part; a suffix the start of one (a long key part keeps
  // its first ~120 reversed bytes as written, so a longer suffix is matched on those, then checked).
  const std::string prefix = q.suffix ? rev.substr(0, std::min<size_t>(rev.size(), 100)) : reversed_path(q.target) + '\0';
  LmdbCursor cur(c.reader.txn(), c.reader.db().tc_by_path);
  for (bool ok = cur.seek(prefix); ok && starts_with(cur.key(), prefix); ok = cur.next()) {
    const std::string_view key = cur.key();
    const size_t z = key.find('\0');
    if (z == std::string_view::npos) continue;
    if (q.suffix && z > rev.size() && rev.size() <= 100 && key[rev.size()] != '/' && key[rev.size()] != '\\') continue;
    const std::string tc_key(key.substr(z + 1));
    auto v = c.reader.txn().get(c.reader.db().tool_calls, tc_key);
    if (!v) continue;
    auto tc = ToolCallRec::decode(*v);
    if (!tc) continue;
    for (const auto& p : tc->paths()) {
      if (!path_matches(p, q)) continue;
      c.add(tc_key, std::move(*tc), p, "path");
      break;
    }
  }
}

// The tools whose calls run a shell command (their names lower-cased, as the tool terms hold them).
constexpr std::string_view kShellTools[] = {"bash",         "shell",          "exec_command",      "local_shell",
                                            "shell_command", "container.exec", "run_shell_command", "python"};

// Returns false when candidates were left unexamined.
bool collect_commands(Collector& c, const PathQuery& q) {
  auto text_query = file_name_query(q.target);
  if (!text_query) return true;
  std::vector<Xapian::Query> tools;
  for (std::string_view name : kShellTools) tools.emplace_back(boolean_term(prefix::kTool, name));
  Xapian::Enquire enquire(c.reader.xapian());
  enquire.set_query(Xapian::Query(Xapian::Query::OP_FILTER, *text_query,
                                  Xapian::Query(Xapian::Query::OP_OR, tools.begin(), tools.end())));
  enquire.set_weighting_scheme(Xapian::BoolWeight());
  const Xapian::MSet mset = enquire.get_mset(0, kMaxCommandCandidates + 1);
  CallTextReader texts;
  size_t examined = 0;
  for (auto it = mset.begin(); it != mset.end(); ++it) {
    if (++examined > kMaxCommandCandidates) return false;
    const Xapian::Document doc = it.get_document();
    if (!is_live(doc, c.reader.epochs())) continue;
    const std::string key = doc.get_value(kSlotKey);
    if (key.empty()) continue;
    const std::string sid = session_of_message_key(key);
    const SessionRec* s = c.sessions.allowed(sid);
    if (!s) continue;
    auto msg = c.reader.message(key);
    if (!msg) continue;
    std::vector<std::pair<std::string, ToolCallRec>> defined;  // calls made in this message
    for (const auto& id : msg->tool_call_ids) {
      std::string tk = pair_key(sid, id);
      if (auto v = c.reader.txn().get(c.reader.db().tool_calls, tk))
        if (auto tc = ToolCallRec::decode(*v); tc && tc->message_key == key) defined.emplace_back(std::move(tk), std::move(*tc));
    }
    const std::string_view cwd = msg->cwd.empty() ? std::string_view(s->cwd) : std::string_view(msg->cwd);
    std::vector<const ToolCallRec*> calls;
    for (const auto& d : defined) calls.push_back(&d.second);
    for (const auto& [tk, tc] : defined)
      if (is_shell_tool(tc.name) && command_names(texts.text(tc, c.reader.message_text(*msg), calls), q, cwd))
        c.add(tk, tc, {}, "command");  // (a copy: `calls` points into `defined`)
  }
  return true;
}

}  // namespace

bool is_shell_tool(std::string_view name) {
  const std::string n = ascii_lower(name);
  return std::find(std::begin(kShellTools), std::end(kShellTools), n) != std::end(kShellTools);
}

FilesResult run_files(IndexReader& reader, const Filters& filters, const FilesOptions& o) {
  const PathQuery q = parse_path(o);
  FilesResult result;
  result.path = o.path;
  result.resolved = q.target;
  result.match = q.suffix ? "suffix" : "exact";
  Collector c{reader, filters, Sessions(reader, filters), {}, {}};
  collect_paths(c, q);
  if (o.commands && !collect_commands(c, q)) result.truncated = true;
  std::sort(c.touches.begin(), c.touches.end(), [](const FileTouch& a, const FileTouch& b) {
    if (a.call.timestamp_ms != b.call.timestamp_ms) return a.call.timestamp_ms < b.call.timestamp_ms;
    if (a.call.message_key != b.call.message_key) return a.call.message_key < b.call.message_key;
    return a.call.id < b.call.id;
  });
  result.total = c.touches.size();
  const size_t begin = std::min(filters.offset, c.touches.size());
  const size_t end = std::min(c.touches.size(), begin + filters.limit);
  for (size_t i = begin; i < end; ++i) {
    FileTouch& t = c.touches[i];
    if (auto m = reader.message(t.call.message_key)) t.message_uuid = m->uuid;
    if (auto v = reader.txn().get(reader.db().tool_results, pair_key(t.call.session_id, t.call.id)))
      if (auto tr = ToolResultRec::decode(*v)) {
        t.has_result = true;
        t.failed = tr->is_error;
      }
    result.hits.push_back(std::move(t));
  }
  return result;
}

}  // namespace osearch
