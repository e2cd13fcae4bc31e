// The osearch web app: a hash router over four views (sessions, thread, memories, usage) and the
// live-update poll of /api/generation.
import { api, clear, el, onWarnings } from './util.js';
import { showSessions, refreshSessions, sessionKeys } from './sessions.js';
import { showThread } from './thread.js';
import { showMemories } from './memories.js';
import { showUsage } from './usage.js';
import { showFiles } from './files.js';

const view = document.getElementById('view');
let current = { name: '', key: null };

function route() {
  // #/thread/ID/UUID, #/files?path=P: each segment and parameter decoded on its own.
  const raw = location.hash.replace(/^#/, '') || '/';
  const q = raw.indexOf('?');
  const parts = (q < 0 ? raw : raw.slice(0, q)).split('/').filter(Boolean).map((p) => {
    try { return decodeURIComponent(p); } catch { return p; }
  });
  const params = new URLSearchParams(q < 0 ? '' : raw.slice(q + 1));
  let name = parts[0] || 'sessions';
  if (!['sessions', 'thread', 'memories', 'usage', 'files'].includes(name)) name = 'sessions';
  for (const a of document.querySelectorAll('nav a'))
    a.classList.toggle('active', a.dataset.nav === (name === 'thread' || name === 'files' ? 'sessions' : name));
  // A deep link to another message of the thread on screen only scrolls.
  if (name === 'thread' && current.name === 'thread' && current.key === parts[1]) {
    current.scrollTo(parts[2]);
    return;
  }
  current = { name, key: parts[1] || null, scrollTo: () => {} };
  clear(view);
  if (name === 'thread') current.scrollTo = showThread(view, parts[1], parts[2]);
  else if (name === 'memories') current.reload = showMemories(view);
  else if (name === 'usage') showUsage(view);
  else if (name === 'files') showFiles(view, params);
  else showSessions(view, params);
}

// A refresh's warnings stay on screen until dismissed: the server says each once.
const warnings = document.getElementById('warnings');
onWarnings((lines) => {
  const shown = new Set([...warnings.querySelectorAll('.warning-line')].map((n) => n.textContent));
  for (const line of lines) {
    if (shown.has(line)) continue;
    warnings.append(el('div', { class: 'warning-line' }, line));
  }
  warnings.hidden = false;
});
document.getElementById('warnings-dismiss').addEventListener('click', () => {
  for (const n of warnings.querySelectorAll('.warning-line')) n.remove();
  warnings.hidden = true;
});

// Live updates: the index generation changes when a refresh read new messages or a memory changed.
let generation = null;
async function poll() {
  try {
    const g = await api('generation');
    const live = document.getElementById('live');
    live.textContent = `${g.sessions} sessions · ${g.messages} messages`;
    live.classList.remove('down');
    if (generation !== null && g.generation !== generation) {
      if (current.name === 'sessions') refreshSessions();
      if (current.name === 'memories' && current.reload) current.reload();
    }
    generation = g.generation;
  } catch {
    document.getElementById('live').classList.add('down');
  }
  setTimeout(poll, 2000);
}

document.addEventListener('keydown', (e) => {
  const typing = /^(INPUT|TEXTAREA|SELECT)$/.test(document.activeElement?.tagName || '');
  if (e.key === '/' && !typing) {
    const box = document.getElementById('search');
    if (box) {
      e.preventDefault();
      box.focus();
      box.select();
    }
    return;
  }
  if (e.key === 'Escape' && typing) {
    document.activeElement.blur();
    return;
  }
  if (!typing && current.name === 'sessions') sessionKeys(e);
});

window.addEventListener('hashchange', route);
route();
poll();
