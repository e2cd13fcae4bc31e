// A schema upgrade never drops what cannot be re-read: an index written by schema 12 (before the
// issue-9 tokenizer and meta rules) is rebuilt as 13 with its archived sessions carried over, their
// documents re-made with the new terms and their meta flags redone by the new rules.
#include "tests/index_fixture.h"

#include "engine/query/search.h"

namespace {

// The archived session's record of `uuid`, rewritten in place as schema 12 would have stored it.
void rewrite_record(const std::string& idx, const std::string& uuid, ContentType type, bool is_meta) {
  Store store(idx, Store::Mode::Write);
  LmdbTxn txn(store.env(), false);
  auto key = txn.get(store.db().msg_uuid, pair_key(uuid, kWindowsSid));
  REQUIRE(key);
  const std::string k(*key);
  auto bytes = txn.get(store.db().messages, k);
  REQUIRE(bytes);
  auto m = MessageRec::decode(k, *bytes);
  REQUIRE(m);
  m->content_type = type;
  m->is_meta = is_meta;
  txn.put(store.db().messages, k, m->encode());
  txn.commit();
}

void set_schema(const std::string& idx, uint64_t schema) {
  Store store(idx, Store::Mode::Write);
  LmdbTxn txn(store.env(), false);
  Store::put_meta_u64(txn, store.db(), meta_key::kSchema, schema);
  txn.commit();
}

const std::string kPrompt = "b0e5a82d-a277-4241-a280-e98bd76c88cb";   // the user's question
const std::string kAnswer = "9e9672f9-4a39-4a11-91a8-f1e64f0fcfb5";   // the first reply

}  // namespace

TEST_CASE("upgrade: a schema-12 index keeps its archived sessions, with new terms and meta rules",
          "[hardening][full][upgrade]") {
  TempDir tmp("upgrade");
  const std::string src = tmp / "src", idx = tmp / "idx";
  copy_tree(claude_data_dir(), src);
  index_tree(idx, src);
  fs::remove(src + "/" + kWindows);
  index_tree(idx, src);
  REQUIRE(all_sessions(idx).at(kWindowsSid).source_deleted);
  const size_t messages = session_messages(idx, kWindowsSid).size();
  REQUIRE(messages > 2);
  // Schema 12 kept a command envelope visible in its record (hidden by its type) and a compaction
  // summary meta.
  rewrite_record(idx, kPrompt, ContentType::Command, false);
  rewrite_record(idx, kAnswer, ContentType::Summary, true);
  set_schema(idx, 12);

  IndexSummary s = index_tree(idx, src);  // a plain run notices the old schema
  INFO("lost: " << s.lost);
  CHECK(s.rebuilt);
  CHECK(s.lost.empty());
  CHECK(s.salvaged_sessions >= 1);
  const auto sessions = all_sessions(idx);
  REQUIRE(sessions.count(kWindowsSid) == 1);
  CHECK(sessions.at(kWindowsSid).source_deleted);
  CHECK(session_messages(idx, kWindowsSid).size() == messages);
  // The new rules: an envelope without <command-args> is meta, a summary never is.
  auto prompt = message_by_uuid(idx, kWindowsSid, kPrompt);
  auto answer = message_by_uuid(idx, kWindowsSid, kAnswer);
  REQUIRE(prompt);
  REQUIRE(answer);
  CHECK(prompt->rec.is_meta);
  CHECK_FALSE(answer->rec.is_meta);
  // The archived text is found through the new terms: folded case, the reply as a summary.
  IndexReader reader(idx);
  Filters f;
  f.limit = 10;
  QueryResult r = run_keyword(reader, "GOTCHA", f, KeywordOptions{});
  bool found = false;
  for (const auto& h : r.hits) found = found || h.session.id == kWindowsSid;
  CHECK(found);
  // Another run changes nothing.
  IndexSummary again = index_tree(idx, src);
  CHECK_FALSE(again.rebuilt);
  CHECK(again.files_changed == 0);
}
