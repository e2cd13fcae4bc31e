#include "web/params.h"

#include "engine/query/query.h"

namespace osearch::web {

QueryParams::QueryParams(std::string_view endpoint, const Params& given, const std::vector<ParamSpec>& allowed)
    : endpoint_(endpoint) {
  std::string unknown;
  for (const auto& [name, value] : given) {
    const ParamSpec* spec = nullptr;
    for (const auto& s : allowed)
      if (s.name == name) spec = &s;
    if (!spec) {
      unknown += (unknown.empty() ? "" : ", ") + name;
      continue;
    }
    auto& values = values_[name];
    if (spec->kind != Kind::Texts && !values.empty())
      throw BadInput("usage", endpoint_ + ": parameter " + name + " was given more than once");
    if (spec->kind != Kind::Flag && value.empty())
      throw BadInput("usage", endpoint_ + ": parameter " + name + " is empty");
    values.push_back(value);
  }
  if (!unknown.empty()) {
    std::string names;
    for (const auto& s : allowed) names += (names.empty() ? "" : ", ") + std::string(s.name);
    throw BadInput("usage", endpoint_ + ": unknown parameter(s) " + unknown +
                                (names.empty() ? " (it takes none)" : " (it takes: " + names + ")"));
  }
}

std::string QueryParams::text(std::string_view name) const {
  auto it = values_.find(name);
  return it == values_.end() ? std::string() : it->second.front();
}

std::string QueryParams::required(std::string_view name) const {
  if (!has(name)) throw BadInput("usage", endpoint_ + ": parameter " + std::string(name) + " is required");
  return text(name);
}

std::vector<std::string> QueryParams::list(std::string_view name) const {
  auto it = values_.find(name);
  return it == values_.end() ? std::vector<std::string>{} : it->second;
}

bool QueryParams::flag(std::string_view name) const {
  auto it = values_.find(name);
  if (it == values_.end()) return false;
  const std::string& v = it->second.front();
  if (v.empty() || v == "1" || v == "true" || v == "yes") return true;
  if (v == "0" || v == "false" || v == "no") return false;
  throw BadInput("usage", endpoint_ + ": parameter " + std::string(name) + " must be true or false, not \"" + v + "\"");
}

std::vector<ParamSpec> with(std::vector<ParamSpec> a, std::initializer_list<ParamSpec> more) {
  a.insert(a.end(), more);
  return a;
}

std::vector<ParamSpec> scope_params() {
  return {{"project", Kind::Texts}, {"agent", Kind::Texts}, {"session", Kind::Texts}, {"since"}, {"until"},
          {"cwd"},                  {"limit"},               {"offset"}};
}

std::vector<ParamSpec> filter_params() {
  return with(scope_params(), {{"branch", Kind::Texts},
                              {"model", Kind::Texts},
                              {"role", Kind::Texts},
                              {"type", Kind::Texts},
                              {"tool", Kind::Texts},
                              {"include-meta", Kind::Flag},
                              {"snippet-chars"}});
}

std::vector<ParamSpec> stats_params() {
  return with(scope_params(), {{"model", Kind::Texts}, {"tool", Kind::Texts}, {"by"}, {"utc", Kind::Flag}});
}

}  // namespace osearch::web
