// Recall of what a person remembers (issue 9), through the real document builder and query parser:
// identifier pieces, underscores, versions, folded case and diacritics, and the exact form ranking
// above a match by pieces.
#include <catch2/catch.hpp>

#include <set>
#include <string>
#include <vector>

#include "engine/index/text_index.h"
#include "engine/query/query_parser.h"

using namespace osearch;

namespace {

class MiniIndex {
 public:
  // One message document per text, named by its index in `texts`.
  explicit MiniIndex(const std::vector<std::string>& texts) : db_(std::string(), Xapian::DB_BACKEND_INMEMORY) {
    SessionRec s;
    s.id = "s";
    s.agent = "claude";
    const std::vector<std::string> no_tools;
    DocBuilder builder;
    for (size_t i = 0; i < texts.size(); ++i) {
      MessageRec m;
      m.key = std::to_string(i);
      m.session_id = "s";
      m.role = Role::Assistant;
      m.content_type = ContentType::Text;
      db_.add_document(builder.message({&m, texts[i], &s, &no_tools, 0}));
    }
    db_.commit();
  }
  // Names of the matching documents, best first.
  std::vector<std::string> search(const std::string& q) const {
    ParsedQuery p = parse_keyword_query(q, db_);
    Xapian::Enquire enq(db_);
    enq.set_query(p.query);
    Xapian::MSet m = enq.get_mset(0, 100);
    std::vector<std::string> out;
    for (auto it = m.begin(); it != m.end(); ++it) out.push_back(it.get_document().get_value(kSlotKey));
    return out;
  }
  bool finds(const std::string& q, const std::string& name) const {
    auto hits = search(q);
    return std::find(hits.begin(), hits.end(), name) != hits.end();
  }

 private:
  Xapian::WritableDatabase db_;
};

using V = std::vector<std::string>;

}  // namespace

TEST_CASE("recall: private names and dunders are found without their underscores, and the reverse",
          "[query][recall][identifiers]") {
  MiniIndex idx({"def _process_nested_tar(self, path): ...", "token = request._csrf_token", "csrf_token plain",
                 "class Foo: def __init__(self)"});
  CHECK(idx.search("process_nested_tar") == V{"0"});
  CHECK(idx.finds("_process_nested_tar", "0"));
  CHECK(idx.finds("csrf_token", "1"));
  CHECK(idx.finds("csrf_token", "2"));
  CHECK(idx.finds("_csrf_token", "1"));
  CHECK(idx.finds("_csrf_token", "2"));
  CHECK(idx.finds("__init__", "3"));
  CHECK(idx.finds("init", "3"));
}

TEST_CASE("recall: camelCase pieces find the identifier, the verbatim identifier ranks first",
          "[query][recall][identifiers]") {
  MiniIndex idx({"export function getFileTypeBadge(name) {}", "raise HTTPServerError(500)",
                 "the server error page was blank", "class ServerError extends Error"});
  CHECK(idx.finds("badge", "0"));
  CHECK(idx.finds("getFileTypeBadge", "0"));
  CHECK(idx.finds("FileType", "0"));
  CHECK(idx.finds("server", "1"));
  // A shorter identifier inside a longer one; not the same words apart in prose.
  CHECK(idx.search("ServerError") == V{"3", "1"});
  CHECK(idx.search("servererror") == V{"3", "1"});
  CHECK(idx.search("HTTPServerError") == V{"1"});
  auto words = idx.search("server error");  // the words anywhere: all three
  CHECK(std::set<std::string>(words.begin(), words.end()) == std::set<std::string>{"1", "2", "3"});
}

TEST_CASE("recall: a version is found with or without its v", "[query][recall][identifiers]") {
  MiniIndex idx({"bumped to v1.2.3 today", "pinned 2.0.74 in the lockfile"});
  CHECK(idx.search("1.2.3") == V{"0"});
  CHECK(idx.search("v1.2.3") == V{"0"});
  CHECK(idx.search("2.0.74") == V{"1"});
}

TEST_CASE("recall: case and diacritics fold for every script, at index and query time", "[query][recall][fold]") {
  MiniIndex idx({"Привет, мир", "ÉCOLE NORMALE supérieure", "a naïve approach", "Résumé attached",
                 "ΚΑΛΗΜΈΡΑ κόσμε", "Tiếng Việt có dấu", "Straße und Maß", "ＦＵＬＬ width ７",
                 "deploy 部署成功 now", "shipped 🚀 today", "cafe\xcc\x81 in NFD", "KAPI kapandı"});
  CHECK(idx.search("привет") == V{"0"});
  CHECK(idx.search("ПРИВЕТ") == V{"0"});
  CHECK(idx.search("école") == V{"1"});
  CHECK(idx.search("ecole superieure") == V{"1"});
  CHECK(idx.search("naive") == V{"2"});
  CHECK(idx.search("naïve") == V{"2"});
  CHECK(idx.search("resume") == V{"3"});
  CHECK(idx.search("RÉSUMÉ") == V{"3"});
  CHECK(idx.search("καλημέρα") == V{"4"});
  CHECK(idx.search("ΚΟΣΜΕ") == V{"4"});
  CHECK(idx.search("tieng viet") == V{"5"});
  CHECK(idx.search("strasse") == V{"6"});
  CHECK(idx.search("full") == V{"7"});
  CHECK(idx.search("部署") == V{"8"});  // CJK stays as written
  CHECK(idx.search("🚀") == V{"9"});
  CHECK(idx.search("café") == V{"10"});  // NFD text, NFC query
  CHECK(idx.search("kapi") == V{"11"});
  // A phrase folds too.
  CHECK(idx.search("\"ecole normale\"") == V{"1"});
  // A prefix folds too.
  CHECK(idx.search("ÉCO*") == V{"1"});
}
