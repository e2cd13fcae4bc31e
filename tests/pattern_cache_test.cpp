// Compiled Hyperscan databases kept on disk (engine/query/pattern_cache.h): found again only by
// their whole key, never another pattern's after a hash collision or damage, bounded in number;
// and `content` answers the same from a cached database as from a fresh compile.
#include "index_fixture.h"

#include <hs/hs.h>

#include "engine/query/pattern_cache.h"
#include "engine/query/search.h"

namespace {

constexpr unsigned kFlags = HS_FLAG_MULTILINE | HS_FLAG_ALLOWEMPTY | HS_FLAG_UTF8 | HS_FLAG_UCP;

std::string key_of(const std::string& pattern) {
  const char* expr = pattern.c_str();
  const unsigned flags = kFlags, id = 0;
  return pattern_cache_key(&expr, &flags, &id, 1, HS_MODE_BLOCK);
}

hs_database_t* compile(const std::string& pattern) {
  hs_database_t* db = nullptr;
  hs_compile_error_t* err = nullptr;
  REQUIRE(hs_compile(pattern.c_str(), kFlags, HS_MODE_BLOCK, nullptr, &db, &err) == HS_SUCCESS);
  return db;
}

int on_match(unsigned, unsigned long long, unsigned long long, unsigned, void* ctx) {
  ++*static_cast<int*>(ctx);
  return 0;
}

// Matches of `db` in `text`.
int matches(const hs_database_t* db, std::string_view text) {
  hs_scratch_t* scratch = nullptr;
  REQUIRE(hs_alloc_scratch(db, &scratch) == HS_SUCCESS);
  int n = 0;
  hs_scan(db, text.data(), static_cast<unsigned>(text.size()), 0, scratch, on_match, &n);
  hs_free_scratch(scratch);
  return n;
}

std::vector<fs::path> entries(const std::string& dir) {
  std::vector<fs::path> out;
  for (const auto& e : fs::directory_iterator(dir)) out.push_back(e.path());
  return out;
}

}  // namespace

TEST_CASE("pattern cache: a database is kept and found again by its whole key only", "[search][content]") {
  TempDir tmp("hscache");
  const std::string dir = tmp / "cache";
  const std::string a = "state\\w*Store", b = "\\d+ms";
  CHECK(load_cached_database(dir, key_of(a)) == nullptr);  // no dir yet: a miss

  hs_database_t* compiled = compile(a);
  keep_cached_database(dir, key_of(a), compiled);
  hs_free_database(compiled);
  REQUIRE(entries(dir).size() == 1);
  const fs::path a_file = entries(dir)[0];

  hs_database_t* loaded = load_cached_database(dir, key_of(a));
  REQUIRE(loaded != nullptr);
  CHECK(matches(loaded, "a stateÉtatStore b") > 0);  // \w under Unicode properties, as compiled
  CHECK(matches(loaded, "state-Store") == 0);
  hs_free_database(loaded);
  CHECK(load_cached_database(dir, key_of(b)) == nullptr);  // another pattern: a miss

  SECTION("an entry holding another key is a miss (a hash collision)") {
    hs_database_t* other = compile(b);
    keep_cached_database(dir, key_of(b), other);
    hs_free_database(other);
    REQUIRE(entries(dir).size() == 2);
    for (const auto& p : entries(dir))
      if (p != a_file) fs::rename(p, a_file);  // b's entry where a's is looked for
    CHECK(load_cached_database(dir, key_of(a)) == nullptr);
  }
  SECTION("a damaged entry is a miss") {
    const std::string whole = read_file(a_file.string());
    for (size_t at : {whole.size() - 1, whole.size() / 2, whole.size() - 200, size_t{20}}) {
      INFO("byte " << at << " of " << whole.size());
      std::string bytes = whole;
      bytes[at] = static_cast<char>(bytes[at] ^ 0x5a);
      write_file(a_file.string(), bytes);
      CHECK(load_cached_database(dir, key_of(a)) == nullptr);
    }
    write_file(a_file.string(), whole.substr(0, whole.size() / 3));  // cut short
    CHECK(load_cached_database(dir, key_of(a)) == nullptr);
    write_file(a_file.string(), whole);
    hs_database_t* back = load_cached_database(dir, key_of(a));
    CHECK(back != nullptr);
    hs_free_database(back);
  }
  SECTION("the entries stay bounded, the least recently used going first") {
    for (size_t i = 0; i < kPatternCacheMaxEntries + 6; ++i) {
      const std::string p = "word" + std::to_string(i) + "\\w";
      hs_database_t* db = compile(p);
      keep_cached_database(dir, key_of(p), db);
      hs_free_database(db);
    }
    CHECK(entries(dir).size() == kPatternCacheMaxEntries);
    CHECK_FALSE(fs::exists(a_file));  // the oldest
    hs_database_t* newest = load_cached_database(dir, key_of("word69\\w"));
    CHECK(newest != nullptr);
    hs_free_database(newest);
  }
}

TEST_CASE("pattern cache: content answers the same from a kept database", "[search][content]") {
  TempDir tmp("hscache-content");
  const std::string src = tmp / "src";
  const std::string p = src + "/-w-proj/";
  write_file(p + "s1.jsonl", user_line("s1", "u1", "the stateÉtatStore moved") +
                                 assistant_line("s1", "a1", "stateStore and stateXStore", "m-a1", 1, 1));
  write_file(p + "s2.jsonl", user_line("s2", "u2", "nothing to see") + assistant_line("s2", "a2", "state-Store", "m-a2", 1, 1));
  const std::string idx = tmp / "idx";
  index_tree(idx, src);

  auto run = [&](const std::string& pattern) {
    IndexReader reader(idx);
    ContentOptions o;
    o.patterns = {pattern};
    o.by_message = true;
    QueryResult r = run_content(reader, parse_filters(FilterArgs{}, 0, 20), o);
    std::vector<std::pair<std::string, std::string>> hits;
    for (const auto& h : r.hits) hits.emplace_back(h.message ? h.message->uuid : "", h.snippet);
    return std::make_pair(r.total, hits);
  };
  for (const std::string pattern : {"state\\w*Store", "\\bstate\\w+"}) {
    INFO(pattern);
    const auto first = run(pattern);  // compiled, then kept
    CHECK(fs::exists(idx + "/cache"));
    const auto again = run(pattern);  // loaded
    CHECK(first == again);
    CHECK(first.first == 2);
  }
}

TEST_CASE("pattern cache: a refusal is kept, found by its key only, and content still answers", "[search][content]") {
  TempDir tmp("hscache-refusal");
  const std::string dir = tmp / "cache";
  const std::string big = "\\w{300}\\d";  // "Pattern too large" under UCP, after ~0.4 s of trying
  bool refused = true;
  CHECK(load_cached_database(dir, key_of(big), &refused) == nullptr);
  CHECK_FALSE(refused);
  keep_refusal(dir, key_of(big));
  CHECK(load_cached_database(dir, key_of(big), &refused) == nullptr);
  CHECK(refused);
  CHECK(load_cached_database(dir, key_of("\\w{301}\\d"), &refused) == nullptr);
  CHECK_FALSE(refused);  // another key: a miss
  SECTION("a damaged refusal is a miss") {
    const fs::path file = entries(dir).at(0);
    const std::string whole = read_file(file.string());
    write_file(file.string(), whole.substr(0, whole.size() - 1));
    CHECK(load_cached_database(dir, key_of(big), &refused) == nullptr);
    CHECK_FALSE(refused);
    write_file(file.string(), whole + "x");
    CHECK(load_cached_database(dir, key_of(big), &refused) == nullptr);
    CHECK_FALSE(refused);
  }
  SECTION("content: the pattern Hyperscan refuses runs on PCRE2, refused from the cache the second time") {
    const std::string src = tmp / "src";
    const std::string long_word(310, 'w');
    write_file(src + "/-w-proj/s1.jsonl", user_line("s1", "u1", long_word + "7 at the end") + user_line("s1", "u2", long_word));
    const std::string idx = tmp / "idx";
    index_tree(idx, src);
    std::vector<uint64_t> totals;
    for (int call = 0; call < 2; ++call) {
      IndexReader reader(idx);
      ContentOptions o;
      o.patterns = {big};
      o.by_message = true;
      // Two refused Hyperscan compiles come first (~0.4 s each here); under ASan on a loaded CI
      // machine they took the whole default budget of 10 s, and the scan found nothing (truncated).
      o.time_budget = std::chrono::minutes(10);
      QueryResult r = run_content(reader, parse_filters(FilterArgs{}, 0, 20), o);
      INFO(r.truncated_reason);
      CHECK_FALSE(r.truncated);
      totals.push_back(r.total);
      REQUIRE(r.hits.size() == 1);
      CHECK(r.hits[0].message->uuid == "u1");
    }
    CHECK(totals == std::vector<uint64_t>{1, 1});
    size_t refusals = 0;
    for (const auto& e : entries(idx + "/cache")) refusals += read_file(e.string()).starts_with("oshsR\n");
    CHECK(refusals == 2);  // the exact compile and the prefilter's
  }
}
