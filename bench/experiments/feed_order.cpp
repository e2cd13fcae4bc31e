// One thread feeding Xapian as a shard thread does (bench/experiments/README.md): every message text
// of a Claude projects tree (up to 60 MB of decoded text) tokenized, counted, added as a document to
// one glass database without termlists, committed every N documents. Prints, per round and setting,
// the seconds spent building documents, adding them, and committing. Settings:
//   order      terms given to add_term in the counter's order, then sorted
//   interval   a commit every 500, 2,000 and 8,000 documents
// Not part of the build: bench/experiments/index_variants.sh compiles it against a build's libraries.
#include <xapian.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "engine/index/term_counter.h"
#include "engine/index/tokenizer.h"
#include "ingest/claude.h"
#include "ingest/jsonl_reader.h"

namespace {
using Clock = std::chrono::steady_clock;

std::vector<std::string> message_texts(const std::string& root, size_t max_bytes) {
  std::vector<std::string> texts;
  size_t bytes = 0;
  for (const auto& e : std::filesystem::recursive_directory_iterator(root)) {
    if (e.path().extension() != ".jsonl" || bytes > max_bytes) continue;
    std::ifstream in(e.path(), std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    std::string b = ss.str();
    const size_t n = b.size();
    b += std::string(simdjson::SIMDJSON_PADDING, ' ');
    osearch::JsonlReader reader;
    osearch::JsonlReadResult r;
    reader.parse_buffer(b.data(), n, true, 0,
                        [&](simdjson::dom::element obj, uint64_t) {
                          osearch::LineRecords rec;
                          if (!osearch::parse_claude_object(obj, rec)) return;
                          for (auto& m : rec.messages) {
                            bytes += m.text.size();
                            texts.push_back(std::move(m.text));
                          }
                        },
                        r);
  }
  return texts;
}

void feed(const std::vector<std::string>& texts, const std::string& dir, bool sorted, size_t interval) {
  std::filesystem::remove_all(dir);
  osearch::Tokenizer tok;
  osearch::TermCounter counter;
  std::string term;
  std::vector<std::pair<std::string_view, uint32_t>> entries;
  const auto start = Clock::now();
  double build_s = 0, add_s = 0;
  {
    Xapian::WritableDatabase db(dir, Xapian::DB_CREATE | Xapian::DB_NO_SYNC | Xapian::DB_NO_TERMLIST);
    for (size_t i = 0; i < texts.size(); ++i) {
      const auto a = Clock::now();
      Xapian::Document doc;
      counter.clear();
      tok.run(texts[i], [&](std::string_view t, uint32_t, osearch::TermKind) { counter.add(t); });
      entries.clear();
      counter.for_each([&](std::string_view t, uint32_t n) { entries.emplace_back(t, n); });
      if (sorted) std::sort(entries.begin(), entries.end());
      for (const auto& [t, n] : entries) {
        term.assign(t);
        doc.add_term(term, n);
      }
      const auto b = Clock::now();
      db.add_document(doc);
      add_s += std::chrono::duration<double>(Clock::now() - b).count();
      build_s += std::chrono::duration<double>(b - a).count();
      if (i % interval == interval - 1) db.commit();
    }
    db.commit();
  }
  const double total = std::chrono::duration<double>(Clock::now() - start).count();
  std::printf("%-8s every %5zu: total %.2f s  build %.2f  add %.2f  commit and close %.2f\n",
              sorted ? "sorted" : "counter", interval, total, build_s, add_s, total - build_s - add_s);
}
}  // namespace

int main(int argc, char** argv) {
  if (argc < 4) {
    std::fprintf(stderr, "usage: feed_order PROJECTS_DIR SCRATCH_DIR order|interval [ROUNDS]\n");
    return 2;
  }
  const std::vector<std::string> texts = message_texts(argv[1], 60u << 20);
  const std::string mode = argv[3];
  const int rounds = argc > 4 ? std::atoi(argv[4]) : 3;
  std::fprintf(stderr, "%zu message texts\n", texts.size());
  for (int r = 0; r < rounds; ++r) {
    if (mode == "order") {
      feed(texts, argv[2], false, 4000);
      feed(texts, argv[2], true, 4000);
    } else {
      for (size_t interval : {500, 2000, 8000}) feed(texts, argv[2], false, interval);
    }
  }
  std::filesystem::remove_all(argv[2]);
  return 0;
}
