#include <cstdio>

#include "cli/print_memory.h"
#include "cli/printers.h"
#include "cli/terminal_text.h"
#include "engine/query/snippet.h"
#include "ingest/timeutil.h"

namespace osearch {
namespace {

constexpr const char* kBold = "\033[1m";
constexpr const char* kDim = "\033[2m";
constexpr const char* kMatch = "\033[1;31m";
constexpr const char* kReset = "\033[0m";

std::string highlight(const std::string& snippet, const std::vector<std::string>& terms, bool color) {
  if (!color || terms.empty()) return snippet;
  std::string out;
  size_t pos = 0;
  for (auto [b, e] : find_highlights(snippet, terms)) {  // case-insensitive on both sides
    out.append(snippet, pos, b - pos);
    out.append(kMatch);
    out.append(snippet, b, e - b);
    out.append(kReset);
    pos = e;
  }
  out.append(snippet, pos, std::string::npos);
  return out;
}

}  // namespace

void print_text(const QueryResult& r, bool color) {
  const char* bold = color ? kBold : "";
  const char* dim = color ? kDim : "";
  const char* reset = color ? kReset : "";
  for (const auto& h : r.hits) {
    if (h.memory) {
      print_memory_hit_text(h, color);
      continue;
    }
    const SessionRec& s = h.session;
    // Every string from a transcript goes through terminal_safe before any colour is added.
    std::string title = s.title().empty() ? "(untitled)" : terminal_safe(s.title());
    std::string when = format_iso8601_ms(h.message ? h.message->timestamp_ms : s.ended_at);
    std::printf("%s%s%s\n", bold, title.c_str(), reset);
    std::printf("%s%s · %s · %s", dim, terminal_safe(s.project).c_str(), when.c_str(), terminal_safe(s.shown_id()).c_str());
    if (r.action == "list")
      std::printf(" · %llu messages", (unsigned long long)s.message_count);
    else
      std::printf(" · %llu match%s", (unsigned long long)h.match_count, h.match_count == 1 ? "" : "es");
    if (s.source_deleted) std::printf(" · source deleted");
    std::printf("%s\n", reset);
    if (!h.snippet.empty()) std::printf("  %s\n", highlight(terminal_safe(h.snippet), h.matched_terms, color).c_str());
    std::printf("  %s%s%s\n\n", dim, terminal_safe(resume_hint(s), LineBreaks::Visible).c_str(), reset);
  }
  if (r.truncated) std::printf("%struncated: %s%s\n", dim, r.truncated_reason.c_str(), reset);
  if (r.loose_phrases)
    std::printf("%sa phrase joined by OR matched all its words in tool input, output and thinking%s\n", dim, reset);
  if (!r.ignored_words.empty()) {
    std::string words;
    for (const auto& w : r.ignored_words) words += (words.empty() ? "" : ", ") + terminal_safe(w);
    std::printf("%sleft out (no word of them is indexed: one character, or over 64 bytes): %s%s\n", dim, words.c_str(), reset);
  }
  std::printf("%s%llu of %s%llu %s · %.1f ms%s%s\n", dim, (unsigned long long)r.hits.size(), r.total_exact ? "" : "~",
              (unsigned long long)r.total,
              r.action == "list" ? "sessions" : "results", r.took_ms, r.stale ? " · index busy, may be stale" : "", reset);
}

}  // namespace osearch
