#include "ingest/records.h"

#include <array>
#include <string_view>

namespace osearch {
namespace {
constexpr std::array<const char*, 4> kRoles{"user", "assistant", "tool", "system"};
constexpr std::array<const char*, 7> kTypes{"text", "thinking", "tool_use", "tool_result", "command", "summary",
                                            "unknown"};
}  // namespace

const char* role_name(Role r) { return kRoles[static_cast<size_t>(r)]; }
const char* content_type_name(ContentType t) { return kTypes[static_cast<size_t>(t)]; }

bool parse_role(std::string_view s, Role& out) {
  for (size_t i = 0; i < kRoles.size(); ++i)
    if (s == kRoles[i]) {
      out = static_cast<Role>(i);
      return true;
    }
  return false;
}

bool parse_content_type(std::string_view s, ContentType& out) {
  for (size_t i = 0; i < kTypes.size(); ++i)
    if (s == kTypes[i]) {
      out = static_cast<ContentType>(i);
      return true;
    }
  return false;
}

size_t approx_bytes(const LineRecords& rec) {
  constexpr size_t kRecordOverhead = 256;
  size_t n = kRecordOverhead;
  for (const Message& m : rec.messages) {
    n += kRecordOverhead + m.text.size();
    for (const auto& c : m.tool_calls) n += kRecordOverhead + c.input_json.size() + c.file_path.size();
    n += m.tool_results.size() * kRecordOverhead;
  }
  for (const auto& f : rec.facts) n += kRecordOverhead + f.text.size();
  return n;
}

}  // namespace osearch
