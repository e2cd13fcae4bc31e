#include "cli/verbatim_args.h"

#include <CLI/CLI.hpp>

#include <charconv>

#include "cli/options.h"

namespace osearch {
namespace {

// A byte that no bracket list ends with. Its value does not matter for correctness (values that end
// in it are marked too); a control byte keeps marked text unlike anything typed.
constexpr char kMark = '\x1f';

// More arguments than any command line holds (ARG_MAX bounds argv far below this).
constexpr int kOpenEndedMinimum = 1 << 24;

bool needs_mark(const std::string& s) { return !s.empty() && (s.back() == ']' || s.back() == kMark); }

void add_transform(CLI::Option* opt) {
  const bool takes_value = opt->get_expected_max() > 0;
  const bool positional = !opt->nonpositional();
  // One value per occurrence ("repeatable"): `list --project a b` must not read b as a second project.
  if (takes_value && !positional) opt->allow_extra_args(false);
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

std::vector<std::string> protect_arguments(int argc, const char* const* argv) {
  std::vector<std::string> args;
  for (int i = argc - 1; i >= 1; --i) {
    args.emplace_back(argv[i]);
    if (needs_mark(args.back())) args.back().push_back(kMark);
  }
  return args;
}

void restore_verbatim_values(CLI::App& app) { walk(app); }

std::string unmark_message(std::string message) {
  std::string out;
  out.reserve(message.size());
  for (size_t i = 0; i < message.size(); ++i) {
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
