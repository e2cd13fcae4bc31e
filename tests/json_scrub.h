// Removing what differs between two runs of one query from its JSON (timings, scores), so that two
// answers compare byte for byte. A plain scan, not std::regex: the sanitizer build ran std::regex over
// every answer of the kill -9 loops, a tenth of their time.
#pragma once

#include <string>
#include <string_view>

namespace osearch_test {

namespace detail {
// The end of the value that starts at json[i] when it is a number or an object without nested
// objects; npos for any other value, which is left as it is.
inline size_t value_end(std::string_view json, size_t i) {
  if (i < json.size() && json[i] == '{') {
    const size_t close = json.find('}', i);
    return close == std::string_view::npos ? close : close + 1;
  }
  const size_t begin = i;
  while (i < json.size() && std::string_view("-+.eE0123456789").find(json[i]) != std::string_view::npos) ++i;
  return i == begin ? std::string_view::npos : i;
}
}  // namespace detail

// Every `"key":<value>` in `json` with its value replaced by `with`.
inline std::string replace_field_values(std::string_view json, std::string_view key, std::string_view with) {
  const std::string needle = "\"" + std::string(key) + "\":";
  std::string out;
  size_t from = 0;
  for (size_t at; (at = json.find(needle, from)) != std::string_view::npos;) {
    const size_t value = at + needle.size(), end = detail::value_end(json, value);
    out.append(json.substr(from, value - from));
    if (end == std::string_view::npos) {
      from = value;
      continue;
    }
    out.append(with);
    from = end;
  }
  return out.append(json.substr(from));
}

// Every `"key":<value>` in `json` removed, with the comma that follows it.
inline std::string erase_fields(std::string_view json, std::string_view key) {
  const std::string needle = "\"" + std::string(key) + "\":";
  std::string out;
  size_t from = 0;
  for (size_t at; (at = json.find(needle, from)) != std::string_view::npos;) {
    const size_t end = detail::value_end(json, at + needle.size());
    if (end == std::string_view::npos) {
      out.append(json.substr(from, at + needle.size() - from));
      from = at + needle.size();
      continue;
    }
    out.append(json.substr(from, at - from));
    from = end < json.size() && json[end] == ',' ? end + 1 : end;
  }
  return out.append(json.substr(from));
}

// took_ms is the one field that differs between two runs of one query.
inline std::string without_timing(std::string_view json) { return replace_field_values(json, "took_ms", "0"); }

}  // namespace osearch_test
