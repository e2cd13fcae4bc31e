#include "engine/index/stored_states.h"

#include <algorithm>

#include "engine/store/index_damage.h"
#include "engine/store/store.h"

namespace osearch {
namespace {

FileStateView checked(std::string_view bytes) {
  // A state that does not decode is a damaged page: writing into those B-trees could follow garbage
  // (LMDB trusts its pages), and re-reading the file as new would hide the damage.
  std::optional<FileStateView> v = FileStateView::parse(bytes);
  if (!v) throw IndexDamaged("records", "a file state does not decode (a damaged page)");
  return *v;
}

bool state_path_before(const FileStateView& a, const FileStateView& b) { return a.path < b.path; }

}  // namespace

StoredStates::StoredStates(const Store& store, const std::vector<std::string>* paths) : txn_(store.env(), true) {
  const Dbis& db = store.db();
  if (paths) {
    for (const auto& p : *paths)
      if (auto v = txn_.get(db.files, file_key(p))) views_.push_back(checked(*v));
  } else {
    views_.reserve(Store::entries(txn_, db.files));
    LmdbCursor cur(txn_, db.files);
    for (bool ok = cur.first(); ok; ok = cur.next()) views_.push_back(checked(cur.value()));
  }
  // Keys are bounded paths (file_key): in path order but for the few past the bound.
  if (!std::is_sorted(views_.begin(), views_.end(), state_path_before)) std::sort(views_.begin(), views_.end(), state_path_before);
}

const FileStateView* StoredStates::find(std::string_view path) const {
  auto it = std::lower_bound(views_.begin(), views_.end(), path,
                             [](const FileStateView& v, std::string_view p) { return v.path < p; });
  return it != views_.end() && it->path == path ? &*it : nullptr;
}

}  // namespace osearch
