// The memory list: active and archived memories, the file rendered as markdown, anchors as links,
// forget and restore (POST with the token header).
import { api, el, append, clear, when, errorBox, toast } from './util.js';
import { renderMarkdown } from './markdown.js';

function anchorLink(a) {
  const label = a.kind + ':' + a.path + (a.line ? ':' + a.line : '');
  if (a.kind === 'session' || a.kind === 'message') {
    const [session, uuid] = String(a.path).split('#');
    return el('a', { href: '#/thread/' + encodeURIComponent(session) + (uuid ? '/' + encodeURIComponent(uuid) : '') }, label);
  }
  if (a.kind === 'url' && /^https?:\/\//i.test(a.path)) return el('a', { href: a.path, rel: 'noopener noreferrer', target: '_blank' }, label);
  // A file (or any other path): its history of tool calls.
  return el('a', { class: 'anchor', title: 'tool calls that touched it', href: '#/files?path=' + encodeURIComponent(a.path) }, label);
}

function card(m, reload) {
  const active = !m.deleted_at;
  const body = el('div', { class: 'memory-body' }, renderMarkdown(m.summary));
  const file = el('details', { class: 'memory-file', ontoggle: async (e) => {
    if (!e.target.open || e.target.dataset.loaded) return;
    e.target.dataset.loaded = '1';
    try {
      const shown = await api('memories/' + encodeURIComponent(m.id));
      e.target.append(shown.exists ? renderMarkdown(shown.text) : el('p', { class: 'note' }, 'the file no longer exists'));
    } catch (err) {
      e.target.append(errorBox(err));
    }
  } }, el('summary', {}, m.path));
  const act = async () => {
    try {
      if (active) {
        const reason = 'archived in the web app';
        await api('memories/' + encodeURIComponent(m.id) + '/forget', { reason }, 'POST');
        toast('memory archived');
      } else {
        await api('memories/' + encodeURIComponent(m.id) + '/restore', {}, 'POST');
        toast('memory restored');
      }
      reload();
    } catch (err) {
      toast(err.message, true);
    }
  };
  return el('article', { class: 'memory' + (active ? '' : ' archived'), id: 'memory-' + m.id, 'data-id': m.id },
    el('div', { class: 'memory-head' },
      el('span', { class: 'state' }, active ? 'active' : 'archived'),
      el('span', { class: 'project' }, m.project || ''),
      el('span', { class: 'time' }, when(m.created_at)),
      m.session_id ? el('a', { href: '#/thread/' + encodeURIComponent(m.session_id) +
        (m.message_start ? '/' + encodeURIComponent(m.message_start) : '') }, 'session') : null,
      el('button', { class: active ? 'forget' : 'restore', onclick: act }, active ? 'Forget' : 'Restore')),
    body,
    m.anchors && m.anchors.length ? el('div', { class: 'anchors' }, m.anchors.map(anchorLink)) : null,
    !active && m.deleted_reason ? el('div', { class: 'note' }, 'archived ' + when(m.deleted_at) + ': ' + m.deleted_reason) : null,
    file);
}

export function showMemories(root) {
  const list = el('div', { class: 'memories' });
  const status = el('div', { class: 'summary' }, 'loading…');
  root.append(el('div', { class: 'memory-page' }, el('h1', {}, 'Memories'), status, list));
  const reload = async () => {
    try {
      const r = await api('memories', { all: true, limit: 1000 });
      clear(list);
      const items = r.results || [];
      const active = items.filter((m) => !m.deleted_at);
      const archived = items.filter((m) => m.deleted_at);
      status.textContent = `${active.length} active, ${archived.length} archived`;
      if (!items.length) list.append(el('p', { class: 'empty' }, 'No memories yet: `osearch memory remember --path FILE --summary TEXT`.'));
      if (active.length) append(list, [el('h2', {}, 'Active'), active.map((m) => card(m, reload))]);
      if (archived.length) append(list, [el('h2', {}, 'Archived'), archived.map((m) => card(m, reload))]);
    } catch (e) {
      clear(status).append(errorBox(e));
    }
  };
  reload();
  return reload;
}
