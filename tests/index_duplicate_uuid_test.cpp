// A uuid written twice with other words (a damaged line and its rewrite, as in a real fixture of the
// shared corpus) keeps both texts: the second is stored under "<uuid>#<line offset>". A plain repeat
// of the same message stays one message.
#include "tests/index_fixture.h"

namespace {
const std::string kDuplicateSid = "dddd0000-1111-4222-8333-444455556666";

std::vector<std::string> texts_of(const std::string& idx) {
  std::vector<std::string> out;
  for (const auto& m : session_messages(idx, kDuplicateSid)) out.push_back(m.text);
  return out;
}
bool holds(const std::vector<std::string>& texts, const std::string& t) {
  return std::find(texts.begin(), texts.end(), t) != texts.end();
}
}  // namespace

TEST_CASE("index: a repeated uuid with other text keeps both, in one batch and across runs", "[index][duplicates]") {
  TempDir tmp("dup");
  const std::string src = tmp / "src", idx = tmp / "idx";
  const std::string file = src + "/-w-proj/" + kDuplicateSid + ".jsonl";
  // The first line with this uuid has no usable message; the second is the real one.
  const std::string broken =
      R"({"type":"user","uuid":"u-1","sessionId":")" + kDuplicateSid + R"(","timestamp":"2026-03-01T10:00:00Z","message":"error"})" "\n";
  write_file(file, broken + user_line(kDuplicateSid, "u-1", "Testing special characters and emojis") +
                       user_line(kDuplicateSid, "u-2", "same words twice") + user_line(kDuplicateSid, "u-2", "same words twice"));
  IndexSummary s = index_tree(idx, src);
  CHECK(s.bad_lines == 0);
  auto texts = texts_of(idx);
  CHECK(holds(texts, "Testing special characters and emojis"));
  CHECK(std::count(texts.begin(), texts.end(), "same words twice") == 1);
  CHECK(message_by_uuid(idx, kDuplicateSid, "u-1").has_value());
  const size_t before = texts.size();

  // Appended in a later run: compared with the stored message.
  append_file(file, user_line(kDuplicateSid, "u-2", "other words under an old uuid") + user_line(kDuplicateSid, "u-2", "same words twice"));
  index_tree(idx, src);
  texts = texts_of(idx);
  CHECK(holds(texts, "other words under an old uuid"));
  CHECK(texts.size() == before + 1);
  // Read again from scratch: the same messages.
  const std::string again = tmp / "again";
  index_tree(again, src);
  CHECK(fingerprint(again) == fingerprint(idx));
}
