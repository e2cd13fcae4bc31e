// The sessions whose committed message documents hold a uuid's term (a Claude summary names the
// leaf message it titles by uuid alone; `msg_uuid` is keyed by session). A cold build lists a
// new shard per batch and writer thread, and asking each of them for the term made every lookup
// cost O(shards): at 2 GB, 2,265 lookups over up to 226 shards took 6.1 s of the main thread.
// A shard this process wrote keeps the fingerprints of its uuid terms (4 bytes a message), so a
// lookup asks only the shards that may hold the term; the main database, parts and shards of
// earlier runs have none and are always asked.
#pragma once

#include <xapian.h>

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace osearch {

// A uuid term's fingerprint: equal terms have equal ones (a collision only costs a look).
uint32_t uuid_term_fingerprint(std::string_view term);

class UuidTermLookup {
 public:
  explicit UuidTermLookup(std::string index_dir) : index_dir_(std::move(index_dir)) {}
  // The fingerprints of every uuid term in the shard named `shard` (any order).
  void remember(const std::string& shard, std::vector<uint32_t> fingerprints);
  // sessions_with_uuid_term over `main_dir` (when it exists) and the listed `shards` (not the titles).
  std::vector<std::string> sessions(const std::string& main_dir, const std::vector<std::string>& shards,
                                    std::string_view uuid);

 private:
  Xapian::Database& open(const std::string& dir);
  std::string index_dir_;
  std::map<std::string, Xapian::Database> open_;  // by directory, kept while the layout names it
  std::unordered_map<std::string, std::vector<uint32_t>> fingerprints_;  // by shard name, sorted
  std::string main_;                                                     // the main dir last seen
  bool main_exists_ = false;
};

}  // namespace osearch
