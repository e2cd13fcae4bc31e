#include "mcp/budget.h"

#include <simdjson.h>

#include <algorithm>

#include "cli/json_writer.h"

namespace osearch::mcp {
namespace {

constexpr size_t kMinStringCap = 20;
constexpr size_t kNoCap = static_cast<size_t>(-1);

// A cut at a UTF-8 character boundary, at most `cap` bytes.
std::string_view cut_utf8(std::string_view s, size_t cap) {
  size_t n = std::min(cap, s.size());
  while (n > 0 && n < s.size() && (static_cast<unsigned char>(s[n]) & 0xC0) == 0x80) --n;
  return s.substr(0, n);
}

struct Plan {
  std::string_view array_key;  // the top-level array whose tail is dropped ("" when none)
  size_t keep = kNoCap;        // elements of it kept
  size_t string_cap = kNoCap;  // strings longer than this are cut
  size_t max_chars = 0;
  size_t array_size = 0;
  mutable size_t strings_cut = 0;
};

void write_element(JsonWriter& w, simdjson::dom::element e, const Plan& plan) {
  switch (e.type()) {
    case simdjson::dom::element_type::OBJECT:
      w.begin_object();
      for (auto field : simdjson::dom::object(e)) {
        w.key(field.key);
        write_element(w, field.value, plan);
      }
      w.end_object();
      return;
    case simdjson::dom::element_type::ARRAY:
      w.begin_array();
      for (auto item : simdjson::dom::array(e)) write_element(w, item, plan);
      w.end_array();
      return;
    case simdjson::dom::element_type::STRING: {
      std::string_view s = std::string_view(e);
      if (s.size() > plan.string_cap) {
        ++plan.strings_cut;
        w.value(std::string(cut_utf8(s, plan.string_cap)) + "…");
      } else {
        w.value(s);
      }
      return;
    }
    case simdjson::dom::element_type::INT64: w.value(int64_t(e)); return;
    case simdjson::dom::element_type::UINT64: w.value(uint64_t(e)); return;
    case simdjson::dom::element_type::DOUBLE: w.value(double(e)); return;
    case simdjson::dom::element_type::BOOL: w.value(bool(e)); return;
    case simdjson::dom::element_type::NULL_VALUE: w.null(); return;
  }
}

std::string rebuild(simdjson::dom::object top, const Plan& plan) {
  plan.strings_cut = 0;
  JsonWriter w;
  w.begin_object();
  for (auto field : top) {
    if (field.key == "truncated" || field.key == "truncation") continue;  // written below
    w.key(field.key);
    uint64_t returned = 0;
    if (field.key == "returned" && plan.keep < plan.array_size && !field.value.get_uint64().get(returned) &&
        returned == plan.array_size) {
      w.value(static_cast<uint64_t>(plan.keep));  // what the result now holds
    } else if (field.key == plan.array_key) {
      w.begin_array();
      size_t i = 0;
      for (auto item : simdjson::dom::array(field.value)) {
        if (i++ >= plan.keep) break;
        write_element(w, item, plan);
      }
      w.end_array();
    } else {
      write_element(w, field.value, plan);
    }
  }
  w.key("truncated"); w.value(true);
  w.key("truncation");
  w.begin_object();
  w.key("max_result_chars"); w.value(static_cast<uint64_t>(plan.max_chars));
  const size_t dropped = plan.array_key.empty() ? 0 : plan.array_size - std::min(plan.keep, plan.array_size);
  w.key("dropped"); w.value(static_cast<uint64_t>(dropped));
  w.key("from"); w.value(plan.array_key);
  w.key("strings_cut"); w.value(static_cast<uint64_t>(plan.strings_cut));
  w.key("string_cap");
  if (plan.string_cap == kNoCap) w.null();
  else w.value(static_cast<uint64_t>(plan.string_cap));
  w.end_object();
  w.end_object();
  return w.take();
}

// The largest n in [lo, hi] with fits(n), assuming fits is monotonic; lo - 1 when none.
template <typename Fits>
size_t largest_fitting(size_t lo, size_t hi, Fits&& fits) {
  size_t best = lo - 1;
  while (lo <= hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (fits(mid)) {
      best = mid;
      lo = mid + 1;
    } else {
      if (mid == 0) break;
      hi = mid - 1;
    }
  }
  return best;
}

size_t longest_string(simdjson::dom::element e) {
  size_t n = 0;
  if (e.is_string()) return std::string_view(e).size();
  if (e.is_array())
    for (auto item : simdjson::dom::array(e)) n = std::max(n, longest_string(item));
  if (e.is_object())
    for (auto field : simdjson::dom::object(e)) n = std::max(n, longest_string(field.value));
  return n;
}

}  // namespace

std::string fit_result(std::string_view json, size_t max_chars) {
  if (max_chars == 0 || json.size() <= max_chars) return std::string(json);
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  simdjson::dom::object top;
  if (parser.parse(json.data(), json.size()).get(doc) || doc.get_object().get(top)) return std::string(json);

  Plan plan;
  plan.max_chars = max_chars;
  size_t biggest = 0;
  for (auto field : top) {
    if (!field.value.is_array()) continue;
    const size_t size = simdjson::minify(field.value).size();
    if (size > biggest) {
      biggest = size;
      plan.array_key = field.key;
      plan.array_size = simdjson::dom::array(field.value).size();
    }
  }
  auto fits = [&](const Plan& p) { return rebuild(top, p).size() <= max_chars; };
  if (!plan.array_key.empty()) {
    const size_t keep = largest_fitting(1, plan.array_size, [&](size_t k) {
      Plan p = plan;
      p.keep = k;
      return fits(p);
    });
    if (keep >= 1) {  // largest_fitting answers 0 when none fits
      plan.keep = keep;
      return rebuild(top, plan);
    }
    plan.keep = std::min<size_t>(1, plan.array_size);
  }
  // Not even one element whole: cut long strings to the longest common length that fits.
  const size_t longest = longest_string(doc);
  const size_t cap = largest_fitting(kMinStringCap, std::max(longest, kMinStringCap), [&](size_t c) {
    Plan p = plan;
    p.string_cap = c;
    return fits(p);
  });
  if (cap >= kMinStringCap) {
    plan.string_cap = cap;
    return rebuild(top, plan);
  }
  plan.keep = 0;  // best effort: nothing of the array, the shortest strings
  plan.string_cap = kMinStringCap;
  return rebuild(top, plan);
}

}  // namespace osearch::mcp
