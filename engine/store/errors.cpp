#include "engine/store/errors.h"

#include <sys/statvfs.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

namespace osearch {
namespace {

// Below this much room a short write is taken for a full disk rather than a device error.
constexpr unsigned long long kNearlyFullBytes = 1u << 20;

// Free bytes for this process on the file system holding `path` (its nearest existing parent).
bool free_bytes(std::string path, unsigned long long& out) {
  for (;;) {
    struct statvfs st {};
    if (::statvfs(path.c_str(), &st) == 0) {
      out = static_cast<unsigned long long>(st.f_bavail) * st.f_frsize;
      return true;
    }
    std::string parent = std::filesystem::path(path).parent_path().string();
    if (errno != ENOENT || parent.empty() || parent == path) return false;
    path = std::move(parent);
  }
}

}  // namespace

bool is_no_space(int err) { return err == ENOSPC || err == EDQUOT; }

bool write_failed_for_space(int err, const std::string& path) {
  if (is_no_space(err)) return true;
  unsigned long long room = 0;
  return err == EIO && free_bytes(path, room) && room < kNearlyFullBytes;
}

std::string no_space_message(const std::string& path, const std::string& detail) {
  std::string m = "no space left on device writing " + path;
  if (!detail.empty()) m += " (" + detail + ")";
  unsigned long long room = 0;
  if (free_bytes(path, room)) m += "; " + std::to_string(room) + " bytes free";
  return m + ". The index is unchanged since its last commit: free some space and run `osearch index` again";
}

void throw_write_error(int err, const std::string& what, const std::string& path) {
  if (write_failed_for_space(err, path)) throw NoSpace(no_space_message(path, what + ": " + std::strerror(err)));
  throw std::runtime_error(what + " " + path + ": " + std::strerror(err));
}

}  // namespace osearch
