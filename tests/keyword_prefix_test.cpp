// `keyword` with prefix*: the prefix's terms are one synonym weighed by the whole index's statistics,
// so a session scores the same whichever databases its documents landed in (a one-run build or an
// incremental one with a fresh shard beside the main database). Xapian's own OP_WILDCARD expanded
// and weighed per database: the same session scored 2.5 in one layout and 4.7 in the other.
#include "tests/index_fixture.h"

#include <filesystem>

#include "engine/query/query_parser.h"
#include "engine/query/search.h"
#include "tests/synthetic_index.h"

namespace {

std::map<std::string, double> scores(const std::string& idx, const std::string& query, QueryResult* out = nullptr) {
  IndexReader reader(idx);
  FilterArgs args;
  args.limit = 1000;  // every session: the sets compare whole, whatever the order of near ties
  QueryResult r = run_keyword(reader, query, parse_filters(args, 0, 20), KeywordOptions{});
  std::map<std::string, double> by_session;
  for (const Hit& h : r.hits) by_session[h.session.id] = h.score;
  if (out) *out = std::move(r);
  return by_session;
}

}  // namespace

TEST_CASE("keyword: a prefix* scores a session alike in a one-run index and an incremental one", "[query]") {
  TempDir t("prefix");
  const std::string all = t.path() + "/all", inc = t.path() + "/inc";
  copy_tree(claude_data_dir(), all);
  // The incremental tree: every project but the last, then the last one as a fresh shard.
  std::vector<std::string> projects;
  for (const auto& e : std::filesystem::directory_iterator(all))
    if (e.is_directory()) projects.push_back(e.path().filename().string());
  std::sort(projects.begin(), projects.end());
  REQUIRE(projects.size() >= 3);
  for (size_t i = 0; i + 1 < projects.size(); ++i) copy_tree(all + "/" + projects[i], inc + "/" + projects[i]);
  index_tree(t.path() + "/one", all);
  index_tree(t.path() + "/split", inc);
  copy_tree(all + "/" + projects.back(), inc + "/" + projects.back());
  index_tree(t.path() + "/split", inc);
  REQUIRE(counts_of(t.path() + "/one").messages == counts_of(t.path() + "/split").messages);

  for (const std::string query : {"test*", "file*", "sess*", "com* error"}) {
    INFO("query: " << query);
    QueryResult one_r, split_r;
    const auto one = scores(t.path() + "/one", query, &one_r);
    const auto split = scores(t.path() + "/split", query, &split_r);
    REQUIRE_FALSE(one.empty());
    CHECK(one_r.total == split_r.total);
    CHECK(one_r.truncated_reason == split_r.truncated_reason);
    REQUIRE(one.size() == split.size());
    for (const auto& [sid, score] : one) {
      INFO("session " << sid);
      REQUIRE(split.count(sid) == 1);
      // The synonym's document frequency is Xapian's estimate per database, summed: a hair apart.
      CHECK(split.at(sid) == Approx(score).epsilon(0.01));
    }
  }
}

TEST_CASE("keyword: a prefix* past the term limit keeps the index's most frequent terms, ties in term order",
          "[query]") {
  // 300 sessions with a rare term each (pfxrare<i>), every tenth also saying one of three common
  // ones (pfxcommon<k>): 303 terms, of which the cut keeps the three common and the first 253 rare
  // ones in term order.
  std::vector<std::vector<std::string>> sessions;
  std::vector<std::string> rare;
  for (size_t i = 0; i < 300; ++i) {
    rare.push_back("pfxrare" + std::to_string(i));
    std::string text = rare.back();
    if (i % 10 == 0) text += " pfxcommon" + std::to_string(i % 3);
    sessions.push_back({text, text + " again"});
  }
  SyntheticIndex ix(sessions);
  QueryResult r;
  const auto got = scores(ix.idx, "pfx*", &r);
  CHECK(r.truncated);
  CHECK(r.truncated_reason.find("used the " + std::to_string(kWildcardMaxTerms) + " most frequent of its 303 terms") !=
        std::string::npos);
  std::vector<std::string> kept = rare;
  std::sort(kept.begin(), kept.end());
  kept.resize(kWildcardMaxTerms - 3);
  size_t expected = 0;
  for (size_t i = 0; i < 300; ++i) {
    const bool found = i % 10 == 0 || std::binary_search(kept.begin(), kept.end(), rare[i]);
    INFO("session " << i);
    CHECK(got.count(SyntheticIndex::sid_of(i)) == (found ? 1u : 0u));
    expected += found;
  }
  CHECK(got.size() == expected);
}
