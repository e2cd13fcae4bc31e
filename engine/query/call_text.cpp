// call_text: a tool call's own text (engine/query/call_text.h).
#include "engine/query/call_text.h"

#include <algorithm>
#include <optional>

#include <simdjson.h>

namespace osearch {
namespace {

// What write_truncated_json (ingest/json_fields.cpp) puts after a leaf it cut.
constexpr std::string_view kCutMark = "…[truncated]";

using Leaf = CallTextReader::Leaf;

// The leaves in the order and to the depth collect_strings wrote them into the message text.
void collect_leaves(simdjson::dom::element e, std::vector<Leaf>& out, int depth) {
  if (depth > 16) return;
  switch (e.type()) {
    case simdjson::dom::element_type::STRING: {
      std::string_view s;
      if (e.get_string().get(s) != simdjson::SUCCESS || s.empty()) return;  // empty: append_part writes no line
      Leaf leaf;
      leaf.cut = s.size() > kCutMark.size() && s.ends_with(kCutMark);
      if (leaf.cut) s.remove_suffix(kCutMark.size());
      leaf.text = std::string(s);
      out.push_back(std::move(leaf));
      break;
    }
    case simdjson::dom::element_type::ARRAY: {
      simdjson::dom::array items;
      if (e.get_array().get(items) == simdjson::SUCCESS)
        for (simdjson::dom::element child : items) collect_leaves(child, out, depth + 1);
      break;
    }
    case simdjson::dom::element_type::OBJECT: {
      simdjson::dom::object fields;
      if (e.get_object().get(fields) == simdjson::SUCCESS)
        for (auto field : fields) collect_leaves(field.value, out, depth + 1);
      break;
    }
    default:
      break;
  }
}

// `piece` at or after `from`, starting a line of `text`.
size_t find_line(std::string_view text, std::string_view piece, size_t from) {
  for (size_t at = text.find(piece, from); at != std::string_view::npos; at = text.find(piece, at + 1))
    if (at == 0 || text[at - 1] == '\n') return at;
  return std::string_view::npos;
}

// Where a call's text starts in the message text: its name, then its first leaf, on lines of their own.
std::string anchor_of(const ToolCallRec& call, const std::vector<Leaf>& leaves) {
  std::string a = call.name;
  if (!leaves.empty()) a += '\n' + leaves.front().text;
  return a;
}

}  // namespace

std::optional<std::vector<Leaf>> CallTextReader::leaves_of(const ToolCallRec& call) {
  simdjson::dom::element doc;
  if (parser_.parse(call.input_json).get(doc) != simdjson::SUCCESS) return std::nullopt;
  std::vector<Leaf> leaves;
  collect_leaves(doc, leaves, 0);
  return leaves;
}

std::string CallTextReader::text(const ToolCallRec& call, std::string_view message_text,
                                 const std::vector<const ToolCallRec*>& calls) {
  std::optional<std::vector<Leaf>> leaves = leaves_of(call);
  if (!leaves) return std::string(message_text);  // in doubt, everything the call may have named
  std::string out = call.name;
  bool any_cut = false;
  for (const Leaf& leaf : *leaves) {
    out += '\n' + leaf.text;
    any_cut = any_cut || leaf.cut;
  }
  if (!any_cut) return out;

  // A leaf was cut: its whole form is in the message text. Find this call's place there by walking
  // the calls before it (a command repeated by an earlier call is not taken for this one's).
  size_t cursor = 0;
  std::optional<std::string> next_anchor;  // of the call after this one
  bool past = false;                       // this call was found: `cursor` is at its first leaf
  for (const ToolCallRec* c : calls) {
    if (past) {
      if (auto l = leaves_of(*c)) next_anchor = anchor_of(*c, *l);
      break;
    }
    const bool self = c == &call || (c->id == call.id && c->session_id == call.session_id);
    const std::optional<std::vector<Leaf>> l = self ? leaves : leaves_of(*c);
    if (!l) continue;
    const size_t at = find_line(message_text, anchor_of(*c, *l), cursor);
    if (at == std::string_view::npos) {
      if (self) return std::string(message_text);  // not where it should be: in doubt, all of it
      continue;
    }
    cursor = at + c->name.size() + 1;
    past = self;
  }
  if (!past) return std::string(message_text);

  out = call.name;
  for (size_t i = 0; i < leaves->size(); ++i) {
    const Leaf& leaf = (*leaves)[i];
    const size_t at = find_line(message_text, leaf.text, cursor);
    if (at == std::string_view::npos) return std::string(message_text);
    size_t end = at + leaf.text.size();
    if (leaf.cut) {
      // Up to the next leaf's line, else the next call's, else the end of the text.
      size_t next = std::string_view::npos;
      if (i + 1 < leaves->size())
        next = find_line(message_text, (*leaves)[i + 1].text, end);
      else if (next_anchor)
        next = find_line(message_text, *next_anchor, end);
      end = next == std::string_view::npos ? message_text.size() : std::max(next - 1, end);  // before its '\n'
    }
    out += '\n';
    out.append(message_text.substr(at, end - at));
    cursor = end;
  }
  return out;
}

}  // namespace osearch
