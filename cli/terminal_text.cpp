#include "cli/terminal_text.h"

#include <cstdint>
#include <cstdio>

#include "ingest/utf8.h"

namespace osearch {
namespace {

constexpr char kHex[] = "0123456789abcdef";

bool is_bidi_control(uint32_t cp) {
  return cp == 0x061C || cp == 0x200E || cp == 0x200F || (cp >= 0x202A && cp <= 0x202E) ||
         (cp >= 0x2066 && cp <= 0x2069);
}

void append_byte_escape(std::string& out, unsigned char b) {
  out += "\\x";
  out.push_back(kHex[b >> 4]);
  out.push_back(kHex[b & 0xF]);
}

void append_cp_escape(std::string& out, uint32_t cp) {
  out += "\\u";
  for (int shift = 12; shift >= 0; shift -= 4) out.push_back(kHex[(cp >> shift) & 0xF]);
}

}  // namespace

std::string terminal_safe(std::string_view s, LineBreaks breaks) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size();) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c >= 0x20 && c < 0x7F) {
      out.push_back(static_cast<char>(c));
      ++i;
      continue;
    }
    if (c < 0x80) {  // C0 or DEL
      if (c == '\t' || c == '\n' || c == '\r') {
        if (breaks == LineBreaks::AsSpace)
          out.push_back(' ');
        else
          out += c == '\t' ? "\\t" : c == '\n' ? "\\n" : "\\r";
      } else {
        append_byte_escape(out, c);
      }
      ++i;
      continue;
    }
    uint32_t cp = 0;
    const size_t len = utf8_sequence(s, i, &cp);
    if (len == 0) {
      append_byte_escape(out, c);
      ++i;
    } else if ((cp >= 0x80 && cp <= 0x9F) || is_bidi_control(cp)) {
      append_cp_escape(out, cp);
      i += len;
    } else {
      out.append(s.substr(i, len));
      i += len;
    }
  }
  return out;
}

void print_warning(std::string_view line) {
  const std::string safe = terminal_safe(line, LineBreaks::Visible);
  std::fprintf(stderr, "%.*s%s\n", static_cast<int>(kWarningPrefix.size()), kWarningPrefix.data(), safe.c_str());
}

}  // namespace osearch
