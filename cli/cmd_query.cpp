// `keyword`, `content` and `list`: refresh (unless --no-refresh), open the index, run, print.
#include <chrono>

#include "cli/commands.h"
#include "cli/printers.h"
#include "cli/verbatim_args.h"
#include "engine/query/search.h"
#include "ingest/timeutil.h"

namespace osearch {
namespace {

std::string join(const std::vector<std::string>& words) {
  std::string q;
  for (const auto& w : words) q += (q.empty() ? "" : " ") + w;
  return q;
}

constexpr size_t kMaxLimit = 100000;
constexpr size_t kMaxOffset = 1000000000;  // far past any index; keeps offset + limit from overflowing
constexpr size_t kMaxSnippetChars = 100000;

// The numeric options as typed, checked: bad input fails before any work.
SearchArgs with_numbers(const SearchArgs& typed) {
  SearchArgs a = typed;
  if (!a.numbers.limit.empty()) a.filters.limit = parse_count("--limit", a.numbers.limit, 1, kMaxLimit);
  if (!a.numbers.offset.empty()) a.filters.offset = parse_count("--offset", a.numbers.offset, 0, kMaxOffset);
  if (!a.numbers.snippet_chars.empty())
    a.snippet_chars = parse_count("--snippet-chars", a.numbers.snippet_chars, 0, kMaxSnippetChars);
  return a;
}

template <typename Run>
int run_query(const Context& ctx, const SearchArgs& args, size_t default_limit, Run&& run) {
  const auto t0 = std::chrono::steady_clock::now();
  Filters filters = parse_filters(args.filters, current_time_ms(), default_limit);  // bad input fails before any work
  QueryIndex index(ctx);
  QueryResult r = index.run([&](IndexReader& reader) { return run(reader, filters); });
  r.counts = index.reader().counts();
  r.refreshed_files = index.refreshed_files;
  r.stale = index.stale;
  r.took_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  print_result(ctx, r);
  return 0;
}

}  // namespace

int cmd_keyword(const Context& ctx, const SearchArgs& typed) {
  const SearchArgs args = with_numbers(typed);
  KeywordOptions o;
  o.by_message = args.by == "message";
  o.sort = args.sort;
  o.snippet_chars = args.snippet_chars;
  std::string query = join(args.words);
  return run_query(ctx, args, 20, [&](IndexReader& r, const Filters& f) { return run_keyword(r, query, f, o); });
}

int cmd_content(const Context& ctx, const SearchArgs& typed) {
  const SearchArgs args = with_numbers(typed);
  ContentOptions o;
  o.patterns = args.patterns;
  o.patterns.insert(o.patterns.end(), args.words.begin(), args.words.end());
  o.fixed = args.fixed;
  o.ignore_case = args.ignore_case;
  o.word = args.word;
  o.by_message = args.by == "message";
  o.snippet_chars = args.snippet_chars;
  o.time_budget = std::chrono::milliseconds(static_cast<int64_t>(args.timeout_s * 1000.0 + 0.5));
  if (o.patterns.empty()) throw UsageError("usage", "content needs a PATTERN (or -e PATTERN)");
  return run_query(ctx, args, 20, [&](IndexReader& r, const Filters& f) {
    QueryResult result = run_content(r, f, o);
    result.patterns = o.patterns;  // echoed whole: "query" joins them with " | "
    return result;
  });
}

int cmd_list(const Context& ctx, const SearchArgs& typed) {
  const SearchArgs args = with_numbers(typed);
  return run_query(ctx, args, 50, [&](IndexReader& r, const Filters& f) { return run_list(r, f); });
}

}  // namespace osearch
