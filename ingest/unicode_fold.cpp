#include "ingest/unicode_fold.h"

#include <cstddef>

#include "ingest/utf8.h"

namespace osearch {
namespace fold_table {
#include "ingest/unicode_fold_table.inc"
}  // namespace fold_table

namespace {

constexpr uint32_t kBlockMask = (1u << fold_table::kBlockBits) - 1;

// The table entry of cp; 0 when cp folds to itself.
inline uint16_t entry_of(uint32_t cp) {
  if (cp >= fold_table::kLimit) return 0;
  const size_t block = fold_table::kStage1[cp >> fold_table::kBlockBits];
  return fold_table::kStage2[(block << fold_table::kBlockBits) | (cp & kBlockMask)];
}

inline void append_entry(uint16_t entry, std::string& out) {
  const uint32_t packed = fold_table::kEntries[entry];
  out.append(reinterpret_cast<const char*>(fold_table::kPool) + (packed >> 8), packed & 0xFFu);
}

void append_utf8(uint32_t cp, std::string& out) {
  if (cp < 0x80) {
    out.push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out.push_back(static_cast<char>(0xC0 | (cp >> 6)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    out.push_back(static_cast<char>(0xE0 | (cp >> 12)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    out.push_back(static_cast<char>(0xF0 | (cp >> 18)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
}

constexpr bool is_ascii_upper(unsigned char b) { return b >= 'A' && b <= 'Z'; }

}  // namespace

std::string_view unicode_fold_version() { return fold_table::kUnicodeVersion; }

namespace detail {
bool non_ascii_folds_to_itself(uint32_t cp) { return entry_of(cp) == 0; }
}  // namespace detail

void append_folded(uint32_t cp, std::string& out) {
  if (cp < 0x80) {
    out.push_back(static_cast<char>(is_ascii_upper(static_cast<unsigned char>(cp)) ? cp + ('a' - 'A') : cp));
    return;
  }
  if (cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) cp = 0xFFFD;
  if (const uint16_t entry = entry_of(cp))
    append_entry(entry, out);
  else
    append_utf8(cp, out);
}

void append_folded_word(std::string_view utf8, std::string& out) {
  out.reserve(out.size() + utf8.size());
  size_t i = 0;
  while (i < utf8.size()) {
    // A run of ASCII: copied in one append, then lower-cased in place.
    size_t end = i;
    while (end < utf8.size() && static_cast<unsigned char>(utf8[end]) < 0x80) ++end;
    if (end > i) {
      const size_t at = out.size();
      out.append(utf8.data() + i, end - i);
      for (size_t k = at; k < out.size(); ++k)
        if (is_ascii_upper(static_cast<unsigned char>(out[k]))) out[k] = static_cast<char>(out[k] + ('a' - 'A'));
      i = end;
      if (i == utf8.size()) break;
    }
    uint32_t cp;
    const size_t len = utf8_sequence(utf8, i, &cp);
    if (len == 0) {  // not UTF-8: the byte as it is
      out.push_back(utf8[i]);
      ++i;
      continue;
    }
    if (const uint16_t entry = entry_of(cp))
      append_entry(entry, out);
    else
      out.append(utf8.data() + i, len);
    i += len;
  }
}

bool is_folded(std::string_view utf8) {
  size_t i = 0;
  while (i < utf8.size()) {
    const auto b = static_cast<unsigned char>(utf8[i]);
    if (b < 0x80) {
      if (is_ascii_upper(b)) return false;
      ++i;
      continue;
    }
    uint32_t cp;
    const size_t len = utf8_sequence(utf8, i, &cp);
    if (len == 0) {
      ++i;
      continue;
    }
    if (entry_of(cp) != 0) return false;
    i += len;
  }
  return true;
}

}  // namespace osearch
