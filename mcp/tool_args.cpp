#include "mcp/tool_args.h"

#include <cmath>

#include "engine/query/query.h"

namespace osearch::mcp {
namespace {

const char* type_name(simdjson::dom::element e) {
  switch (e.type()) {
    case simdjson::dom::element_type::ARRAY: return "an array";
    case simdjson::dom::element_type::OBJECT: return "an object";
    case simdjson::dom::element_type::INT64:
    case simdjson::dom::element_type::UINT64: return "an integer";
    case simdjson::dom::element_type::DOUBLE: return "a number";
    case simdjson::dom::element_type::STRING: return "a string";
    case simdjson::dom::element_type::BOOL: return "a boolean";
    default: return "null";
  }
}

[[noreturn]] void wrong_type(std::string_view tool, const Param& p, const char* wanted, simdjson::dom::element got) {
  throw BadInput("usage", std::string(tool) + ": argument '" + std::string(p.name) + "' must be " + wanted + ", got " +
                              type_name(got));
}

Value read_value(std::string_view tool, const Param& p, simdjson::dom::element e) {
  Value v;
  switch (p.type) {
    case ParamType::String: {
      std::string_view s;
      if (e.get_string().get(s)) wrong_type(tool, p, "a string", e);
      v.text = std::string(s);
      if (!p.choices.empty()) {
        bool known = false;
        std::string names;
        for (auto c : p.choices) {
          known = known || c == s;
          names += (names.empty() ? "" : ", ") + std::string(c);
        }
        if (!known)
          throw BadInput("usage", std::string(tool) + ": argument '" + std::string(p.name) + "' must be one of " +
                                      names + ", got '" + v.text + "'");
      }
      return v;
    }
    case ParamType::Strings: {
      std::string_view s;
      if (!e.get_string().get(s)) {
        v.list.emplace_back(s);
        return v;
      }
      simdjson::dom::array items;
      if (e.get_array().get(items)) wrong_type(tool, p, "a string or an array of strings", e);
      for (simdjson::dom::element item : items) {
        if (item.get_string().get(s)) wrong_type(tool, p, "a string or an array of strings", item);
        v.list.emplace_back(s);
      }
      return v;
    }
    case ParamType::Integer: {
      int64_t i;
      uint64_t u;
      double d;
      if (!e.get_int64().get(i)) v.text = std::to_string(i);
      else if (!e.get_uint64().get(u)) v.text = std::to_string(u);
      else if (!e.get_double().get(d) && std::isfinite(d) && d == std::floor(d) && std::fabs(d) < 9e15)
        v.text = std::to_string(static_cast<int64_t>(d));  // 5.0 is an integer in JSON Schema
      else wrong_type(tool, p, "an integer", e);
      return v;
    }
    case ParamType::Number: {
      double d;
      if (e.get_double().get(d)) {
        int64_t i;
        if (e.get_int64().get(i)) wrong_type(tool, p, "a number", e);
        d = static_cast<double>(i);
      }
      v.number = d;
      return v;
    }
    case ParamType::Boolean:
      if (e.get_bool().get(v.flag)) wrong_type(tool, p, "a boolean", e);
      return v;
  }
  return v;
}

}  // namespace

std::string Args::text(std::string_view name) const {
  auto it = values_.find(name);
  return it == values_.end() ? std::string() : it->second.text;
}

std::vector<std::string> Args::list(std::string_view name) const {
  auto it = values_.find(name);
  return it == values_.end() ? std::vector<std::string>() : it->second.list;
}

bool Args::flag(std::string_view name) const {
  auto it = values_.find(name);
  return it != values_.end() && it->second.flag;
}

std::optional<double> Args::number(std::string_view name) const {
  auto it = values_.find(name);
  if (it == values_.end()) return std::nullopt;
  return it->second.number;
}

Args check_arguments(std::string_view tool, const std::vector<Param>& params,
                     const std::optional<simdjson::dom::element>& arguments) {
  Args args;
  simdjson::dom::object obj;
  if (arguments && !arguments->is_null() && arguments->get_object().get(obj))
    throw BadInput("usage", std::string(tool) + ": arguments must be an object");
  std::string unknown;
  if (arguments && !arguments->is_null()) {
    for (auto field : obj) {
      const Param* p = nullptr;
      for (const auto& candidate : params)
        if (candidate.name == field.key) p = &candidate;
      if (!p) {
        unknown += (unknown.empty() ? "'" : ", '") + std::string(field.key) + "'";
        continue;
      }
      if (field.value.is_null()) continue;  // null: as if absent
      args.set(p->name, read_value(tool, *p, field.value));
    }
  }
  if (!unknown.empty()) {
    std::string known;
    for (const auto& p : params) known += (known.empty() ? "" : ", ") + std::string(p.name);
    throw BadInput("usage", std::string(tool) + ": unknown argument" + (unknown.find(',') == std::string::npos ? " " : "s ") +
                                unknown + " (known: " + known + ")");
  }
  for (const auto& p : params)
    if (p.required && !args.has(p.name))
      throw BadInput("usage", std::string(tool) + ": argument '" + std::string(p.name) + "' is required");
  return args;
}

void write_input_schema(JsonWriter& w, const std::vector<Param>& params) {
  w.begin_object();
  w.key("type"); w.value("object");
  w.key("properties");
  w.begin_object();
  for (const auto& p : params) {
    w.key(p.name);
    w.begin_object();
    switch (p.type) {
      case ParamType::String:
        w.key("type"); w.value("string");
        if (!p.choices.empty()) {
          w.key("enum");
          w.begin_array();
          for (auto c : p.choices) w.value(c);
          w.end_array();
        }
        break;
      case ParamType::Strings:
        w.key("anyOf");
        w.begin_array();
        w.begin_object(); w.key("type"); w.value("string"); w.end_object();
        w.begin_object();
        w.key("type"); w.value("array");
        w.key("items"); w.begin_object(); w.key("type"); w.value("string"); w.end_object();
        w.end_object();
        w.end_array();
        break;
      case ParamType::Integer: w.key("type"); w.value("integer"); break;
      case ParamType::Number: w.key("type"); w.value("number"); break;
      case ParamType::Boolean: w.key("type"); w.value("boolean"); break;
    }
    w.key("description"); w.value(p.description);
    w.end_object();
  }
  w.end_object();
  w.key("required");
  w.begin_array();
  for (const auto& p : params)
    if (p.required) w.value(p.name);
  w.end_array();
  w.key("additionalProperties"); w.value(false);
  w.end_object();
}

}  // namespace osearch::mcp
