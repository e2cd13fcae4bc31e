// The line `export --sessions` writes and `import` reads: one JSON object per session, holding its
// records byte for byte (base64) and its texts, with the schema that wrote them so an import into
// a newer osearch redoes the steps between (engine/index/archive_io.h). A few plain fields (id,
// agent, project, counts, times) are there for a person reading the file; import ignores them.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "engine/index/archive_io.h"

namespace osearch {

inline constexpr std::string_view kArchiveFormat = "osearch-session";
inline constexpr uint64_t kArchiveFormatVersion = 1;

std::string encode_archive_line(const ArchivedSession& s, uint64_t schema);

// The session of one line, checked (every key belongs to it) and migrated to this build's schema;
// nullopt with `why` set when the line is not one.
std::optional<ArchivedSession> decode_archive_line(std::string_view line, std::string& why);

}  // namespace osearch
