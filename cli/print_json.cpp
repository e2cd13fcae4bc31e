#include <cstdio>

#include "cli/print_memory.h"
#include "cli/printers.h"
#include "ingest/timeutil.h"

namespace osearch {
namespace {

void write_hit(JsonWriter& w, const QueryResult& r, const Hit& h) {
  if (h.memory) return write_memory_hit(w, h);
  const SessionRec& s = h.session;
  const bool is_list = r.action == "list";
  w.begin_object();
  w.key("session_id"); w.value(s.shown_id());
  w.key("agent"); w.value(s.agent);
  w.key("project"); w.value(s.project);
  w.key("project_path"); w.value(s.project_path);
  w.key("cwd"); w.value(hit_cwd(h));
  w.key("git_branch"); w.value(h.message && !h.message->git_branch.empty() ? h.message->git_branch : s.git_branch);
  w.key("time"); time_or_null(w, h.message ? h.message->timestamp_ms : s.ended_at);
  w.key("started_at"); time_or_null(w, s.started_at);
  w.key("ended_at"); time_or_null(w, s.ended_at);
  w.key("title"); w.value(s.title());
  w.key("summary"); w.value(session_summary(s));
  if (!is_list) {
    w.key("snippet"); w.value(h.snippet);
    w.key("matched_terms");
    w.begin_array();
    for (const auto& t : h.matched_terms) w.value(t);
    w.end_array();
    w.key("message_uuid");
    if (h.message) w.value(h.message->uuid); else w.null();
    w.key("role");
    if (h.message) w.value(role_name(h.message->role)); else w.value("system");
    w.key("content_type");
    if (h.message) w.value(content_type_name(h.message->content_type)); else w.value("summary");
    w.key("score"); w.value(h.score);
    w.key("match_count"); w.value(h.match_count);
  }
  w.key("path"); w.value(s.jsonl_path);
  w.key("message_count"); w.value(s.message_count);
  if (is_list) {
    w.key("models");
    w.begin_array();
    for (const auto& m : s.models) w.value(m);
    w.end_array();
    w.key("tokens");
    w.begin_object();
    w.key("input"); w.value(s.tokens.input);
    w.key("output"); w.value(s.tokens.output);
    w.key("cache_creation"); w.value(s.tokens.cache_creation);
    w.key("cache_read"); w.value(s.tokens.cache_read);
    w.end_object();
    w.key("tool_call_count"); w.value(s.tool_call_count);
    w.key("subagent_count"); w.value(s.subagent_count);
    w.key("version"); w.value(s.version);
  }
  w.key("source_deleted"); w.value(s.source_deleted);
  w.key("resume_hint"); w.value(resume_hint(s));
  w.end_object();
}

void write_envelope_fields(JsonWriter& w, const QueryResult& r) {
  w.key("action"); w.value(r.action);
  w.key("query");
  if (r.action == "list") w.null(); else w.value(r.query);
  if (r.action == "content") {
    w.key("patterns");
    w.begin_array();
    for (const auto& p : r.patterns) w.value(p);
    w.end_array();
  }
  w.key("total"); w.value(r.total);
  w.key("total_exact"); w.value(r.total_exact);
  w.key("returned"); w.value(static_cast<uint64_t>(r.hits.size()));
  w.key("truncated"); w.value(r.truncated);
  if (r.truncated) {
    w.key("truncated_reason"); w.value(r.truncated_reason);
  }
  if (r.loose_phrases) {
    w.key("loose_phrases"); w.value(true);
  }
  if (!r.ignored_words.empty()) {
    w.key("ignored_words");
    w.begin_array();
    for (const auto& word : r.ignored_words) w.value(word);
    w.end_array();
  }
  w.key("took_ms"); w.value(r.took_ms);
  w.key("index");
  w.begin_object();
  w.key("sessions"); w.value(r.counts.sessions);
  w.key("messages"); w.value(r.counts.messages);
  w.key("refreshed_files"); w.value(r.refreshed_files);
  w.key("stale"); w.value(r.stale);
  w.end_object();
}

}  // namespace

std::string hit_cwd(const Hit& h) {
  if (h.message && !h.message->cwd.empty()) return h.message->cwd;
  return h.session.cwd.empty() ? h.session.project_path : h.session.cwd;
}

std::string session_summary(const SessionRec& s) {
  if (!s.away_summary.empty()) return s.away_summary;
  return s.summary_title;
}

void write_session_json(JsonWriter& w, const SessionRec& s) {
  QueryResult list;
  list.action = "list";
  Hit h;
  h.session = s;
  write_hit(w, list, h);
}

void print_json(const Context& ctx, const QueryResult& r) {
  print_listing(
      ctx, "results", r.hits, [&](JsonWriter& w) { write_envelope_fields(w, r); },
      [&](JsonWriter& w, const Hit& h) { write_hit(w, r, h); });
}

}  // namespace osearch
