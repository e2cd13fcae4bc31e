// File paths named by tool calls: apply_patch headers, and a path as stored (resolved against the
// working directory of the call, so `files /abs/path` finds an edit written as `src/a.rs`).
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace osearch {

// Every file an apply_patch text names, in order, each once: the paths after "*** Update File: ",
// "*** Add File: ", "*** Delete File: " and "*** Move to: " at the start of a line.
std::vector<std::string> patch_file_paths(std::string_view patch);

// True for "/…", "~…", "C:\…", "C:/…" and "\\server\…": paths that do not depend on a cwd.
bool is_absolute_tool_path(std::string_view p);

// `path` made absolute against `cwd` when it is relative and `cwd` is absolute, then lexically
// normalized ("a/./b" -> "a/b", "a/x/../b" -> "a/b", repeated and trailing slashes dropped). A path
// that is absolute already is only normalized; a Windows path is left as written.
std::string resolve_tool_path(std::string_view path, std::string_view cwd);

}  // namespace osearch
