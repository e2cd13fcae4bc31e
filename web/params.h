// A web API call's query parameters, checked against the names its endpoint takes. The names are
// the CLI's long options without `--` (`ignore-case`, `include-meta`, `snippet-chars`); a name the
// endpoint does not know, a single-valued one given twice, an empty value or a flag that is not
// true/false is a usage error naming it: a silently dropped filter would answer another question.
#pragma once

#include <initializer_list>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace osearch::web {

using Params = std::multimap<std::string, std::string>;

enum class Kind {
  Text,   // one value
  Texts,  // repeatable (a repeatable CLI option)
  Flag,   // "", 1, true, yes → true; 0, false, no → false
};

struct ParamSpec {
  std::string_view name;
  Kind kind = Kind::Text;
};

class QueryParams {
 public:
  // Throws BadInput("usage", …) naming every unknown parameter and any other misuse.
  QueryParams(std::string_view endpoint, const Params& given, const std::vector<ParamSpec>& allowed);
  bool has(std::string_view name) const { return values_.count(std::string(name)) != 0; }
  std::string text(std::string_view name) const;  // "" when absent
  std::string required(std::string_view name) const;
  std::vector<std::string> list(std::string_view name) const;
  bool flag(std::string_view name) const;

 private:
  std::string endpoint_;
  std::map<std::string, std::vector<std::string>, std::less<>> values_;
};

// Parameter lists shared by several endpoints (the CLI's option groups).
std::vector<ParamSpec> filter_params();  // keyword, content, list, files, failures
std::vector<ParamSpec> scope_params();   // subagents, workflows
std::vector<ParamSpec> stats_params();
std::vector<ParamSpec> with(std::vector<ParamSpec> a, std::initializer_list<ParamSpec> more);

}  // namespace osearch::web
