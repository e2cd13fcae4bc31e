// Repack of the LMDB environment. Batches insert keys all over the B-trees, so pages split in the
// middle and stay 55-70% full, and copy-on-write leaves free pages behind: data.mdb ends up about
// twice its contents (`mdb_copy -c` keeps the half-full pages). A repack rewrites every named
// database in key order with MDB_APPEND into a fresh <index>/records-<n> (full pages, no free
// list) and switches records.current to it with an atomic rename.
#pragma once

#include <cstdint>

#include "engine/store/store.h"

namespace osearch {

struct RecordsStats {
  uint64_t file_bytes = 0;  // data.mdb
  uint64_t pages = 0;       // pages in use up to the last one (the file's length in pages)
  uint64_t free_pages = 0;  // of those, pages on LMDB's free list
};

// Cheap: a stat, mdb_env_info and one pass over the free list.
RecordsStats records_stats(const Store& store);

struct RepackResult {
  uint64_t bytes_before = 0, bytes_after = 0;  // data.mdb
  uint64_t entries = 0;
  size_t databases = 0;
};

// Copies every named database (flags kept, entry counts checked) into records-<n+1>, syncs it,
// points records.current at it and reopens `store` there; the old dir is removed. A crash at any
// point leaves either the old env or the new one named by records.current, and the next Write
// open removes the other. Readers that opened the old env keep their (equal) snapshot.
// `store` must be open in Write mode under the WriterLock, with no transaction or cursor alive.
RepackResult repack_records(Store& store);

// The same copy of an env records.current does not name yet (a rebuild's new generation, opened
// with Store's second constructor), while nothing names either: `store` is reopened on the copy
// (reopen_unlisted) and the old dir removed; `copy_name` is the copy's dir name, which the
// rebuild's switch then names. A crash leaves only unnamed envs, which the next writer removes with
// the rest of the unfinished rebuild.
RepackResult repack_unlisted_records(Store& store, std::string& copy_name);

}  // namespace osearch
