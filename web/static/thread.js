// The thread view: a session's messages in order, fetched a page at a time and rendered a chunk per
// animation frame (a 2,000-message session stays responsive); tool calls collapsible with their
// results, edits as diffs, long outputs folded, subagent messages marked, deep links to a message.
import { api, el, clear, when, number, errorBox, copyText } from './util.js';
import { diffOf } from './diff.js';

const FIRST_PAGE = 100;  // the first call small: the top of the thread shows sooner
const PAGE = 400;        // messages per API call after it
const CHUNK = 40;        // messages rendered per frame
const FOLD_LINES = 30;   // longer texts are folded
const FOLD_CHARS = 4000;

function folded(text, cls) {
  const lines = text.split('\n');
  if (lines.length <= FOLD_LINES && text.length <= FOLD_CHARS) return el('pre', { class: cls }, text);
  const head = lines.slice(0, 12).join('\n').slice(0, 1500);
  return el('div', { class: 'fold' },
    el('pre', { class: cls }, head),
    el('details', { class: 'more-text' },
      el('summary', {}, `show all (${number(lines.length)} lines, ${number(text.length)} chars)`),
      el('pre', { class: cls }, text)));
}

function toolSummary(call) {
  let detail = call.file_path || '';
  if (!detail) {
    try {
      const input = JSON.parse(call.input_json || '{}');
      detail = input.command || input.cmd || input.pattern || input.query || input.url || input.description || '';
      if (Array.isArray(detail)) detail = detail.join(' ');
    } catch { /* the raw input is shown below */ }
  }
  detail = String(detail).split('\n')[0].slice(0, 160);
  return el('summary', {},
    el('span', { class: 'tool-name' }, call.name),
    detail ? el('span', { class: 'tool-detail' }, ' ' + detail) : null,
    call.result && call.result.is_error ? el('span', { class: 'tool-error-tag' }, ' failed') : null);
}

function toolInput(call) {
  const diff = diffOf(call);
  if (diff) return diff;
  let text = call.input_json || '';
  try { text = JSON.stringify(JSON.parse(text), null, 2); } catch { /* not JSON: as written */ }
  return folded(text, 'tool-input');
}

function toolCall(call) {
  const result = call.result
    ? el('div', { class: 'tool-result' + (call.result.is_error ? ' is-error' : '') },
      el('div', { class: 'label' }, call.result.is_error ? 'error' : 'result'),
      folded(call.result.text || '', 'result-text'))
    : el('div', { class: 'tool-result none' }, 'no result recorded');
  return el('details', { class: 'tool-call', 'data-tool': call.name }, toolSummary(call), toolInput(call), result);
}

function message(sessionId, m, shownResults) {
  const kind = m.content_type === 'thinking' ? 'thinking' : m.role;
  const calls = m.tool_calls || [];
  for (const c of calls) if (c.result && c.result.message_uuid) shownResults.add(c.result.message_uuid);
  const sub = m.agent_id || m.is_sidechain;
  const head = el('div', { class: 'msg-head' },
    el('span', { class: 'role' }, kind === 'thinking' ? 'thinking' : m.role),
    m.content_type !== 'text' && kind !== 'thinking' ? el('span', { class: 'ctype' }, m.content_type) : null,
    sub ? el('span', { class: 'subagent-tag' }, 'subagent ' + (m.agent_id || '')) : null,
    m.model ? el('span', { class: 'model' }, m.model) : null,
    el('a', { class: 'time', href: '#/thread/' + encodeURIComponent(sessionId) + '/' + encodeURIComponent(m.uuid),
      title: 'link to this message' }, when(m.time)));
  const body = [];
  if (calls.length) body.push(calls.map(toolCall));
  else if (m.text) body.push(folded(m.text, 'text'));
  if (m.truncated) body.push(el('div', { class: 'note' }, 'cut to the first characters'));
  return el('article', {
    class: `msg role-${m.role} kind-${kind}${sub ? ' sub' : ''}${m.is_meta ? ' meta' : ''}`,
    id: 'm-' + m.uuid,
  }, head, body);
}

function header(s) {
  const hint = s.resume_hint || '';
  return el('header', { class: 'thread-head' },
    el('h1', {}, s.title || '(untitled)'),
    el('div', { class: 'facts' },
      el('span', { class: 'agent agent-' + s.agent }, s.agent),
      el('span', {}, s.project_path || s.project),
      s.git_branch ? el('span', { class: 'branch' }, s.git_branch) : null,
      el('span', {}, when(s.started_at) + ' → ' + when(s.ended_at)),
      el('span', {}, number(s.message_count) + ' messages'),
      s.models && s.models.length ? el('span', {}, s.models.join(', ')) : null,
      s.tokens ? el('span', {}, number(s.tokens.input + s.tokens.output + s.tokens.cache_creation + s.tokens.cache_read) + ' tokens') : null),
    s.summary ? el('p', { class: 'summary-text' }, s.summary) : null,
    hint ? el('div', { class: 'resume' },
      el('code', { id: 'resume-hint' }, hint),
      el('button', { onclick: () => copyText(hint) }, 'copy resume command')) : null);
}

// Renders the thread into `root`; returns the function that scrolls to a message uuid.
export function showThread(root, sessionId, targetUuid) {
  const list = el('div', { class: 'messages' });
  const status = el('div', { class: 'summary' }, 'loading…');
  root.append(el('div', { class: 'thread' }, el('a', { href: '#/', class: 'back' }, '← sessions'), status, list));
  let target = targetUuid;
  let cancelled = false;
  const shownResults = new Set();

  function scrollTo(uuid) {
    target = uuid;
    if (!uuid) return;
    const node = document.getElementById('m-' + uuid);
    if (!node) return; // not rendered yet: checked again after each chunk
    document.querySelectorAll('.msg.target').forEach((n) => n.classList.remove('target'));
    node.classList.add('target');
    node.scrollIntoView({ block: 'center' });
    target = null;
  }

  function renderChunks(messages) {
    return new Promise((resolve) => {
      let i = 0;
      const step = () => {
        if (cancelled || !root.isConnected) { cancelled = true; return resolve(); }
        const frag = document.createDocumentFragment();
        for (const end = Math.min(messages.length, i + CHUNK); i < end; i++) {
          const m = messages[i];
          if (m.content_type === 'tool_result' && shownResults.has(m.uuid)) continue; // shown with its call
          frag.append(message(sessionId, m, shownResults));
        }
        list.append(frag);
        if (target) scrollTo(target);
        if (i < messages.length) requestAnimationFrame(step);
        else resolve();
      };
      requestAnimationFrame(step);
    });
  }

  (async () => {
    try {
      let offset = 0;
      for (;;) {
        const limit = offset === 0 ? FIRST_PAGE : PAGE;
        const t = await api('thread/' + encodeURIComponent(sessionId), { offset, limit, 'max-chars': 100000 });
        if (cancelled || !root.isConnected) return;
        if (offset === 0) list.before(header(t.session));
        offset += t.returned;
        status.textContent = `${offset} of ${t.total} messages`;
        await renderChunks(t.messages);
        if (!t.truncated || !t.returned) break;
      }
      status.textContent = `${offset} messages`;
      if (target) scrollTo(target);
    } catch (e) {
      clear(status).append(errorBox(e));
    }
  })();
  return scrollTo;
}
