// libFuzzer target: the keyword query syntax (engine/query_parser) and the tokenizer under it.
// The input is a query string. It is tokenized as indexed text, parsed against a small in-memory
// index (so project:/model: expansion and the compound lookups have terms to find), and the parsed
// query is run: BadInput is the only way a query may be refused.
#include <cstdint>
#include <string>

#include <xapian.h>

#include "engine/query/query.h"
#include "engine/query/query_parser.h"
#include "engine/index/text_index.h"
#include "engine/index/tokenizer.h"
#include "fuzz/fuzz_util.h"

using osearch_fuzz::require;

namespace {

void index_text(Xapian::Document& doc, std::string_view text) {
  osearch::Tokenizer tok;
  tok.run(text, [&](std::string_view term, uint32_t pos, osearch::TermKind) { doc.add_posting(std::string(term), pos + 1); });
}

Xapian::WritableDatabase make_db() {
  Xapian::WritableDatabase db(std::string(), Xapian::DB_BACKEND_INMEMORY);
  struct Doc {
    const char *project, *model, *role, *text;
  } docs[] = {
      {"-Users-me-AlphaProject", "claude-opus-4-5-20251101", "assistant",
       "The stateStore keeps 2.1.29 and c9117b58-37b2-42e0-942d-cea5c426128d in /src/engine/query/keyword.cpp"},
      {"-home-bob-BetaRepo", "claude-haiku-4-5-20251001", "tool",
       "error in build_index_v2, see toolu_01YSSAHQnxsQC5wBW4QHXLbF; 你好世界 école naïve 🎉"},
  };
  for (const auto& d : docs) {
    Xapian::Document doc;
    index_text(doc, d.text);
    doc.add_boolean_term(osearch::boolean_term(osearch::prefix::kProject, d.project));
    doc.add_boolean_term(osearch::boolean_term(osearch::prefix::kModel, d.model));
    doc.add_boolean_term(osearch::boolean_term(osearch::prefix::kRole, d.role));
    doc.add_boolean_term(osearch::boolean_term(osearch::prefix::kSession, "1b3e6441-62e3-4b41-8a0c-9d252f531f7a"));
    db.add_document(doc);
  }
  db.commit();
  return db;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const Xapian::WritableDatabase db = make_db();  // built once per fuzzer process
  const std::string query(reinterpret_cast<const char*>(data), size);

  osearch::Tokenizer tok;
  tok.run(query, [&](std::string_view term, uint32_t, osearch::TermKind kind) {
    require(!term.empty(), "tokenizer emitted an empty term");
    if (kind == osearch::TermKind::Word || kind == osearch::TermKind::Part)
      require(term.size() <= osearch::kMaxWordBytes, "word over its bound");
    if (kind == osearch::TermKind::Compound) require(term.size() <= osearch::kMaxCompoundBytes, "compound over its bound");
  });
  for (const auto& t : osearch::split_query_tokens(query)) require(!t.empty(), "empty query token");

  osearch::ParsedQuery parsed;
  try {
    parsed = osearch::parse_keyword_query(query, db);
  } catch (const osearch::BadInput&) {
    return 0;  // a clean refusal (exit 2)
  }
  Xapian::Enquire enquire(db);
  enquire.set_query(parsed.query);
  Xapian::MSet mset = enquire.get_mset(0, 10);
  require(mset.size() <= 2, "more hits than documents");
  return 0;
}
