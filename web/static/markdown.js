// A tiny, safe markdown renderer for memories: headings, lists, code blocks and spans, emphasis,
// links (http and https only). It builds DOM nodes; no input is ever parsed as HTML.
import { el } from './util.js';

function inline(text) {
  const out = [];
  // `code`, **bold**, *em* / _em_, [label](http…) — first match wins, the rest stays text.
  const re = /`([^`]+)`|\*\*([^*]+)\*\*|(?:\*([^*\s][^*]*)\*|_([^_\s][^_]*)_)|\[([^\]]+)\]\(([^)\s]+)\)/g;
  let last = 0;
  for (let m; (m = re.exec(text)); ) {
    out.push(text.slice(last, m.index));
    if (m[1] !== undefined) out.push(el('code', {}, m[1]));
    else if (m[2] !== undefined) out.push(el('strong', {}, m[2]));
    else if (m[3] !== undefined || m[4] !== undefined) out.push(el('em', {}, m[3] ?? m[4]));
    else if (/^https?:\/\//i.test(m[6])) out.push(el('a', { href: m[6], rel: 'noopener noreferrer', target: '_blank' }, m[5]));
    else out.push(m[0]);
    last = m.index + m[0].length;
  }
  out.push(text.slice(last));
  return out;
}

export function renderMarkdown(source) {
  const root = el('div', { class: 'md' });
  const lines = String(source || '').replace(/\r\n?/g, '\n').split('\n');
  let list = null;
  let para = [];
  const flush = () => {
    if (para.length) root.append(el('p', {}, inline(para.join(' '))));
    para = [];
  };
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    if (/^\s*```/.test(line)) {
      flush();
      list = null;
      const code = [];
      for (i++; i < lines.length && !/^\s*```/.test(lines[i]); i++) code.push(lines[i]);
      root.append(el('pre', {}, el('code', {}, code.join('\n'))));
      continue;
    }
    const h = /^(#{1,6})\s+(.*)$/.exec(line);
    if (h) {
      flush();
      list = null;
      root.append(el('h' + Math.min(6, h[1].length + 2), {}, inline(h[2])));
      continue;
    }
    const li = /^\s*(?:[-*+]|(\d+)[.)])\s+(.*)$/.exec(line);
    if (li) {
      flush();
      const tag = li[1] ? 'ol' : 'ul';
      if (!list || list.tagName.toLowerCase() !== tag) root.append((list = el(tag)));
      list.append(el('li', {}, inline(li[2])));
      continue;
    }
    if (!line.trim()) {
      flush();
      list = null;
      continue;
    }
    list = null;
    para.push(line.trim());
  }
  flush();
  return root;
}
