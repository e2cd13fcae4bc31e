// Maps osearch's JSON to the result shape of omp-session-store's `session_search`, so a prompt
// written for that tool reads the same fields. Fields osearch knows and the original lacks are
// added after them; none of the original's is removed or renamed.

// The original cut these two fields to these lengths; an agent may rely on the bound.
const SUMMARY_CHARS = 300;
const SNIPPET_CHARS = 500;
// The original's `list` showed the summary's start as the snippet.
const LIST_SNIPPET_CHARS = 200;

function text(value) {
  return typeof value === "string" ? value : "";
}

/** Cut to `max` characters without splitting a surrogate pair. */
function cut(value, max) {
  const chars = Array.from(value);
  return chars.length <= max ? value : chars.slice(0, max).join("");
}

/** The original's project: the last component of the working directory. */
export function projectName(cwd, fallback) {
  const trimmed = cwd.replace(/\/+$/, "");
  const last = trimmed.split("/").pop();
  if (last) return last;
  if (cwd) return cwd;
  return fallback || "(unknown)";
}

function count(value) {
  return typeof value === "number" && Number.isFinite(value) ? value : 0;
}

/** One osearch result → one original result (plus osearch's extra fields). */
export function mapResult(action, r) {
  const cwd = text(r.cwd) || text(r.project_path);
  const summary = cut(text(r.summary), SUMMARY_CHARS);
  const snippet = action === "list" ? cut(text(r.summary), LIST_SNIPPET_CHARS) : cut(text(r.snippet), SNIPPET_CHARS);
  const mapped = {
    session_id: text(r.session_id),
    project: projectName(cwd, text(r.project)),
    cwd,
    time: text(r.time) || text(r.ended_at) || text(r.started_at),
    title: text(r.title),
    summary,
    snippet,
    path: text(r.path),
    message_count: count(r.message_count),
    resume_hint: text(r.resume_hint),
    // osearch's own fields: which agent wrote the session, where its project lives, what matched.
    agent: text(r.agent),
    project_slug: text(r.project),
    project_path: text(r.project_path),
    started_at: text(r.started_at),
    ended_at: text(r.ended_at),
    source_deleted: r.source_deleted === true,
  };
  if (action !== "list") {
    mapped.message_uuid = text(r.message_uuid);
    mapped.role = text(r.role);
    mapped.content_type = text(r.content_type);
    mapped.match_count = count(r.match_count);
  }
  return mapped;
}

/**
 * The whole answer. `input` echoes the caller's parameters as the original did (an absent one is
 * left out); `total` is osearch's count of matching sessions, `returned` how many are shown.
 */
export function mapResponse(input, json) {
  const results = Array.isArray(json.results) ? json.results.map((r) => mapResult(input.action, r)) : [];
  const output = {
    action: input.action,
    query: input.query,
    project: input.project,
    since: input.since,
    until: input.until,
    agent: input.agent,
    total: count(json.total),
    returned: results.length,
    total_exact: json.total_exact !== false,
    truncated: json.truncated === true,
  };
  if (output.truncated && json.truncated_reason) output.truncated_reason = String(json.truncated_reason);
  // What the answer says of the query itself: words it could not search, phrases taken loosely.
  if (Array.isArray(json.ignored_words) && json.ignored_words.length > 0) output.ignored_words = json.ignored_words.map(String);
  if (json.loose_phrases === true) output.loose_phrases = true;
  if (json.index && json.index.stale === true) output.stale = true;
  // The original answered an empty search with this message; keep it for prompts that look for it.
  if (results.length === 0) output.message = "No sessions found matching the criteria";
  output.results = results;
  return output;
}
