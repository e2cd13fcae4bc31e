// Directory walking shared by the discovery of every agent (ingest/*_layout.cpp): missing is
// silently empty, unreadable is reported.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include "ingest/source_file.h"

namespace osearch {

bool ends_with(std::string_view s, std::string_view suffix);
bool is_missing(const std::error_code& ec);
// stat(2) of `path` as a PathStat; `err` is 0, or the errno when it is neither there nor missing.
PathStat stat_path(const std::string& path, int& err);
// stat_path's answer without the path copied into it (the quick check stats thousands of paths).
void stat_into(const char* path, PathStat& out, int& err);
// The same, from what the refresh knows already (r.known) when it recorded the path.
PathStat look_at(const std::string& path, int& err, const DiscoveryResult& r);
// A path's last component, viewed (as fs::path::filename() for a path that does not end in a slash).
inline std::string_view file_name_of(std::string_view path) {
  const size_t slash = path.rfind('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

// An entry of a listed directory: from the file system, or from the listing a refresh knows (a
// view of the KnownTree's path, which outlives the discovery: no copy, no fs::path parsed unless a
// caller asks for one, as for a directory it goes into).
class DirEntry {
 public:
  explicit DirEntry(std::filesystem::directory_entry e) : entry_(std::move(e)) {}
  DirEntry(std::string_view known_path, PathStat::Type type) : known_path_(known_path), known_(type) {}
  std::string_view path_view() const { return known_ ? known_path_ : std::string_view(entry_.path().native()); }
  // The last component (as path().filename(): entries never end in a slash).
  std::string_view name() const { return file_name_of(path_view()); }
  const std::filesystem::path& path() const {
    if (!known_) return entry_.path();
    if (!known_fs_path_) known_fs_path_.emplace(known_path_);
    return *known_fs_path_;
  }
  // As std::filesystem::directory_entry's: symbolic links followed.
  bool is_directory(std::error_code& ec) const {
    return known_ ? *known_ == PathStat::Type::Dir : entry_.is_directory(ec);
  }
  bool is_regular_file(std::error_code& ec) const {
    return known_ ? *known_ == PathStat::Type::File : entry_.is_regular_file(ec);
  }

 private:
  std::filesystem::directory_entry entry_;
  std::string_view known_path_;
  std::optional<PathStat::Type> known_;
  mutable std::optional<std::filesystem::path> known_fs_path_;
};

// Records what `path` is now in r.observed (and an error it cannot be looked at with in r.errors).
PathStat observe(const std::filesystem::path& path, DiscoveryResult& r);
// The entries of `dir` (observed first); a dir that is missing is empty, one that cannot be read
// is an error.
// A directory the refresh knows unchanged is not read: its entries are the ones it recorded.
std::vector<DirEntry> list_dir(const std::filesystem::path& dir, DiscoveryResult& r);
// Is `dir` a directory (observed)? Missing is a plain no; a dir we may not look into is also reported.
bool probe_dir(const std::filesystem::path& dir, DiscoveryResult& r);
// A source root: a directory, or missing (nothing, no error), or else an error in `r`.
bool open_root(const std::string& root, DiscoveryResult& r);
// Stats every file of `r` (two threads for big trees), drops the vanished ones, reports the
// unreadable ones, sorts the rest by path.
void stat_and_sort(DiscoveryResult& r);
// Drops each Missing observation whose parent directory was observed before it (`observed` in the
// order the stats were made): an entry created there later moves that directory's mtime, which the
// quick check sees, so stat'ing the missing path again would find nothing the parent does not.
// (Observed after the probe, the parent's mtime could already hold the creation: that one stays.)
void drop_covered_missing(std::vector<PathStat>& observed);

}  // namespace osearch
