// `osearch check`: verifies every part of an index, read-only (no refresh, no writer lock), and
// names what is wrong. The CLI, and later the MCP and web frontends, print the same report.
//
//   records.current  names records or records-<n>, not a link
//   records          LMDB meta sound (lmdb_data_problem), every named database walked to its end
//                    and every record decoded, in a forked child: random bytes in a B-tree page
//                    can crash LMDB rather than return MDB_CORRUPTED, and a crash must be a finding
//   text.log/.idx    at least the committed sizes, entries ascending, contiguous and inside the
//                    log; every message's text inside the committed log
//   xapian-<gen>, shard-…, part-…, titles   present, not links, openable (and Xapian's own check
//                    when `deep`); message documents >= messages (older epochs add documents)
//   lock.mdb, writer.lock   not links (both are re-created when missing)
#pragma once

#include <string>
#include <vector>

namespace osearch {

struct CheckPart {
  std::string part;     // "records", "text.log", "xapian-3", …
  bool ok = true;
  std::string problem;  // what is wrong, when !ok
  std::string detail;   // what was verified, e.g. "8995 messages, 160 sessions"
};

struct CheckReport {
  bool ok = true;
  std::vector<CheckPart> parts;
  std::vector<const CheckPart*> damaged() const;
};

struct CheckOptions {
  // Xapian::Database::check on every database and a walk over every text log entry. Without it
  // (what `status` runs on a damaged index), the checks are those every open makes plus the LMDB walk.
  bool deep = true;
};

// Throws StoreMissing when `dir` holds no index.
CheckReport check_index(const std::string& dir, const CheckOptions& options = {});

}  // namespace osearch
