// Usage: tokens per day as a contribution-graph heatmap and a line chart (inline SVG), tokens per
// model and per project, tool counts and failure rates, most-touched files: from /api/stats/*.
import { api, el, clear, number, errorBox } from './util.js';

const DAY = 86400000;

function dayKey(d) {
  const pad = (n) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`;
}

// 53 weeks of days, a column per week, colored by the day's tokens (quartiles of the non-zero days).
function heatmap(rows) {
  const byDay = new Map(rows.map((r) => [r.day, r.total]));
  const last = rows.length ? new Date(rows[0].day + 'T12:00:00') : new Date();
  const end = new Date(Math.max(last.getTime(), Date.now()));
  const start = new Date(end.getTime() - 52 * 7 * DAY - end.getDay() * DAY);
  const values = [...byDay.values()].filter((v) => v > 0).sort((a, b) => a - b);
  const q = (f) => values[Math.floor(f * (values.length - 1))] || 0;
  const cuts = [q(0.25), q(0.5), q(0.75)];
  const cell = 12;
  const svg = el('svg', { class: 'heatmap', width: 54 * cell + 30, height: 7 * cell + 20, role: 'img',
    'aria-label': 'tokens per day' });
  for (let d = new Date(start), i = 0; d <= end; d = new Date(d.getTime() + DAY), i++) {
    const key = dayKey(d);
    const v = byDay.get(key) || 0;
    const level = v === 0 ? 0 : v <= cuts[0] ? 1 : v <= cuts[1] ? 2 : v <= cuts[2] ? 3 : 4;
    const week = Math.floor(i / 7);
    svg.append(el('rect', { x: 30 + week * cell, y: 16 + d.getDay() * cell, width: cell - 2, height: cell - 2,
      rx: 2, class: 'lvl' + level, 'data-day': key }, el('title', {}, `${key}: ${number(v)} tokens`)));
    if (d.getDate() === 1)
      svg.append(el('text', { x: 30 + week * cell, y: 10, class: 'axis' }, d.toLocaleString(undefined, { month: 'short' })));
  }
  ['Mon', 'Wed', 'Fri'].forEach((t, k) => svg.append(el('text', { x: 0, y: 16 + (1 + 2 * k) * cell + 9, class: 'axis' }, t)));
  return svg;
}

function lineChart(rows) {
  // The heatmap's year, oldest first (a stray early day, such as a zero timestamp, would flatten the rest).
  const latest = rows.length ? new Date(rows[0].day + 'T12:00:00').getTime() : 0;
  const pts = rows.filter((r) => latest - new Date(r.day + 'T12:00:00').getTime() <= 371 * DAY).reverse();
  const w = 660, h = 160, pad = 40;
  const svg = el('svg', { class: 'line-chart', width: w, height: h + 24, role: 'img', 'aria-label': 'tokens per day, line' });
  if (!pts.length) return svg;
  const t0 = new Date(pts[0].day + 'T12:00:00').getTime();
  const t1 = Math.max(t0 + DAY, new Date(pts[pts.length - 1].day + 'T12:00:00').getTime());
  const max = Math.max(1, ...pts.map((p) => p.total));
  const x = (p) => pad + ((new Date(p.day + 'T12:00:00').getTime() - t0) / (t1 - t0)) * (w - pad - 10);
  const y = (v) => 8 + h - 8 - (v / max) * (h - 16);
  svg.append(el('line', { x1: pad, y1: y(0), x2: w - 10, y2: y(0), class: 'grid' }),
    el('line', { x1: pad, y1: y(max), x2: w - 10, y2: y(max), class: 'grid' }),
    el('text', { x: 0, y: y(max) + 4, class: 'axis' }, number(max)),
    el('text', { x: 0, y: y(0) + 4, class: 'axis' }, '0'),
    el('text', { x: pad, y: h + 20, class: 'axis' }, pts[0].day),
    el('text', { x: w - 80, y: h + 20, class: 'axis' }, pts[pts.length - 1].day),
    el('polyline', { class: 'series', points: pts.map((p) => `${x(p).toFixed(1)},${y(p.total).toFixed(1)}`).join(' ') }));
  for (const p of pts)
    svg.append(el('circle', { cx: x(p).toFixed(1), cy: y(p.total).toFixed(1), r: 2, class: 'dot' },
      el('title', {}, `${p.day}: ${number(p.total)} tokens`)));
  return svg;
}

function bars(title, rows, label, value, extra, href) {
  const max = Math.max(1, ...rows.map(value));
  return el('section', { class: 'card' }, el('h2', {}, title),
    el('table', { class: 'bars' }, el('tbody', {}, rows.map((r) => el('tr', {},
      el('td', { class: 'label', title: label(r) }, href ? el('a', { href: href(r) }, label(r)) : label(r)),
      el('td', { class: 'bar-cell' }, el('div', { class: 'bar', 'data-w': Math.round((value(r) / max) * 100) })),
      el('td', { class: 'num' }, number(value(r))),
      extra ? extra(r) : null)))));
}

function sizeBars(root) {
  // Widths set through the CSSOM (the CSP forbids style attributes in markup).
  root.querySelectorAll('.bar[data-w]').forEach((b) => { b.style.width = b.dataset.w + '%'; });
}

export function showUsage(root) {
  const page = el('div', { class: 'usage' }, el('h1', {}, 'Usage'));
  root.append(page);
  const utc = false;
  (async () => {
    try {
      const [daily, models, projects, tools, files] = await Promise.all([
        api('stats/daily', { limit: 400, utc }), api('stats/models', { limit: 20 }),
        api('stats/tokens', { by: 'project', limit: 20 }), api('stats/tools', { limit: 30 }),
        api('stats/files', { limit: 20 })]);
      const t = daily.totals || {};
      page.append(
        el('div', { class: 'totals' },
          el('span', {}, number(t.total) + ' tokens'), el('span', {}, number(t.sessions) + ' sessions'),
          el('span', {}, number(t.tool_calls) + ' tool calls'),
          el('span', {}, ((t.failure_rate || 0) * 100).toFixed(1) + '% failed')),
        el('section', { class: 'card' }, el('h2', {}, 'Tokens per day'), heatmap(daily.rows || []), lineChart(daily.rows || [])),
        el('div', { class: 'grid2' },
          bars('Tokens per model', models.rows || [], (r) => r.model || '(none)', (r) => r.total),
          bars('Tokens per project', projects.rows || [], (r) => r.project, (r) => r.total)),
        el('div', { class: 'grid2' },
          bars('Tool calls', tools.rows || [], (r) => r.tool, (r) => r.tool_calls,
            (r) => el('td', { class: 'num' + (r.failure_rate > 0.1 ? ' bad' : '') }, (r.failure_rate * 100).toFixed(1) + '% failed')),
          bars('Most-touched files', files.rows || [], (r) => r.file, (r) => r.touches, null,
            (r) => '#/files?path=' + encodeURIComponent(r.file))));
      sizeBars(page);
    } catch (e) {
      clear(page).append(el('h1', {}, 'Usage'), errorBox(e));
    }
  })();
}
