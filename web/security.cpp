#include "web/security.h"

#include <sys/random.h>

#include <array>
#include <cctype>
#include <cerrno>
#include <stdexcept>

namespace osearch::web {
namespace {

bool iequal(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(a[i])) != std::tolower(static_cast<unsigned char>(b[i]))) return false;
  return true;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

}  // namespace

std::string random_token() {
  std::array<unsigned char, 32> bytes{};
  size_t got = 0;
  while (got < bytes.size()) {
    const ssize_t n = ::getrandom(bytes.data() + got, bytes.size() - got, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) throw std::runtime_error("getrandom failed: cannot make the access token");
    got += static_cast<size_t>(n);
  }
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  for (unsigned char b : bytes) {
    out += kHex[b >> 4];
    out += kHex[b & 15];
  }
  return out;
}

bool is_loopback_host(std::string_view host) {
  return host == "127.0.0.1" || iequal(host, "localhost") || host == "::1" || host == "[::1]";
}

bool host_header_ok(std::string_view header, std::string_view bound_host, int port) {
  header = trim(header);
  std::string suffix(1, ':');  // not ":" + to_string(): GCC 12 warns falsely (-Wrestrict) on that inlined form
  suffix += std::to_string(port);
  if (header.size() <= suffix.size() || header.substr(header.size() - suffix.size()) != suffix) return false;
  const std::string_view name = header.substr(0, header.size() - suffix.size());
  if (name == "127.0.0.1" || iequal(name, "localhost") || name == "[::1]") return true;
  if (bound_host.empty() || is_loopback_host(bound_host)) return false;
  if (bound_host.find(':') != std::string_view::npos)  // an IPv6 address is written in brackets
    return name.size() == bound_host.size() + 2 && name.front() == '[' && name.back() == ']' &&
           iequal(name.substr(1, bound_host.size()), bound_host);
  return iequal(name, bound_host);
}

std::optional<std::string> cookie_value(std::string_view header, std::string_view name) {
  while (!header.empty()) {
    const size_t semi = header.find(';');
    const std::string_view pair = trim(header.substr(0, semi));
    const size_t eq = pair.find('=');
    if (eq != std::string_view::npos && trim(pair.substr(0, eq)) == name) return std::string(trim(pair.substr(eq + 1)));
    if (semi == std::string_view::npos) break;
    header.remove_prefix(semi + 1);
  }
  return std::nullopt;
}

bool token_equal(std::string_view given, std::string_view token) {
  unsigned char diff = given.size() == token.size() ? 0 : 1;
  for (size_t i = 0; i < token.size(); ++i) diff |= static_cast<unsigned char>(token[i] ^ (i < given.size() ? given[i] : 0));
  return diff == 0 && !token.empty();
}

}  // namespace osearch::web
