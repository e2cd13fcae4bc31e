// Index failures a user can act on. Each carries the error kind the CLI reports in
// {"error":{"kind":…}} (exit 1); cli/main.cpp maps the type, the engine names the cause.
#pragma once

#include <stdexcept>
#include <string>

namespace osearch {

struct IndexError : std::runtime_error {
  IndexError(const char* kind, const std::string& message) : std::runtime_error(message), kind_(kind) {}
  const char* kind() const { return kind_; }

 private:
  const char* kind_;
};

// The file system (or the user's quota) is full. Whatever the run committed before stays
// consistent: the next run after space is freed ends like a clean build.
struct NoSpace : IndexError {
  explicit NoSpace(const std::string& message) : IndexError("no-space", message) {}
};

// The index cannot be written by this process (a read-only mount, another user's copy, a backup):
// queries answer from it as it is, `index` refuses.
struct ReadOnlyIndex : IndexError {
  explicit ReadOnlyIndex(const std::string& message) : IndexError("read-only", message) {}
};

// ENOSPC or EDQUOT.
bool is_no_space(int err);

// Did a write under `path` fail for lack of space? True for ENOSPC/EDQUOT, and for EIO when the
// file system holding `path` has (almost) no room left: LMDB reports a short write as EIO.
bool write_failed_for_space(int err, const std::string& path);

// Throws NoSpace ("no space left on device writing <path> (<what>: <strerror>)") when the write
// error `err` is a lack of space, else std::runtime_error("<what> <path>: <strerror>").
[[noreturn]] void throw_write_error(int err, const std::string& what, const std::string& path);

// The NoSpace message for a failure already described by `detail`.
std::string no_space_message(const std::string& path, const std::string& detail);

}  // namespace osearch
