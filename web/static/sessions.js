// The session browser: projects in a sidebar, sessions newest first or search results (keyword,
// or content with a regex), filters, highlighted snippets, j/k/Enter navigation.
import { api, el, clear, when, number, highlight, termsRegExp, patternRegExp, errorBox } from './util.js';

const PAGE = 50;
const state = {
  project: '', agent: '', since: '', query: '', mode: 'keyword', ignoreCase: false,
  offset: 0, rows: [], selected: -1, total: 0,
};
let listNode = null;
let moreNode = null;
let sidebarNode = null;
let searchSeq = 0;

function filters() {
  return { project: state.project, agent: state.agent, since: state.since };
}

async function fetchPage(offset) {
  const f = { ...filters(), limit: PAGE, offset };
  if (!state.query) return api('list', f);
  if (state.mode === 'content')
    return api('content', { ...f, pattern: state.query, 'ignore-case': state.ignoreCase, timeout: 5 });
  return api('keyword', { ...f, query: state.query });
}

function row(r, index, re) {
  const snippet = r.snippet ? el('div', { class: 'snippet' }, highlight(r.snippet, re)) : null;
  const link = '#/thread/' + encodeURIComponent(r.session_id) + (r.message_uuid ? '/' + encodeURIComponent(r.message_uuid) : '');
  return el('li', { class: 'session', 'data-index': index },
    el('a', { href: link, class: 'session-link' },
      el('div', { class: 'line1' },
        el('span', { class: 'agent agent-' + r.agent }, r.agent),
        el('span', { class: 'title' }, r.title || '(untitled)'),
        el('span', { class: 'time', title: r.started_at || '' }, when(r.time || r.ended_at))),
      el('div', { class: 'line2' },
        el('span', { class: 'project' }, r.project_path || r.project),
        r.git_branch ? el('span', { class: 'branch' }, r.git_branch) : null,
        el('span', { class: 'count' }, number(r.message_count) + ' msgs'),
        r.match_count > 1 ? el('span', { class: 'count' }, r.match_count + ' hits') : null),
      snippet));
}

function regexForRows(answer) {
  if (!state.query) return null;
  if (state.mode === 'content') return patternRegExp(state.query, { ignoreCase: state.ignoreCase });
  const terms = new Set();
  for (const r of answer.results || []) for (const t of r.matched_terms || []) terms.add(t);
  return termsRegExp([...terms]);
}

function render(answer, append) {
  if (!listNode) return;
  if (!append) {
    clear(listNode);
    state.rows = [];
    state.selected = -1;
  }
  const re = regexForRows(answer);
  for (const r of answer.results || []) {
    listNode.append(row(r, state.rows.length, re));
    state.rows.push(r);
  }
  state.total = answer.total ?? state.rows.length;
  const summary = document.getElementById('summary');
  if (summary) {
    const took = answer.took_ms !== undefined ? ` in ${answer.took_ms} ms` : '';
    summary.textContent = `${state.rows.length} of ${state.total}${answer.total_exact === false ? '+' : ''} sessions${took}`
      + (answer.timed_out ? ' (time budget reached)' : '');
  }
  if (state.rows.length && !performance.getEntriesByName('first-rows').length) performance.mark('first-rows'); // bench/web_page_load.mjs
  moreNode.hidden = state.rows.length >= state.total || !(answer.results || []).length;
  if (!state.rows.length) listNode.append(el('li', { class: 'empty' }, state.query ? 'No match.' : 'No sessions.'));
}

async function load(append = false) {
  const seq = ++searchSeq;
  const offset = append ? state.rows.length : 0;
  try {
    const answer = await fetchPage(offset);
    if (seq !== searchSeq) return; // a newer search answered first
    render(answer, append);
  } catch (e) {
    if (seq !== searchSeq || !listNode) return;
    clear(listNode).append(el('li', {}, errorBox(e)));
    moreNode.hidden = true;
  }
}

async function loadProjects() {
  if (!sidebarNode) return;
  try {
    const o = await api('overview', { projects: 500, sessions: 0 });
    clear(sidebarNode);
    const all = el('li', {}, el('a', { href: '#', class: state.project ? '' : 'active', 'data-project': '' },
      'All projects', el('span', { class: 'n' }, String(o.index.sessions))));
    sidebarNode.append(all);
    for (const p of o.projects.items) {
      if (!p.project) continue; // sessions without a project are under "All projects" only
      const name = p.project_path || p.project;
      sidebarNode.append(el('li', {}, el('a', {
        href: '#', title: name, 'data-project': p.project,
        class: state.project === p.project ? 'active' : '',
      }, el('span', { class: 'pname' }, name.split('/').filter(Boolean).pop() || name),
      el('span', { class: 'n' }, String(p.sessions)))));
    }
  } catch (e) {
    clear(sidebarNode).append(el('li', {}, errorBox(e)));
  }
}

// The index changed: the projects and the first page again (search results too), keeping the selection.
export async function refreshSessions() {
  loadProjects();
  const selected = state.selected;
  await load(false);
  if (selected >= 0 && listNode) select(selected);
}

function select(i) {
  const items = listNode.querySelectorAll('li.session');
  if (!items.length) return;
  state.selected = Math.max(0, Math.min(items.length - 1, i));
  items.forEach((n, k) => n.classList.toggle('selected', k === state.selected));
  items[state.selected].scrollIntoView({ block: 'nearest' });
}

export function sessionKeys(e) {
  if (!listNode) return;
  if (e.key === 'j' || e.key === 'ArrowDown') {
    e.preventDefault();
    select(state.selected + 1);
  } else if (e.key === 'k' || e.key === 'ArrowUp') {
    e.preventDefault();
    select(state.selected - 1);
  } else if (e.key === 'Enter' && state.selected >= 0) {
    const a = listNode.querySelectorAll('li.session a')[state.selected];
    if (a) location.hash = a.getAttribute('href');
  }
}

export function showSessions(root, params) {
  if (params.has('q')) state.query = params.get('q');
  let timer = null;
  const search = el('input', {
    id: 'search', type: 'search', placeholder: 'Search (/ to focus)', value: state.query, autocomplete: 'off',
    oninput: (e) => {
      clearTimeout(timer);
      timer = setTimeout(() => { state.query = e.target.value.trim(); load(false); }, 250);
    },
    onkeydown: (e) => {
      if (e.key === 'Enter') { clearTimeout(timer); state.query = e.target.value.trim(); load(false); }
      if (e.key === 'ArrowDown') { e.preventDefault(); e.target.blur(); select(0); }
    },
  });
  const mode = el('select', { id: 'mode', title: 'keyword: ranked words; content: regex over every message',
    onchange: (e) => { state.mode = e.target.value; load(false); } },
    el('option', { value: 'keyword' }, 'keyword'), el('option', { value: 'content' }, 'regex'));
  mode.value = state.mode;
  const icase = el('label', { class: 'check' }, el('input', { type: 'checkbox', id: 'icase',
    onchange: (e) => { state.ignoreCase = e.target.checked; if (state.mode === 'content') load(false); } }), 'ignore case');
  icase.firstChild.checked = state.ignoreCase;
  const agent = el('select', { id: 'agent', onchange: (e) => { state.agent = e.target.value; load(false); } },
    ['', 'claude', 'omp', 'pi', 'codex'].map((a) => el('option', { value: a }, a || 'all agents')));
  agent.value = state.agent;
  const since = el('select', { id: 'since', onchange: (e) => { state.since = e.target.value; load(false); } },
    [['', 'any time'], ['1d', 'last day'], ['7d', 'last week'], ['30d', 'last 30 days'], ['365d', 'last year']]
      .map(([v, t]) => el('option', { value: v }, t)));
  since.value = state.since;

  sidebarNode = el('ul', { class: 'projects', onclick: (e) => {
    const a = e.target.closest('a[data-project]');
    if (!a) return;
    e.preventDefault();
    state.project = a.dataset.project;
    sidebarNode.querySelectorAll('a').forEach((x) => x.classList.toggle('active', x === a));
    load(false);
  } });
  listNode = el('ul', { class: 'sessions', id: 'results' });
  moreNode = el('button', { class: 'more', hidden: true, onclick: () => load(true) }, 'More');
  root.append(el('div', { class: 'browser' },
    el('aside', {}, el('h2', {}, 'Projects'), sidebarNode),
    el('section', { class: 'list' },
      el('div', { class: 'toolbar' }, search, mode, icase, agent, since),
      el('div', { id: 'summary', class: 'summary' }),
      listNode, moreNode)));
  loadProjects();
  load(false);
}
