// The file states a plan compares with what discovery found, read in place from one LMDB snapshot.
// A plan over a tree of tens of thousands of transcripts (a Codex tree holds one per session)
// finds nearly all of them unchanged: those are compared through views and never decoded, so the
// plan copies only the states of the files it reads again or marks deleted.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/store/lmdb.h"
#include "engine/store/records_store.h"

namespace osearch {

class Store;

class StoredStates {
 public:
  // Every stored state (the full plan), or only those of `paths` (a targeted plan). Each is checked
  // whole as it is read: one that does not decode is a damaged page (IndexDamaged), as before.
  explicit StoredStates(const Store& store, const std::vector<std::string>* paths = nullptr);
  StoredStates(const StoredStates&) = delete;
  StoredStates& operator=(const StoredStates&) = delete;

  const FileStateView* find(std::string_view path) const;
  const std::vector<FileStateView>& all() const { return views_; }  // by path

 private:
  LmdbTxn txn_;  // keeps the views' pages: a snapshot is never overwritten while it is read
  std::vector<FileStateView> views_;
};

}  // namespace osearch
