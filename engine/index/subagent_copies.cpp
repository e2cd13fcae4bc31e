#include "engine/index/subagent_copies.h"

#include <sys/stat.h>

#include <algorithm>

namespace osearch {
namespace {

bool plain_name(std::string_view id) {
  return !id.empty() && id.size() <= 128 && std::all_of(id.begin(), id.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_';
  });
}

bool regular_file(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

}  // namespace

bool subagent_transcript_exists(std::string_view parent_path, std::string_view agent_id) {
  constexpr std::string_view kSuffix = ".jsonl";
  if (!plain_name(agent_id) || !parent_path.ends_with(kSuffix)) return false;
  const std::string_view stem = parent_path.substr(0, parent_path.size() - kSuffix.size());
  const size_t slash = parent_path.rfind('/');
  const std::string_view dir = slash == std::string_view::npos ? std::string_view(".") : parent_path.substr(0, slash);
  const std::string name = "agent-" + std::string(agent_id) + ".jsonl";
  return regular_file(std::string(stem) + "/subagents/" + name) || regular_file(std::string(dir) + "/" + name);
}

}  // namespace osearch
