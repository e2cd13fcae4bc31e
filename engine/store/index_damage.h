// A damaged part of the index (truncated, deleted, corrupt, or replaced by a symbolic link) is an
// error with a name, never a signal or a silently smaller answer. Every open of an index part goes
// through these checks; `osearch check` (engine/query/check.h) runs them all plus the deep ones.
#pragma once

#include <lmdb.h>

#include <stdexcept>
#include <string>
#include <string_view>

namespace osearch {

struct IndexDamaged : std::runtime_error {
  IndexDamaged(std::string part, std::string problem);
  const std::string& part() const { return part_; }
  const std::string& problem() const { return problem_; }

 private:
  std::string part_, problem_;
};

// LMDB's answers for a file that is not what its meta pages promise.
inline bool lmdb_damage_code(int rc) {
  return rc == MDB_CORRUPTED || rc == MDB_PAGE_NOTFOUND || rc == MDB_INVALID || rc == MDB_VERSION_MISMATCH;
}

// "" when `path` is absent or not a symbolic link, else what to say. The index dir itself may be a
// link (the user's choice); its parts may not: a link would send transcript text elsewhere.
std::string symlink_problem(const std::string& path);
// Throws IndexDamaged(part, …) when `path` is a symbolic link.
void refuse_symlink(const std::string& path, const std::string& part);

// LMDB's own consistency assertions (a damaged page it meets mid-walk) end the process inside C
// code, where no exception can pass. The store installs a callback that hands the damage to this
// reporter, then exits 1; the CLI sets one that prints its usual error. Without a reporter the
// message goes to stderr and the process aborts (what `check`'s walking child wants: a signal it
// reports). Set once at startup, before any index is opened.
using DamageReporter = void (*)(const IndexDamaged&);
void set_damage_reporter(DamageReporter reporter);
[[noreturn]] void report_fatal_damage(const IndexDamaged& damage);

// Random bytes in a B-tree page can hold a child page number past the end of data.mdb but inside
// LMDB's 64 GB map: reading it is a SIGBUS no check before the open can foresee. Or a node's flags
// can claim sorted duplicates in a database without them, and LMDB follows a null sub-cursor: a
// SIGSEGV inside LMDB's code. The store registers each env's map, and its calls into LMDB mark the
// thread (LmdbCall); with the guard installed (the CLI does, with the error line it prints), a
// SIGBUS or SIGSEGV at an address inside a registered map, or a SIGSEGV while the thread is inside
// an LMDB call, writes that line and exits 1. Any other fault goes to the handler that was there
// before (the default action, or a sanitizer's report): a fault elsewhere is a bug, not damage.
// The guard is process-wide (signals are).
void register_index_map(const void* start, size_t length);
void install_index_fault_guard(std::string_view error_line);
void remove_index_fault_guard();  // back to the default action (check's walking child)

// Marks the calling thread as inside LMDB for the guard, while it lives: around every call of
// engine/store/lmdb.cpp, and around the store's own direct LMDB calls (store.cpp, store_repack.cpp).
class LmdbCall {
 public:
  LmdbCall() noexcept;
  ~LmdbCall();
  LmdbCall(const LmdbCall&) = delete;
  LmdbCall& operator=(const LmdbCall&) = delete;
};

// Opens an index file without following a symbolic link (O_NOFOLLOW); `flags` as for open(2).
// Returns the fd, or -1 with errno set (ELOOP names a link: see refuse_symlink).
int open_index_file(const std::string& path, int flags, unsigned mode = 0600);

}  // namespace osearch
