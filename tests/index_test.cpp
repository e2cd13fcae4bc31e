// Index: counts, idempotent re-runs, incremental reads, half lines, shrink/replace/delete, orphans.
#include "tests/index_fixture.h"
#include "engine/query/search.h"

TEST_CASE("index: the shared corpus gives exactly 160 sessions 17630 messages 5888 tool calls and a re-run changes nothing",
          "[index][corpus]") {
  if (!corpus_present()) return;
  TempDir tmp("corpus");
  const std::string idx = tmp / "idx";
  IndexSummary s1 = index_tree(idx, corpus_claude_dir());
  CHECK_FALSE(s1.busy);
  CHECK(s1.sessions == 160);
  // 17,169 distinct uuids (8 of them prompts queued mid-turn: attachments); two of them (edge_cases.jsonl
  // edge_010, edge_011) come again with other words. And 459 messages (226 tool calls) of subagents
  // whose transcripts the corpus lacks, as their parents' progress lines repeat them.
  CHECK(s1.messages == 17630);
  CHECK(s1.tool_calls == 5888);
  CHECK(s1.new_messages == 17630);
  CHECK(s1.new_tool_calls == 5888);
  CHECK(s1.files_unreadable == 0);
  CHECK(s1.files_changed == s1.files_seen);
  CHECK(s1.files_seen >= 260);
  // The only problems are the files with bad lines (named for --verbose), e.g. the synthetic edge cases.
  for (const auto& p : s1.problems) {
    INFO("problem: " << p);
    CHECK(p.find("bad line") != std::string::npos);
  }

  IndexCounts c = counts_of(idx);
  CHECK(c.sessions == 160);
  CHECK(c.messages == 17630);
  CHECK(c.tool_calls == 5888);
  CHECK(c.last_indexed_at > 0);

  IndexSummary s2 = index_tree(idx, corpus_claude_dir());
  CHECK(s2.files_seen == s1.files_seen);
  CHECK(s2.files_changed == 0);
  CHECK(s2.files_skipped == s1.files_seen);
  CHECK(s2.files_deleted == 0);
  CHECK(s2.bytes_read == 0);
  CHECK(s2.new_messages == 0);
  CHECK(s2.new_tool_calls == 0);
  CHECK(s2.bad_lines == 0);
  CHECK(s2.sessions == 160);
  CHECK(s2.messages == 17630);
  CHECK(s2.tool_calls == 5888);
}

TEST_CASE("index: a second run over unchanged sources changes nothing at all", "[index]") {
  TempDir tmp("rerun");
  const std::string src = tmp / "src";
  copy_tree(claude_data_dir(), src);
  const std::string idx = tmp / "idx";
  IndexSummary s1 = index_tree(idx, src);
  const auto fp1 = fingerprint(idx);
  IndexSummary s2 = index_tree(idx, src);
  CHECK(s2.files_changed == 0);
  CHECK(s2.files_skipped == s1.files_seen);
  CHECK(s2.bytes_read == 0);
  CHECK(s2.new_messages == 0);
  CHECK(s2.sessions == s1.sessions);
  CHECK(s2.messages == s1.messages);
  CHECK(s2.tool_calls == s1.tool_calls);
  CHECK_SAME_INDEX(idx, fp1);

  // A file touched without growing may have changed anywhere (index_rewrite_test): it is read whole
  // again, and nothing is duplicated or lost.
  const std::string f = src + "/" + kB3;
  fs::last_write_time(f, fs::last_write_time(f) + std::chrono::seconds(5));
  IndexSummary s3 = index_tree(idx, src);
  CHECK(s3.bytes_read >= fs::file_size(f));  // (and its session's other files)
  CHECK(s3.messages == s1.messages);
  CHECK(s3.sessions == s1.sessions);
  CHECK(s3.tool_calls == s1.tool_calls);
  const std::string ref = tmp / "ref";
  index_tree(ref, src);
  CHECK_SAME_INDEX(idx, fingerprint(ref));

  // A reader on a missing index says so.
  CHECK_THROWS_AS(IndexReader(tmp / "no-index"), StoreMissing);
}

TEST_CASE("index: message counts and token totals match the raw transcripts with usage once per message id", "[index]") {
  TempDir tmp("totals");
  const std::string idx = tmp / "idx";
  IndexSummary s = index_tree(idx, claude_data_dir());
  CHECK(s.bad_lines == 0);
  CHECK(s.files_unreadable == 0);

  auto expected = expected_sessions(claude_data_dir());
  auto sessions = all_sessions(idx);
  std::set<std::string> want_ids, got_ids;
  uint64_t want_messages = 0;
  for (const auto& [sid, e] : expected) {
    want_ids.insert(sid);
    want_messages += e.messages;
  }
  for (const auto& [sid, rec] : sessions) got_ids.insert(sid);
  CHECK(got_ids == want_ids);
  CHECK(s.messages == want_messages);
  CHECK(s.sessions == expected.size());
  for (const auto& [sid, e] : expected) {
    INFO("session " << sid);
    auto it = sessions.find(sid);
    REQUIRE(it != sessions.end());
    CHECK(it->second.message_count == e.messages);
    CHECK(tokens_str(it->second.tokens) == tokens_str(e.tokens));
    CHECK(session_messages(idx, sid).size() == e.messages);
  }

  // Hand-checked: the Windows session streams one API message over three lines with the same usage
  // (the largest of equal ones is the first).
  const SessionRec& win = sessions.at(kWindowsSid);
  CHECK(win.message_count == 7);
  CHECK(win.tokens.input == 11325 + 2);
  CHECK(win.tokens.output == 576 + 238);
  CHECK(win.tokens.cache_creation == 5360 + 11923);
  CHECK(win.tokens.cache_read == 24962 + 30322);
  CHECK(win.cwd == "D:\\oh-my-posh");
  CHECK(win.tool_call_count == 1);
  uint64_t with_usage = 0;
  for (const auto& m : session_messages(idx, kWindowsSid)) with_usage += m.rec.usage.any();
  CHECK(with_usage == 2);  // the repeated chunks carry zero usage: the first chunk carries the largest

  // Every tool call is stored once, under its session.
  IndexReader r(idx);
  uint64_t sum_tc = 0;
  for (const auto& [sid, rec] : sessions) sum_tc += rec.tool_call_count;
  CHECK(sum_tc == r.counts().tool_calls);
}

TEST_CASE("index: incremental appends read only the new bytes and equal a one-shot build", "[index]") {
  TempDir tmp("append");
  const std::vector<std::string> growing = {kB3, "-Users-user-project/agent-a434715.jsonl", kGlued,
                                            "-experiments-worktrees/ef958aa1-0e93-49f0-bb71-150f63befcd1.jsonl"};
  const std::vector<std::string> projects = {"-Users-user-project", "-Users-soph-Work-entire-devenv-cli",
                                             "-experiments-worktrees"};
  const std::string src = tmp / "src";
  make_tree(src, projects);
  // Reference: a one-shot build of the complete files, at the same paths.
  const std::string ref_idx = tmp / "ref";
  index_tree(ref_idx, src);
  const auto ref_fp = fingerprint(ref_idx);

  // Growing copy: each file is written in 5 pieces cut at awkward places (mid-line, right after a
  // complete object without its newline, between glued objects), indexing after each piece.
  std::map<std::string, std::string> content;
  std::map<std::string, std::vector<size_t>> cuts;
  for (const auto& rel : growing) {
    content[rel] = read_file(claude_data_dir() + "/" + rel);
    const std::string& d = content[rel];
    auto ends = line_ends(d);
    REQUIRE(ends.size() >= 5);
    std::vector<size_t> c;
    c.push_back(ends[ends.size() / 5] - 40);                     // mid-line
    c.push_back(ends[2 * ends.size() / 5] - 1);                  // complete JSON, newline missing
    c.push_back(ends[3 * ends.size() / 5] - 1 - 15);             // mid-line, near the end
    c.push_back(ends[4 * ends.size() / 5]);                      // exactly at a line end
    const size_t g = d.find("\"timestamp\":\"2026-01-20T15:07:58.839Z\"}{\"type\":\"summary\"");
    if (g != std::string::npos) c[2] = g + std::strlen("\"timestamp\":\"2026-01-20T15:07:58.839Z\"}");  // between glued objects
    std::sort(c.begin(), c.end());
    c.push_back(d.size());
    cuts[rel] = c;
    write_file(src + "/" + rel, d.substr(0, c[0]));
  }
  // The path FileStates are stored under.
  auto abs = [&](const std::string& rel) { return src + "/" + rel; };

  const std::string idx = tmp / "idx";
  IndexSummary first = index_tree(idx, src);
  CHECK(first.bad_lines == 0);
  uint64_t total_new = first.new_messages;
  for (size_t step = 1; step < 5; ++step) {
    auto before = all_files(idx);
    uint64_t expect_bytes = 0;
    for (const auto& rel : growing) {
      const auto& c = cuts[rel];
      append_file(abs(rel), content[rel].substr(c[step - 1], c[step] - c[step - 1]));
      REQUIRE(before.count(abs(rel)));
      expect_bytes += c[step] - before.at(abs(rel)).offset;
    }
    IndexSummary s = index_tree(idx, src);
    INFO("step " << step);
    CHECK(s.files_changed == growing.size());
    CHECK(s.bytes_read == expect_bytes);  // only what lies past each stored offset
    CHECK(s.bad_lines == 0);
    CHECK(s.files_skipped == s.files_seen - growing.size());
    total_new += s.new_messages;
    // A half-written line is never consumed: the stored offset is at a line boundary or at EOF
    // after complete JSON.
    for (const auto& rel : growing) {
      const uint64_t off = all_files(idx).at(abs(rel)).offset;
      const std::string& d = content[rel];
      const bool at_boundary = off == 0 || d[off - 1] == '\n' || off == cuts[rel][step];
      CHECK(at_boundary);
    }
  }
  for (const auto& rel : growing) CHECK(all_files(idx).at(abs(rel)).offset == content[rel].size());

  // Same records as the one-shot build.
  CHECK_SAME_INDEX(idx, ref_fp);
  CHECK(total_new == counts_of(ref_idx).messages);
  CHECK(counts_of(idx).messages == counts_of(ref_idx).messages);
  CHECK(counts_of(idx).tool_calls == counts_of(ref_idx).tool_calls);
  CHECK(counts_of(idx).sessions == counts_of(ref_idx).sessions);
}

TEST_CASE("index: a half-written last line is not consumed until it is completed", "[index]") {
  TempDir tmp("half");
  const std::string src = tmp / "src";
  const std::string f = src + "/-w-proj/s-half.jsonl";
  const std::string l1 = user_line("s-half", "h1", "first question about zebras");
  const std::string l2 = assistant_line("s-half", "h2", "first answer", "msg_h2", 10, 20);
  const std::string l3 = user_line("s-half", "h3", "second question about giraffes", "2026-03-01T10:00:02.000Z");
  write_file(f, l1 + l2 + l3.substr(0, l3.size() / 2));
  const std::string idx = tmp / "idx";

  IndexSummary s1 = index_tree(idx, src);
  CHECK(s1.messages == 2);
  CHECK(s1.bad_lines == 0);
  CHECK(all_files(idx).at(f).offset == l1.size() + l2.size());
  CHECK_FALSE(message_by_uuid(idx, "s-half", "h3").has_value());

  // Nothing new: nothing read, nothing added.
  IndexSummary s2 = index_tree(idx, src);
  CHECK(s2.messages == 2);
  CHECK(s2.new_messages == 0);

  // A few more bytes, still not the whole line: still nothing.
  const size_t cut = l3.size() / 2;
  append_file(f, l3.substr(cut, 7));
  IndexSummary s2b = index_tree(idx, src);
  CHECK(s2b.new_messages == 0);
  CHECK(s2b.bad_lines == 0);
  CHECK(all_files(idx).at(f).offset == l1.size() + l2.size());
  append_file(f, l3.substr(cut + 7));
  REQUIRE(read_file(f) == l1 + l2 + l3);
  IndexSummary s3 = index_tree(idx, src);
  CHECK(s3.new_messages == 1);
  CHECK(s3.messages == 3);
  CHECK(s3.bytes_read == l3.size());
  auto h3 = message_by_uuid(idx, "s-half", "h3");
  REQUIRE(h3.has_value());
  CHECK(h3->text == "second question about giraffes");
  CHECK(all_sessions(idx).at("s-half").message_count == 3);

  // A final line without newline that is complete JSON is taken; the next append starts cleanly.
  const std::string l4 = assistant_line("s-half", "h4", "second answer", "msg_h4", 1, 2, "2026-03-01T10:00:03.000Z");
  append_file(f, l4.substr(0, l4.size() - 1));
  IndexSummary s4 = index_tree(idx, src);
  CHECK(s4.new_messages == 1);
  CHECK(s4.messages == 4);
  append_file(f, "\n" + user_line("s-half", "h5", "third", "2026-03-01T10:00:04.000Z"));
  IndexSummary s5 = index_tree(idx, src);
  CHECK(s5.new_messages == 1);
  CHECK(s5.messages == 5);
  CHECK(s5.bad_lines == 0);
  CHECK(all_sessions(idx).at("s-half").message_count == 5);
  CHECK(session_messages(idx, "s-half").size() == 5);
}

TEST_CASE("index: a file that shrinks or is replaced is re-read whole with its old records replaced", "[index]") {
  TempDir tmp("shrink");
  const std::vector<std::string> rels = {"-Users-user-project", kWindows};
  const std::string src = tmp / "src";
  make_tree(src, rels);
  const std::string idx = tmp / "idx";
  index_tree(idx, src);
  const std::string f = src + "/" + kB3;
  const std::string original = read_file(f);
  auto ends = line_ends(original);

  // Clean build of whatever `src` holds now, in a fresh index dir: the expected state.
  int n = 0;
  auto clean_fp = [&]() {
    const std::string ref = tmp / ("ref" + std::to_string(n++));
    index_tree(ref, src);
    auto fp = fingerprint(ref);
    return fp;
  };

  SECTION("truncated in place (same inode, smaller than the stored offset)") {
    const std::string half = original.substr(0, ends[ends.size() / 2]);
    fs::resize_file(f, half.size());
    REQUIRE(read_file(f) == half);
    IndexSummary s = index_tree(idx, src);
    CHECK(s.files_changed >= 1);
    CHECK_SAME_INDEX(idx, clean_fp());
    // No message of the cut part survives.
    for (const auto& m : session_messages(idx, kB3Sid))
      if (!m.rec.is_sidechain) CHECK(half.find(m.rec.uuid) != std::string::npos);

    // Growing back (appending the rest) is a plain append again.
    append_file(f, original.substr(half.size()));
    IndexSummary s2 = index_tree(idx, src);
    CHECK(s2.bytes_read == original.size() - half.size());
    CHECK_SAME_INDEX(idx, clean_fp());
  }

  SECTION("replaced by a new inode with other content (rename over it)") {
    // Keep the first third, then new lines: the old tail must disappear.
    std::string other = original.substr(0, ends[ends.size() / 3]) +
                        user_line(kB3Sid, "new-1", "replacement line about otters", "2025-12-21T10:00:00.000Z") +
                        assistant_line(kB3Sid, "new-2", "otters are fine", "msg_new2", 5, 6, "2025-12-21T10:00:01.000Z");
    replace_file(f, other);
    IndexSummary s = index_tree(idx, src);
    CHECK(s.files_changed >= 1);
    CHECK_SAME_INDEX(idx, clean_fp());
    CHECK(message_by_uuid(idx, kB3Sid, "new-1").has_value());
    // keyword sees the new lines once each, and none of the re-read session's older documents.
    auto otters = [&](bool by_message) {
      IndexReader r(idx);
      FilterArgs none;
      none.limit = 50;
      return run_keyword(r, "otters", parse_filters(none, 0, 20), KeywordOptions{by_message, "relevance", 80});
    };
    CHECK(otters(true).hits.size() == 2);
    REQUIRE(otters(false).hits.size() == 1);
    CHECK(otters(false).hits[0].match_count == 2);
    // Words the kept lines share with the replaced ones are found in the current epoch only (the
    // older one is excluded inside the query), as a clean build of the same files finds them.
    const std::string ref = tmp / "ref-words";
    index_tree(ref, src);
    auto found = [&](const std::string& dir, const std::string& word, bool by_message) {
      IndexReader r(dir);
      FilterArgs none;
      none.limit = 500;
      std::vector<std::string> out;
      for (const auto& h : run_keyword(r, word, parse_filters(none, 0, 20), KeywordOptions{by_message, "relevance", 80}).hits)
        out.push_back(h.session.id + "/" + (by_message && h.message ? h.message->uuid : "") + "/" +
                      std::to_string(h.match_count));
      std::sort(out.begin(), out.end());
      return out;
    };
    REQUIRE_FALSE(IndexReader(idx).epochs().empty());
    for (const std::string word : {"the", "file", "error", "user", "otters", "sessionid"})
      for (bool by_message : {true, false}) {
        INFO(word << (by_message ? " by message" : " by session"));
        CHECK(found(idx, word, by_message) == found(ref, word, by_message));
      }
    CHECK_FALSE(found(idx, "the", true).empty());

    // Replaced again, this time larger than before: still a full re-read, no duplicates.
    replace_file(f, original + user_line(kB3Sid, "new-3", "one more", "2025-12-22T10:00:00.000Z"));
    index_tree(idx, src);
    CHECK_SAME_INDEX(idx, clean_fp());
    CHECK_FALSE(message_by_uuid(idx, kB3Sid, "new-1").has_value());
    CHECK(otters(true).hits.empty());
    CHECK(otters(false).hits.empty());
  }

  SECTION("a root agent file of the session shrinks") {
    const std::string agent = src + "/-Users-user-project/agent-a434715.jsonl";
    const std::string a = read_file(agent);
    auto aends = line_ends(a);
    REQUIRE(aends.size() >= 4);
    fs::resize_file(agent, aends[1]);
    index_tree(idx, src);
    CHECK_SAME_INDEX(idx, clean_fp());
  }

  SECTION("shrunk to zero bytes") {
    fs::resize_file(f, 0);
    index_tree(idx, src);
    CHECK_SAME_INDEX(idx, clean_fp());
  }
}

TEST_CASE("index: a deleted main file keeps its session as source_deleted and a re-created one is re-read", "[index]") {
  TempDir tmp("deleted");
  const std::string src = tmp / "src";
  make_tree(src, {"-Users-user-project", kWindows});
  const std::string idx = tmp / "idx";
  IndexSummary s1 = index_tree(idx, src);
  const auto fp_full = fingerprint(idx);
  const std::string f = src + "/" + kWindows;
  const std::string bytes = read_file(f);
  const SessionRec before = all_sessions(idx).at(kWindowsSid);
  CHECK_FALSE(before.source_deleted);
  CHECK(before.jsonl_path == f);

  fs::remove(f);
  IndexSummary s2 = index_tree(idx, src);
  CHECK(s2.files_deleted == 1);
  CHECK(s2.sessions == s1.sessions);
  CHECK(s2.messages == s1.messages);
  CHECK(s2.tool_calls == s1.tool_calls);
  const SessionRec after = all_sessions(idx).at(kWindowsSid);
  CHECK(after.source_deleted);
  CHECK(after.message_count == before.message_count);
  CHECK(after.title() == "Remove phantom nul file");
  auto msgs = session_messages(idx, kWindowsSid);
  CHECK(msgs.size() == before.message_count);
  bool texts = false;
  for (const auto& m : msgs) texts = texts || m.text.find("nul") != std::string::npos;
  CHECK(texts);  // the text is still there to search
  // Other sessions untouched.
  CHECK_FALSE(all_sessions(idx).at(kB3Sid).source_deleted);

  // A run with nothing new keeps the state and counts the deletion once.
  IndexSummary s3 = index_tree(idx, src);
  CHECK(s3.files_deleted == 0);
  CHECK(all_sessions(idx).at(kWindowsSid).source_deleted);

  SECTION("re-created with the same bytes") {
    write_file(f, bytes);
    IndexSummary s4 = index_tree(idx, src);
    CHECK(s4.messages == s1.messages);
    CHECK(s4.sessions == s1.sessions);
    CHECK_FALSE(all_sessions(idx).at(kWindowsSid).source_deleted);
    CHECK_SAME_INDEX(idx, fp_full);
  }

  SECTION("re-created with fewer lines") {
    auto ends = line_ends(bytes);
    write_file(f, bytes.substr(0, ends[ends.size() / 2]));
    index_tree(idx, src);
    const std::string ref = tmp / "ref";
    index_tree(ref, src);
    CHECK_SAME_INDEX(idx, fingerprint(ref));
    CHECK_FALSE(all_sessions(idx).at(kWindowsSid).source_deleted);
  }

  SECTION("a deleted subagent file does not mark the session deleted") {
    fs::remove(src + "/-Users-user-project/agent-a434715.jsonl");
    IndexSummary s5 = index_tree(idx, src);
    CHECK(s5.files_deleted == 1);
    CHECK(s5.messages == s1.messages);
    CHECK_FALSE(all_sessions(idx).at(kB3Sid).source_deleted);
  }

  SECTION("a whole project directory removed") {
    fs::remove_all(src + "/-Users-user-project");
    IndexSummary s6 = index_tree(idx, src);
    CHECK(s6.files_deleted >= 20);
    CHECK(s6.sessions == s1.sessions);
    CHECK(s6.messages == s1.messages);
    CHECK(all_sessions(idx).at(kB3Sid).source_deleted);
  }
}

TEST_CASE("index: orphan subagent files make sessions of their own", "[index]") {
  TempDir tmp("orphan");
  const std::string idx = tmp / "idx";
  index_tree(idx, claude_data_dir());
  auto sessions = all_sessions(idx);

  // Old layout: root agent file whose main session file does not exist.
  const std::string root_orphan = "14653a8a-9a1b-4299-8e64-c0aa4b772c1d";
  REQUIRE(sessions.count(root_orphan));
  const SessionRec& r = sessions.at(root_orphan);
  CHECK_FALSE(r.has_main);
  CHECK(r.message_count == 2);
  CHECK(r.jsonl_path == claude_data_dir() + "/-Users-dain-workspace-claude-code-log-sample/agent-41b9470d.jsonl");
  CHECK(r.project == "-Users-dain-workspace-claude-code-log-sample");
  for (const auto& m : session_messages(idx, root_orphan)) {
    CHECK(m.rec.is_sidechain);
    CHECK(m.rec.agent_id == "41b9470d");
  }

  // New layout: nested subagent whose <session>.jsonl is missing.
  const std::string nested_orphan = "6c2214d7-b87e-4432-8e41-22ba294ea584";
  REQUIRE(sessions.count(nested_orphan));
  const SessionRec& n = sessions.at(nested_orphan);
  CHECK_FALSE(n.has_main);
  CHECK(n.message_count > 100);
  CHECK(n.jsonl_path.find("/subagents/agent-afc096d.jsonl") != std::string::npos);
  CHECK(n.subagent_count == 1);

  // A real session with six nested subagents (+ .meta.json sidecars).
  const SessionRec& ex = sessions.at(kExperimentsSid);
  CHECK(ex.has_main);
  CHECK(ex.subagent_count == 6);
  CHECK(ex.jsonl_path == claude_data_dir() + "/-experiments-worktrees/" + kExperimentsSid + ".jsonl");
  {
    IndexReader rd(idx);
    auto v = rd.txn().get(rd.db().subagents, pair_key(kExperimentsSid, "a36efb2a1231c41e2"));
    REQUIRE(v.has_value());
    auto sa = SubagentRec::decode(*v);
    REQUIRE(sa.has_value());
    CHECK(sa->agent_type == "general-purpose");
    CHECK(sa->description == "Round 2: alice comparison");
    CHECK(sa->message_count > 0);
  }
  // Sidechain messages of the nested agents belong to the parent session.
  uint64_t side = 0;
  for (const auto& m : session_messages(idx, kExperimentsSid)) side += m.rec.is_sidechain;
  CHECK(side > 50);

  // Workflow agent (synthetic fixture) belongs to its session.
  CHECK(sessions.count("11110000-0000-4000-8000-000000000001"));
  // Empty main file + root agent files: the agents' session exists.
  REQUIRE(sessions.count("0f13eeba-e6ed-42ea-ad8c-d8db37e1304e"));
  CHECK_FALSE(sessions.at("0f13eeba-e6ed-42ea-ad8c-d8db37e1304e").has_main);
}
