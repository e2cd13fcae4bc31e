// Microbenchmarks of the ingest hot path: JSONL splitting + simdjson parsing + the Claude adapter,
// and the tokenizer that feeds Xapian. Input: real transcripts from ../shared/corpus/claude (or
// tests/data/claude), loaded once.
#include <benchmark/benchmark.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "engine/index/tokenizer.h"
#include "ingest/claude.h"
#include "ingest/jsonl_reader.h"

namespace {

// Every real (non-fixture) transcript concatenated, capped at 64 MB.
const std::string& corpus_bytes() {
  static const std::string bytes = [] {
    std::string out;
    for (const char* root : {OSEARCH_CORPUS "/claude", OSEARCH_TESTDATA "/claude"}) {
      std::error_code ec;
      if (!std::filesystem::exists(root, ec)) continue;
      for (auto it = std::filesystem::recursive_directory_iterator(root, ec);
           !ec && it != std::filesystem::recursive_directory_iterator() && out.size() < (64u << 20); it.increment(ec)) {
        const auto& p = it->path();
        if (p.extension() != ".jsonl" || p.string().find("-fixture-") != std::string::npos) continue;
        std::ifstream in(p, std::ios::binary);
        std::stringstream ss;
        ss << in.rdbuf();
        out += ss.str();
        if (!out.empty() && out.back() != '\n') out.push_back('\n');
      }
      if (!out.empty()) break;
    }
    return out;
  }();
  return bytes;
}

// Decoded message text, as the tokenizer sees it.
const std::string& corpus_text() {
  static const std::string text = [] {
    std::string out;
    osearch::JsonlReader reader;
    osearch::JsonlReadResult r;
    std::string padded = corpus_bytes() + std::string(simdjson::SIMDJSON_PADDING, ' ');
    reader.parse_buffer(padded.data(), corpus_bytes().size(), true, 0,
                        [&](simdjson::dom::element obj, uint64_t) {
                          osearch::LineRecords rec;
                          if (osearch::parse_claude_object(obj, rec) && !rec.messages.empty()) out += rec.messages.at(0).text + "\n";
                        },
                        r);
    return out;
  }();
  return text;
}

void BM_ParseClaudeLines(benchmark::State& state) {
  const std::string& bytes = corpus_bytes();
  std::string padded = bytes + std::string(simdjson::SIMDJSON_PADDING, ' ');
  osearch::JsonlReader reader;
  uint64_t messages = 0;
  for (auto _ : state) {
    osearch::JsonlReadResult r;
    reader.parse_buffer(padded.data(), bytes.size(), true, 0,
                        [&](simdjson::dom::element obj, uint64_t) {
                          osearch::LineRecords rec;
                          if (osearch::parse_claude_object(obj, rec) && !rec.messages.empty()) ++messages;
                        },
                        r);
    benchmark::DoNotOptimize(messages);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * bytes.size()));
}
BENCHMARK(BM_ParseClaudeLines)->Unit(benchmark::kMillisecond);

void BM_Tokenize(benchmark::State& state) {
  const std::string& text = corpus_text();
  osearch::Tokenizer tok;
  uint64_t terms = 0;
  for (auto _ : state) {
    tok.run(text, [&](std::string_view, uint32_t, osearch::TermKind) { ++terms; });
    benchmark::DoNotOptimize(terms);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * text.size()));
}
BENCHMARK(BM_Tokenize)->Unit(benchmark::kMillisecond);

}  // namespace
