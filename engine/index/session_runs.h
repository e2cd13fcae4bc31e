// Which session each message document belongs to, kept per listed Xapian database as runs of
// document ids: what keyword's own collapse reads instead of a document value per match. A value
// read costs ~2.5 µs on the 2 GB corpus (a B-tree lookup and a chunk decoded up to the document),
// and Xapian's collapse and the tally read one per match: half of a ranked pass.
//
// The runs of a database are kept in LMDB meta (`session_runs/<name>`) with the database's uuid and
// revision: a reader uses them only for exactly the revision it opened. A database written after
// them (any commit changes the revision), one without them, or runs that do not decode leave that
// database's documents to their values, as before: the runs may be missing, never wrong.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <xapian.h>

namespace osearch {

class Store;

inline constexpr std::string_view kSessionRunsPrefix = "session_runs/";

// The runs of one database (a single one, not a combination), read from its value stream.
// nullopt when a document holds a session value that is not a session number.
std::optional<std::string> encode_session_runs(const Xapian::Database& one);

// A view: the encoded runs it was made from must outlive it (a reader's are LMDB pages its
// snapshot keeps).
class SessionRuns {
 public:
  // The runs in `encoded` when they were read from `one` at its revision; nullopt otherwise.
  static std::optional<SessionRuns> for_database(std::string_view encoded, const Xapian::Database& one);
  // The session number of document `local` (its id in that database); nullopt when no run holds it
  // (a document without a session value).
  std::optional<uint32_t> number_of(Xapian::docid local) const;
  size_t size() const { return runs_.size() / kRunBytes; }

 private:
  static constexpr size_t kRunBytes = 12;  // be32 first id, be32 last id, be32 session number
  explicit SessionRuns(std::string_view runs) : runs_(runs) {}
  std::string_view runs_;
};

// Brings the kept runs in line with the databases the index lists (main, shards, titles): reads
// those whose uuid or revision moved, drops those of databases no longer listed. One LMDB
// transaction; cheap when nothing moved (a uuid and a revision per database). Returns how many
// databases were read.
size_t keep_session_runs(const Store& store);

}  // namespace osearch
