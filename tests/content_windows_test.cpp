// `content`'s whole-log scan hands Hyperscan the log in windows that end at entry starts
// (engine/query/content_scan.cpp, kWindow): a log of a few MB with messages far smaller and far
// larger than a window, and matches at message edges, must give exactly the messages a scan of each
// message alone finds: the reference is PCRE2 over each message's own text.
#include <random>

#include "tests/cli_fixture.h"
#include "tests/synthetic_index.h"

#include "engine/query/pcre_matcher.h"
#include "engine/store/text_log.h"

using namespace osearch;

namespace {

// Words that make the patterns below match now and then, plus filler that never does.
std::string message_text(std::mt19937& rng, size_t target) {
  static const char* const kWords[] = {"err", "errno", "error", "stderr", "12", "2026-03", "x9y", "fn", "main",
                                       "Ab123", "TODO", "plain", "words", "only", "here", "_"};
  static const char* const kFiller[] = {"lorem", "ipsum", "dolor", "sit", "amet", "quux"};
  std::string s;
  std::uniform_int_distribution<int> pick(0, 99);
  while (s.size() < target) {
    const int p = pick(rng);
    if (!s.empty()) s += p % 7 == 0 ? "\n" : " ";
    s += p < 12 ? kWords[static_cast<size_t>(p) % std::size(kWords)] : kFiller[static_cast<size_t>(p) % std::size(kFiller)];
  }
  return s;
}

std::set<std::string> found(const std::string& idx, const std::string& pattern, bool word = false,
                            bool ignore_case = false) {
  IndexReader r(idx);
  ContentOptions o;
  o.patterns = {pattern};
  o.word = word;
  o.ignore_case = ignore_case;
  o.by_message = true;
  const QueryResult res = run_content(r, limit_filters(100000), o);
  REQUIRE_FALSE(res.truncated);
  std::set<std::string> out;
  for (const Hit& h : res.hits) out.insert(h.message ? h.message->uuid : "");
  return out;
}

// By session (what the scanning threads count themselves): each session's match count and its
// earliest matching message, as {sid: {count, uuid}}.
using SessionMatches = std::map<std::string, std::pair<uint64_t, std::string>>;
SessionMatches by_session(const std::string& idx, const std::string& pattern, bool word = false,
                          FilterArgs filters = {}) {
  IndexReader r(idx);
  ContentOptions o;
  o.patterns = {pattern};
  o.word = word;
  filters.limit = 100000;
  const QueryResult res = run_content(r, parse_filters(filters, 0, 20), o);
  REQUIRE_FALSE(res.truncated);
  SessionMatches out;
  for (const Hit& h : res.hits) out[h.session.id] = {h.match_count, h.message ? h.message->uuid : ""};
  return out;
}

// The same from the messages' uuids ("u-<session>-<message>"; a session's messages in time order).
SessionMatches expected_by_session(const std::set<std::string>& uuids) {
  SessionMatches out;
  std::map<std::string, size_t> earliest;
  for (const std::string& uuid : uuids) {
    const size_t dash = uuid.find('-', 2);
    const std::string sid = SyntheticIndex::sid_of(std::stoul(uuid.substr(2, dash - 2)));
    const size_t m = std::stoul(uuid.substr(dash + 1));
    auto& [count, first] = out[sid];
    ++count;
    if (!earliest.count(sid) || m < earliest[sid]) {
      earliest[sid] = m;
      first = uuid;
    }
  }
  return out;
}

// The uuids of the texts PCRE2 finds `expression` in (the reference: each message alone).
std::set<std::string> matching(const std::vector<std::pair<std::string, std::string>>& texts,
                               const std::string& expression, const std::string& pattern, bool caseless) {
  std::string error;
  const std::optional<PcreMatcher> pcre = PcreMatcher::compile({expression}, {pattern}, caseless, error);
  REQUIRE(pcre);
  std::set<std::string> out;
  for (const auto& [uuid, text] : texts)
    if (pcre->first_match(text)) out.insert(uuid);
  return out;
}

}  // namespace

TEST_CASE("content: the windowed log scan finds exactly the messages that match alone", "[content][query]") {
  std::mt19937 rng(20261203);
  std::uniform_int_distribution<int> size_kind(0, 99);
  std::vector<std::vector<std::string>> sessions(12);
  std::vector<std::pair<std::string, std::string>> texts;  // (uuid, text)
  size_t bytes = 0;
  for (size_t s = 0; s < sessions.size(); ++s) {
    for (size_t m = 0; m < 200; ++m) {
      const int k = size_kind(rng);
      // Mostly a few hundred bytes; some around a window (8 KB); a few several windows long.
      const size_t target = k < 80 ? 40 + static_cast<size_t>(k) * 8 : k < 95 ? 6000 + static_cast<size_t>(k) * 60 : 30000;
      std::string t = message_text(rng, target);
      if (k % 9 == 0) t = "err" + t;      // a match at the very start
      if (k % 11 == 0) t += " fn main";   // and at the very end
      if (k % 13 == 0) t = "lorem";       // and messages without any
      sessions[s].push_back(t);
      texts.emplace_back("u-" + std::to_string(s) + "-" + std::to_string(m), t);
      bytes += t.size();
    }
  }
  // Messages about a window long, each ending in one long token, their sizes stepping by a byte: a
  // window cut anywhere but at a message start would split some token and lose its message.
  for (size_t s = 0; s < 2; ++s) {
    std::vector<std::string> dense;
    for (size_t m = 0; m < 200; ++m) {
      std::string t = std::string(7900 + s * 200 + m, 'o') + " needleabcdefghijklmn";
      dense.push_back(t);
      texts.emplace_back("u-" + std::to_string(sessions.size()) + "-" + std::to_string(m), t);
      bytes += t.size();
    }
    sessions.push_back(std::move(dense));
  }
  // Messages longer than the block a scanning thread reads at a time (1 MB), with matches inside and
  // at their ends; with them the log passes the size two threads share (8 MB).
  {
    std::vector<std::string> big;
    for (size_t m = 0; m < 2; ++m) {
      std::string t = std::string(700000 + m * 2000000, 'o') + " TODO " + std::string(600000, 'o') + " needleabcdefghijklmn";
      big.push_back(t);
      texts.emplace_back("u-" + std::to_string(sessions.size()) + "-" + std::to_string(m), t);
      bytes += t.size();
    }
    sessions.push_back(std::move(big));
  }
  REQUIRE(bytes > (8u << 20));  // hundreds of windows, two threads
  SyntheticIndex ix(sessions);
  // Classes after a literal (Hyperscan may report them late), dense patterns (a stop every
  // message), literals, and a gap a match spanning two messages would fill.
  for (const std::string pattern : {"err\\w", "err\\w+", "[0-9]+", "\\w", "fn\\s+\\w+", "[A-Z][a-z]+[0-9]{3}",
                                    "TODO", "stderr", "main$", "x9y", "quux main", "ipsum[^z]*TODO",
                                    "needleabcdefghijklmn", "needle[a-z]+n\\b", "^err", "^lorem$", "err(?=no)",
                                    "(?<!std)err\\b",
                                    // Sets of literals the scan skips to (engine/query/literal_filter.h).
                                    "stderr|x9y", "TODO|quux main", "^err|main$", "needleabcdefghijklmn|zzzq",
                                    "fn\\s+\\w+|TODO"}) {
    INFO("pattern " << pattern);
    const std::set<std::string> expected = matching(texts, pattern, pattern, false);
    CHECK(found(ix.idx, pattern) == expected);
    CHECK(by_session(ix.idx, pattern) == expected_by_session(expected));
    // The filters the threads apply as they count: a session, a role no message has.
    FilterArgs one_session;
    one_session.session = {SyntheticIndex::sid_of(3)};
    SessionMatches only_3 = expected_by_session(expected);
    std::erase_if(only_3, [](const auto& kv) { return kv.first != SyntheticIndex::sid_of(3); });
    CHECK(by_session(ix.idx, pattern, false, one_session) == only_3);
    FilterArgs assistant;
    assistant.role = {"assistant"};
    CHECK(by_session(ix.idx, pattern, false, assistant).empty());
  }
  // -w: ASCII literals are settled by the scanning threads from the bytes around each occurrence,
  // other patterns by PCRE2 afterwards; either way exactly the messages \b(?:p)\b finds.
  for (const std::string pattern : {"err", "error", "main", "TODO", "fn main", "12", "_", "err\\w*", "o+", "TODO|main"}) {
    INFO("-w pattern " << pattern);
    const std::set<std::string> expected = matching(texts, "\\b(?:" + pattern + ")\\b", pattern, false);
    CHECK(found(ix.idx, pattern, true) == expected);
    CHECK(by_session(ix.idx, pattern, true) == expected_by_session(expected));
  }
  // -i: literals the prefilter looks for without case (engine/query/literal_filter.h), and one it
  // leaves to Hyperscan (an i, whose case Unicode folds beyond ASCII).
  for (const std::string pattern : {"ERROR", "tOdO", "ERR\\w", "LOREM ipsum", "Ab123", "2026-03", "MAIN", "ERROR|tOdO"}) {
    INFO("-i pattern " << pattern);
    const std::set<std::string> expected = matching(texts, pattern, pattern, true);
    CHECK(found(ix.idx, pattern, false, true) == expected);
  }
}

TEST_CASE("text log: read() copies what the map holds, and refuses past the committed bytes", "[content][query]") {
  TempDir tmp{"textlog-read"};
  const std::string dir = tmp / "idx";
  std::filesystem::create_directories(dir);
  uint64_t bytes = 0, entries = 0;
  {
    TextLogWriter w;
    w.open(dir, 0, 0, "text");
    for (int i = 0; i < 50; ++i) {
      // Some keys longer than text_copy's guess at a header (256 bytes), some texts empty.
      const std::string key = i % 9 == 4 ? std::string(300 + i, 'K') : "k" + std::to_string(i);
      w.append(key, 0, i % 10 == 7 ? std::string() : std::string(1000 + i * 37, static_cast<char>('a' + i % 26)));
    }
    w.sync();
    bytes = w.bytes();
    entries = w.entries();
  }
  TextLogReader r;
  r.open(dir, bytes, entries, "text");
  const std::string_view d = r.data();
  REQUIRE(d.size() == bytes);
  std::vector<char> out(bytes);
  for (const auto& [off, n] : std::vector<std::pair<uint64_t, size_t>>{{0, 0}, {0, 1}, {0, bytes}, {17, 4000}, {bytes - 5, 5}}) {
    INFO("offset " << off << " n " << n);
    REQUIRE(r.read(off, out.data(), n));
    CHECK(std::string_view(out.data(), n) == d.substr(off, n));
  }
  CHECK_FALSE(r.read(bytes - 5, out.data(), 6));
  CHECK_FALSE(r.read(bytes + 1, out.data(), 0));

  // entry_in reads an entry from a copy of the log's bytes: the same entry as entry_at, its views in
  // the copy; false when the entry is not whole in the copy.
  const auto starts = r.starts();
  REQUIRE(starts.size() == entries);
  for (size_t i = 0; i < entries; i += 7) {
    INFO("entry " << i);
    const uint64_t start = starts[i], end = i + 1 < entries ? starts[i + 1] : bytes;
    TextEntry mapped, copied;
    REQUIRE(r.entry_at(start, mapped));
    const uint64_t copy_at = start - std::min<uint64_t>(start, 3);
    const std::string copy(d.substr(copy_at, end - copy_at));
    REQUIRE(r.entry_in(copy, copy_at, start, copied));
    CHECK(copied.start == mapped.start);
    CHECK(copied.text_offset == mapped.text_offset);
    CHECK(copied.flags == mapped.flags);
    CHECK(copied.key == mapped.key);
    CHECK(copied.text == mapped.text);
    CHECK(copied.text.data() >= copy.data());
    CHECK(copied.text.data() + copied.text.size() <= copy.data() + copy.size());
    TextEntry none;
    CHECK_FALSE(r.entry_in(std::string_view(copy).substr(0, copy.size() - 1), copy_at, start, none));
    CHECK_FALSE(r.entry_in(copy, start + 1, start, none));
  }
  // text_copy reads what text() views, for every entry, whole or a prefix, and answers as text()
  // does for a span past the entry's text or a start past the log.
  std::string buffer;
  for (size_t i = 0; i < entries; ++i) {
    INFO("entry " << i);
    TextEntry e;
    REQUIRE(r.entry_at(starts[i], e));
    for (const uint64_t len : {uint64_t{0}, uint64_t{1}, uint64_t{e.text.size()} / 2, uint64_t{e.text.size()},
                               uint64_t{e.text.size()} + 5}) {
      const std::string_view copied = r.text_copy(starts[i], len, buffer);
      CHECK(copied == r.text(starts[i], len));
      CHECK(copied == e.text.substr(0, len));
    }
  }
  CHECK(r.text_copy(bytes, 10, buffer).empty());
  CHECK(r.text_copy(bytes + 100, 10, buffer).empty());
}

TEST_CASE("content --by message: every page is a slice of one order, however the threads counted",
          "[content][query]") {
  // A log two threads share, messages of equal times in every session (SyntheticIndex gives message
  // m of each session the same time), and a re-read session whose matches the main thread checks
  // itself: the threads keep only each chunk's first (offset + limit) matches, and the pages must
  // still be slices of the one order (newest first, then by place in the log), with exact totals.
  std::string filler;
  while (filler.size() < 8000) filler += "lorem ipsum dolor sit amet ";
  std::vector<std::vector<std::string>> sessions(4);
  for (size_t s = 0; s < sessions.size(); ++s)
    for (size_t m = 0; m < 300; ++m) sessions[s].push_back(m % 7 == s ? "the needle " + std::to_string(m) : filler);
  SyntheticIndex ix(sessions);
  std::vector<std::string> reread(300, "short");
  for (size_t m = 0; m < reread.size(); m += 5) reread[m] = "a needle again";
  ix.rewrite(2, reread);
  size_t expected = 0;
  for (size_t s = 0; s < 4; ++s)
    for (size_t m = 0; m < 300; ++m) expected += s == 2 ? m % 5 == 0 : m % 7 == s;
  auto page = [&](const std::string& pattern, bool word, size_t offset, size_t limit) {
    IndexReader r(ix.idx);
    ContentOptions o;
    o.patterns = {pattern};
    o.word = word;
    o.by_message = true;
    return run_content(r, limit_filters(limit, offset), o);
  };
  for (const auto& [pattern, word] : std::vector<std::pair<std::string, bool>>{{"needle", false}, {"needle", true}, {"need\\w+", false}}) {
    INFO("pattern " << pattern << (word ? " -w" : ""));
    const QueryResult all = page(pattern, word, 0, 100000);
    REQUIRE(all.total == expected);
    REQUIRE(all.hits.size() == expected);
    std::vector<std::string> order;
    for (const Hit& h : all.hits) {
      REQUIRE(h.message);
      order.push_back(h.message->uuid);
    }
    for (size_t i = 1; i < all.hits.size(); ++i) CHECK(all.hits[i - 1].message->timestamp_ms >= all.hits[i].message->timestamp_ms);
    for (const size_t size : {1u, 7u, 50u}) {
      std::vector<std::string> paged;
      for (size_t offset = 0; offset < expected + size; offset += size) {
        const QueryResult p = page(pattern, word, offset, size);
        CHECK(p.total == expected);
        for (const Hit& h : p.hits) paged.push_back(h.message->uuid);
      }
      CHECK(paged == order);
    }
  }
}
