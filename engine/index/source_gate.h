// Freshness for a long-lived frontend (`osearch mcp`, `osearch serve`) without a stat per
// transcript on every call: the quick check (engine/index/source_watch.h) narrowed by inotify, on
// the frontend's own thread (no watcher process, no index run in the background).
//
// Trust is earned by a full check: the record's directories are watched first (prepare), then
// every recorded path is stat'ed against the record. From then on any change the check could find
// raises an event. A later call whose snapshot holds the same record, byte for byte, drains them
// (changes): none — the record still holds; only in-place changes to files — just those need a
// stat (check_source_watch with `only`); anything else (an entry created, removed or moved, a
// directory, an overflow), another record, or 30 s since the last full check — the full check
// again. The trust is in the record's observations, not in a snapshot: any snapshot that holds the
// record (a reader reopened after a write or an error closed it, another process's commit that
// left the record as it was) answers for the same sources. After a run that read the changed files, the trust moves
// to the record the run was given to keep, when the reopened snapshot holds exactly that: every
// observation in it was made while the watches were in place.
//
// Changes inotify cannot see (another host writing over NFS, a hard link in an unwatched directory)
// are found by the full check every 30 s, as with `index --watch`.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>

namespace osearch {

class InotifyWatch;

class SourceGate {
 public:
  // `max_watches`: the most directories it watches (0: a sixteenth of the user's inotify limit,
  // fs.inotify.max_user_watches, which their editors and other tools share); a record that needs
  // more is never trusted, and every call checks in full.
  explicit SourceGate(const std::string& index_dir, size_t max_watches = 0);
  ~SourceGate();
  SourceGate(const SourceGate&) = delete;
  SourceGate& operator=(const SourceGate&) = delete;

  // Before a full check of `record`: drains the queue (the check sees whatever it was about) and
  // watches the record's directories. False: they cannot all be watched (inotify unavailable, out
  // of watches or over `max_watches`, a record that does not decode), so no trust can follow.
  bool prepare(std::string_view record);

  // For the trusted record: the files (paths as recorded) that may have changed since. Empty:
  // none, the record still holds. nullopt: the full check is needed. With files, the gate is
  // trusted again only when the caller confirms through trust().
  std::optional<std::set<std::string>> changes(std::string_view record);

  // After prepare, the full check found the files as `record` has them; after changes, the
  // narrowed check found the named files unchanged. Or, after either, a run was given what the
  // check found and its snapshot holds `record`, exactly the one the run was to keep. Anything
  // else: no call, and the gate stays untrusted.
  void trust(std::string_view record);
  void distrust() { state_ = State::Untrusted; }

 private:
  std::string own_dir_;  // events about the index's own files are not source changes
  size_t max_watches_;
  std::unique_ptr<InotifyWatch> inotify_;
  // Prepared: watching, before a full check; Pending: files handed out by changes(), unconfirmed.
  enum class State { Untrusted, Prepared, Pending, Trusted };
  State state_ = State::Untrusted;
  std::string record_;  // the trusted one
  int64_t prepared_at_ = 0, full_check_at_ = 0;  // CLOCK_BOOTTIME
};

}  // namespace osearch
