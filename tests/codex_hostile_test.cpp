// Codex adapter on hostile input: every value of every kind of line replaced, one at a time, by a
// value of each other JSON type (and huge or deeply nested ones). Nothing may crash, and what
// comes out must still be well formed: uuids "@…", bounded ids, valid UTF-8 text, input_json
// that parses.
#include "codex_fixture.h"

#include "ingest/bounded_id.h"
#include "ingest/json_fields.h"
#include "utf8_check.h"

using namespace osearch;
using namespace codex_test;

namespace {

// One valid line of every kind the adapter reads.
std::vector<std::string> templates() {
  return {
      meta("019a-1"),
      turn_context("gpt-5", "/w"),
      R"({"id":"legacy","timestamp":"2025-01-01T00:00:00Z","git":{"branch":"b"}})",
      R"({"record_type":"state"})",
      R"({"type":"message","role":"user","content":[{"type":"input_text","text":"bare"}]})",
      item(R"({"type":"message","role":"assistant","content":[{"type":"output_text","text":"a"},{"type":"input_image","image_url":"data:x"}]})"),
      item(R"({"type":"message","role":"developer","content":"d"})"),
      item(R"({"type":"reasoning","summary":[{"type":"summary_text","text":"s"}],"content":[{"type":"reasoning_text","text":"c"}],"encrypted_content":"e"})"),
      item(R"({"type":"function_call","name":"shell","call_id":"c","arguments":"{\"command\":[\"ls\"],\"path\":\"p\"}"})"),
      item(R"({"type":"function_call_output","call_id":"c","output":"{\"output\":\"o\",\"metadata\":{\"exit_code\":1}}"})"),
      item(R"({"type":"function_call_output","call_id":"c","output":{"content":[{"type":"input_text","text":"t"}],"success":false}})"),
      item(R"({"type":"custom_tool_call","call_id":"c","name":"apply_patch","input":"*** Update File: a\n"})"),
      item(R"({"type":"custom_tool_call_output","call_id":"c","output":[{"type":"input_text","text":"t"}]})"),
      item(R"({"type":"local_shell_call","call_id":"c","id":"i","action":{"type":"exec","command":["ls","-l"],"workdir":"/w"}})"),
      item(R"({"type":"web_search_call","id":"w","action":{"type":"search","query":"q","queries":["q","r"]}})"),
      item(R"({"type":"tool_search_call","call_id":"c","arguments":{"query":"q"}})"),
      item(R"({"type":"tool_search_output","call_id":"c","tools":[]})"),
      event(R"({"type":"user_message","message":"m","images":["data:x"]})"),
      event(R"({"type":"thread_name_updated","thread_name":"n"})"),
      token_count(10, 4, 2),
      R"({"timestamp":"2026-01-01T00:00:00Z","type":"compacted","payload":{"message":"m","replacement_history":[]}})",
  };
}

std::vector<std::string> replacements() {
  std::string nested;
  for (int i = 0; i < 200; ++i) nested += '[';
  for (int i = 0; i < 200; ++i) nested += ']';
  std::string huge = "\"" + std::string(70000, 'h') + "é\"";
  return {"null", "0", "-1", "9223372036854775807", "1e300", "-2.5", "true", "\"\"", "\"str\"",
          "[]", "{}", "[1,\"x\",null]", R"({"text":7,"output":[],"type":"input_text"})",
          R"("{\"output\":{\"output\":null},\"metadata\":[]}")", R"("[1,2")", nested, huge};
}

// `e` as JSON, with its `target`-th node (pre-order) replaced by `with`.
void rewrite(simdjson::dom::element e, size_t target, const std::string& with, size_t& counter, std::string& out) {
  if (counter++ == target) {
    out += with;
    return;
  }
  if (e.is_object()) {
    out += '{';
    bool first = true;
    for (auto field : simdjson::dom::object(e)) {
      if (!first) out += ',';
      first = false;
      write_json_string(out, field.key);
      out += ':';
      rewrite(field.value, target, with, counter, out);
    }
    out += '}';
  } else if (e.is_array()) {
    out += '[';
    bool first = true;
    for (auto child : simdjson::dom::array(e)) {
      if (!first) out += ',';
      first = false;
      rewrite(child, target, with, counter, out);
    }
    out += ']';
  } else {
    out += simdjson::minify(e);
  }
}

void check_well_formed(const LineRecords& rec, uint64_t offset) {
  simdjson::dom::parser parser;
  CHECK(rec.session_id_field.size() <= kMaxIdBytes);
  for (const auto& m : rec.messages) {
    CHECK(m.uuid.rfind("@" + std::to_string(offset), 0) == 0);
    CHECK(osearch_test::valid_utf8(m.text));
    for (const auto& c : m.tool_calls) {
      CHECK(c.id.size() <= kMaxIdBytes);
      CHECK(parser.parse(c.input_json).error() == simdjson::SUCCESS);
    }
    for (const auto& r : m.tool_results) CHECK(r.tool_use_id.size() <= kMaxIdBytes);
  }
  for (const auto& f : rec.facts) {
    CHECK(f.usage.input >= 0);
    CHECK(f.usage.output >= 0);
    CHECK(f.usage.cache_read >= 0);
  }
}

}  // namespace

TEST_CASE("codex hostile: any value of any line replaced by any JSON type", "[codex]") {
  simdjson::dom::parser tparser, lparser;
  size_t variants = 0;
  for (const std::string& tmpl : templates()) {
    simdjson::dom::element doc;
    REQUIRE(tparser.parse(tmpl).get(doc) == simdjson::SUCCESS);
    size_t nodes = 0;
    std::string ignored;
    rewrite(doc, SIZE_MAX, "", nodes, ignored);
    for (size_t target = 1; target < nodes; ++target) {  // node 0 is the line itself
      for (const std::string& with : replacements()) {
        std::string line;
        size_t counter = 0;
        rewrite(doc, target, with, counter, line);
        simdjson::dom::element obj;
        REQUIRE(lparser.parse(line).get(obj) == simdjson::SUCCESS);
        // Fresh and already-started carries: header and token paths both run.
        for (bool started : {false, true}) {
          FileCarry carry;
          if (started) {
            carry.header_seen = true;
            carry.usage_total.input = 5;
            carry.model = "m";
          }
          LineRecords rec;
          parse_codex_object(obj, 321, carry, rec);
          check_well_formed(rec, 321);
          LineRecords index;
          parse_codex_index_object(obj, index);
          CHECK(index.messages.empty());
          ++variants;
        }
      }
    }
  }
  CHECK(variants > 5000);
}

TEST_CASE("codex hostile: whole lines of the wrong shape", "[codex]") {
  for (const char* line : {R"({})", R"({"type":null})", R"({"type":7,"payload":{}})", R"({"type":"response_item"})",
                           R"({"type":"response_item","payload":null})", R"({"type":"response_item","payload":"x"})",
                           R"({"type":"response_item","payload":[{"type":"message"}]})",
                           R"({"type":"event_msg","payload":7})", R"({"type":"session_meta","payload":"id"})",
                           R"({"type":"session_meta","payload":[]})", R"({"type":"turn_context","payload":null})",
                           R"({"type":"compacted","payload":{"message":{"text":"x"}}})",
                           R"({"type":"message","payload":{"role":"user"}})", R"({"timestamp":{"t":1}})",
                           R"({"record_type":"state","id":"x"})"}) {
    FileCarry carry;
    ParsedLine p = parse_line(line, carry, 5);
    CHECK_FALSE(p.kept);
    CHECK(p.rec.messages.empty());
    CHECK_FALSE(carry.header_seen);
  }
}
