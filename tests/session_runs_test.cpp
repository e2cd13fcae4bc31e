// Keyword's own collapse reads each match's session from the runs an index run keeps per Xapian
// database (engine/index/session_runs.h). Runs are used only for the revision they were read from,
// say exactly what the documents' values say, and the answers equal those of Xapian's collapse.
#include "tests/index_fixture.h"

#include "engine/index/session_runs.h"
#include "engine/index/text_index.h"
#include "engine/store/session_numbers.h"

namespace {

// Sessions whose messages share a small vocabulary, so that queries match many documents of many
// sessions, with equal scores among them.
std::string write_runs_tree(const std::string& src, int sessions, int round) {
  const char* words[] = {"alpha", "beta", "gamma", "delta", "omega", "kappa", "sigma", "theta"};
  std::mt19937 rng(static_cast<unsigned>(7 + round));
  for (int i = 0; i < sessions; ++i) {
    const std::string sid = "bbbbbbbb-0000-4000-8000-" + std::to_string(100000000000 + i);
    std::string lines;
    for (int m = 0; m < 6; ++m) {
      std::string text;
      for (int w = 0, n = 1 + static_cast<int>(rng() % 4); w < n; ++w) text += std::string(words[rng() % 8]) + " ";
      char time[40];
      std::snprintf(time, sizeof time, "2026-04-%02dT10:%02d:00.000Z", 1 + round, (i * 7 + m) % 60);
      lines += user_line(sid, "r" + std::to_string(round) + "-" + std::to_string(i) + "-" + std::to_string(m), text, time);
    }
    append_file(src + "/-w-proj/" + sid + ".jsonl", lines);
  }
  return src;
}

struct Answer {
  std::vector<std::tuple<std::string, double, std::string, uint64_t>> hits;  // session, score, message, matches
  uint64_t total = 0;
  bool exact = false;
  bool operator==(const Answer&) const = default;
};

Answer keyword(IndexReader& reader, const std::string& q, size_t offset, size_t limit, bool session_runs) {
  FilterArgs args;
  args.offset = offset;
  args.limit = limit;
  KeywordOptions o;
  o.session_runs = session_runs;
  const QueryResult r = run_keyword(reader, q, parse_filters(args, 0, 20), o);
  Answer a{{}, r.total, r.total_exact};
  for (const Hit& h : r.hits) a.hits.emplace_back(h.session.id, h.score, h.message ? h.message->uuid : "", h.match_count);
  return a;
}

}  // namespace

TEST_CASE("session runs: each document's session from the runs is its value, in every database", "[index][runs]") {
  TempDir tmp("runs");
  const std::string src = tmp / "src", idx = tmp / "idx";
  IndexOptions small;
  small.flush_bytes = 2000;  // several shards in the first run
  index_tree(idx, write_runs_tree(src, 40, 0), small);
  index_tree(idx, write_runs_tree(src, 25, 1));  // appended: a shard beside the main database
  IndexReader reader(idx);
  REQUIRE(reader.has_session_runs());
  const Xapian::Database& db = reader.xapian();
  size_t covered = 0, documents = 0;
  for (auto it = db.postlist_begin(""); it != db.postlist_end(""); ++it) {
    ++documents;
    const std::string value = db.get_document(*it).get_value(kSlotSession);
    std::string from_runs;
    if (reader.session_value_of_document(*it, from_runs)) {
      ++covered;
      CHECK(from_runs == value);
    } else {
      CHECK(value.empty());  // only a document without a session (none here) is left to its value
    }
  }
  CHECK(documents > 400);
  CHECK(covered == documents);

  // Xapian's collapse and the own one answer alike, pages cut anywhere, ties inside.
  for (const char* q : {"alpha", "alpha beta", "gamma OR omega", "kappa sigma theta", "delta -alpha", "\"alpha beta\""}) {
    for (auto [offset, limit] : {std::pair<size_t, size_t>{0, 20}, {0, 1}, {3, 7}, {10, 100}, {60, 20}}) {
      INFO(q << " offset " << offset << " limit " << limit);
      CHECK(keyword(reader, q, offset, limit, true) == keyword(reader, q, offset, limit, false));
    }
  }
}

TEST_CASE("session runs: kept for one revision of one database only", "[index][runs]") {
  TempDir tmp("runs-rev");
  const std::string dir = tmp / "db";
  auto doc_of = [](const std::string& value) {
    Xapian::Document d;
    d.add_term("x");
    if (!value.empty()) d.add_value(kSlotSession, value);
    return d;
  };
  {
    Xapian::WritableDatabase w(dir, Xapian::DB_CREATE_OR_OPEN);
    for (uint32_t n : {1u, 1u, 2u, 2u, 2u, 1u}) w.add_document(doc_of(session_number_value(n)));
    w.add_document(doc_of(""));  // 7: no session
    w.add_document(doc_of(session_number_value(300)));
    w.commit();
  }
  Xapian::Database first(dir);
  const std::optional<std::string> runs = encode_session_runs(first);
  REQUIRE(runs.has_value());
  const auto view = SessionRuns::for_database(*runs, first);
  REQUIRE(view.has_value());
  CHECK(view->size() == 4);  // 1-2, 3-5, 6, 8
  const std::vector<std::optional<uint32_t>> want = {std::nullopt, 1, 1, 2, 2, 2, 1, std::nullopt, 300, std::nullopt};
  for (Xapian::docid d = 0; d < want.size(); ++d) {
    INFO("document " << d);
    CHECK(view->number_of(d) == want[d]);
  }
  {
    Xapian::WritableDatabase w(dir, Xapian::DB_OPEN);
    w.replace_document(2, doc_of(session_number_value(9)));
    w.commit();
  }
  const Xapian::Database second(dir);
  CHECK_FALSE(SessionRuns::for_database(*runs, second).has_value());  // a later revision
  const std::optional<std::string> reread = encode_session_runs(second);  // (held: the view reads into it)
  REQUIRE(reread.has_value());
  const auto again = SessionRuns::for_database(*reread, second);
  REQUIRE(again.has_value());
  CHECK(again->number_of(2) == 9u);
  // Another database, even of the same content, is not this one.
  {
    Xapian::WritableDatabase w(tmp / "other", Xapian::DB_CREATE_OR_OPEN);
    w.add_document(doc_of(session_number_value(1)));
    w.commit();
  }
  CHECK_FALSE(SessionRuns::for_database(*runs, Xapian::Database(tmp / "other")).has_value());
  CHECK_FALSE(SessionRuns::for_database(runs->substr(0, runs->size() - 1), first).has_value());  // cut short
  // A value that is no session number: no runs for that database.
  {
    Xapian::WritableDatabase w(tmp / "odd", Xapian::DB_CREATE_OR_OPEN);
    w.add_document(doc_of(std::string("\0\1", 2)));
    w.commit();
  }
  CHECK_FALSE(encode_session_runs(Xapian::Database(tmp / "odd")).has_value());
}
