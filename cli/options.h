// Global options (SPEC §2, §3): where the index and the sources are, how to print, and the errors
// every command reports the same way.
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

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

struct Context {
  std::string index_dir;
  std::vector<SourceRoot> roots;
  Format format = Format::Json;
  bool stdout_tty = false;
  bool stderr_tty = false;
  bool no_refresh = false, quiet = false, verbose = false;
};

// Bad input is exit code 2 (engine/query/query.h); the CLI raises the same type for usage errors.
using UsageError = BadInput;

Context resolve_context(const GlobalOptions& options);

// Prints an error the way SPEC §5 asks: text on stderr, plus {"error":{…}} with --format json.
void report_error(const Context* ctx, const std::string& kind, const std::string& message);
// The line report_error writes (without its newline).
std::string error_line(const Context* ctx, const std::string& kind, const std::string& message);

}  // namespace osearch
