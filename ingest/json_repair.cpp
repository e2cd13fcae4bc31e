#include "ingest/json_repair.h"

#include "ingest/utf8.h"

namespace osearch {
namespace {

constexpr std::string_view kReplacement = "\xEF\xBF\xBD";  // U+FFFD

// Length of the maximal subpart of an ill-formed sequence at s[pos] (Unicode §3.9, WHATWG): the
// longest prefix of a well-formed sequence, or 1. Each one becomes one U+FFFD.
size_t maximal_subpart(std::string_view s, size_t pos) {
  const auto b0 = static_cast<unsigned char>(s[pos]);
  size_t need;
  unsigned char lo = 0x80, hi = 0xBF;
  if (b0 >= 0xC2 && b0 <= 0xDF) {
    need = 1;
  } else if (b0 >= 0xE0 && b0 <= 0xEF) {
    need = 2;
    if (b0 == 0xE0) lo = 0xA0;
    if (b0 == 0xED) hi = 0x9F;
  } else if (b0 >= 0xF0 && b0 <= 0xF4) {
    need = 3;
    if (b0 == 0xF0) lo = 0x90;
    if (b0 == 0xF4) hi = 0x8F;
  } else {
    return 1;
  }
  size_t k = 1;
  for (; k <= need && pos + k < s.size(); ++k) {
    const auto b = static_cast<unsigned char>(s[pos + k]);
    if (b < (k == 1 ? lo : 0x80) || b > (k == 1 ? hi : 0xBF)) break;
  }
  return k;
}

// Copies the byte(s) at in[i] (i advances); invalid UTF-8 becomes U+FFFD.
bool copy_utf8(std::string_view in, size_t& i, std::string& out) {
  if (size_t len = utf8_sequence(in, i)) {
    out.append(in.substr(i, len));
    i += len;
    return false;
  }
  out.append(kReplacement);
  i += maximal_subpart(in, i);
  return true;
}

int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// A `\uXXXX` escape at in[i]: its code unit, or -1.
long escape_unit(std::string_view in, size_t i) {
  if (i + 6 > in.size() || in[i] != '\\' || in[i + 1] != 'u') return -1;
  long v = 0;
  for (size_t k = 2; k < 6; ++k) {
    int d = hex_digit(in[i + k]);
    if (d < 0) return -1;
    v = v * 16 + d;
  }
  return v;
}

bool is_digit(char c) { return c >= '0' && c <= '9'; }

// JSON's number grammar: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
bool is_json_number(std::string_view t) {
  size_t i = 0;
  if (i < t.size() && t[i] == '-') ++i;
  if (i >= t.size() || !is_digit(t[i])) return false;
  if (t[i] == '0') {
    ++i;
  } else {
    while (i < t.size() && is_digit(t[i])) ++i;
  }
  if (i < t.size() && t[i] == '.') {
    size_t start = ++i;
    while (i < t.size() && is_digit(t[i])) ++i;
    if (i == start) return false;
  }
  if (i < t.size() && (t[i] == 'e' || t[i] == 'E')) {
    ++i;
    if (i < t.size() && (t[i] == '+' || t[i] == '-')) ++i;
    size_t start = i;
    while (i < t.size() && is_digit(t[i])) ++i;
    if (i == start) return false;
  }
  return i == t.size();
}

bool is_number_char(char c) { return is_digit(c) || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E'; }

}  // namespace

bool append_utf8_replacing(std::string_view in, std::string& out) {
  bool changed = false;
  for (size_t i = 0; i < in.size();) {
    if (static_cast<unsigned char>(in[i]) < 0x80)
      out.push_back(in[i++]);
    else
      changed |= copy_utf8(in, i, out);
  }
  return changed;
}

bool JsonLineRepair::number_is_representable(std::string_view number) {
  number_buf_.assign(number);
  number_buf_.append(simdjson::SIMDJSON_PADDING, ' ');
  simdjson::dom::element e;
  return number_parser_.parse(number_buf_.data(), number.size(), false).get(e) == simdjson::SUCCESS;
}

bool JsonLineRepair::repair(std::string_view in, std::string& out) {
  out.clear();
  out.reserve(in.size() + 16);
  bool changed = false, in_string = false;
  for (size_t i = 0; i < in.size();) {
    const char c = in[i];
    if (static_cast<unsigned char>(c) >= 0x80) {
      changed |= copy_utf8(in, i, out);
      continue;
    }
    if (in_string) {
      if (c == '"') {
        in_string = false;
      } else if (c == '\\') {
        const long unit = escape_unit(in, i);
        if (unit >= 0xD800 && unit <= 0xDBFF) {
          const long low = escape_unit(in, i + 6);
          if (low >= 0xDC00 && low <= 0xDFFF) {
            out.append(in.substr(i, 12));
            i += 12;
          } else {
            out.append("\\ufffd");
            i += 6;
            changed = true;
          }
          continue;
        }
        if (unit >= 0xDC00 && unit <= 0xDFFF) {
          out.append("\\ufffd");
          i += 6;
          changed = true;
          continue;
        }
        // Any other escape, `\\` included, is copied whole so its second byte is never taken for
        // the start of an escape or the end of the string.
        out.push_back(c);
        ++i;
        if (i < in.size() && static_cast<unsigned char>(in[i]) < 0x80) out.push_back(in[i++]);
        continue;
      }
      out.push_back(c);
      ++i;
      continue;
    }
    if (c == '"') {
      in_string = true;
    } else if (c == '\0') {
      ++i;
      changed = true;
      continue;
    } else if (c == '-' || is_digit(c)) {
      size_t j = i;
      while (j < in.size() && is_number_char(in[j])) ++j;
      std::string_view token = in.substr(i, j - i);
      if (is_json_number(token) && !number_is_representable(token)) {
        out.push_back('"');
        out.append(token);
        out.push_back('"');
        changed = true;
      } else {
        out.append(token);
      }
      i = j;
      continue;
    }
    out.push_back(c);
    ++i;
  }
  return changed;
}

}  // namespace osearch
