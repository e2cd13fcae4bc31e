#include "engine/index/uuid_lookup.h"

#include <algorithm>
#include <filesystem>
#include <functional>
#include <set>

#include "engine/index/text_index.h"

namespace osearch {

uint32_t uuid_term_fingerprint(std::string_view term) {
  return static_cast<uint32_t>(std::hash<std::string_view>{}(term) >> 32);
}

void UuidTermLookup::remember(const std::string& shard, std::vector<uint32_t> fingerprints) {
  std::sort(fingerprints.begin(), fingerprints.end());
  fingerprints.erase(std::unique(fingerprints.begin(), fingerprints.end()), fingerprints.end());
  fingerprints.shrink_to_fit();
  fingerprints_[shard] = std::move(fingerprints);
}

Xapian::Database& UuidTermLookup::open(const std::string& dir) {
  auto it = open_.find(dir);
  if (it == open_.end()) it = open_.emplace(dir, Xapian::Database(dir)).first;
  return it->second;
}

std::vector<std::string> UuidTermLookup::sessions(const std::string& main_dir, const std::vector<std::string>& shards,
                                                  std::string_view uuid) {
  if (main_dir != main_) {  // a compaction made a new generation: its inputs are gone
    main_ = main_dir;
    main_exists_ = std::filesystem::exists(main_dir);
    open_.clear();
  }
  const uint32_t fingerprint = uuid_term_fingerprint(message_uuid_term(uuid));
  std::vector<std::string> out;
  auto ask = [&](const std::string& dir) {
    for (auto& sid : sessions_with_uuid_term(open(dir), uuid))
      if (std::find(out.begin(), out.end(), sid) == out.end()) out.push_back(std::move(sid));
  };
  if (main_exists_) ask(main_dir);
  for (const auto& name : shards) {
    const auto known = fingerprints_.find(name);
    if (known != fingerprints_.end() && !std::binary_search(known->second.begin(), known->second.end(), fingerprint))
      continue;
    ask(index_dir_ + "/" + name);
  }
  if (open_.size() > shards.size() + 1) {  // a shard merge replaced shards: close what is no longer listed
    std::set<std::string> listed{main_dir};
    for (const auto& name : shards) listed.insert(index_dir_ + "/" + name);
    std::erase_if(open_, [&](const auto& e) { return !listed.contains(e.first); });
  }
  return out;
}

}  // namespace osearch
