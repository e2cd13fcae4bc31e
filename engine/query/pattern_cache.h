// Compiled Hyperscan databases kept on disk, keyed by everything that went into the compile.
// Under Unicode properties (HS_FLAG_UCP) a `\w` costs Hyperscan ~50 ms to compile, more than the
// scan of a 2 GB corpus's text: a `content` call paged with --offset, or asked again, loads the
// database in well under a millisecond instead.
//
// An entry is found by a hash of its key and holds the whole key, compared on load: a hash
// collision is a miss, never another pattern's database, and so is an entry whose bytes do not
// match their checksum. Hyperscan refuses a database of another version or platform (both are in
// the key as well); any failure to read or write is a miss, so a read-only index still answers.
// Entries are written to a temporary name and renamed; the least recently used are removed past
// kPatternCacheMaxEntries.
//
// An entry may also record that Hyperscan refused the key's inputs ("Pattern too large" after
// ~0.4 s of trying, for `\w{300}\d` under UCP), so that the next call goes straight to the fallback
// (a prefilter, or PCRE2 alone). A refusal kept wrongly would only choose a slower path that is
// still exact, never another answer.
#pragma once

#include <hs/hs.h>

#include <string>
#include <string_view>

namespace osearch {

inline constexpr size_t kPatternCacheMaxEntries = 64;
// The cache's directory under the index dir.
inline constexpr const char* kPatternCacheDir = "cache";

// The cache's key for these compile inputs: the Hyperscan version, this machine's platform, the
// mode, and each expression with its flags and id.
std::string pattern_cache_key(const char* const* expressions, const unsigned* flags, const unsigned* ids,
                              unsigned count, unsigned mode);

// The database kept under `key` in `dir` (the caller owns it), or nullptr; then `*refused` (when
// given) says whether the entry records a refusal of these inputs (keep_refusal).
hs_database_t* load_cached_database(const std::string& dir, std::string_view key, bool* refused = nullptr);

// Keeps `db` under `key` in `dir` (created when missing), quietly doing nothing when it cannot.
void keep_cached_database(const std::string& dir, std::string_view key, const hs_database_t* db);

// Keeps under `key` that Hyperscan refused to compile its inputs, as keep_cached_database does.
void keep_refusal(const std::string& dir, std::string_view key);

}  // namespace osearch
