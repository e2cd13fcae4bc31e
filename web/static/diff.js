// Edit inputs as diffs: Claude's Edit/MultiEdit (old_string/new_string), Write (all new), and
// apply_patch bodies (Codex, omp), which already are unified-diff-like text.
import { el } from './util.js';

function lines(text, sign, cls) {
  return (text || '').split('\n').map((l) => el('div', { class: 'dl ' + cls }, sign + l));
}

function block(path, parts) {
  return el('div', { class: 'diff' }, path ? el('div', { class: 'diff-path' }, path) : null, parts);
}

function patchText(text) {
  return el('div', { class: 'diff' }, text.split('\n').map((l) => {
    let cls = 'ctx';
    if (/^\*\*\* (Begin|End|Update|Add|Delete|Move)/.test(l) || l.startsWith('@@') || /^(\+\+\+|---) /.test(l)) cls = 'hdr';
    else if (l.startsWith('+')) cls = 'add';
    else if (l.startsWith('-')) cls = 'del';
    return el('div', { class: 'dl ' + cls }, l);
  }));
}

export function diffOf(call) {
  const name = (call.name || '').toLowerCase();
  let input;
  try { input = JSON.parse(call.input_json || 'null'); } catch { input = null; }
  if (name === 'apply_patch' || name === 'patch') {
    const text = typeof input === 'string' ? input : input && (input.input || input.patch || input.diff);
    if (typeof text === 'string') return patchText(text);
    if (!input && call.input_json) return patchText(call.input_json);
    return null;
  }
  if (!input || typeof input !== 'object') return null;
  const path = input.file_path || input.path || call.file_path || '';
  if (typeof input.old_string === 'string' && typeof input.new_string === 'string')
    return block(path, [lines(input.old_string, '-', 'del'), lines(input.new_string, '+', 'add')]);
  if (Array.isArray(input.edits) && input.edits.every((e) => e && typeof e.old_string === 'string'))
    return block(path, input.edits.map((e, i) => [i ? el('div', { class: 'dl hdr' }, '⋯') : null,
      lines(e.old_string, '-', 'del'), lines(e.new_string, '+', 'add')]));
  if ((name === 'edit' || name === 'str_replace') && typeof input.old_text === 'string')
    return block(path, [lines(input.old_text, '-', 'del'), lines(input.new_text, '+', 'add')]);
  if (name === 'write' && typeof input.content === 'string' && input.content.length < 20000)
    return block(path, [lines(input.content, '+', 'add')]);
  return null;
}
