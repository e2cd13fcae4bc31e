// In-process keyword latency: opens an index once and runs each query (one per line of a file)
// through run_keyword, as the CLI does after argument parsing. Prints median and p99 in ms as JSON.
//   query_latency INDEX_DIR QUERIES_FILE [REPEAT]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "engine/query/search.h"

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: query_latency INDEX_DIR QUERIES_FILE [REPEAT]\n");
    return 2;
  }
  int repeat = argc > 3 ? std::atoi(argv[3]) : 3;
  std::vector<std::string> queries;
  std::ifstream in(argv[2]);
  for (std::string line; std::getline(in, line);)
    if (!line.empty()) queries.push_back(line);
  osearch::IndexReader reader(argv[1]);
  osearch::FilterArgs args;
  osearch::Filters filters = osearch::parse_filters(args, 0, 20);
  osearch::KeywordOptions opts;
  std::vector<double> ms;
  uint64_t hits = 0;
  for (int r = 0; r < repeat; ++r) {
    for (const auto& q : queries) {
      auto t0 = std::chrono::steady_clock::now();
      auto result = osearch::run_keyword(reader, q, filters, opts);
      ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
      hits += result.hits.size();
    }
  }
  std::sort(ms.begin(), ms.end());
  auto pct = [&](double p) { return ms.empty() ? 0.0 : ms[std::min(ms.size() - 1, static_cast<size_t>(p * ms.size()))]; };
  std::printf("{\"queries\":%zu,\"runs\":%zu,\"median_ms\":%.3f,\"p99_ms\":%.3f,\"max_ms\":%.3f,\"hits\":%llu}\n",
              queries.size(), ms.size(), pct(0.5), pct(0.99), ms.empty() ? 0.0 : ms.back(), (unsigned long long)hits);
  return 0;
}
