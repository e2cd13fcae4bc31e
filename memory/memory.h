// Memories (SPEC §6): notes a user approved on purpose, each a markdown file on disk plus a summary.
// This folder owns the domain: the record and event types, ids, path and anchor rules and the JSONL
// exchange format. It knows nothing of LMDB or Xapian (engine/store/memory_store.h keeps them,
// engine/index/memory_index.h indexes them); nothing here includes an engine header.
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace osearch::memory {

// Bad memory input (a missing file, a malformed anchor): the CLI answers exit 2 with the message.
struct InvalidMemory : std::runtime_error {
  std::string kind;
  InvalidMemory(std::string k, const std::string& message) : std::runtime_error(message), kind(std::move(k)) {}
};

// `KIND:PATH[:LINE]`: where in the code or docs the memory applies. line 0 = none given.
struct Anchor {
  std::string kind, path;
  uint64_t line = 0;
  bool operator==(const Anchor&) const = default;
};

struct Record {
  std::string id;
  std::string path;     // absolute, lexically normal
  std::string summary;  // verbatim, any script
  std::string project;  // as given, else the session's project slug, else ""
  std::string session_id, message_start, message_end;
  std::vector<Anchor> anchors;
  int64_t created_at = 0;  // ms since the epoch
  int64_t deleted_at = 0;  // 0 while active
  std::string deleted_reason;
  bool active() const { return deleted_at == 0; }
  bool operator==(const Record&) const = default;
};

enum class Action : uint8_t { Remember, Forget, Restore, Import };
const char* action_name(Action a);
std::optional<Action> parse_action(std::string_view s);

// One entry of a memory's append-only audit trail.
struct Event {
  uint64_t seq = 0;  // 1, 2, … per memory
  Action action = Action::Remember;
  int64_t time = 0;  // ms
  std::string reason;
  bool operator==(const Event&) const = default;
};

// A fresh id: "m" + 10 base32 digits of the creation time in ms + 8 random ones. Sorts by creation
// time; two ids of the same millisecond differ in 40 random bits.
std::string new_id(int64_t now_ms);
// Plausible id or id prefix (the alphabet of new_id, 1..64 chars): anything else is not looked up.
bool valid_id_text(std::string_view s);

// `path` made absolute against `base` (a directory, absolute) and lexically normalised. Throws
// InvalidMemory("bad-path") when it does not name an existing regular file holding text (no NUL
// byte in its first 64 KiB), or when the path is not valid UTF-8.
std::string resolve_path(std::string_view path, std::string_view base);

// Parses `KIND:PATH[:LINE]` (KIND: letters, digits, `_` or `-`; a trailing `:digits` is the line).
// Throws InvalidMemory("bad-anchor").
Anchor parse_anchor(std::string_view text);

bool valid_utf8(std::string_view s);

// Reads a memory file's current text, at most `max_bytes`; nullopt when it cannot be read.
std::optional<std::string> read_text(const std::string& path, size_t max_bytes);

}  // namespace osearch::memory
