#include "engine/text_index.h"

#include <functional>

#include "engine/codec.h"

namespace osearch {
namespace {

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = ascii_lower(c);
  return out;
}

std::string unique_term(std::string_view session_id, std::string_view uuid) {
  std::string v(session_id);
  v.push_back('/');
  v.append(uuid);
  return boolean_term(prefix::kUnique, v);
}

// Prose gets positions (phrase search); tool output, thinking and tool input do not: positions cost
// about a third of indexing throughput and double the index (notes/engine.md §1.3).
bool wants_positions(const MessageRec& m) {
  return (m.role == Role::User || m.role == Role::Assistant) && m.content_type == ContentType::Text;
}

}  // namespace

std::string boolean_term(std::string_view pfx, std::string_view value) {
  std::string t(pfx);
  t.append(lower(value));
  if (t.size() > 240) {
    // Keep a readable head and make the tail unique.
    size_t h = std::hash<std::string_view>{}(value);
    t.resize(200);
    t.append("#");
    t.append(std::to_string(h));
  }
  return t;
}

std::string time_value(int64_t ms) {
  std::string v;
  put_be64(v, sortable_i64(ms));
  return v;
}

TextIndexWriter::TextIndexWriter(const std::string& path)
    : path_(path), db_(path, Xapian::DB_CREATE_OR_OPEN | Xapian::DB_RETRY_LOCK) {}

void TextIndexWriter::index_text(Xapian::Document& doc, std::string_view text, bool positions) {
  tokenizer_.run(text, [&](std::string_view term, uint32_t pos, TermKind kind) {
    std::string t(term);
    if (positions && (kind == TermKind::Word || kind == TermKind::CjkUnigram))
      doc.add_posting(t, pos + 1);
    else
      doc.add_term(t);
  });
}

void TextIndexWriter::add_message(const MessageRec& m, std::string_view text, const SessionRec& s,
                                  const std::vector<std::string>& tool_names) {
  Xapian::Document doc;
  const bool positions = wants_positions(m);
  index_text(doc, text, positions);
  if (!positions) doc.add_boolean_term(std::string(prefix::kNoPositions));
  std::string uid = unique_term(m.session_id, m.uuid);
  doc.add_boolean_term(uid);
  doc.add_boolean_term(boolean_term(prefix::kSession, m.session_id));
  doc.add_boolean_term(boolean_term(prefix::kProject, s.project));
  doc.add_boolean_term(boolean_term(prefix::kAgent, s.agent));
  doc.add_boolean_term(boolean_term(prefix::kRole, role_name(m.role)));
  doc.add_boolean_term(boolean_term(prefix::kType, content_type_name(m.content_type)));
  if (!m.model.empty()) doc.add_boolean_term(boolean_term(prefix::kModel, m.model));
  if (!m.git_branch.empty()) doc.add_boolean_term(boolean_term(prefix::kBranch, m.git_branch));
  for (const auto& name : tool_names) doc.add_boolean_term(boolean_term(prefix::kTool, name));
  if (m.hidden_by_default()) doc.add_boolean_term(std::string(prefix::kHidden));
  doc.add_value(kSlotTime, time_value(m.timestamp_ms));
  doc.add_value(kSlotSession, m.session_id);
  doc.add_value(kSlotKey, m.key);
  db_.replace_document(uid, doc);
}

void TextIndexWriter::set_session_title(const SessionRec& s) {
  std::string uid = boolean_term(prefix::kUnique, "title/" + s.id);
  std::string title = s.title();
  if (title.empty()) {
    db_.delete_document(uid);
    return;
  }
  Xapian::Document doc;
  index_text(doc, title, true);
  doc.add_boolean_term(uid);
  doc.add_boolean_term(std::string(prefix::kTitleDoc));
  doc.add_boolean_term(boolean_term(prefix::kSession, s.id));
  doc.add_boolean_term(boolean_term(prefix::kProject, s.project));
  doc.add_boolean_term(boolean_term(prefix::kAgent, s.agent));
  doc.add_boolean_term(boolean_term(prefix::kType, "summary"));
  doc.add_value(kSlotTime, time_value(s.ended_at));
  doc.add_value(kSlotSession, s.id);
  doc.add_value(kSlotKey, "");
  db_.replace_document(uid, doc);
}

void TextIndexWriter::delete_session(std::string_view session_id) {
  db_.delete_document(boolean_term(prefix::kSession, session_id));
}

void TextIndexWriter::commit() { db_.commit(); }

void TextIndexWriter::reset() {
  db_.close();
  db_ = Xapian::WritableDatabase(path_, Xapian::DB_CREATE_OR_OVERWRITE | Xapian::DB_RETRY_LOCK);
  db_.commit();
}

}  // namespace osearch
