// Random `thread` calls (pages, a window around a message, meta shown or not) against the session's
// own lines, over sessions that grew in several runs: a thread is one key range of `messages`, and
// its pages, window and totals must be that range's visible messages in time order.
#include <random>

#include "tests/synthetic_index.h"

#include "engine/query/thread.h"
#include "tests/test_seed.h"

using namespace osearch;
using namespace osearch_test;

namespace {

struct ThreadLine {
  std::string uuid, text;
  bool meta = false;
};

}  // namespace

TEST_CASE("thread: random pages and windows give the session's visible messages in order", "[thread][hardening]") {
  const uint32_t seed = osearch_test::test_seed(20261207);
  INFO("seed " << seed);
  std::mt19937 rng(seed);
  TempDir tmp{"thread-random"};
  const std::string src = tmp / "claude";
  std::vector<std::string> sids;
  std::vector<std::vector<ThreadLine>> lines;
  int clock = 0;
  const auto grow = [&](size_t s, size_t n) {
    std::string out;
    for (size_t k = 0; k < n; ++k) {
      ThreadLine l;
      l.uuid = sids[s].substr(0, 8) + "-" + std::to_string(lines[s].size());
      l.meta = rng() % 4 == 0;
      l.text = "step " + std::to_string(lines[s].size()) + (l.meta ? " meta" : "");
      out += claude_user_line(sids[s], "/w/p", l.uuid, iso_second(++clock), l.text, l.meta ? R"("isMeta":true,)" : "");
      lines[s].push_back(std::move(l));
    }
    append_file(src + "/-w-p/" + sids[s] + ".jsonl", out);
  };
  for (int s = 0; s < 6; ++s) {
    sids.push_back(random_session_id(rng, s));
    lines.emplace_back();
    grow(s, 1 + rng() % 40);
  }
  for (int run = 0; run < 3; ++run) {
    REQUIRE(run_index(tmp / "index", {{"claude", src}}, IndexOptions{}).bad_lines == 0);
    for (size_t k = 0; k < 3; ++k) grow(rng() % sids.size(), 1 + rng() % 15);
  }
  REQUIRE(run_index(tmp / "index", {{"claude", src}}, IndexOptions{}).bad_lines == 0);
  IndexReader reader(tmp / "index");

  for (int round = 0; round < 300; ++round) {
    const size_t s = rng() % sids.size();
    ThreadOptions o;
    o.include_meta = rng() % 3 == 0;
    std::vector<const ThreadLine*> visible;
    for (const ThreadLine& l : lines[s]) visible.push_back(&l);
    size_t anchor = 0;
    if (round % 3 == 0) {
      anchor = rng() % lines[s].size();
      o.around = lines[s][anchor].uuid;
      o.window = rng() % 6;
    } else {
      o.offset = rng() % (lines[s].size() + 2);
      o.limit = rng() % 8;
    }
    // Visible: meta only when asked, and the anchor always.
    std::vector<const ThreadLine*> shown;
    size_t anchor_at = 0;
    for (size_t i = 0; i < lines[s].size(); ++i) {
      const bool is_anchor = !o.around.empty() && i == anchor;
      if (lines[s][i].meta && !o.include_meta && !is_anchor) continue;
      if (is_anchor) anchor_at = shown.size();
      shown.push_back(&lines[s][i]);
    }
    size_t begin, end;
    if (!o.around.empty()) {
      begin = anchor_at - std::min(o.window, anchor_at);
      end = std::min(shown.size(), anchor_at + o.window + 1);
    } else {
      begin = std::min(o.offset, shown.size());
      end = o.limit ? std::min(shown.size(), begin + o.limit) : shown.size();
    }
    INFO("round " << round << " session " << s << " around " << o.around << " window " << o.window << " offset "
                  << o.offset << " limit " << o.limit << " meta " << o.include_meta);
    // A session id prefix, as users type it.
    const ThreadResult r = run_thread(reader, sids[s].substr(0, 8 + rng() % 10), o);
    CHECK(r.session.id == sids[s]);
    CHECK(r.total == shown.size());
    CHECK(r.first_index == begin);
    CHECK(r.truncated == (end - begin < shown.size()));
    std::vector<std::string> got, want;
    for (const MessageView& m : r.messages) got.push_back(m.rec.uuid + " " + std::string(m.text));
    for (size_t i = begin; i < end; ++i) want.push_back(shown[i]->uuid + " " + shown[i]->text);
    CHECK(got == want);
  }
}
