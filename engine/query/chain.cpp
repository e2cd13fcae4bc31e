// `context` and `trace`: from one message back along its parent links (`parentUuid`, and
// `logicalParentUuid` where a compaction cut the parent link), inside the session that holds it.
// Every hop is one `msg_uuid` lookup (find_message_key); the walk is bounded and stops at a uuid it has seen.
#include <algorithm>
#include <unordered_set>

#include "engine/query/thread.h"
#include "engine/store/index_damage.h"
#include "engine/store/session_numbers.h"
#include "ingest/bounded_id.h"

namespace osearch {
namespace {

struct Located {
  std::string session_id, key;
};

// Every session holding the uuid (forks and resumes copy history), in session id order, or the one
// `session` names. Without a session the candidates are the sessions whose message documents carry
// the uuid term, plus those of a batch whose documents are not listed yet (meta kInFlight); each is
// confirmed by its `msg_uuid` entry (find_message_key).
std::vector<Located> locate(const IndexReader& reader, std::string_view uuid, const std::string& session) {
  if (uuid.empty()) throw BadInput("unknown-message", "no message uuid given");
  std::string only;
  if (!session.empty()) only = resolve_session(reader, session).id;
  const std::string stored_uuid = bounded_id(uuid);
  std::vector<std::string> candidates;
  if (!only.empty()) {
    candidates.push_back(only);
  } else {
    candidates = sessions_with_uuid_term(reader.xapian(), stored_uuid);
    if (auto v = reader.txn().get(reader.db().meta, meta_key::kInFlight))
      for (auto& sid : XapianLayout::decode_shards(*v)) candidates.push_back(std::move(sid));
    std::sort(candidates.begin(), candidates.end());
    candidates.erase(std::unique(candidates.begin(), candidates.end()), candidates.end());
  }
  std::vector<Located> out;
  for (auto& sid : candidates)
    if (auto key = find_message_key(reader.txn(), reader.db(), sid, stored_uuid))
      out.push_back({std::move(sid), std::string(*key)});
  if (out.empty())
    throw BadInput("unknown-message", "no message " + std::string(uuid) + (only.empty() ? "" : " in session " + session));
  return out;
}

MessageRec load(const IndexReader& reader, const std::string& key) {
  auto m = reader.message(key);
  if (!m) throw IndexDamaged("records", "msg_uuid names a message that is not stored");
  return std::move(*m);
}

SessionRec load_session(const IndexReader& reader, const std::string& sid) {
  auto s = reader.session(sid);
  if (!s) throw IndexDamaged("records", "a message's session " + sid + " is not stored");
  return std::move(*s);
}

// Ancestors of `start`, nearest first.
Chain walk_back(const IndexReader& reader, const MessageRec& start, size_t depth, size_t max_chars) {
  Chain chain;
  const std::string sid = session_of_message_key(start.key);
  // Every hop stays in the session: its msg_uuid range, found once.
  const std::optional<uint32_t> number = find_session_number(reader.txn(), reader.db(), sid);
  auto stored = [&](std::string_view uuid) -> std::optional<std::string_view> {
    if (!number) return std::nullopt;
    return find_message_key(reader.txn(), reader.db(), *number, uuid);
  };
  std::unordered_set<std::string> seen{start.uuid};
  MessageRec at = start;
  for (;;) {
    // The parent when it is stored; else the logical parent a compaction boundary names.
    std::optional<std::string_view> key;
    std::string next;
    ChainLink via = ChainLink::Parent;
    if (!at.parent_uuid.empty()) {
      next = at.parent_uuid;
      key = stored(next);
    }
    if (!key && !at.logical_parent_uuid.empty()) {
      next = at.logical_parent_uuid;
      via = ChainLink::LogicalParent;
      key = stored(next);
    }
    if (next.empty()) {
      chain.end = ChainEnd::Root;
      break;
    }
    if (!key) {
      chain.end = ChainEnd::MissingParent;
      chain.missing_uuid = at.parent_uuid.empty() ? next : at.parent_uuid;
      break;
    }
    if (!seen.insert(next).second) {
      chain.end = ChainEnd::Cycle;
      chain.missing_uuid = next;
      break;
    }
    if (chain.steps.size() >= depth) {
      chain.end = ChainEnd::DepthLimit;
      break;
    }
    MessageRec parent = load(reader, std::string(*key));
    at = parent;
    chain.steps.push_back({load_message_view(reader, std::move(parent), max_chars), via});
  }
  return chain;
}

}  // namespace

const char* chain_end_name(ChainEnd e) {
  switch (e) {
    case ChainEnd::Root: return "root";
    case ChainEnd::MissingParent: return "missing-parent";
    case ChainEnd::Cycle: return "cycle";
    case ChainEnd::DepthLimit: return "depth-limit";
  }
  return "root";
}

ContextResult run_context(const IndexReader& reader, std::string_view uuid, const ContextOptions& o) {
  ContextResult r;
  r.uuid = std::string(uuid);
  for (const auto& at : locate(reader, uuid, o.session)) {
    ContextMatch m;
    m.session = load_session(reader, at.session_id);
    MessageRec rec = load(reader, at.key);
    m.ancestors = walk_back(reader, rec, o.depth, o.max_chars);
    const std::string agent_id = rec.agent_id;
    const std::vector<std::string> ids = rec.tool_call_ids;
    m.message = load_message_view(reader, std::move(rec), o.max_chars);
    if (!agent_id.empty()) {
      if (auto v = reader.txn().get(reader.db().subagents, pair_key(at.session_id, agent_id))) {
        m.subagent = SubagentRec::decode(*v);
        if (!m.subagent) throw IndexDamaged("records", "a subagent record does not decode (a damaged page)");
      }
    }
    // The workflow run the message's agent belongs to, or the run a Workflow tool result launched:
    // the session's runs are few, so they are read from its key range of `workflows`.
    const std::string prefix = bounded_id(at.session_id) + '\0';
    LmdbCursor cur(reader.txn(), reader.db().workflows);
    for (bool ok = cur.seek(prefix); ok && cur.key().starts_with(prefix) && !m.workflow; ok = cur.next()) {
      auto wf = WorkflowRec::decode(cur.value());
      if (!wf) throw IndexDamaged("records", "a workflow record does not decode (a damaged page)");
      if (!agent_id.empty()) {
        if (auto v = reader.txn().get(reader.db().workflow_agents, pair_key(wf->run_id, agent_id))) {
          m.workflow_agent = WorkflowAgentRec::decode(*v);
          m.workflow = std::move(wf);
          continue;
        }
      }
      if (!wf->parent_tool_use_id.empty() && std::find(ids.begin(), ids.end(), wf->parent_tool_use_id) != ids.end())
        m.workflow = std::move(wf);
    }
    r.matches.push_back(std::move(m));
  }
  return r;
}

TraceResult run_trace(const IndexReader& reader, std::string_view uuid, const ContextOptions& o) {
  TraceResult r;
  r.uuid = std::string(uuid);
  for (const auto& at : locate(reader, uuid, o.session)) {
    TraceMatch m;
    m.session = load_session(reader, at.session_id);
    MessageRec rec = load(reader, at.key);
    m.chain = walk_back(reader, rec, o.depth, o.max_chars);
    // Root first, the message itself last; each step's `via` becomes the link from it to the step
    // before it (its parent), which is the link the walk followed to reach that step.
    std::reverse(m.chain.steps.begin(), m.chain.steps.end());
    m.chain.steps.push_back({load_message_view(reader, std::move(rec), o.max_chars), ChainLink::Parent});
    for (size_t j = m.chain.steps.size(); j-- > 1;) m.chain.steps[j].via = m.chain.steps[j - 1].via;
    m.chain.steps.front().via = ChainLink::Parent;
    r.matches.push_back(std::move(m));
  }
  return r;
}

}  // namespace osearch
