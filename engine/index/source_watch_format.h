// The source-watch record's format, shared by its writer (source_watch_encode.cpp) and its
// reader (source_watch.cpp). Private to engine/index.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "engine/index/source_watch.h"
#include "engine/store/codec.h"
#include "ingest/layout_util.h"

namespace osearch::source_watch_format {

// Record layout: the magic (kMagic), the roots, the entry count, the block count, the blocks' size, each
// block's start (u32 little-endian, from the first block), then the blocks. An entry is its path (front-coded against
// the previous entry of its block), flags, dev, inode, then size and mtime as fixed 8 bytes (so a
// targeted run patches them in place), then for a transcript what discovery made of it. Blocks
// decode on their own, so two threads check half each without building the whole list.
inline constexpr std::string_view kMagic = "osw3";
// A record of the build before, read as one whose directories were all only probed (it had no
// kListed): a relisting lists each of them again, the rest holds.
inline constexpr std::string_view kMagicUnlisted = "osw2";
static_assert(kMagic.size() == kMagicUnlisted.size());
inline bool has_magic(std::string_view record) { return record.starts_with(kMagic) || record.starts_with(kMagicUnlisted); }
inline constexpr size_t kBlockEntries = 128;
inline constexpr uint64_t kTypeMask = 3, kTranscript = 4, kSessionIsStem = 8, kSameAgent = 16, kSameProject = 32, kListed = 64;

// "<dir>/<id>.jsonl" -> "<id>"
inline std::string_view stem_of(std::string_view path) {
  std::string_view name = file_name_of(path);
  if (name.ends_with(".jsonl")) name.remove_suffix(6);
  return name;
}

inline void put_fixed64(std::string& out, uint64_t v) {
  for (int i = 0; i < 8; ++i) out.push_back(static_cast<char>((v >> (i * 8)) & 0xff));
}
inline void put_fixed32(std::string& out, uint32_t v) {
  for (int i = 0; i < 4; ++i) out.push_back(static_cast<char>((v >> (i * 8)) & 0xff));
}

inline void encode_roots(Encoder& e, const std::vector<SourceRoot>& roots) {
  e.u64(roots.size());
  for (const auto& r : roots) {
    e.str(r.agent);
    e.str(r.dir);
  }
}

}  // namespace osearch::source_watch_format
