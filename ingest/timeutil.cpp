#include "ingest/timeutil.h"

#include <charconv>
#include <chrono>
#include <ctime>
#include <limits>

namespace osearch {
namespace {

constexpr int64_t kMsPerSec = 1000;
constexpr int64_t kMsPerDay = 86'400'000;

// Howard Hinnant's days_from_civil: proleptic Gregorian, no TZ or libc.
constexpr int64_t days_from_civil(int64_t y, unsigned m, unsigned d) {
    y -= m <= 2;
    const int64_t era = (y >= 0 ? y : y - 399) / 400;
    const auto yoe = static_cast<unsigned>(y - era * 400);
    const unsigned doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
    const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + static_cast<int64_t>(doe) - 719468;
}

struct Civil {
    int64_t y;
    unsigned m, d;
};

constexpr Civil civil_from_days(int64_t z) {
    z += 719468;
    const int64_t era = (z >= 0 ? z : z - 146096) / 146097;
    const auto doe = static_cast<unsigned>(z - era * 146097);
    const unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    const unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    const unsigned mp = (5 * doy + 2) / 153;
    const unsigned d = doy - (153 * mp + 2) / 5 + 1;
    const unsigned m = mp < 10 ? mp + 3 : mp - 9;
    return {static_cast<int64_t>(yoe) + era * 400 + (m <= 2), m, d};
}

static_assert(days_from_civil(1970, 1, 1) == 0);
static_assert(civil_from_days(0).y == 1970);

constexpr bool is_leap(int y) { return y % 4 == 0 && (y % 100 != 0 || y % 400 == 0); }

constexpr unsigned days_in_month(int y, unsigned m) {
    constexpr unsigned char kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    return m == 2 && is_leap(y) ? 29 : kDays[m - 1];
}

constexpr bool is_digit(char c) { return c >= '0' && c <= '9'; }

// Reads exactly n digits at s[pos..); no sign, no locale.
bool read_digits(std::string_view s, size_t pos, size_t n, int& out) {
    if (pos + n > s.size()) return false;
    int v = 0;
    for (size_t i = pos; i < pos + n; ++i) {
        if (!is_digit(s[i])) return false;
        v = v * 10 + (s[i] - '0');
    }
    out = v;
    return true;
}

struct Fields {
    int year = 0, month = 0, day = 0;
    int hour = 0, minute = 0, second = 0, milli = 0;
    bool has_time = false;
    bool has_offset = false;
    int offset_sec = 0;  // east of UTC
};

// Strict grammar walk with fixed positions: cheaper than any general parser
// and rejects trailing garbage.
bool parse_fields(std::string_view s, Fields& f) {
    if (s.size() < 10 || s[4] != '-' || s[7] != '-') return false;
    if (!read_digits(s, 0, 4, f.year) || !read_digits(s, 5, 2, f.month) ||
        !read_digits(s, 8, 2, f.day))
        return false;
    if (f.month < 1 || f.month > 12) return false;
    const unsigned mdays = days_in_month(f.year, static_cast<unsigned>(f.month));
    if (f.day < 1 || static_cast<unsigned>(f.day) > mdays) return false;
    if (s.size() == 10) return true;

    const char sep = s[10];
    if (sep != 'T' && sep != 't' && sep != ' ') return false;
    if (s.size() < 16 || s[13] != ':') return false;
    if (!read_digits(s, 11, 2, f.hour) || !read_digits(s, 14, 2, f.minute)) return false;
    if (f.hour > 23 || f.minute > 59) return false;
    f.has_time = true;
    size_t pos = 16;

    if (pos < s.size() && s[pos] == ':') {
        if (!read_digits(s, pos + 1, 2, f.second) || f.second > 60) return false;  // 60: leap second
        pos += 3;
        if (pos < s.size() && (s[pos] == '.' || s[pos] == ',')) {
            ++pos;
            size_t n = 0;
            int ms = 0;
            while (pos < s.size() && is_digit(s[pos])) {
                if (n < 3) ms = ms * 10 + (s[pos] - '0');
                ++n;
                ++pos;
            }
            if (n == 0 || n > 9) return false;
            for (size_t i = n; i < 3; ++i) ms *= 10;
            f.milli = ms;
        }
    }
    if (pos == s.size()) return true;

    const char c = s[pos];
    if (c == 'Z' || c == 'z') {
        f.has_offset = true;
        return pos + 1 == s.size();
    }
    if (c != '+' && c != '-') return false;
    int oh = 0, om = 0;
    if (!read_digits(s, pos + 1, 2, oh)) return false;
    pos += 3;
    if (pos < s.size()) {
        if (s[pos] == ':') ++pos;
        if (!read_digits(s, pos, 2, om)) return false;
        pos += 2;
    }
    if (pos != s.size() || oh > 23 || om > 59) return false;
    f.has_offset = true;
    f.offset_sec = (c == '-' ? -1 : 1) * (oh * 3600 + om * 60);
    return true;
}

// Wall-clock fields as if they were UTC; the caller subtracts the offset.
int64_t wall_ms(const Fields& f) {
    const int64_t days = days_from_civil(f.year, static_cast<unsigned>(f.month),
                                         static_cast<unsigned>(f.day));
    const int64_t secs = (int64_t{f.hour} * 60 + f.minute) * 60 + f.second;
    return days * kMsPerDay + secs * kMsPerSec + f.milli;
}

void append_padded(std::string& out, int64_t v, int width) {
    char buf[24];
    auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
    (void)ec;  // 24 bytes always fit an int64
    for (auto n = end - buf; n < width; ++n) out.push_back('0');
    out.append(buf, end);
}

TimeArgError bad_time_arg(std::string_view arg) {
    std::string msg = "invalid time '";
    msg.append(arg);
    msg.append("': expected YYYY-MM-DD, YYYY-MM-DDTHH:MM[:SS[.fff]] (local time), "
               "the same with Z or +HH:MM, or a relative age N followed by "
               "s|m|h|d|w (e.g. 30m, 12h, 7d, 2w)");
    return {std::move(msg)};
}

std::optional<int64_t> parse_relative(std::string_view arg, int64_t now_ms) {
    if (arg.size() < 2) return std::nullopt;
    int64_t unit_ms = 0;
    switch (arg.back()) {
        case 's': unit_ms = kMsPerSec; break;
        case 'm': unit_ms = 60 * kMsPerSec; break;
        case 'h': unit_ms = 3600 * kMsPerSec; break;
        case 'd': unit_ms = kMsPerDay; break;
        case 'w': unit_ms = 7 * kMsPerDay; break;
        default: return std::nullopt;
    }
    const std::string_view num = arg.substr(0, arg.size() - 1);
    int64_t n = 0;
    // from_chars would accept a leading '-', so check digits ourselves.
    for (char c : num)
        if (!is_digit(c)) return std::nullopt;
    auto [p, ec] = std::from_chars(num.data(), num.data() + num.size(), n);
    if (ec != std::errc{} || p != num.data() + num.size()) return std::nullopt;
    if (n > std::numeric_limits<int64_t>::max() / unit_ms) return std::nullopt;
    const int64_t delta = n * unit_ms;
    if (now_ms < std::numeric_limits<int64_t>::min() + delta) return std::nullopt;
    return now_ms - delta;
}

}  // namespace

std::optional<int64_t> parse_iso8601_ms(std::string_view s) {
    Fields f;
    if (!parse_fields(s, f) || !f.has_time) return std::nullopt;
    return wall_ms(f) - int64_t{f.offset_sec} * kMsPerSec;
}

std::string format_iso8601_ms(int64_t ms) {
    // Floor division so pre-1970 instants get a positive time of day.
    int64_t days = ms / kMsPerDay;
    int64_t rem = ms % kMsPerDay;
    if (rem < 0) {
        rem += kMsPerDay;
        --days;
    }
    const Civil c = civil_from_days(days);
    std::string out;
    out.reserve(24);
    if (c.y < 0) {
        out.push_back('-');
        append_padded(out, -c.y, 4);
    } else {
        if (c.y > 9999) out.push_back('+');
        append_padded(out, c.y, 4);
    }
    out.push_back('-');
    append_padded(out, c.m, 2);
    out.push_back('-');
    append_padded(out, c.d, 2);
    out.push_back('T');
    append_padded(out, rem / 3'600'000, 2);
    out.push_back(':');
    append_padded(out, rem / 60'000 % 60, 2);
    out.push_back(':');
    append_padded(out, rem / 1000 % 60, 2);
    out.push_back('.');
    append_padded(out, rem % 1000, 3);
    out.push_back('Z');
    return out;
}

std::variant<int64_t, TimeArgError> parse_time_arg(std::string_view arg, int64_t now_ms,
                                                   long local_offset_s) {
    if (Fields f; parse_fields(arg, f)) {
        const int64_t offset = f.has_offset ? f.offset_sec : local_offset_s;
        return wall_ms(f) - offset * kMsPerSec;
    }
    if (auto t = parse_relative(arg, now_ms)) return *t;
    return bad_time_arg(arg);
}

long local_utc_offset_seconds(int64_t at_ms) {
    // Floor to seconds so instants just before the epoch map to the right second.
    int64_t secs = at_ms / kMsPerSec;
    if (at_ms % kMsPerSec < 0) --secs;
    const auto t = static_cast<std::time_t>(secs);
    std::tm tm{};
    tzset();  // glibc's localtime_r may skip re-reading TZ otherwise
    if (localtime_r(&t, &tm) == nullptr) return 0;
    return tm.tm_gmtoff;
}

int64_t current_time_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

}  // namespace osearch
