// Global options (SPEC §2, §3): where the index and the sources are, how to print, and the errors
// every command reports the same way.
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

#include "cli/json_writer.h"
#include "engine/index/indexer.h"
#include "engine/query/query.h"

namespace osearch {

enum class Format { Json, Jsonl, Text };

struct GlobalOptions {
  std::string index;
  std::vector<std::string> sources;  // KIND=DIR
  std::string format;                // json|jsonl|text; empty = text on a terminal, else json
  bool no_refresh = false;
  bool quiet = false;
  bool verbose = false;
};

class IndexReader;
struct Context;

// Where a query command gets its open index: the CLI refreshes and opens one per command; `osearch
// mcp` keeps one open across calls (mcp/reader_cache.h).
class ReaderSource {
 public:
  virtual ~ReaderSource() = default;
  // Refreshes (unless ctx.no_refresh) and returns the reader to answer from, valid until the next call.
  virtual IndexReader& open(const Context& ctx, uint64_t& refreshed_files, bool& stale) = 0;
};

struct Context {
  std::string index_dir;
  std::vector<SourceRoot> roots;
  Format format = Format::Json;
  bool stdout_tty = false;
  bool stderr_tty = false;
  bool no_refresh = false, quiet = false, verbose = false;
  // JSON and JSON Lines results are appended here when set (`osearch mcp`), else written to stdout.
  // Text output always goes to stdout.
  std::string* output = nullptr;
  ReaderSource* readers = nullptr;  // null: refresh and open a reader per command
  // What a query's refresh warns of (a root that lists nothing over indexed transcripts) is added
  // here when set, besides stderr: `osearch mcp` and `osearch serve`, whose stderr is not what the
  // agent or the page sees.
  std::vector<std::string>* warnings = nullptr;
};

// A JSON result (one or more lines) and its final newline, to ctx.output or stdout.
void write_output(const Context& ctx, std::string_view text);
// The writer of a result that ends with write_output(ctx, w.str()): on stdout it streams as it
// grows; for ctx.output (`osearch mcp`, which bounds the whole text) it holds everything.
JsonWriter output_writer(const Context& ctx);

// The last line of a JSON Lines result: {"summary":{…}}, the fields `envelope(w)` writes (those of
// the JSON result's envelope, so that either format reports the same totals and limits).
template <typename Envelope>
void write_jsonl_summary(JsonWriter& w, Envelope&& envelope) {
  w.begin_object();
  w.key("summary");
  w.begin_object();
  envelope(w);
  w.end_object();
  w.end_object();
}

// A result that is a list. JSON: {envelope…, "<key>":[items]}; JSON Lines: an item a line, then
// the summary.
template <typename Items, typename Envelope, typename WriteItem>
void print_listing(const Context& ctx, std::string_view key, const Items& items, Envelope&& envelope,
                   WriteItem&& write_item) {
  JsonWriter w = output_writer(ctx);
  if (ctx.format == Format::Jsonl) {
    for (const auto& item : items) write_item(w, item);
    write_jsonl_summary(w, envelope);
  } else {
    w.begin_object();
    envelope(w);
    w.key(key);
    w.begin_array();
    for (const auto& item : items) write_item(w, item);
    w.end_array();
    w.end_object();
  }
  write_output(ctx, w.str());
}

// Bad input is exit code 2 (engine/query/query.h); the CLI raises the same type for usage errors.
using UsageError = BadInput;

Context resolve_context(const GlobalOptions& options);

// Prints an error the way SPEC §5 asks: text on stderr, plus {"error":{…}} with --format json.
void report_error(const Context* ctx, const std::string& kind, const std::string& message);
// The line report_error writes (without its newline).
std::string error_line(const Context* ctx, const std::string& kind, const std::string& message);

}  // namespace osearch
