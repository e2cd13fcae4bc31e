#include "cli/print_memory.h"

#include <cstdio>

#include "cli/terminal_text.h"
#include "ingest/timeutil.h"

namespace osearch {

void write_memory_fields(JsonWriter& w, const memory::Record& r) {
  auto opt = [&](const char* key, const std::string& v) {
    w.key(key);
    if (v.empty()) w.null(); else w.value(v);
  };
  w.key("id"); w.value(r.id);
  w.key("path"); w.value(r.path);
  w.key("project"); w.value(r.project);
  w.key("summary"); w.value(r.summary);
  opt("session_id", r.session_id);
  opt("message_start", r.message_start);
  opt("message_end", r.message_end);
  w.key("anchors");
  w.begin_array();
  for (const auto& a : r.anchors) {
    w.begin_object();
    w.key("kind"); w.value(a.kind);
    w.key("path"); w.value(a.path);
    w.key("line");
    if (a.line) w.value(a.line); else w.null();
    w.end_object();
  }
  w.end_array();
  w.key("created_at"); w.value(format_iso8601_ms(r.created_at));
  w.key("deleted_at");
  if (r.active()) w.null(); else w.value(format_iso8601_ms(r.deleted_at));
  opt("deleted_reason", r.active() ? std::string() : r.deleted_reason);
}

void write_memory_json(JsonWriter& w, const memory::Record& r) {
  w.begin_object();
  write_memory_fields(w, r);
  w.end_object();
}

void write_memory_hit(JsonWriter& w, const Hit& h) {
  const memory::Record& r = *h.memory;
  w.begin_object();
  w.key("kind"); w.value("memory");
  write_memory_fields(w, r);
  w.key("snippet"); w.value(h.snippet);
  w.key("matched_terms");
  w.begin_array();
  for (const auto& t : h.matched_terms) w.value(t);
  w.end_array();
  w.key("time"); w.value(format_iso8601_ms(r.created_at));
  w.key("content_type"); w.value("memory");
  w.key("score"); w.value(h.score);
  w.key("match_count"); w.value(h.match_count);
  w.end_object();
}

void print_memory_hit_text(const Hit& h, bool color) {
  const memory::Record& r = *h.memory;
  const char* bold = color ? "\033[1m" : "";
  const char* dim = color ? "\033[2m" : "";
  const char* reset = color ? "\033[0m" : "";
  std::printf("%smemory: %s%s\n", bold, terminal_safe(r.summary).c_str(), reset);
  std::printf("%s%s · %s · %s%s\n", dim, terminal_safe(r.project.empty() ? "-" : r.project).c_str(),
              format_iso8601_ms(r.created_at).c_str(), r.id.c_str(), reset);
  if (!h.snippet.empty()) std::printf("  %s\n", terminal_safe(h.snippet).c_str());
  std::printf("  %s%s%s\n\n", dim, terminal_safe(r.path).c_str(), reset);
}

}  // namespace osearch
