// A generated Claude projects tree for the query-limit tests: sessions of short user messages,
// written as JSONL and indexed through the engine (few, short lines, so building it stays fast).
#pragma once

#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "engine/index/indexer.h"
#include "engine/query/query.h"
#include "engine/query/reader.h"
#include "engine/query/search.h"
#include "test_util.h"

namespace osearch_test {

inline std::string json_string(std::string_view s) {
  std::string o = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') o.push_back('\\');
    if (c == '\n') {
      o += "\\n";
      continue;
    }
    if (static_cast<unsigned char>(c) < 0x20) {  // other control characters (an ESC of coloured output)
      char u[8];
      std::snprintf(u, sizeof u, "\\u%04x", static_cast<unsigned>(c));
      o += u;
      continue;
    }
    o.push_back(c);
  }
  return o + "\"";
}

// A time `second` seconds after 2026-03-01T00:00Z, as transcripts write it.
inline std::string iso_second(int second) {
  char ts[40];
  std::snprintf(ts, sizeof ts, "2026-03-%02dT%02d:%02d:%02d.000Z", 1 + second / 86400, second / 3600 % 24,
                second / 60 % 60, second % 60);
  return ts;
}

// The random tests' session ids: one random number, and the session's own.
inline std::string random_session_id(std::mt19937& rng, int n) {
  char sid[40];
  std::snprintf(sid, sizeof sid, "%08x-1111-4222-8333-%012d", static_cast<unsigned>(rng()), n);
  return sid;
}

// A Claude Code user line saying `text`; `extra`: more fields, each followed by a comma.
inline std::string claude_user_line(std::string_view sid, std::string_view cwd, std::string_view uuid,
                                    std::string_view timestamp, std::string_view text, std::string_view extra = "") {
  return std::string(R"({"type":"user","cwd":")") + std::string(cwd) + R"(","sessionId":")" + std::string(sid) +
         R"(","uuid":")" + std::string(uuid) + R"(","timestamp":")" + std::string(timestamp) + "\"," +
         std::string(extra) + R"("message":{"role":"user","content":)" + json_string(text) + "}}\n";
}

// sessions[i] holds the texts of session i's messages, in order. With `unpositioned` > 0, every
// such message after the first is written as thinking or a tool result (alternately), which the
// index keeps without positions, the others as user prose.
struct SyntheticIndex {
  TempDir tmp{"query-limits"};
  std::string src = tmp / "claude";
  std::string idx = tmp / "index";
  size_t unpositioned = 0;

  explicit SyntheticIndex(const std::vector<std::vector<std::string>>& sessions, size_t unpositioned_every = 0)
      : unpositioned(unpositioned_every) {
    for (size_t s = 0; s < sessions.size(); ++s) write_file(path_of(s), lines_of(s, sessions[s], "u-", 1));
    osearch::IndexSummary sum = osearch::run_index(idx, {{"claude", src}}, osearch::IndexOptions{});
    REQUIRE(sum.bad_lines == 0);
  }

  // Replaces session s's file with `texts` (new uuids, a later day: not an append, so the session is
  // dropped and re-read, its older documents and text log entries left behind) and indexes again.
  void rewrite(size_t s, const std::vector<std::string>& texts) {
    replace_file(path_of(s), lines_of(s, texts, "r-", 2));
    REQUIRE(osearch::run_index(idx, {{"claude", src}}, osearch::IndexOptions{}).bad_lines == 0);
  }

  // Adds sessions numbered from `first` (a later run: their documents go to a fresh shard) and
  // indexes again.
  void add(size_t first, const std::vector<std::vector<std::string>>& sessions) {
    for (size_t k = 0; k < sessions.size(); ++k) write_file(path_of(first + k), lines_of(first + k, sessions[k], "a-", 3));
    REQUIRE(osearch::run_index(idx, {{"claude", src}}, osearch::IndexOptions{}).bad_lines == 0);
  }

  static std::string sid_of(size_t s) {
    char sid[64];
    std::snprintf(sid, sizeof sid, "%08zu-1111-4222-8333-444444444444", s);
    return sid;
  }

 private:
  std::string path_of(size_t s) const { return src + "/-w-proj/" + sid_of(s) + ".jsonl"; }
  std::string lines_of(size_t s, const std::vector<std::string>& texts, const char* uuid_tag, int day) const {
    const std::string sid = sid_of(s);
    std::string lines;
    for (size_t m = 0; m < texts.size(); ++m) {
      char ts[40];
      std::snprintf(ts, sizeof ts, "2026-03-%02dT10:%02zu:%02zu.000Z", day, (m / 60) % 60, m % 60);
      const std::string uuid = uuid_tag + std::to_string(s) + "-" + std::to_string(m);
      const bool plain = unpositioned == 0 || m == 0 || m % unpositioned != 0;
      if (plain)
        lines += claude_user_line(sid, "/w/proj", uuid, ts, texts[m]);
      else if (m / unpositioned % 2 == 1)
        lines += std::string(R"({"type":"assistant","cwd":"/w/proj","sessionId":")") + sid +
                 R"(","message":{"role":"assistant","id":"msg-)" + uuid +
                 R"(","content":[{"type":"thinking","thinking":)" + json_string(texts[m]) + R"(}]},"uuid":")" + uuid +
                 R"(","timestamp":")" + ts + "\"}\n";
      else
        lines += std::string(R"({"type":"user","cwd":"/w/proj","sessionId":")") + sid +
                 R"(","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu-)" + uuid +
                 R"(","content":)" + json_string(texts[m]) + R"(}]},"uuid":")" + uuid + R"(","timestamp":")" + ts +
                 "\"}\n";
    }
    return lines;
  }
};

inline osearch::Filters limit_filters(size_t limit, size_t offset = 0) {
  osearch::FilterArgs a;
  a.limit = limit;
  a.offset = offset;
  return osearch::parse_filters(a, 0, 20);
}

}  // namespace osearch_test
