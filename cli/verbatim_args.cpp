#include "cli/verbatim_args.h"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <charconv>
#include <string_view>

#include "cli/options.h"

namespace osearch {
namespace {

// A byte that no bracket list ends with. Its value does not matter for correctness (values that end
// in it are marked too); a control byte keeps marked text unlike anything typed.
constexpr char kMark = '\x1f';

// More arguments than any command line holds (ARG_MAX bounds argv far below this).
constexpr int kOpenEndedMinimum = 1 << 24;

// Put before a query word that starts with '-' (and before any argument starting with it, for an
// exact round trip).
constexpr char kLeadMark = '\x1e';

bool needs_mark(const std::string& s) { return !s.empty() && (s.back() == ']' || s.back() == kMark); }

// A word of a query that starts with one '-' and is no option of the command: not made of its short
// flags only (keyword's -h, -q, -v: "-qv" is flags; "-dain", "-handling", "-role:user", "-5" are
// NOT words), and not one of its long names after a single dash (`-limit 5`, `-project=x`: a
// mistyped option, left to CLI11 to reject rather than searched for).
bool is_negated_word(std::string_view s, const OptionNames& names) {
  if (s.size() < 2 || s[0] != '-' || s[1] == '-') return false;
  if (s.substr(1).find_first_not_of(names.short_flags) == std::string_view::npos) return false;
  std::string_view name = s.substr(1);
  name = name.substr(0, name.find('='));
  return std::find(names.long_names.begin(), names.long_names.end(), name) == names.long_names.end();
}

void add_transform(CLI::Option* opt) {
  const bool takes_value = opt->get_expected_max() > 0;
  const bool positional = !opt->nonpositional();
  // One value per occurrence ("repeatable"): `list --project a b` must not read b as a second project.
  if (takes_value && !positional) opt->allow_extra_args(false);
  // An option of one value given twice takes the last, as in rg and git (`--limit 5 --limit 50`,
  // a wrapper's flags and then the caller's), instead of "At Most 1 required but received 2".
  if (takes_value && !positional && opt->get_expected_max() == 1) opt->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  // A list positional counts as "still wanting values" only below its minimum; at "--" CLI11 hands
  // the rest to the parent app once the minimum is met, so `keyword hook -- -dain` failed with
  // "-dain not expected". A minimum no command line reaches keeps the rest here; TakeAll skips the
  // count check that minimum would otherwise fail (required positionals are still required).
  if (positional && opt->get_expected_max() >= CLI::detail::expected_max_vector_size) {
    opt->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);  // first: it would cap the maximum at the minimum
    opt->expected(kOpenEndedMinimum, CLI::detail::expected_max_vector_size);
  }
  opt->transform(
      [takes_value, positional](std::string value) {
        if (!value.empty() && value.back() == kMark) value.pop_back();
        if (!value.empty() && value.front() == kLeadMark) value.erase(0, 1);
        if (value.empty() && takes_value && !positional) throw CLI::ValidationError("needs a value, got ''");
        return value;
      },
      "", "verbatim");
}

void walk(CLI::App& app) {
  for (CLI::Option* opt : app.get_options({})) add_transform(opt);
  for (CLI::App* sub : app.get_subcommands({})) walk(*sub);
}

}  // namespace

OptionNames option_names(const CLI::App& cmd) {
  OptionNames names;
  for (const CLI::App* app = &cmd; app != nullptr; app = app->get_parent())
    for (const CLI::Option* opt : app->get_options({})) {
      for (const std::string& n : opt->get_lnames()) names.long_names.push_back(n);
      if (opt->get_expected_max() == 0)  // a flag: it may stand in a cluster
        for (const std::string& n : opt->get_snames()) names.short_flags += n;
    }
  return names;
}

std::vector<std::string> protect_arguments(int argc, const char* const* argv, int query_from,
                                           const OptionNames& options) {
  int query_until = argc;  // a "--" ends the options; CLI11 reads what follows as words already
  if (query_from > 0)
    for (int i = query_from; i < argc; ++i)
      if (std::string_view(argv[i]) == "--") {
        query_until = i;
        break;
      }
  std::vector<std::string> args;
  for (int i = argc - 1; i >= 1; --i) {
    args.emplace_back(argv[i]);
    std::string& a = args.back();
    if (needs_mark(a)) a.push_back(kMark);
    const bool query_word = query_from > 0 && i >= query_from && i < query_until && is_negated_word(a, options);
    if (query_word || (!a.empty() && a.front() == kLeadMark)) a.insert(a.begin(), kLeadMark);
  }
  return args;
}

void restore_verbatim_values(CLI::App& app) { walk(app); }

std::string unmark_message(std::string message) {
  std::string out;
  out.reserve(message.size());
  for (size_t i = 0; i < message.size(); ++i) {
    // A lead mark is the first byte of an argument, before '-' or a lead mark of the argument's own.
    if (message[i] == kLeadMark && i + 1 < message.size() && (message[i + 1] == '-' || message[i + 1] == kLeadMark)) {
      out.push_back(message[++i]);
      continue;
    }
    // A mark is the last byte of an argument, after ']' or after a mark of the argument's own.
    const bool last_of_run = i + 1 == message.size() || message[i + 1] != kMark;
    if (message[i] == kMark && last_of_run && i > 0 && (message[i - 1] == ']' || message[i - 1] == kMark)) continue;
    out.push_back(message[i]);
  }
  return out;
}

size_t parse_count(const char* option, const std::string& text, size_t min, size_t max) {
  size_t v = 0;
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, v);
  const bool digits_only = !text.empty() && text.find_first_not_of("0123456789") == std::string::npos;
  if (!digits_only || ec != std::errc() || ptr != end || v < min || v > max)
    throw UsageError("usage", std::string(option) + " must be a whole number from " + std::to_string(min) + " to " +
                                  std::to_string(max) + ", got '" + text + "'");
  return v;
}

}  // namespace osearch
