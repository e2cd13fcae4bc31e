// A schema upgrade never drops what cannot be re-read: an index written by an older schema is
// rebuilt with its archived sessions carried over, each schema step redone on their records (12:
// terms and meta rules; 13: absolute tool-call paths, patch headers, failed results).
#include "tests/index_fixture.h"

#include "engine/query/files.h"
#include "engine/query/search.h"

namespace {

// The archived session's record of `uuid`, rewritten in place as schema 12 would have stored it.
void rewrite_record(const std::string& idx, const std::string& uuid, ContentType type, bool is_meta) {
  Store store(idx, Store::Mode::Write);
  LmdbTxn txn(store.env(), false);
  auto key = find_message_key(txn, store.db(), kWindowsSid, uuid);
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

namespace {

const std::string kSid13 = "5e3c1a2b-0000-4000-8000-000000000013";

// A Claude session whose Edit names src/a.rs under /home/u/proj, answered by an error.
std::string session_13_lines() {
  const std::string head = R"("sessionId":")" + kSid13 + R"(","cwd":"/home/u/proj","version":"2.0.0",)";
  return "{\"type\":\"user\"," + head +
         R"("uuid":"u-13-1","parentUuid":null,"timestamp":"2026-03-01T10:00:00Z","message":{"role":"user","content":"fix a.rs"}})"
         "\n{\"type\":\"assistant\"," + head +
         R"("uuid":"u-13-2","parentUuid":"u-13-1","timestamp":"2026-03-01T10:00:05Z","message":{"id":"msg_13","role":"assistant","model":"claude-x","content":[{"type":"tool_use","id":"toolu_13","name":"Edit","input":{"file_path":"/home/u/proj/src/a.rs","old_string":"a","new_string":"b"}}]}})"
         "\n{\"type\":\"user\"," + head +
         R"("uuid":"u-13-3","parentUuid":"u-13-2","timestamp":"2026-03-01T10:00:06Z","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_13","is_error":true,"content":"no such line"}]}})"
         "\n";
}

// Rewrites the archived session's tool calls as schema 13 stored them: the path as the tool wrote
// it (relative here), and an apply_patch call whose files sit only in its input.
void store_as_13(const std::string& idx) {
  Store store(idx, Store::Mode::Write);
  LmdbTxn txn(store.env(), false);
  auto bytes = txn.get(store.db().tool_calls, pair_key(kSid13, "toolu_13"));
  REQUIRE(bytes);
  auto edit = ToolCallRec::decode(*bytes);
  REQUIRE(edit);
  edit->file_path = "src/a.rs";
  edit->extra_paths.clear();
  txn.put(store.db().tool_calls, pair_key(kSid13, edit->id), edit->encode());
  ToolCallRec patch = *edit;
  patch.id = "call_patch_13";
  patch.name = "apply_patch";
  patch.file_path.clear();
  patch.input_json = R"({"input":"*** Begin Patch\n*** Update File: lib/b.rs\n@@\n-x\n+y\n*** End Patch\n"})";
  txn.put(store.db().tool_calls, pair_key(kSid13, patch.id), patch.encode());
  txn.commit();
}

uint64_t touches(const std::string& idx, const std::string& path) {
  IndexReader reader(idx);
  FilesOptions o;
  o.path = path;
  o.cwd = "/";
  return run_files(reader, parse_filters(FilterArgs{}, 0, 100), o).total;
}

}  // namespace

TEST_CASE("upgrade: a schema-13 index keeps archived tool calls findable by their absolute paths",
          "[hardening][full][upgrade]") {
  TempDir tmp("upgrade13");
  const std::string src = tmp / "src", idx = tmp / "idx";
  const std::string file = src + "/-home-u-proj/" + kSid13 + ".jsonl";
  fs::create_directories(src + "/-home-u-proj");
  write_file(file, session_13_lines());
  index_tree(idx, src);
  fs::remove(file);
  index_tree(idx, src);
  REQUIRE(all_sessions(idx).at(kSid13).source_deleted);
  store_as_13(idx);
  set_schema(idx, 13);

  IndexSummary s = index_tree(idx, src);
  INFO("lost: " << s.lost);
  CHECK(s.rebuilt);
  CHECK(s.lost.empty());
  REQUIRE(all_sessions(idx).count(kSid13) == 1);
  CHECK(touches(idx, "/home/u/proj/src/a.rs") == 1);  // the relative path, resolved against the cwd
  CHECK(touches(idx, "/home/u/proj/lib/b.rs") == 1);  // apply_patch's file header
  IndexReader reader(idx);
  FailuresResult f = run_failures(reader, parse_filters(FilterArgs{}, 0, 100), FailuresOptions{});
  CHECK(f.total == 1);  // failed_results is derived for the archive too
}
