// A file's history: every tool call that touched it, oldest first (/api/files), each linked to its
// message in the thread. Reached from memory anchors and the usage page's most-touched files.
import { api, el, clear, when, errorBox } from './util.js';
import { diffOf } from './diff.js';

export function showFiles(root, params) {
  const path = params.get('path') || '';
  const list = el('div', { class: 'file-history' });
  const status = el('div', { class: 'summary' }, 'loading…');
  root.append(el('div', { class: 'files-page' }, el('h1', {}, path), status, list));
  (async () => {
    try {
      const r = await api('files', { path, limit: 500 });
      status.textContent = `${r.returned} of ${r.total} tool calls (${r.match} match: ${r.resolved})`;
      for (const t of r.results) {
        const link = '#/thread/' + encodeURIComponent(t.session_id) + '/' + encodeURIComponent(t.message_uuid);
        list.append(el('article', { class: 'touch' + (t.failed ? ' failed' : '') },
          el('div', { class: 'msg-head' },
            el('span', { class: 'agent agent-' + t.agent }, t.agent),
            el('span', { class: 'tool-name' }, t.tool),
            el('a', { href: link }, t.title || t.session_id),
            t.failed ? el('span', { class: 'tool-error-tag' }, 'failed') : null,
            el('span', { class: 'time' }, when(t.time))),
          el('div', { class: 'note' }, t.file_path),
          diffOf({ name: t.tool, input_json: t.input_json, file_path: t.file_path })));
      }
      if (!r.results.length) list.append(el('p', { class: 'empty' }, 'No tool call touched it.'));
    } catch (e) {
      clear(status).append(errorBox(e));
    }
  })();
}
