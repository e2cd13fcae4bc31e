// `keyword` by session when scores tie: equal scores rank newest first whatever the page, and a
// session whose best score two of its messages share stands by the newer one. The ranked pass goes
// by relevance alone and the page is ordered afterwards (engine/query/keyword_page.h), so every
// page boundary is checked against the whole list, with ties inside, across and at its edges.
#include "tests/index_fixture.h"

#include <cstdio>

#include "engine/query/search.h"

namespace {

constexpr int kTieSessions = 100;

// Sessions that say the words twice, in a message of their own length: a tie group of their own, so
// the biggest group (everyone else) has no such session and a page inside it can be ordered from the
// first pass alone, when the pass fetched the whole group (it fetches 32 sessions past the page).
bool says_twice(int i) { return i % 7 == 0 && i % 5 != 0; }
std::string tie_text(int i) {
  if (i % 5 == 0) return "tied words here and more words";
  return says_twice(i) ? "tied words over there" : "tied words here";
}

std::string tie_sid(int i) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "aaaaaaaa-0000-4000-8000-%012d", i);
  return buf;
}

// Times out of step with the session ids (and so with the document ids).
std::string tie_time(int minute) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "2026-03-01T%02d:%02d:00.000Z", 10 + minute / 60, minute % 60);
  return buf;
}

// Three tie groups: every fifth session says the words in a longer message, some say them twice
// (later the second time), the other 69 once. With
// `fillers`, each session also says them in that many long messages, which score lower: the second
// pass then restricts itself to the tied sessions (many matches per session) instead of matching
// every document again.
std::string write_tie_tree(const std::string& src, int fillers) {
  for (int i = 0; i < kTieSessions; ++i) {
    const std::string sid = tie_sid(i);
    const int minute = (i * 17) % kTieSessions * 3;
    const std::string text = tie_text(i);
    // The first prompt (the session's title) shares no word with the query: only messages match.
    std::string lines = user_line(sid, "u-" + std::to_string(i) + "-x", "nothing in common", tie_time(minute));
    lines += user_line(sid, "u-" + std::to_string(i) + "-a", text, tie_time(minute + 1));
    if (says_twice(i)) lines += user_line(sid, "u-" + std::to_string(i) + "-b", text, tie_time(minute + 2));
    for (int k = 0; k < fillers; ++k)
      lines += user_line(sid, "u-" + std::to_string(i) + "-f" + std::to_string(k),
                         "tied words in a long message " + std::to_string(k) +
                             " with many more words after them so that it scores below the short ones",
                         tie_time(minute));
    write_file(src + "/-w-proj/" + sid + ".jsonl", lines);
  }
  return src;
}

QueryResult tie_search(IndexReader& reader, size_t offset, size_t limit, bool session_runs) {
  FilterArgs args;
  args.offset = offset;
  args.limit = limit;
  KeywordOptions o;
  o.session_runs = session_runs;
  return run_keyword(reader, "tied words", parse_filters(args, 0, 20), o);
}

std::vector<std::string> sessions_of(const QueryResult& r) {
  std::vector<std::string> out;
  for (const Hit& h : r.hits) out.push_back(h.session.id);
  return out;
}

}  // namespace

TEST_CASE("search: keyword ties rank newest first on every page, a session by its newest best message",
          "[search][ties]") {
  const int fillers = GENERATE(0, 70);
  // Collapsed by the session runs (the page ordered here) or by Xapian (ordered afterwards).
  const bool session_runs = GENERATE(true, false);
  INFO("fillers " << fillers << " session runs " << session_runs);
  TempDir tmp("ties");
  const std::string idx = tmp / "idx";
  index_tree(idx, write_tie_tree(tmp / "src", fillers));

  IndexReader reader(idx);
  REQUIRE(reader.has_session_runs());
  const QueryResult all = tie_search(reader, 0, 200, session_runs);
  REQUIRE(all.total == kTieSessions);
  REQUIRE(all.total_exact);
  REQUIRE(all.hits.size() == kTieSessions);
  for (size_t k = 0; k < all.hits.size(); ++k) {
    const Hit& h = all.hits[k];
    REQUIRE(h.message.has_value());
    const int i = std::stoi(h.session.id.substr(24));
    INFO("session " << i);
    CHECK(h.match_count == static_cast<uint64_t>(fillers + (says_twice(i) ? 2 : 1)));
    // The message that stands for a session with two equal best messages is the newer one.
    CHECK(h.message->uuid == "u-" + std::to_string(i) + (says_twice(i) ? "-b" : "-a"));
    if (k == 0) continue;
    const Hit& prev = all.hits[k - 1];
    CHECK(prev.score >= h.score);
    if (prev.score == h.score) CHECK(prev.message->timestamp_ms > h.message->timestamp_ms);
  }
  // Three tie groups, or the edges below would not cut through and between them.
  std::vector<double> scores;
  for (const Hit& h : all.hits)
    if (scores.empty() || scores.back() != h.score) scores.push_back(h.score);
  CHECK(scores.size() == 3);

  // Every page is the whole list's slice: edges inside a tie group, between groups, at the end.
  const std::vector<std::string> order = sessions_of(all);
  for (size_t limit : {1, 7, 20, 45}) {
    for (size_t offset = 0; offset <= order.size(); ++offset) {
      INFO("offset " << offset << " limit " << limit);
      const QueryResult page = tie_search(reader, offset, limit, session_runs);
      const size_t end = std::min(order.size(), offset + limit);
      const std::vector<std::string> want(order.begin() + static_cast<std::ptrdiff_t>(std::min(offset, end)),
                                          order.begin() + static_cast<std::ptrdiff_t>(end));
      CHECK(sessions_of(page) == want);
      CHECK(page.total == kTieSessions);
    }
  }
}

TEST_CASE("search: keyword --sort oldest|newest puts messages of one time in the session's own order",
          "[search][ties]") {
  // A Codex rollout stamps whole seconds, and a streamed reply's chunks share one time: such
  // messages went by relevance, which moves with the collection's statistics (a re-read, a
  // compaction), so the same query listed them in another order after a refresh. Here the later
  // lines score higher: by relevance they would come first.
  TempDir tmp("ties-time");
  const std::string src = tmp / "src", idx = tmp / "idx";
  const std::string sid = "bbbbbbbb-0000-4000-8000-000000000001", other = "bbbbbbbb-0000-4000-8000-000000000002";
  const std::string t = "2026-03-01T10:00:00.000Z";
  write_file(src + "/-w-proj/" + sid + ".jsonl",
             user_line(sid, "m1", "a long message that names the sought word once among many other words", t) +
                 user_line(sid, "m2", "sought word here", t) + user_line(sid, "m3", "sought sought", t) +
                 user_line(sid, "m4", "sought", "2026-03-01T10:00:01.000Z"));
  write_file(src + "/-w-proj/" + other + ".jsonl", user_line(other, "n1", "sought again", "2026-03-01T09:00:00.000Z"));
  index_tree(idx, src);
  IndexReader reader(idx);
  auto uuids = [&](const std::string& sort, bool by_message, FilterArgs args = {}) {
    KeywordOptions o;
    o.sort = sort;
    o.by_message = by_message;
    std::vector<std::string> out;
    for (const Hit& h : run_keyword(reader, "sought", parse_filters(args, 0, 20), o).hits)
      out.push_back(h.message ? h.message->uuid : "title");
    return out;
  };
  CHECK(uuids("oldest", true) == std::vector<std::string>{"n1", "m1", "m2", "m3", "m4"});
  CHECK(uuids("newest", true) == std::vector<std::string>{"m4", "m3", "m2", "m1", "n1"});
  // By session, the oldest (newest) message stands for it. A title document carries the session's
  // last time and no line, so it comes first of its time when oldest (the other session's one
  // message is its title) and last when newest.
  CHECK(uuids("oldest", false) == std::vector<std::string>{"title", "m1"});
  CHECK(uuids("newest", false) == std::vector<std::string>{"m4", "n1"});
  // --until is exclusive and --since inclusive at the millisecond, the line after the time or not.
  FilterArgs until;
  until.until = "2026-03-01T10:00:00.001Z";
  CHECK(uuids("oldest", true, until) == std::vector<std::string>{"n1", "m1", "m2", "m3"});
  until.until = t;
  CHECK(uuids("oldest", true, until) == std::vector<std::string>{"n1"});
  FilterArgs since;
  since.since = t;
  CHECK(uuids("oldest", true, since) == std::vector<std::string>{"m1", "m2", "m3", "m4"});
}
