// `content` searches session titles as keyword does: a session whose title matches while none of its
// messages does is a hit standing for the session (no message); message-level filters leave titles out.
#include "index_fixture.h"

#include "engine/query/query.h"
#include "engine/query/reader.h"
#include "engine/query/search.h"

namespace {

QueryResult content_of(const std::string& idx, const std::string& pattern, FilterArgs args = {}) {
  IndexReader reader(idx);
  ContentOptions o;
  o.patterns = {pattern};
  return run_content(reader, parse_filters(args, 0, 20), o);
}

}  // namespace

TEST_CASE("content: a title is found like a message", "[search][titles]") {
  TempDir tmp("content-titles");
  const std::string src = tmp / "src";
  const std::string p = src + "/-w-proj/";
  write_file(p + "s-title.jsonl", user_line("s-title", "t1", "first prompt") +
                                      assistant_line("s-title", "t2", "reply", "m-t2", 1, 1) +
                                      fact_line("custom-title", "customTitle", "Zanzibar rollout plan", "s-title"));
  write_file(p + "s-both.jsonl", user_line("s-both", "b1", "about zanzibar in a message") +
                                     assistant_line("s-both", "b2", "reply", "m-b2", 1, 1) +
                                     fact_line("custom-title", "customTitle", "Zanzibar too", "s-both"));
  write_file(p + "s-none.jsonl", user_line("s-none", "n1", "nothing here") + assistant_line("s-none", "n2", "x", "m-n2", 1, 1));
  const std::string idx = tmp / "idx";
  index_tree(idx, src);

  QueryResult r = content_of(idx, "(?i)zanzibar");
  REQUIRE(r.hits.size() == 2);
  CHECK(r.total == 2);
  std::map<std::string, const Hit*> by_session;
  for (const auto& h : r.hits) by_session[h.session.id] = &h;
  REQUIRE(by_session.count("s-title"));
  const Hit& title_hit = *by_session["s-title"];
  CHECK_FALSE(title_hit.message.has_value());  // stands for the session
  CHECK(title_hit.match_count == 1);
  CHECK(title_hit.snippet.find("Zanzibar rollout plan") != std::string::npos);
  REQUIRE(by_session.count("s-both"));
  CHECK(by_session["s-both"]->message.has_value());  // a message hit wins over the title
  CHECK(by_session["s-both"]->match_count == 1);

  // keyword counts a session's matching messages, never its title document.
  {
    IndexReader reader(idx);
    QueryResult kw = run_keyword(reader, "zanzibar", parse_filters(FilterArgs{}, 0, 20), KeywordOptions{});
    CHECK(kw.total == 2);
    CHECK(kw.total_exact);
    std::map<std::string, uint64_t> counts;
    for (const auto& h : kw.hits) counts[h.session.id] = h.match_count;
    CHECK(counts == std::map<std::string, uint64_t>{{"s-both", 1}, {"s-title", 0}});
  }

  FilterArgs by_role;
  by_role.role = {"user"};
  CHECK(content_of(idx, "(?i)zanzibar", by_role).hits.size() == 1);  // titles are not user messages
  FilterArgs other_project;
  other_project.project = {"nowhere"};
  CHECK(content_of(idx, "(?i)zanzibar", other_project).hits.empty());
}

TEST_CASE("titles: a word once in a title stays findable after a rename", "[search][titles]") {
  TempDir tmp("earlier-titles");
  const std::string src = tmp / "src";
  const std::string p = src + "/-w-proj/";
  write_file(p + "s-renamed.jsonl", user_line("s-renamed", "r1", "first prompt") +
                                        fact_line("custom-title", "customTitle", "Okapi migration", "s-renamed") +
                                        assistant_line("s-renamed", "r2", "reply", "m-r2", 1, 1) +
                                        fact_line("custom-title", "customTitle", "Tapir rollout", "s-renamed"));
  const std::string idx = tmp / "idx";
  index_tree(idx, src);
  auto sessions = all_sessions(idx);
  REQUIRE(sessions.count("s-renamed"));
  CHECK(sessions["s-renamed"].title() == "Tapir rollout");
  CHECK(sessions["s-renamed"].earlier_titles == std::vector<std::string>{"Okapi migration"});

  IndexReader reader(idx);
  for (const std::string word : {"okapi", "tapir"}) {
    INFO(word);
    QueryResult kw = run_keyword(reader, word, parse_filters(FilterArgs{}, 0, 20), KeywordOptions{});
    REQUIRE(kw.hits.size() == 1);
    CHECK(kw.hits[0].session.id == "s-renamed");
    QueryResult ct = content_of(idx, "(?i)" + word);
    REQUIRE(ct.hits.size() == 1);
    CHECK(ct.hits[0].snippet.find(word == "okapi" ? "Okapi migration" : "Tapir rollout") != std::string::npos);
  }
  // A title set again to the same text is no earlier title; the list stays bounded.
  SessionRec rec;
  for (int i = 0; i < 40; ++i) rec.replace_title(rec.custom_title, "title " + std::to_string(i % 20));
  CHECK(rec.earlier_titles.size() == SessionRec::kMaxEarlierTitles);
  CHECK(rec.earlier_titles.back() == "title 18");
}
