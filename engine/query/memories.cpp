#include "engine/query/memories.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>

#include "engine/index/memory_index.h"
#include "engine/index/tokenizer.h"
#include "engine/query/query_parser.h"
#include "engine/query/search.h"
#include "engine/query/snippet.h"
#include "engine/query/thread.h"
#include "engine/store/memory_store.h"
#include "engine/store/store.h"

namespace osearch {
namespace {

constexpr size_t kShowTextBytes = size_t{1} << 20;

// The text index is derived data: a failure to update it never undoes a committed memory (the next
// reader or refresh rebuilds it from the generation mismatch).
void sync_quietly(const std::string& index_dir, const MemoryStore& store, bool reread) {
  try {
    sync_memory_index(index_dir, store, reread);
  } catch (const std::exception&) {
  } catch (const Xapian::Error&) {
  }
}

BadInput as_bad_input(const memory::InvalidMemory& e) { return BadInput(e.kind, e.what()); }

// An id as typed: the memory with exactly that id, else the one it is a prefix of.
std::string resolve_id(const MemoryStore& store, std::string_view typed) {
  if (!memory::valid_id_text(typed)) throw BadInput("unknown-memory", "no memory id is or starts with '" + std::string(typed) + "'");
  MemoryStore::Snapshot snap(store);
  if (snap.get(typed)) return std::string(typed);
  auto ids = snap.ids_with_prefix(typed, 6);
  if (ids.empty()) throw BadInput("unknown-memory", "no memory id is or starts with '" + std::string(typed) + "'");
  if (ids.size() > 1) {
    std::string list;
    for (const auto& id : ids) list += (list.empty() ? "" : ", ") + id;
    throw BadInput("ambiguous-memory", "'" + std::string(typed) + "' is the start of several memory ids: " + list);
  }
  return ids[0];
}

bool in_time(const memory::Record& r, const std::optional<int64_t>& since, const std::optional<int64_t>& until) {
  return (!since || r.created_at >= *since) && (!until || r.created_at < *until);
}

bool newer(const memory::Record& a, const memory::Record& b) {
  return a.created_at != b.created_at ? a.created_at > b.created_at : a.id > b.id;
}

std::string contains_lower(std::string_view s) { return ascii_lower(s); }

}  // namespace

bool memory_project_matches(const memory::Record& r, const std::vector<std::string>& projects) {
  if (projects.empty()) return true;
  const std::string project = contains_lower(r.project), path = contains_lower(r.path);
  for (const auto& p : projects)
    if (project.find(p) != std::string::npos || path.find(p) != std::string::npos) return true;
  return false;
}

memory::Record remember_memory(const std::string& index_dir, const RememberInput& in, int64_t now_ms) {
  if (in.summary.empty()) throw BadInput("usage", "--summary is empty");
  if (!memory::valid_utf8(in.summary)) throw BadInput("usage", "--summary is not valid UTF-8");
  for (const std::string* s : {&in.project, &in.start, &in.end, &in.session})
    if (!memory::valid_utf8(*s)) throw BadInput("usage", "an argument is not valid UTF-8");
  memory::Record r;
  std::string base = in.cwd;
  if (!in.session.empty()) {
    std::optional<IndexReader> reader;
    try {
      reader.emplace(index_dir);
    } catch (const StoreMissing&) {
      throw BadInput("unknown-session", "no session id is or starts with '" + in.session + "' (there is no index yet)");
    }
    const SessionRec s = resolve_session(*reader, in.session);
    r.session_id = s.id;
    r.project = s.project;
    base = !s.project_path.empty() ? s.project_path : s.cwd;
    if (base.empty()) base = in.cwd;
  }
  if (!in.project.empty()) r.project = in.project;
  try {
    r.path = memory::resolve_path(in.path, base);
    for (const auto& a : in.anchors) r.anchors.push_back(memory::parse_anchor(a));
  } catch (const memory::InvalidMemory& e) {
    throw as_bad_input(e);
  }
  r.summary = in.summary;
  r.message_start = in.start;
  r.message_end = in.end;
  r.created_at = now_ms;
  r.id = memory::new_id(now_ms);
  MemoryStore store(index_dir, MemoryStore::Mode::Write);
  store.add(r, {memory::Event{1, memory::Action::Remember, now_ms, ""}});
  sync_quietly(index_dir, store, false);
  return r;
}

MemoryChange forget_memory(const std::string& index_dir, std::string_view id, std::string_view reason, int64_t now_ms) {
  if (!memory::valid_utf8(reason)) throw BadInput("usage", "--reason is not valid UTF-8");
  MemoryStore store(index_dir, MemoryStore::Mode::Write);
  auto c = store.forget(resolve_id(store, id), reason, now_ms);
  if (c.changed) sync_quietly(index_dir, store, false);
  return {std::move(c.record), c.changed};
}

MemoryChange restore_memory(const std::string& index_dir, std::string_view id, int64_t now_ms) {
  MemoryStore store(index_dir, MemoryStore::Mode::Write);
  auto c = store.restore(resolve_id(store, id), now_ms);
  if (c.changed) sync_quietly(index_dir, store, false);
  return {std::move(c.record), c.changed};
}

MemoryList list_memories(const std::string& index_dir, const MemoryListOptions& o) {
  MemoryList out;
  MemoryStore store(index_dir, MemoryStore::Mode::Read);
  MemoryStore::Snapshot snap(store);
  std::vector<MemoryItem> items;
  auto wanted = [&](const memory::Record& r) {
    return (o.all || r.active()) && memory_project_matches(r, o.projects) && in_time(r, o.since_ms, o.until_ms);
  };
  if (o.query.empty()) {
    for (auto& r : snap.all())
      if (wanted(r)) items.push_back({std::move(r), 0, ""});
    std::sort(items.begin(), items.end(), [](const auto& a, const auto& b) { return newer(a.record, b.record); });
  } else {
    std::optional<Xapian::Database> db = open_memory_text(index_dir);
    ParsedQuery parsed = parse_keyword_query(o.query, db ? *db : Xapian::Database());
    if (db && db->get_doccount() > 0) {
      Xapian::Query q = parsed.query;
      if (!o.all) q = Xapian::Query(Xapian::Query::OP_AND_NOT, q, Xapian::Query(std::string(kMemoryDeletedTerm)));
      Xapian::Enquire enq(*db);
      enq.set_query(q);
      enq.set_weighting_scheme(Xapian::BM25Weight(1.2, 0, 1, 0.75, 0));
      enq.set_sort_by_relevance_then_value(kSlotTime, true);
      Xapian::MSet mset = enq.get_mset(0, db->get_doccount());
      for (auto it = mset.begin(); it != mset.end(); ++it) {
        auto r = snap.get(it.get_document().get_value(kSlotMemory));
        if (!r || !wanted(*r)) continue;
        size_t b = 0, e = 0;
        std::string snippet;
        if (find_first_term(r->summary, parsed.positive_terms, b, e)) snippet = make_snippet(r->summary, b, e, 200);
        else if (auto text = memory::read_text(r->path, kShowTextBytes); text && find_first_term(*text, parsed.positive_terms, b, e))
          snippet = make_snippet(*text, b, e, 200);
        items.push_back({std::move(*r), it.get_weight(), std::move(snippet)});
      }
    }
  }
  out.total = items.size();
  for (size_t i = o.offset; i < items.size() && out.items.size() < o.limit; ++i) out.items.push_back(std::move(items[i]));
  return out;
}

MemoryDetail show_memory(const std::string& index_dir, std::string_view id) {
  MemoryStore store(index_dir, MemoryStore::Mode::Read);
  const std::string full = resolve_id(store, id);
  MemoryStore::Snapshot snap(store);
  MemoryDetail d;
  d.record = *snap.get(full);
  d.events = snap.events(full);
  struct stat st {};
  d.exists = ::stat(d.record.path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
  if (d.exists) {
    if (auto text = memory::read_text(d.record.path, kShowTextBytes + 1)) {
      d.text_truncated = text->size() > kShowTextBytes;
      if (d.text_truncated) text->resize(kShowTextBytes);
      d.text = std::move(*text);
    }
  }
  return d;
}

std::vector<memory::Exported> export_memories(const std::string& index_dir) {
  MemoryStore store(index_dir, MemoryStore::Mode::Read);
  MemoryStore::Snapshot snap(store);
  std::vector<memory::Exported> out;
  for (auto& r : snap.all()) {
    auto events = snap.events(r.id);
    out.push_back({std::move(r), std::move(events)});
  }
  return out;
}

ImportReport import_memories(const std::string& index_dir, const std::vector<memory::Exported>& items, int64_t now_ms) {
  ImportReport rep;
  MemoryStore store(index_dir, MemoryStore::Mode::Write);
  for (const auto& x : items) {
    switch (store.import(x.record, x.events, now_ms)) {
      case MemoryStore::ImportOutcome::Added: ++rep.added; break;
      case MemoryStore::ImportOutcome::Unchanged: ++rep.unchanged; break;
      case MemoryStore::ImportOutcome::Conflicting:
        ++rep.conflicting;
        rep.conflicting_ids.push_back(x.record.id);
        break;
    }
  }
  if (rep.added) sync_quietly(index_dir, store, false);
  return rep;
}

std::optional<memory::Record> memory_record(const std::string& index_dir, std::string_view id) {
  MemoryStore store(index_dir, MemoryStore::Mode::Read);
  return MemoryStore::Snapshot(store).get(id);
}

MemoryList project_memories(const std::vector<memory::Record>& all, const std::string& project,
                            const std::string& project_path, size_t limit) {
  MemoryList out;
  std::string dir = project_path;
  while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
  const std::string slug = ascii_lower(project), path_lc = ascii_lower(dir);
  std::vector<const memory::Record*> mine;
  for (const auto& r : all) {
    if (!r.active()) continue;
    const std::string p = ascii_lower(r.project);
    const bool by_name = !p.empty() && (p == slug || p == path_lc);
    const bool by_path = dir.size() > 1 && r.path.size() > dir.size() && r.path.compare(0, dir.size(), dir) == 0 &&
                         r.path[dir.size()] == '/';
    if (by_name || by_path) mine.push_back(&r);
  }
  std::sort(mine.begin(), mine.end(), [](const auto* a, const auto* b) { return newer(*a, *b); });
  out.total = mine.size();
  for (size_t i = 0; i < mine.size() && i < limit; ++i) out.items.push_back({*mine[i], 0, ""});
  return out;
}

uint64_t memory_count(const std::string& index_dir) {
  MemoryStore store(index_dir, MemoryStore::Mode::Read);
  return MemoryStore::Snapshot(store).count();
}

void refresh_memories(const std::string& index_dir, bool reread_files) {
  if (::access(MemoryStore::env_dir(index_dir).c_str(), W_OK) != 0) return;  // none, or a read-only index
  MemoryStore store(index_dir, MemoryStore::Mode::Write);
  sync_quietly(index_dir, store, reread_files);
}

}  // namespace osearch
