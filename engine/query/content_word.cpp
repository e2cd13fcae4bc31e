// `content -w` over ASCII literals (ContentPatterns::word_literals): whether a text holds a whole-word
// match, told from the bytes around each occurrence (content_scan.h).
#include "engine/query/content_scan.h"

namespace osearch {
namespace {

struct WordCheck {
  std::string_view text;
  bool found = false, undecided = false;
};

// 1 word character, 0 not one (or the text's edge), -1 a byte of a non-ASCII character.
int ascii_word_class(std::string_view t, size_t i) {
  if (i >= t.size()) return 0;
  const auto c = static_cast<unsigned char>(t[i]);
  if (c >= 0x80) return -1;
  return (c >= '0' && c <= '9') || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_';
}

int on_word_literal(unsigned, unsigned long long from, unsigned long long to, unsigned, void* ctx) {
  auto* w = static_cast<WordCheck*>(ctx);
  const std::string_view t = w->text;
  if (from >= to || to > t.size()) {
    w->undecided = true;
    return 0;
  }
  // \b holds where a word character meets a non-word one (or an edge of the text).
  const int before = from == 0 ? 0 : ascii_word_class(t, from - 1), first = ascii_word_class(t, from),
            last = ascii_word_class(t, to - 1), after = ascii_word_class(t, to);
  bool ascii = before >= 0 && first >= 0 && last >= 0 && after >= 0;
  for (size_t i = from; ascii && i < to; ++i) ascii = static_cast<unsigned char>(t[i]) < 0x80;
  if (!ascii) {
    w->undecided = true;
    return 0;
  }
  if (before == first || last == after) return 0;
  w->found = true;
  return 1;
}

}  // namespace

std::optional<bool> whole_word_literal(const ContentPatterns& p, std::string_view text, hs_scratch_t* scratch) {
  if (!p.word_literals) return std::nullopt;
  WordCheck w{text};
  const hs_error_t rc =
      hs_scan(p.word_literals.get(), text.data(), static_cast<unsigned>(text.size()), 0, scratch, on_word_literal, &w);
  if (w.found) return true;
  if (w.undecided || rc != HS_SUCCESS) return std::nullopt;
  return false;
}

}  // namespace osearch
