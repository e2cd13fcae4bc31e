#include "ingest/tool_paths.h"

#include <algorithm>

namespace osearch {

std::vector<std::string> patch_file_paths(std::string_view patch) {
  static constexpr std::string_view kMarkers[] = {"*** Update File: ", "*** Add File: ", "*** Delete File: ",
                                                  "*** Move to: "};
  std::vector<std::string> out;
  size_t line = 0;
  while (line < patch.size()) {
    size_t end = patch.find('\n', line);
    if (end == std::string_view::npos) end = patch.size();
    std::string_view l = patch.substr(line, end - line);
    if (!l.empty() && l.back() == '\r') l.remove_suffix(1);
    for (std::string_view m : kMarkers) {
      if (l.substr(0, m.size()) != m) continue;
      std::string_view p = l.substr(m.size());
      while (!p.empty() && (p.back() == ' ' || p.back() == '\t')) p.remove_suffix(1);
      if (!p.empty() && std::find(out.begin(), out.end(), p) == out.end()) out.emplace_back(p);
      break;
    }
    line = end + 1;
  }
  return out;
}

bool is_absolute_tool_path(std::string_view p) {
  if (p.empty()) return false;
  if (p[0] == '/' || p[0] == '~') return true;
  if (p.size() >= 2 && p[0] == '\\' && p[1] == '\\') return true;
  const bool letter = (p[0] >= 'A' && p[0] <= 'Z') || (p[0] >= 'a' && p[0] <= 'z');
  return p.size() >= 3 && letter && p[1] == ':' && (p[2] == '\\' || p[2] == '/');
}

std::string resolve_tool_path(std::string_view path, std::string_view cwd) {
  if (path.empty()) return {};
  if (path[0] == '~' || (is_absolute_tool_path(path) && path[0] != '/')) return std::string(path);
  std::string joined;
  if (path[0] == '/') {
    joined = path;
  } else if (!cwd.empty() && cwd[0] == '/') {
    joined.reserve(cwd.size() + 1 + path.size());
    joined.append(cwd).push_back('/');
    joined.append(path);
  } else {
    return std::string(path);  // relative to nothing known: kept as written (found by suffix)
  }
  std::vector<std::string_view> parts;
  std::string_view rest(joined);
  while (!rest.empty()) {
    size_t slash = rest.find('/');
    std::string_view seg = rest.substr(0, slash);
    rest = slash == std::string_view::npos ? std::string_view() : rest.substr(slash + 1);
    if (seg.empty() || seg == ".") continue;
    if (seg == "..") {
      if (!parts.empty()) parts.pop_back();
      continue;
    }
    parts.push_back(seg);
  }
  std::string out;
  for (std::string_view seg : parts) out.append("/").append(seg);
  return out.empty() ? std::string("/") : out;
}

}  // namespace osearch
