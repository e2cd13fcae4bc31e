#include "engine/index/text_index.h"

#include <algorithm>
#include <filesystem>
#include <functional>
#include <thread>

#include "engine/store/codec.h"
#include "engine/store/records_store.h"
#include "engine/store/session_numbers.h"
#include "engine/store/index_damage.h"
#include "ingest/bounded_id.h"
#include "ingest/worker_thread.h"
#include "engine/store/trace.h"

#include <fcntl.h>
#include <unistd.h>

namespace osearch {
namespace fs = std::filesystem;
bool wants_positions(const MessageRec& m) {
  return (m.role == Role::User || m.role == Role::Assistant) && m.content_type == ContentType::Text;
}

std::string boolean_term(std::string_view pfx, std::string_view value) {
  // Xapian refuses terms over ~245 bytes: a long value keeps a readable head and a hash of the
  // whole (lower-cased, like the head, so a query in any case meets it; ingest/bounded_id.h).
  return std::string(pfx) + bounded_id(ascii_lower(value), kMaxBooleanTermBytes - pfx.size());
}

std::vector<std::string> sessions_with_uuid_term(const Xapian::Database& db, std::string_view uuid) {
  std::vector<std::string> out;
  const std::string term = message_uuid_term(uuid);
  for (auto it = db.postlist_begin(term); it != db.postlist_end(term); ++it) {
    std::string sid = session_of_message_key(db.get_document(*it, Xapian::DOC_ASSUME_VALID).get_value(kSlotKey));
    if (!sid.empty() && std::find(out.begin(), out.end(), sid) == out.end()) out.push_back(std::move(sid));
  }
  return out;
}

std::string time_value(int64_t ms) {
  std::string v;
  put_be64(v, sortable_i64(ms));
  return v;
}

namespace {
constexpr size_t kLineBytes = 12;  // be32(file tag) be64(line offset): a message key's end (message_key)
}  // namespace

std::string time_line_value(int64_t ms, std::string_view message_key) {
  std::string v = time_value(ms);
  if (const std::optional<std::string_view> sid = session_in_message_key(message_key)) {
    const std::string_view tail = message_key.substr(sid->size() + 1);  // time, file tag, line offset
    if (tail.size() == v.size() + kLineBytes && tail.starts_with(v)) return std::string(tail);
  }
  return v;
}

std::string time_value_end(int64_t ms) { return time_value(ms) + std::string(kLineBytes, '\xff'); }

std::string epoch_value(uint32_t epoch) {
  std::string v;
  put_be32(v, epoch);
  return v;
}

bool is_live(const Xapian::Document& doc, const DocumentEpochs& epochs) {
  return epochs.empty() || is_live(doc, doc.get_value(kSlotSession), epochs);
}

bool is_live(const Xapian::Document& doc, const std::string& session_value, const DocumentEpochs& epochs) {
  if (epochs.empty()) return true;
  const uint32_t* current = epochs.find(session_value);
  if (!current || doc.get_value(kSlotKey).empty()) return true;
  std::string v = doc.get_value(kSlotEpoch);
  uint32_t epoch = v.size() == 4 ? get_be32(v) : 0;
  return epoch == *current;
}

std::string DocBuilder::title_unique_term(std::string_view session_id) {
  return boolean_term(prefix::kUnique, "title/" + std::string(session_id));
}

uint32_t DocBuilder::index_text(Xapian::Document& doc, std::string_view text, bool positions, uint32_t first_position) {
  // Xapian takes terms as std::string: one reused buffer instead of a temporary (and, past 15
  // bytes, an allocation) per call.
  std::string& t = term_buf_;
  if (positions) {
    return tokenizer_.run(text, [&](std::string_view term, uint32_t pos, TermKind kind) {
      t.assign(term);
      if (is_positional(kind))
        doc.add_posting(t, first_position + pos + kFirstPosition);
      else
        doc.add_term(t);
    });
  }
  // Without positions, count wdf here: one add_term per distinct term instead of one per
  // occurrence (Xapian's per-document term map is the expensive part).
  counter_.clear();
  const uint32_t taken = tokenizer_.run(text, [&](std::string_view term, uint32_t, TermKind) { counter_.add(term); });
  counter_.for_each([&](std::string_view term, uint32_t n) {
    t.assign(term);
    doc.add_term(t, n);
  });
  return taken;
}

Xapian::Document DocBuilder::message(const MessageDoc& d) {
  const MessageRec& m = *d.rec;
  const SessionRec& s = *d.session;
  Xapian::Document doc;
  const bool positions = wants_positions(m);
  std::string_view text = d.text;
  if (m.content_type == ContentType::ToolResult) text = blank_line_number_gutters(text, gutter_scratch_);
  index_text(doc, text, positions);
  if (!positions) doc.add_boolean_term(std::string(prefix::kNoPositions));
  // Tool call ids (the call's, or the one a result answers) are searchable verbatim.
  for (const auto& id : m.tool_call_ids)
    if (!id.empty() && id.size() <= kMaxWordBytes) doc.add_term(ascii_lower(id));
  doc.add_boolean_term(boolean_term(prefix::kSession, m.session_id));
  doc.add_boolean_term(boolean_term(prefix::kProject, s.project));
  doc.add_boolean_term(boolean_term(prefix::kAgent, s.agent));
  doc.add_boolean_term(boolean_term(prefix::kRole, role_name(m.role)));
  doc.add_boolean_term(boolean_term(prefix::kType, content_type_name(m.content_type)));
  if (!m.model.empty()) doc.add_boolean_term(boolean_term(prefix::kModel, m.model));
  if (!m.git_branch.empty()) doc.add_boolean_term(boolean_term(prefix::kBranch, m.git_branch));
  for (const auto& name : *d.tool_names) doc.add_boolean_term(boolean_term(prefix::kTool, name));
  if (m.hidden_by_default()) doc.add_boolean_term(std::string(prefix::kHidden));
  uuid_term_ = message_uuid_term(m.uuid);
  doc.add_boolean_term(uuid_term_);
  doc.add_value(kSlotTime, time_line_value(m.timestamp_ms, m.key));
  doc.add_value(kSlotSession, session_number_value(d.session_number));
  doc.add_value(kSlotKey, m.key);
  if (d.epoch) doc.add_value(kSlotEpoch, epoch_value(d.epoch));
  return doc;
}

Xapian::Document DocBuilder::title(const SessionRec& s, uint32_t session_number) {
  Xapian::Document doc;
  const std::vector<std::string> titles = s.searchable_titles();
  for (size_t i = 0; i < titles.size(); ++i) index_text(doc, titles[i], i == 0);  // phrases: the shown title
  doc.add_boolean_term(title_unique_term(s.id));
  doc.add_boolean_term(std::string(prefix::kTitleDoc));
  doc.add_boolean_term(boolean_term(prefix::kSession, s.id));
  doc.add_boolean_term(boolean_term(prefix::kProject, s.project));
  doc.add_boolean_term(boolean_term(prefix::kAgent, s.agent));
  doc.add_boolean_term(boolean_term(prefix::kType, "summary"));
  doc.add_value(kSlotTime, time_value(s.ended_at));
  doc.add_value(kSlotSession, session_number_value(session_number));
  doc.add_value(kSlotKey, "");
  return doc;
}

std::string XapianLayout::main_dir(const std::string& index_dir) const {
  return index_dir + "/xapian-" + std::to_string(generation);
}

std::string XapianLayout::part_dir(const std::string& index_dir) const {
  return index_dir + "/part-" + std::to_string(generation);
}

std::string XapianLayout::encode_shards() const {
  std::string out;
  for (const auto& s : shards) out += s + "\n";
  return out;
}

std::vector<std::string> XapianLayout::decode_shards(std::string_view s) {
  std::vector<std::string> out;
  size_t pos = 0;
  while (pos < s.size()) {
    size_t nl = s.find('\n', pos);
    if (nl == std::string_view::npos) nl = s.size();
    if (nl > pos) out.emplace_back(s.substr(pos, nl - pos));
    pos = nl + 1;
  }
  return out;
}

namespace {
// Opens one listed database; a link, a missing directory or one Xapian cannot open is damage.
Xapian::Database open_listed(const std::string& index_dir, const std::string& name) {
  const std::string dir = index_dir + "/" + name;
  refuse_symlink(dir, name);
  if (!fs::exists(dir + "/iamglass")) throw IndexDamaged(name, "missing (the index lists it)");
  try {
    return Xapian::Database(dir);
  } catch (const Xapian::DatabaseError& e) {  // opening, corrupt, version errors
    throw IndexDamaged(name, "cannot be opened: " + e.get_description());
  }
}
}  // namespace

IndexDatabases open_index_databases(const std::string& index_dir, const XapianLayout& layout) {
  IndexDatabases out;
  const std::string main_name = fs::path(layout.main_dir(index_dir)).filename().string();
  refuse_symlink(layout.main_dir(index_dir), main_name);
  // The main database of a generation exists once a compaction made it; a compaction also lists
  // its second half (part-<gen>), so a listed part without its main is a deleted main. Without a
  // part, the reader's document count check (reader.cpp) finds a deleted main.
  bool has_part = std::any_of(layout.shards.begin(), layout.shards.end(), [](const auto& s) { return XapianLayout::is_part(s); });
  const auto add = [&](const std::string& name) {
    out.parts.emplace_back(name, open_listed(index_dir, name));
    out.all.add_database(out.parts.back().second);
  };
  if (has_part || fs::exists(layout.main_dir(index_dir))) add(main_name);
  for (const auto& s : layout.shards) add(s);
  out.message_docs = out.all.get_doccount();
  // The legacy titles/ is created with the first title; a rebuild's titles-<k> always exists.
  const std::string titles = layout.titles_dir(index_dir);
  const std::string titles_name = fs::path(titles).filename().string();
  refuse_symlink(titles, titles_name);
  if (layout.titles != XapianLayout::kLegacyTitles || fs::exists(titles)) {
    add(titles_name);
    out.titles = true;
  }
  return out;
}

// Transcripts hold secrets: database dirs 0700 and files 0600 whatever the process umask.
void restrict_permissions(const std::string& dir) {
  std::error_code ec;
  fs::permissions(dir, fs::perms::owner_all, fs::perm_options::replace, ec);
  for (const auto& e : fs::directory_iterator(dir, ec))
    if (e.is_regular_file(ec))
      fs::permissions(e.path(), fs::perms::owner_read | fs::perms::owner_write, fs::perm_options::replace, ec);
}

namespace {
// A database directory without its revision file was never committed (a crash while it was
// being created): it holds nothing, and Xapian cannot open it, so start it again.
std::string fresh_or_existing(const std::string& dir) {
  if (fs::exists(dir) && !fs::exists(dir + "/iamglass")) fs::remove_all(dir);
  return dir;
}
}  // namespace

TextIndexWriter::TextIndexWriter(const std::string& index_dir, const XapianLayout& layout)
    : index_dir_(index_dir), layout_(layout), uuid_lookup_(index_dir) {
  check_layout(index_dir, layout);
}

void TextIndexWriter::check_layout(const std::string& index_dir, const XapianLayout& layout) {
  // Compacting or merging without a listed database would drop its documents for good.
  const std::string main = layout.main_dir(index_dir);
  refuse_symlink(main, fs::path(main).filename().string());
  for (const auto& s : layout.shards) {
    refuse_symlink(index_dir + "/" + s, s);
    if (!fs::exists(index_dir + "/" + s + "/iamglass")) throw IndexDamaged(s, "missing (the index lists it)");
    if (XapianLayout::is_part(s) && !fs::exists(main + "/iamglass"))
      throw IndexDamaged(fs::path(main).filename().string(), "missing (its part " + s + " is listed)");
  }
  refuse_symlink(layout.titles_dir(index_dir), layout.titles);
}

// Opened on first use: a refresh with nothing to write never touches it.
Xapian::WritableDatabase& TextIndexWriter::titles_db() {
  if (!open_) {
    refuse_symlink(layout_.titles_dir(index_dir_), fs::path(layout_.titles_dir(index_dir_)).filename().string());
    std::string dir = fresh_or_existing(layout_.titles_dir(index_dir_));
    db_ = Xapian::WritableDatabase(dir, Xapian::DB_CREATE_OR_OPEN | Xapian::DB_RETRY_LOCK);
    db_.commit();  // writes iamglass for a new database at once
    restrict_permissions(dir);
    open_ = true;
  }
  return db_;
}

void TextIndexWriter::set_session_title(const SessionRec& s, uint32_t session_number) {
  std::string uid = DocBuilder::title_unique_term(s.id);
  if (s.title().empty()) {
    titles_db().delete_document(uid);
    return;
  }
  titles_db().replace_document(uid, builder_.title(s, session_number));
}

void TextIndexWriter::delete_session_title(std::string_view session_id) {
  titles_db().delete_document(DocBuilder::title_unique_term(session_id));
}

void TextIndexWriter::commit() {
  if (!open_) return;
  db_.commit();
  restrict_permissions(layout_.titles_dir(index_dir_));  // a commit may have created files
}

std::unique_ptr<ShardWrite> TextIndexWriter::start_shards(std::span<const MessageDoc> docs, unsigned threads) {
  threads = std::max(1u, std::min<unsigned>(threads, static_cast<unsigned>(docs.size())));
  std::vector<std::string> names;
  for (unsigned t = 0; t < threads; ++t) {
    std::string name;
    do {
      name = "shard-" + std::to_string(layout_.generation) + "-" + std::to_string(next_shard_++);
    } while (fs::exists(index_dir_ + "/" + name));
    names.push_back(name);
  }
  return std::make_unique<ShardWrite>(index_dir_, docs, std::move(names));
}

XapianLayout TextIndexWriter::compact(const XapianLayout& layout) {
  layout_ = compact_databases(index_dir_, layout);
  return layout_;
}

XapianLayout TextIndexWriter::compact_databases(const std::string& index_dir, const XapianLayout& layout) {
  XapianLayout next;
  next.titles = layout.titles;
  next.generation = layout.generation + 1;
  while (fs::exists(next.main_dir(index_dir)) || fs::exists(next.part_dir(index_dir))) ++next.generation;
  // Everything is merged into two databases, in two threads: compaction is single-threaded and
  // the last step of a cold build, when only the LMDB repack runs beside it. The inputs are split
  // by size (largest first, each to the lighter half).
  std::vector<std::pair<uint64_t, std::string>> inputs;
  std::string main = layout.main_dir(index_dir);
  if (fs::exists(main + "/iamglass")) inputs.emplace_back(dir_bytes(main), main);
  for (const auto& s : layout.shards) inputs.emplace_back(dir_bytes(index_dir + "/" + s), index_dir + "/" + s);
  std::sort(inputs.rbegin(), inputs.rend());
  std::vector<std::string> halves[2];
  uint64_t weight[2] = {0, 0};
  for (const auto& [bytes, dir] : inputs) {
    int h = weight[1] < weight[0] ? 1 : 0;
    halves[h].push_back(dir);
    weight[h] += bytes + 1;
  }
  const std::string outputs[2] = {next.main_dir(index_dir), next.part_dir(index_dir)};
  std::exception_ptr errors[2];
  auto merge = [&](int h) {
    try {
      Xapian::Database db;
      for (const auto& dir : halves[h]) db.add_database(Xapian::Database(dir));
      // One pass: merging all inputs at once measured 3x faster than DBCOMPACT_MULTIPASS here.
      db.compact(outputs[h]);
      restrict_permissions(outputs[h]);
    } catch (...) {
      errors[h] = std::current_exception();
    }
  };
  std::thread second;
  if (!halves[1].empty()) second = start_worker(merge, 1);
  if (!halves[0].empty()) merge(0);
  if (second.joinable()) second.join();
  for (const auto& e : errors)
    if (e) std::rethrow_exception(e);
  if (!halves[1].empty()) next.shards.push_back(fs::path(outputs[1]).filename().string());
  return next;
}

XapianLayout TextIndexWriter::merge_shards(const XapianLayout& layout) {
  XapianLayout next = layout;
  std::string name;
  do {
    name = "shard-" + std::to_string(layout_.generation) + "-" + std::to_string(next_shard_++);
  } while (fs::exists(index_dir_ + "/" + name));
  Xapian::Database shards;
  next.shards.clear();
  for (const auto& s : layout.shards) {
    if (XapianLayout::is_part(s))
      next.shards.push_back(s);
    else
      shards.add_database(Xapian::Database(index_dir_ + "/" + s));
  }
  shards.compact(index_dir_ + "/" + name);
  restrict_permissions(index_dir_ + "/" + name);
  next.shards.push_back(name);
  layout_ = next;
  return next;
}

uint64_t TextIndexWriter::dir_bytes(const std::string& dir) {
  uint64_t total = 0;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec))
    if (e.is_regular_file(ec)) total += e.file_size(ec);
  return total;
}

void TextIndexWriter::remove_unreferenced(const std::string& index_dir, const XapianLayout& layout) {
  std::error_code ec;
  std::string keep_main = "xapian-" + std::to_string(layout.generation);
  for (const auto& e : fs::directory_iterator(index_dir, ec)) {
    std::string name = e.path().filename().string();
    const bool is_titles = name == XapianLayout::kLegacyTitles || name.rfind("titles-", 0) == 0;
    bool is_db = name.rfind("xapian-", 0) == 0 || name.rfind("shard-", 0) == 0 || XapianLayout::is_part(name) || is_titles;
    if (!is_db || name == keep_main || name == layout.titles) continue;
    if (std::find(layout.shards.begin(), layout.shards.end(), name) != layout.shards.end()) continue;
    fs::remove_all(e.path(), ec);
  }
}

void TextIndexWriter::remember_uuids(ShardWrite& w) {
  for (size_t t = 0; t < w.names().size(); ++t) uuid_lookup_.remember(w.names()[t], w.take_uuid_fingerprints(t));
}

}  // namespace osearch
