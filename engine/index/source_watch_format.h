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
inline constexpr std::string_view kMagic = "osw4";
// Records of earlier builds (osw3; osw2, whose directories carried no kListed) decode the same but
// no check trusts them: a targeted run of those builds took the other files of a session read again
// whole for unchanged while their messages were dropped, and such a record cannot show it. The
// first run on one takes the full plan, which reads those files again, and keeps an osw4 record.
inline constexpr std::string_view kMagicEarlier[] = {"osw3", "osw2"};
inline bool has_magic(std::string_view record) {
  if (record.starts_with(kMagic)) return true;
  for (std::string_view m : kMagicEarlier)
    if (record.starts_with(m)) return true;
  return false;
}
// Whether a check may take the record's word for what it names.
inline bool trusted_magic(std::string_view record) { return record.starts_with(kMagic); }
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
