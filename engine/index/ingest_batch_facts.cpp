// What an IngestBatch is told about a session besides its messages: facts (titles, the last prompt,
// turn durations, usage) and Claude Code's summaries, which title the session their leaf uuid ends.
#include <algorithm>

#include "engine/index/ingest_batch.h"
#include "engine/store/codec.h"
#include "engine/store/session_numbers.h"
#include "ingest/bounded_id.h"
#include "ingest/source_file.h"

namespace osearch {

void IngestBatch::apply_fact(TouchedSession& ts, const SessionFact& f) {
  SessionRec& s = ts.rec;
  switch (f.kind) {
    case SessionFact::Kind::CustomTitle: s.replace_title(s.custom_title, f.text); break;
    case SessionFact::Kind::AiTitle: s.replace_title(s.ai_title, f.text); break;
    case SessionFact::Kind::LastPrompt: s.last_prompt = f.text; break;
    case SessionFact::Kind::AwaySummary: s.away_summary = f.text; break;
    case SessionFact::Kind::TurnDuration: turn_durations_.emplace_back(s.id, f.ref_uuid, f.value); break;
    case SessionFact::Kind::Summary: break;  // resolved through its leaf uuid
    case SessionFact::Kind::Usage: {
      count_fact_usage(s, f);
      if (!f.text.empty()) s.add_model(f.text);
      break;
    }
  }
}

void IngestBatch::add_fact(const SourceFile& file, const std::string& sid, SessionFact& f, uint64_t line_offset) {
  if (f.kind == SessionFact::Kind::Summary) {
    resolve_summary_leaf(f.ref_uuid, file.project, f.text, file, line_offset);
    return;
  }
  // Titles in subagent files describe the subagent, not the session (their tokens are the session's).
  if (is_subagent_kind(file.kind) && f.kind != SessionFact::Kind::TurnDuration && f.kind != SessionFact::Kind::Usage)
    return;
  if (TouchedSession* s = find_session(sid)) {
    apply_fact(*s, f);
  } else {
    // The session's first message may come later in the file. A title-like fact replaces an earlier
    // one of its kind (the last one wins anyway), so facts without messages cannot pile up.
    auto& early = early_facts_[sid];
    auto same = std::find_if(early.begin(), early.end(), [&](const SessionFact& e) {
      return e.kind == f.kind && f.kind != SessionFact::Kind::TurnDuration && f.kind != SessionFact::Kind::Usage;
    });
    if (same != early.end())
      *same = std::move(f);
    else
      early.push_back(std::move(f));
  }
}

// A leaf summary value: project \0 rank(12 bytes: file tag, line offset) text. Of several summaries
// for one session, the one written last (highest rank) titles it, whatever order files are read in.
void IngestBatch::apply_summary(SessionRec& s, std::string_view value) {
  size_t z = value.find('\0');
  if (z == std::string_view::npos || value.size() < z + 13 || value.substr(0, z) != s.project) return;
  std::string_view rank = value.substr(z + 1, 12);
  if (!s.summary_rank.empty() && rank < std::string_view(s.summary_rank)) return;
  s.summary_rank = std::string(rank);
  s.summary_title = std::string(value.substr(z + 13));
}

void IngestBatch::resolve_summary_leaf(const std::string& leaf, const std::string& project, const std::string& text,
                                       const SourceFile& file, uint64_t line_offset) {
  if (leaf.empty() || text.empty()) return;
  std::string value = project;
  value.push_back('\0');
  put_be32(value, file_tag(file.path));
  put_be64(value, line_offset);
  value.append(text);
  std::string_view rank = std::string_view(value).substr(project.size() + 1, 12);
  auto keep_existing = [&](std::string_view old) {
    size_t z = old.find('\0');
    return z != std::string_view::npos && old.size() >= z + 13 && old.substr(z + 1, 12) > rank;
  };
  // Per (leaf, project): a copied project repeats the uuids, and each copy keeps its own titles.
  const std::string leaf_key = pair_key(leaf, project);
  if (auto it = leaf_summaries_.find(leaf_key); it != leaf_summaries_.end()) {
    if (keep_existing(it->second)) return;
  } else if (auto v = reader().get(store_.db().leaf_summary, leaf_key); v && keep_existing(*v)) {
    return;
  }
  leaf_summaries_[leaf_key] = value;
  const std::string stored_uuid = bounded_id(leaf);  // as messages keep it
  std::vector<std::string> sids;
  if (auto it = sessions_by_uuid_.find(stored_uuid); it != sessions_by_uuid_.end()) sids = it->second;
  // Stored before this batch: in the batch whose shards are being written, or in a committed
  // message database (found by its uuid term, confirmed in msg_uuid).
  std::vector<std::string> stored;
  if (in_flight_)
    for (const auto& pm : in_flight_->messages)
      if (pm.rec.uuid == stored_uuid) stored.push_back(pm.rec.session_id);
  for (auto& sid : xapian_.committed_sessions_with_uuid(layout_, stored_uuid)) stored.push_back(std::move(sid));
  for (auto& sid : stored)
    if (std::find(sids.begin(), sids.end(), sid) == sids.end() &&
        find_message_key(reader(), store_.db(), sid, stored_uuid))
      sids.push_back(std::move(sid));
  for (const auto& sid : sids)
    if (TouchedSession* s = find_session(sid)) apply_summary(s->rec, value);
}

}  // namespace osearch
