// Arguments reach the engine byte for byte.
//
// CLI11 2.1 reads a value "[a,b]" as the list {a, b} for every option that may take several values,
// positionals included (Option::_add_result splits when allow_extra_args is set and the value
// starts with '[' and ends with ']'): `content '[0-9]'` searched "0-9". CLI11 has no switch for
// this, so main() marks every argument that ends in ']' before parsing (a value that ends in a
// mark is never a bracket list) and a transform on every option takes the mark off again.
// Values ending in the mark itself get one too, so the round trip is exact for any bytes.
//
// `keyword`'s query language has `-term` (NOT), but CLI11 reads `keyword hook -dain` as options
// (`-dain` an unknown one; `-handling` as -h, printing help and exiting 0). A word of the query that
// starts with '-' and is not one of the command's short flags gets a leading mark, so CLI11 reads it
// as a word; the same transform takes it off.
#pragma once

#include <string>
#include <vector>

namespace CLI {
class App;
}

namespace osearch {

// The options a command and the apps above it accept: long names without dashes, and the letters
// of the short flags (options without a value).
struct OptionNames {
  std::vector<std::string> long_names;
  std::string short_flags;
};
OptionNames option_names(const CLI::App& cmd);

// argv[1..] with the marks added, in the reversed order CLI::App::parse(std::vector&) takes.
// `query_from` > 0: from that argv index on (up to a "--"), a word that starts with a single '-' and
// is neither a cluster of `options`' short flags nor one of its long names is a query word
// (keyword's `-term`).
std::vector<std::string> protect_arguments(int argc, const char* const* argv, int query_from = 0,
                                           const OptionNames& options = {});

// Adds the unmarking transform to every option of `app` and of its subcommands (call it after the
// last add_option). It also rejects an empty value for an option that takes one: `--index ""` or
// `--project "$UNSET"` is a mistake, not "match everything".
void restore_verbatim_values(CLI::App& app);

// A CLI11 error message with the marks taken off (it may quote a marked argument).
std::string unmark_message(std::string message);

// The value of a numeric option: decimal digits only (no sign, no 0x, no spaces), within [min, max];
// anything else throws UsageError naming the option.
size_t parse_count(const char* option, const std::string& text, size_t min, size_t max);

}  // namespace osearch
