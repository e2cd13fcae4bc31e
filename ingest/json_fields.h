// Small readers over simdjson DOM values shared by the agent adapters. Every accessor is total:
// a missing field or one of another type reads as empty / 0 / false.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include <simdjson.h>

namespace osearch {

std::string_view str_field(simdjson::dom::element e, std::string_view key);
// An integer field; a double is truncated, one outside int64's range (or any other type) reads as 0.
int64_t int_field(simdjson::dom::element e, std::string_view key);
bool bool_field(simdjson::dom::element e, std::string_view key);

std::string_view ltrim(std::string_view s);
bool starts_with(std::string_view s, std::string_view p);
// Appends `part` on a line of its own (nothing when it is empty).
void append_part(std::string& out, std::string_view part);
// Every string leaf of `e`, each on its own line: commands, paths, patterns and prompts become searchable.
void collect_strings(simdjson::dom::element e, std::string& out, int depth = 0);
void write_json_string(std::string& out, std::string_view s);
// JSON text of `e` with every string leaf cut to `max_leaf` bytes (on a UTF-8 boundary), marked
// "…[truncated]": the full strings are in the message text already, so the record stays small.
void write_truncated_json(simdjson::dom::element e, std::string& out, size_t max_leaf, int depth = 0);
// What every adapter cuts a tool call's input leaves to in its record (ToolCall::input_json).
inline constexpr size_t kMaxInputLeafBytes = 256;
// A string, or the `text` of each block (of type `block_type` when given; images have none).
void collect_block_texts(simdjson::dom::element content, std::string& out, std::string_view block_type = {});
// A tool result's content: a string, or its `text` blocks (images dropped).
void collect_result_text(simdjson::dom::element content, std::string& out);

}  // namespace osearch
