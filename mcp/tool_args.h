// A tool's input parameters: their JSON Schema (tools/list) and the check of a call's arguments
// against it. Unknown names and wrong types are errors, never ignored: a silently dropped filter
// would answer a different question.
#pragma once

#include <simdjson.h>

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cli/json_writer.h"

namespace osearch::mcp {

enum class ParamType {
  String,
  Strings,  // a string or an array of strings (a repeatable CLI option)
  Integer,  // passed on as its decimal text, checked by the CLI's own range checks
  Number,
  Boolean,
};

struct Param {
  Param(std::string_view n, ParamType t, std::string_view d, bool req = false, std::vector<std::string_view> c = {})
      : name(n), type(t), description(d), required(req), choices(std::move(c)) {}
  std::string_view name;
  ParamType type;
  std::string_view description;
  bool required = false;
  std::vector<std::string_view> choices;  // String: the allowed values (empty: any)
};

struct Value {
  std::string text;               // String, Integer (decimal)
  std::vector<std::string> list;  // Strings
  double number = 0;              // Number
  bool flag = false;              // Boolean
};

class Args {
 public:
  bool has(std::string_view name) const { return values_.find(name) != values_.end(); }
  std::string text(std::string_view name) const;  // "" when absent
  std::vector<std::string> list(std::string_view name) const;
  bool flag(std::string_view name) const;
  std::optional<double> number(std::string_view name) const;
  void set(std::string_view name, Value v) { values_[std::string(name)] = std::move(v); }

 private:
  std::map<std::string, Value, std::less<>> values_;
};

// The call's `arguments` (absent: none) checked against `params`; throws BadInput("usage", …)
// naming the argument and what was wrong.
Args check_arguments(std::string_view tool, const std::vector<Param>& params,
                     const std::optional<simdjson::dom::element>& arguments);

// {"type":"object","properties":{…},"required":[…],"additionalProperties":false}
void write_input_schema(JsonWriter& w, const std::vector<Param>& params);

}  // namespace osearch::mcp
