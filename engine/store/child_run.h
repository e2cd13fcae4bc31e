// Work that may crash runs in a forked child, so that a crash is a finding instead of the end of
// the process: reading a damaged LMDB env (a garbled page SIGSEGVs or SIGBUSes the reader) in the
// integrity check and in the salvage of `index --full`.
//
// fork() copies only the calling thread. A lock another thread held at that moment stays held in the
// child for good, and the child hangs the first time it needs it: `osearch serve` answers from a
// pool of threads, and GCC 12's ASan allocator does not take its locks around fork, so the child
// could hang on its first allocation. So the child shows it is alive by writing to its pipe as it
// goes; a child silent for too long is killed and, since a hang at fork is a race, forked again.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <functional>
#include <string>

namespace osearch {

struct ChildLimits {
  // A child that writes nothing for this long is killed; 0 = no limit.
  std::chrono::milliseconds silence{0};
  // A child still running after this long is killed (not retried); 0 = no limit.
  std::chrono::milliseconds total{0};
  // Forks in all while each attempt is killed for silence.
  int attempts = 1;
  // Retry a silent attempt that had written something: only when running the body again from the
  // start is harmless (a read-only walk). A body that writes elsewhere as it goes should report
  // only after its first durable step, and leave this false.
  bool retry_after_output = false;
};

struct ChildResult {
  std::string output;      // what the last attempt wrote
  int status = 0;          // its waitpid status
  int attempts = 0;        // forks made
  bool silent = false;     // the last attempt was killed for writing nothing for `silence`
  bool timed_out = false;  // it was killed at `total`

  bool exited_ok() const;  // exited with code 0, not killed
  // "" when the child exited with code 0; otherwise how it ended ("crashed with SIGSEGV",
  // "exited with code 3", "stopped responding and was stopped (3 attempts)", …).
  std::string ending() const;
};

// Runs body(fd, attempt) in a forked child (attempt counts from 0); what it writes to fd is the
// report. Its return value is the child's exit code; an exception escaping it exits 1. The child
// dies with its parent (PR_SET_PDEATHSIG) and leaves by _exit: no atexit handlers, no flushing of
// the parent's buffers. Throws std::runtime_error when pipe or fork fail.
ChildResult run_in_child(const std::function<int(int fd, int attempt)>& body, const ChildLimits& limits);

// Writes all of `s` to fd (retrying short writes and EINTR); false on an error.
bool write_all(int fd, std::string_view s);

}  // namespace osearch
