// A Claude summary names the message it titles by uuid alone; within one run that message may sit
// in any shard the run committed (engine/index/uuid_lookup.h: each shard the run wrote keeps its
// uuid terms' fingerprints, and a lookup asks only the shards that may hold one).
#include "tests/index_fixture.h"

#include "engine/index/uuid_lookup.h"

TEST_CASE("uuid lookup: a summary finds its leaf in whichever committed shard of the run holds it", "[index][titles]") {
  TempDir tmp("uuid-lookup");
  const std::string src = tmp / "src";
  const std::string p = src + "/-w-proj/";
  // Read in path order, a line per batch: each session's messages land in shards of their own,
  // committed and listed long before summaries.jsonl is read.
  for (const char* sid : {"a-first", "b-second", "c-third"}) {
    const std::string s(sid);
    write_file(p + s + ".jsonl", user_line(s, s + "-u1", "prompt of " + s) +
                                     assistant_line(s, s + "-leaf", "reply of " + s, "m-" + s, 1, 1) +
                                     user_line(s, s + "-u2", "later prompt of " + s));
  }
  write_file(p + "d-filler.jsonl", user_line("d-filler", "d1", "filler one") + user_line("d-filler", "d2", "filler two"));
  write_file(p + "summaries.jsonl", summary_line("Summary A", "a-first-leaf") + summary_line("Summary C", "c-third-leaf") +
                                        summary_line("Summary of nothing", "no-such-leaf"));
  IndexOptions one_line_batches;
  one_line_batches.flush_bytes = 1;
  const std::string idx = tmp / "idx";
  index_tree(idx, src, one_line_batches);
  auto s = all_sessions(idx);
  CHECK(s.at("a-first").title() == "Summary A");
  CHECK(s.at("b-second").title() == "prompt of b-second");  // no summary: its first prompt
  CHECK(s.at("c-third").title() == "Summary C");

  // The same titles when the whole tree is one batch (the leaves then in the batch itself).
  const std::string idx_one = tmp / "idx-one";
  index_tree(idx_one, src);
  auto one = all_sessions(idx_one);
  for (const char* sid : {"a-first", "b-second", "c-third", "d-filler"}) {
    INFO(sid);
    CHECK(one.at(sid).title() == s.at(sid).title());
  }
}

TEST_CASE("uuid lookup: fingerprints tell apart the terms they were made from", "[index]") {
  // Equal terms, equal fingerprints; the bounded form of a long uuid is what both sides hash.
  CHECK(uuid_term_fingerprint(message_uuid_term("0a0a-leaf")) == uuid_term_fingerprint(message_uuid_term("0A0A-LEAF")));
  CHECK(uuid_term_fingerprint(message_uuid_term("0a0a-leaf")) != uuid_term_fingerprint(message_uuid_term("0a0a-lea")));
  // Past the bound the term keeps a head and a hash of the whole: uuids differing only in their tails differ.
  const std::string long_uuid(400, 'x');
  CHECK(uuid_term_fingerprint(message_uuid_term(long_uuid + "a")) != uuid_term_fingerprint(message_uuid_term(long_uuid + "b")));
}
