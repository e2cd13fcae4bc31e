#include "ingest/known_tree.h"

#include <algorithm>

namespace osearch {

void KnownTree::add(PathStat now, bool transcript, bool entries_moved) {
  if (transcript) ++transcripts_;
  known_.push_back({std::move(now), transcript, entries_moved});
}

void KnownTree::finish() {
  const auto by_path = [](const Known& a, const Known& b) { return a.stat.path < b.stat.path; };
  // (A record's entries come in path order.)
  if (!std::is_sorted(known_.begin(), known_.end(), by_path)) std::sort(known_.begin(), known_.end(), by_path);
  // A path recorded twice (a root opened, then listed) is one: listed if either was, and listed
  // again if the two differ (it changed while the last run looked at it).
  size_t kept = 0;
  for (size_t i = 0; i < known_.size(); ++i) {
    if (kept > 0 && known_[kept - 1].stat.path == known_[i].stat.path) {
      Known& k = known_[kept - 1];
      if (!k.stat.same_as(known_[i].stat)) k.entries_moved = true;
      k.stat.listed = k.stat.listed || known_[i].stat.listed;
      k.transcript = k.transcript || known_[i].transcript;
      k.entries_moved = k.entries_moved || known_[i].entries_moved;
      continue;
    }
    if (kept != i) known_[kept] = std::move(known_[i]);
    ++kept;
  }
  known_.resize(kept);
  // (A discovery asks about every path at least once: hashed, not searched.)
  by_path_.reserve(known_.size());
  for (const Known& k : known_) by_path_.emplace(k.stat.path, &k);
  for (const Known& k : known_) {
    const PathStat& s = k.stat;
    // Only what a listing shows: a missing path is recorded only as a probe's answer.
    if (s.type != PathStat::Type::Dir && s.type != PathStat::Type::File) continue;
    const size_t slash = s.path.rfind('/');
    if (slash == std::string::npos || slash == 0) continue;
    const Known* parent = find(std::string_view(s.path).substr(0, slash));
    if (!parent || parent->stat.type != PathStat::Type::Dir || !parent->stat.listed || parent->entries_moved) continue;
    listings_[parent->stat.path].push_back(&s);
  }
  // An unchanged listed directory with nothing of interest in it lists as empty, not as unknown.
  for (const Known& k : known_)
    if (k.stat.type == PathStat::Type::Dir && k.stat.listed && !k.entries_moved) listings_[k.stat.path];
}

const KnownTree::Known* KnownTree::find(std::string_view path) const {
  auto it = by_path_.find(path);
  return it == by_path_.end() ? nullptr : it->second;
}

const PathStat* KnownTree::stat_of(std::string_view path) const {
  const Known* k = find(path);
  return k ? &k->stat : nullptr;
}

const std::vector<const PathStat*>* KnownTree::listing_of(std::string_view dir) const {
  auto it = listings_.find(dir);
  return it == listings_.end() ? nullptr : &it->second;
}

size_t KnownTree::transcripts_under(std::string_view dir) const {
  std::string prefix(dir);
  if (!prefix.ends_with('/')) prefix += '/';
  auto it = std::lower_bound(known_.begin(), known_.end(), prefix,
                             [](const Known& k, const std::string& p) { return k.stat.path < p; });
  size_t n = 0;
  for (; it != known_.end() && it->stat.path.starts_with(prefix); ++it) n += it->transcript;
  return n;
}

bool KnownTree::is_transcript(std::string_view path) const {
  const Known* k = find(path);
  return k && k->transcript;
}

}  // namespace osearch
