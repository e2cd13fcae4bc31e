#include "ingest/timeutil.h"

#include <catch2/catch.hpp>

#include <cstdlib>
#include <string>

using namespace osearch;

namespace {

constexpr int64_t kBase = 1768957741581;  // 2026-01-21T01:09:01.581Z
constexpr int64_t kHour = 3'600'000;
constexpr int64_t kDay = 24 * kHour;

int64_t arg_ok(std::string_view arg, int64_t now = 0, long offset = 0) {
    auto r = parse_time_arg(arg, now, offset);
    INFO("arg: " << arg);
    REQUIRE(std::holds_alternative<int64_t>(r));
    return std::get<int64_t>(r);
}

std::string arg_err(std::string_view arg) {
    auto r = parse_time_arg(arg, 1'000'000'000'000, 0);
    INFO("arg: " << arg);
    REQUIRE(std::holds_alternative<TimeArgError>(r));
    return std::get<TimeArgError>(r).message;
}

}  // namespace

TEST_CASE("parse_iso8601_ms: Claude Code / Codex forms", "[timeutil]") {
    CHECK(parse_iso8601_ms("2026-01-21T01:09:01.581Z") == kBase);
    CHECK(parse_iso8601_ms("2026-01-21T01:09:01Z") == kBase - 581);
    CHECK(parse_iso8601_ms("2026-01-21 01:09:01.581Z") == kBase);
    CHECK(parse_iso8601_ms("2026-01-21t01:09:01.581z") == kBase);
    CHECK(parse_iso8601_ms("1970-01-01T00:00:00Z") == 0);
    CHECK(parse_iso8601_ms("1970-01-01T00:00:00.000Z") == 0);
    // No offset is read as UTC.
    CHECK(parse_iso8601_ms("2026-01-21T01:09:01.581") == kBase);
    // Minutes-only precision.
    CHECK(parse_iso8601_ms("2026-01-21T01:09Z") == kBase - 1581);
}

TEST_CASE("parse_iso8601_ms: fraction digits", "[timeutil]") {
    const int64_t s = kBase - 581;
    CHECK(parse_iso8601_ms("2026-01-21T01:09:01.5Z") == s + 500);
    CHECK(parse_iso8601_ms("2026-01-21T01:09:01.58Z") == s + 580);
    CHECK(parse_iso8601_ms("2026-01-21T01:09:01.5819Z") == s + 581);
    CHECK(parse_iso8601_ms("2026-01-21T01:09:01.581999Z") == s + 581);  // truncated, not rounded
    CHECK(parse_iso8601_ms("2026-01-21T01:09:01.123456789Z") == s + 123);
    CHECK(parse_iso8601_ms("2026-01-21T01:09:01,25Z") == s + 250);
    CHECK_FALSE(parse_iso8601_ms("2026-01-21T01:09:01.1234567890Z"));  // 10 digits
    CHECK_FALSE(parse_iso8601_ms("2026-01-21T01:09:01.Z"));
    CHECK_FALSE(parse_iso8601_ms("2026-01-21T01:09:01."));
}

TEST_CASE("parse_iso8601_ms: offsets", "[timeutil]") {
    CHECK(parse_iso8601_ms("2026-01-21T09:09:01.581+08:00") == kBase);
    CHECK(parse_iso8601_ms("2026-01-21T09:09:01.581+0800") == kBase);
    CHECK(parse_iso8601_ms("2026-01-21T09:09:01.581+08") == kBase);
    CHECK(parse_iso8601_ms("2026-01-20T20:09:01.581-05:00") == kBase);
    CHECK(parse_iso8601_ms("2026-01-20T20:09:01.581-0500") == kBase);
    CHECK(parse_iso8601_ms("2026-01-21T06:39:01.581+05:30") == kBase);
    CHECK(parse_iso8601_ms("2026-01-21T01:09:01.581+00:00") == kBase);
    CHECK(parse_iso8601_ms("2026-01-21T01:09:01.581-00:00") == kBase);
    // Offset moves the instant across a day boundary.
    CHECK(parse_iso8601_ms("2026-01-01T00:30:00+01:00") == *parse_iso8601_ms("2025-12-31T23:30:00Z"));
    CHECK_FALSE(parse_iso8601_ms("2026-01-21T01:09:01+24:00"));
    CHECK_FALSE(parse_iso8601_ms("2026-01-21T01:09:01+08:60"));
    CHECK_FALSE(parse_iso8601_ms("2026-01-21T01:09:01+8:00"));
    CHECK_FALSE(parse_iso8601_ms("2026-01-21T01:09:01+08:0"));
    CHECK_FALSE(parse_iso8601_ms("2026-01-21T01:09:01+08:00Z"));
    CHECK_FALSE(parse_iso8601_ms("2026-01-21T01:09:01ZZ"));
}

TEST_CASE("parse_iso8601_ms: calendar and boundaries", "[timeutil]") {
    CHECK(parse_iso8601_ms("2024-02-29T00:00:00Z") == 1709164800000);
    CHECK(parse_iso8601_ms("2024-03-01T00:00:00Z") == 1709251200000);
    CHECK(parse_iso8601_ms("2000-02-29T00:00:00Z") == 951782400000);
    CHECK_FALSE(parse_iso8601_ms("1900-02-29T00:00:00Z"));  // century, not leap
    CHECK_FALSE(parse_iso8601_ms("2025-02-29T00:00:00Z"));
    CHECK_FALSE(parse_iso8601_ms("2026-04-31T00:00:00Z"));
    CHECK(parse_iso8601_ms("1969-12-31T23:59:59.999Z") == -1);
    CHECK(parse_iso8601_ms("0001-01-01T00:00:00Z") == -62135596800000);
    CHECK(parse_iso8601_ms("9999-12-31T23:59:59.999Z") == 253402300799999);
    CHECK(*parse_iso8601_ms("2026-01-21T23:59:59.999Z") + 1 == *parse_iso8601_ms("2026-01-22T00:00:00Z"));
    CHECK(*parse_iso8601_ms("2025-12-31T23:59:59.999Z") + 1 == *parse_iso8601_ms("2026-01-01T00:00:00Z"));
    CHECK(parse_iso8601_ms("2016-12-31T23:59:60Z") == parse_iso8601_ms("2017-01-01T00:00:00Z"));
}

TEST_CASE("parse_iso8601_ms: rejects malformed input", "[timeutil]") {
    for (const char* bad : {"", "2026", "2026-01-21", "2026-01-21T", "2026-01-21T01", "2026-1-21T01:09:01Z",
                            "2026/01/21T01:09:01Z", "2026-01-21X01:09:01Z", "2026-13-01T00:00:00Z",
                            "2026-00-01T00:00:00Z", "2026-01-00T00:00:00Z", "2026-01-32T00:00:00Z",
                            "2026-01-21T24:00:00Z", "2026-01-21T23:60:00Z", "2026-01-21T23:59:61Z",
                            "2026-01-21T01:09:01Z ", " 2026-01-21T01:09:01Z", "2026-01-21T01:09:1Z",
                            "2026-01-21T01:09:01.58a1Z", "+2026-01-21T01:09:01Z", "２０２６-01-21T01:09Z",
                            "abcd-ef-ghTij:kl:mnZ"}) {
        INFO(bad);
        CHECK_FALSE(parse_iso8601_ms(bad));
    }
}

TEST_CASE("format_iso8601_ms", "[timeutil]") {
    CHECK(format_iso8601_ms(kBase) == "2026-01-21T01:09:01.581Z");
    CHECK(format_iso8601_ms(0) == "1970-01-01T00:00:00.000Z");
    CHECK(format_iso8601_ms(-1) == "1969-12-31T23:59:59.999Z");
    CHECK(format_iso8601_ms(-kDay) == "1969-12-31T00:00:00.000Z");
    CHECK(format_iso8601_ms(1709164800000) == "2024-02-29T00:00:00.000Z");
    CHECK(format_iso8601_ms(253402300799999) == "9999-12-31T23:59:59.999Z");
    CHECK(format_iso8601_ms(253402300800000) == "+10000-01-01T00:00:00.000Z");
    CHECK(format_iso8601_ms(-62135596800000) == "0001-01-01T00:00:00.000Z");
    CHECK(format_iso8601_ms(-62135596800000 - kDay * 366) == "0000-01-01T00:00:00.000Z");
    CHECK(format_iso8601_ms(-62135596800000 - kDay * 367) == "-0001-12-31T00:00:00.000Z");
    // Extremes must not overflow (exercised under UBSan).
    CHECK_FALSE(format_iso8601_ms(INT64_MIN).empty());
    CHECK_FALSE(format_iso8601_ms(INT64_MAX).empty());
}

TEST_CASE("format/parse round trip", "[timeutil]") {
    for (int64_t ms : {int64_t{0}, int64_t{1}, int64_t{-1}, kBase, int64_t{951782400000},
                       int64_t{-62135596800000}, int64_t{253402300799999}, int64_t{1234567890123}}) {
        INFO(ms);
        CHECK(parse_iso8601_ms(format_iso8601_ms(ms)) == ms);
    }
    // Every day across a leap year and a century boundary.
    for (int64_t ms = *parse_iso8601_ms("1999-12-01T12:34:56.789Z"); ms < *parse_iso8601_ms("2001-03-01T00:00:00Z");
         ms += kDay) {
        REQUIRE(parse_iso8601_ms(format_iso8601_ms(ms)) == ms);
    }
}

TEST_CASE("parse_time_arg: dates are local midnight", "[timeutil]") {
    CHECK(arg_ok("2026-07-30") == 1785369600000);
    // UTC+8: local midnight is 16:00 UTC the day before.
    CHECK(arg_ok("2026-07-30", 0, 8 * 3600) == 1785340800000);
    CHECK(format_iso8601_ms(arg_ok("2026-07-30", 0, 8 * 3600)) == "2026-07-29T16:00:00.000Z");
    // UTC-5: 05:00 UTC the same day.
    CHECK(format_iso8601_ms(arg_ok("2026-07-30", 0, -5 * 3600)) == "2026-07-30T05:00:00.000Z");
    CHECK(format_iso8601_ms(arg_ok("2024-02-29", 0, 0)) == "2024-02-29T00:00:00.000Z");
}

TEST_CASE("parse_time_arg: ISO with and without offset", "[timeutil]") {
    // An explicit offset wins over the local one.
    CHECK(arg_ok("2026-07-30T17:30:00+08:00", 0, -7 * 3600) == 1785403800000);
    CHECK(arg_ok("2026-07-30T09:30:00Z", 0, 3600) == 1785403800000);
    CHECK(arg_ok("2026-07-30T09:30:00.000Z") == 1785403800000);
    // No offset: local wall time.
    CHECK(arg_ok("2026-07-30T17:30:00", 0, 8 * 3600) == 1785403800000);
    CHECK(arg_ok("2026-07-30T17:30", 0, 8 * 3600) == 1785403800000);
    CHECK(arg_ok("2026-07-30 17:30:00", 0, 8 * 3600) == 1785403800000);
    CHECK(arg_ok("2026-07-30T04:30:00", 0, -5 * 3600) == 1785403800000);
}

TEST_CASE("parse_time_arg: relative forms", "[timeutil]") {
    const int64_t now = kBase;
    CHECK(arg_ok("30s", now) == now - 30'000);
    CHECK(arg_ok("15m", now) == now - 15 * 60'000);
    CHECK(arg_ok("12h", now) == now - 12 * kHour);
    CHECK(arg_ok("7d", now) == now - 7 * kDay);
    CHECK(arg_ok("2w", now) == now - 14 * kDay);
    CHECK(arg_ok("0d", now) == now);
    CHECK(arg_ok("007d", now) == now - 7 * kDay);
    // Local offset is irrelevant for relative ages.
    CHECK(arg_ok("1h", now, 8 * 3600) == now - kHour);
    // Large but representable: goes before the epoch.
    CHECK(arg_ok("100000d", now) == now - 100000 * kDay);
}

TEST_CASE("parse_time_arg: rejects bad values with a helpful message", "[timeutil]") {
    for (const char* bad : {"", "5", "5x", "d", "-5d", "+5d", "5 d", " 5d", "5d ", "5D", "5M", "1.5h", "5dd",
                            "2026-13-01", "2026-02-30", "2025-02-29", "2026-7-30", "2026-07-30T", "2026-07-30T25:00",
                            "yesterday", "9999999999999999999d", "99999999999999999s", "20000000000w",
                            "2026-07-30T17:30:00+8"}) {
        const std::string msg = arg_err(bad);
        CHECK(msg.find(std::string("'") + bad + "'") != std::string::npos);
        CHECK(msg.find("YYYY-MM-DD") != std::string::npos);
        CHECK(msg.find("7d") != std::string::npos);
    }
    // Subtraction that would underflow is rejected rather than wrapping.
    auto r = parse_time_arg("1s", INT64_MIN + 10, 0);
    CHECK(std::holds_alternative<TimeArgError>(r));
}

TEST_CASE("local_utc_offset_seconds follows TZ", "[timeutil]") {
    const char* old = std::getenv("TZ");
    const std::string saved = old ? old : "";
    // POSIX TZ strings need no tzdata: "<+08>-8" is UTC+8, "<-05>5" is UTC-5.
    setenv("TZ", "<+08>-8", 1);
    CHECK(local_utc_offset_seconds(kBase) == 8 * 3600);
    setenv("TZ", "<-05>5", 1);
    CHECK(local_utc_offset_seconds(kBase) == -5 * 3600);
    CHECK(local_utc_offset_seconds(-1) == -5 * 3600);
    setenv("TZ", "UTC0", 1);
    CHECK(local_utc_offset_seconds(kBase) == 0);
    if (old)
        setenv("TZ", saved.c_str(), 1);
    else
        unsetenv("TZ");
}
