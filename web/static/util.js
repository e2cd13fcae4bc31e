// Small helpers shared by the views: the API client, a DOM builder (text always as text nodes, so
// transcript content is never parsed as HTML), dates and highlighting.
const token = document.querySelector('meta[name="osearch-token"]').content;

export class ApiError extends Error {
  constructor(status, kind, message) {
    super(message);
    this.status = status;
    this.kind = kind;
  }
}

function query(params) {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params || {})) {
    if (v === undefined || v === null || v === '' || v === false) continue;
    if (Array.isArray(v)) v.forEach((x) => q.append(k, x));
    else q.append(k, v === true ? 'true' : String(v));
  }
  const s = q.toString();
  return s ? '?' + s : '';
}

// Warnings a refresh raised on the server (a source root that lists nothing over indexed
// transcripts) arrive once, as the answer's `warnings`; the app shows them until dismissed.
let warningSink = null;
export function onWarnings(fn) {
  warningSink = fn;
}

export async function api(path, params, method = 'GET') {
  const res = await fetch('/api/' + path + query(params), {
    method,
    headers: { 'X-Osearch-Token': token },
    credentials: 'same-origin',
  });
  let body;
  try {
    body = await res.json();
  } catch {
    throw new ApiError(res.status, 'error', 'the server answered ' + res.status + ' without JSON');
  }
  if (!res.ok || body.error) {
    const e = body.error || {};
    throw new ApiError(res.status, e.kind || 'error', e.message || 'HTTP ' + res.status);
  }
  if (Array.isArray(body.warnings) && body.warnings.length && warningSink) warningSink(body.warnings);
  return body;
}

// el('div', {class: 'x', onclick: fn}, 'text', child, [more])
export function el(tag, attrs, ...children) {
  const svg = ['svg', 'rect', 'polyline', 'line', 'text', 'g', 'title', 'circle', 'path'].includes(tag);
  const node = svg ? document.createElementNS('http://www.w3.org/2000/svg', tag) : document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith('on')) node.addEventListener(k.slice(2), v);
    else if (k === 'text') node.textContent = v;
    else node.setAttribute(k, v === true ? '' : v);
  }
  append(node, children);
  return node;
}

export function append(node, children) {
  for (const c of children.flat(Infinity)) {
    if (c === undefined || c === null || c === false) continue;
    node.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return node;
}

export function clear(node) {
  while (node.firstChild) node.removeChild(node.firstChild);
  return node;
}

export function when(iso) {
  if (!iso) return '';
  const d = new Date(iso);
  if (isNaN(d)) return iso;
  const pad = (n) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

export function number(n) {
  if (n === undefined || n === null) return '';
  if (n >= 1e9) return (n / 1e9).toFixed(1) + 'G';
  if (n >= 1e6) return (n / 1e6).toFixed(1) + 'M';
  if (n >= 1e4) return (n / 1e3).toFixed(1) + 'k';
  return String(n);
}

function escapeRegExp(s) {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

// The text with each match of `re` in <mark>: text nodes only.
export function highlight(text, re) {
  const frag = document.createDocumentFragment();
  if (!re || !text) {
    frag.append(text || '');
    return frag;
  }
  let last = 0;
  re.lastIndex = 0;
  for (let m; (m = re.exec(text)); ) {
    if (m[0] === '') {
      re.lastIndex++;
      continue;
    }
    frag.append(text.slice(last, m.index), el('mark', {}, m[0]));
    last = m.index + m[0].length;
  }
  frag.append(text.slice(last));
  return frag;
}

// A regex of the keyword query's matched terms (as words, case-insensitive).
export function termsRegExp(terms) {
  const t = (terms || []).filter((x) => x && x.length > 1).map(escapeRegExp);
  return t.length ? new RegExp(t.join('|'), 'giu') : null;
}

export function patternRegExp(pattern, { fixed, ignoreCase } = {}) {
  if (!pattern) return null;
  try {
    return new RegExp(fixed ? escapeRegExp(pattern) : pattern, 'g' + (ignoreCase ? 'i' : '') + 'u');
  } catch {
    return null; // a PCRE-only construct: no highlight, the server's snippet still shows
  }
}

export function toast(message, isError = false) {
  const t = document.getElementById('toast');
  t.textContent = message;
  t.className = 'toast' + (isError ? ' error' : '');
  t.hidden = false;
  clearTimeout(toast.timer);
  toast.timer = setTimeout(() => (t.hidden = true), 3000);
}

export function errorBox(e) {
  return el('div', { class: 'error-box' }, el('strong', {}, e.kind || 'error'), ': ', e.message || String(e));
}

export async function copyText(text) {
  try {
    await navigator.clipboard.writeText(text);
    toast('copied');
  } catch {
    toast('copy failed: select the text and copy it', true);
  }
}
