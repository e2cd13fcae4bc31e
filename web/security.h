// The web app's guards (transcripts hold secrets): a per-run token every request must carry, the
// Host header checked against the bound address (DNS rebinding), loopback binds unless a token was
// chosen by the user, and the headers that keep a browser from sniffing, framing or caching.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace osearch::web {

// 32 random bytes from getrandom(2), as 64 hex digits.
std::string random_token();

// 127.0.0.1, localhost and ::1 (with or without brackets): the binds that need no --token.
bool is_loopback_host(std::string_view host);

// Whether a request's Host header names this server: 127.0.0.1:PORT, localhost:PORT, [::1]:PORT,
// or `bound_host`:PORT (case-insensitive). Anything else may be a rebinding page's name.
bool host_header_ok(std::string_view header, std::string_view bound_host, int port);

// The value of cookie `name` in a Cookie header.
std::optional<std::string> cookie_value(std::string_view header, std::string_view name);

// Compares without an early exit (no timing hint about how much of a guess was right).
bool token_equal(std::string_view given, std::string_view token);

inline constexpr std::string_view kTokenHeader = "X-Osearch-Token";
inline constexpr std::string_view kTokenCookie = "osearch_token";
inline constexpr std::string_view kContentSecurityPolicy =
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
    "font-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

}  // namespace osearch::web
