// The web app in a real browser: Debian's chromium, headless, driven by puppeteer-core
// (tests/CMakeLists.txt runs it). It indexes tests/data (Claude samples and the mixed omp/pi/Codex
// corpus), remembers one memory, starts `osearch serve --port 0`, then loads each page, searches
// (keyword and regex), opens a thread with the keyboard, expands a tool call, follows a deep link,
// forgets and restores the memory, draws the usage charts, and shows the warning of a source root
// emptied under the index, saving a screenshot of each step.
// It fails if any request leaves 127.0.0.1 or a page logs a console error.
//   node browser_test.mjs --osearch build/osearch --data tests/data --shots build/tests/web-shots
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';

import puppeteer from 'puppeteer-core';

function arg(name, fallback) {
  const i = process.argv.indexOf(name);
  if (i < 0 || i + 1 >= process.argv.length) {
    if (fallback !== undefined) return fallback;
    throw new Error(`usage: browser_test.mjs --osearch BIN --data DIR [--shots DIR] [--chromium BIN] (missing ${name})`);
  }
  return path.resolve(process.argv[i + 1]);
}
const osearch = arg('--osearch');
const data = arg('--data');
const shots = arg('--shots', path.resolve('web-shots'));
const chromium = arg('--chromium', '/usr/bin/chromium');
if (!fs.existsSync(chromium)) throw new Error(`${chromium} not found: make deps (apt-get install chromium)`);

const kOmpId = '01a0b1c2-0000-7000-8000-00000000a001';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'osearch-web-'));
fs.rmSync(shots, { recursive: true, force: true });
fs.mkdirSync(shots, { recursive: true });
// A copy of the sources: the live-update step adds a transcript to it.
const src = (name) => path.join(tmp, name);
for (const agent of ['omp', 'pi', 'codex']) fs.cpSync(path.join(data, 'mixed', agent), src(agent), { recursive: true });
fs.cpSync(path.join(data, 'claude'), src('claude'), { recursive: true });
// A Codex session that arrives while the page is open (the live-update step).
const lateRel = path.join('sessions', '2026', '11', '03', 'rollout-2026-11-03T10-30-00-01a0b1c2-0000-7000-8000-00000000d002.jsonl');
fs.rmSync(path.join(src('codex'), lateRel));
const globals = ['--index', src('index'), '--source', `claude=${src('claude')}`, '--source', `omp=${src('omp')}`,
  '--source', `pi=${src('pi')}`, '--source', `codex=${src('codex')}`];
const cli = (...args) => JSON.parse(execFileSync(osearch, [...args, ...globals, '--format', 'json'], { encoding: 'utf8' }));
cli('index');
const note = path.join(tmp, 'build-notes.md');
fs.writeFileSync(note, '# Build notes\n\n- run `make build`\n- see [the docs](https://example.com/docs)\n\n```\nmake test\n```\n');
const memory = cli('memory', 'remember', '--path', note, '--summary', 'How to **build** and test',
  '--session', kOmpId, '--anchor', 'file:/work/Makefile:3');

// The server: its first stdout line is the URL.
const server = spawn(osearch, ['serve', '--port', '0', ...globals], { stdio: ['ignore', 'pipe', 'inherit'] });
const url = await new Promise((resolve, reject) => {
  const rl = readline.createInterface({ input: server.stdout });
  rl.once('line', resolve);
  server.once('exit', (code) => reject(new Error(`osearch serve exited ${code} before printing its URL`)));
});
assert.match(url, /^http:\/\/127\.0\.0\.1:\d+\/\?token=[0-9a-f]{64}$/);
const origin = new URL(url).origin;

const problems = [];
const browser = await puppeteer.launch({
  executablePath: chromium,
  headless: true,
  args: [...(process.getuid && process.getuid() === 0 ? ['--no-sandbox'] : []), '--disable-gpu',
    '--disable-dev-shm-usage', '--no-first-run', '--no-default-browser-check'],
});
let exitCode = 1;
let page = null;
try {
  page = await browser.newPage();
  await page.setViewport({ width: 1280, height: 900 });
  await page.setRequestInterception(true);
  page.on('request', (req) => {
    const u = new URL(req.url());
    if (u.protocol === 'data:' || u.hostname === '127.0.0.1') return req.continue();
    problems.push(`request off 127.0.0.1: ${req.url()}`);
    return req.abort();
  });
  page.on('console', (msg) => { if (msg.type() === 'error') problems.push(`console error: ${msg.text()}`); });
  page.on('pageerror', (err) => problems.push(`page error: ${err.message}`));
  const retype = async (text) => {
    await page.$eval('#search', (n) => { n.focus(); n.select(); });
    await page.keyboard.type(text);
  };
  const shot = (name) => page.screenshot({ path: path.join(shots, name + '.png'), fullPage: false });
  const waitText = (selector, text) => page.waitForFunction(
    (s, t) => [...document.querySelectorAll(s)].some((n) => n.textContent.includes(t)), { timeout: 15000 }, selector, text);

  // Sessions, newest first, with the projects sidebar.
  await page.goto(url, { waitUntil: 'load' });
  assert.equal(page.url(), origin + '/'); // the token went into the cookie, out of the address bar
  await page.waitForSelector('li.session');
  await page.waitForSelector('.projects a[data-project="-work-omp-proj"]');
  const total = cli('list').total;
  await waitText('#summary', `of ${total} sessions`);
  await shot('01-sessions');

  // A project from the sidebar narrows the list.
  await page.click('.projects a[data-project="-work-omp-proj"]');
  await page.waitForFunction(() => document.querySelectorAll('li.session').length >= 1 &&
    [...document.querySelectorAll('li.session .project')].every((n) => n.textContent === '/work/omp proj'), { timeout: 15000 });
  await page.click('.projects a[data-project=""]');
  await waitText('#summary', `of ${total} sessions`);

  // Keyword search: the hit with its snippet, the term marked.
  await page.keyboard.press('/');
  await page.keyboard.type('ompuserword');
  await page.waitForFunction(() => [...document.querySelectorAll('li.session .snippet mark')]
    .some((m) => m.textContent.toLowerCase() === 'ompuserword'), { timeout: 15000 });
  await shot('02-keyword-search');

  // Regex (content) search.
  await page.select('#mode', 'content');
  await retype('pi[a-z]+word');
  await page.waitForFunction(() => document.querySelector('#summary').textContent.includes('sessions')
    && [...document.querySelectorAll('li.session .agent')].some((n) => n.textContent === 'pi'), { timeout: 15000 });
  await shot('03-regex-search');

  // Back to keyword; open the first hit with the keyboard (Escape, j, Enter).
  await page.select('#mode', 'keyword');
  await retype('ompuserword');
  await page.waitForFunction(() => document.querySelectorAll('li.session').length === 1
    && document.querySelector('li.session .snippet mark'), { timeout: 15000 });
  await page.keyboard.press('Escape');
  await page.keyboard.press('j');
  await page.waitForSelector('li.session.selected');
  await page.keyboard.press('Enter');
  await page.waitForSelector('.msg.target', { timeout: 15000 });
  assert.ok((await page.evaluate(() => location.hash)).startsWith(`#/thread/${kOmpId}/`));
  await page.waitForSelector('#resume-hint');
  const hint = await page.$eval('#resume-hint', (n) => n.textContent);
  assert.equal(hint, `cd '/work/omp proj' && omp --resume ${kOmpId}`);
  assert.ok(await page.$('.msg.kind-thinking'), 'thinking is shown apart');
  assert.ok(await page.$('.msg.sub .subagent-tag'), 'the subagent messages are marked');
  await shot('04-thread');

  // A tool call expands to its input and result.
  await page.click('details.tool-call > summary');
  await page.waitForFunction(() => {
    const d = document.querySelector('details.tool-call');
    return d.open && d.querySelector('.tool-result').textContent.includes('ompresultword');
  }, { timeout: 15000 });
  await shot('05-tool-call');

  // A deep link to a message of another session scrolls to it.
  const codexThread = cli('thread', '01a0b1c2-0000-7000-8000-00000000d001');
  const deep = codexThread.messages[codexThread.messages.length - 1].uuid;
  await page.goto(`${origin}/#/thread/01a0b1c2-0000-7000-8000-00000000d001/${encodeURIComponent(deep)}`, { waitUntil: 'load' });
  await page.waitForFunction((id) => document.getElementById('m-' + id)?.classList.contains('target'), { timeout: 15000 }, deep);
  assert.ok(await page.$('.diff'), 'the apply_patch call is drawn as a diff');
  await shot('06-deep-link');

  // Memories: the markdown rendered, forget, then restore (POSTs with the token header).
  await page.goto(`${origin}/#/memories`, { waitUntil: 'load' });
  await page.waitForSelector(`#memory-${memory.id} .memory-body strong`);
  assert.equal(await page.$eval(`#memory-${memory.id} .memory-body strong`, (n) => n.textContent), 'build');
  await page.click(`#memory-${memory.id} details.memory-file > summary`);
  await page.waitForSelector(`#memory-${memory.id} details.memory-file .md h3`);
  assert.equal(await page.$eval(`#memory-${memory.id} .memory-file .md a`, (a) => a.getAttribute('href')), 'https://example.com/docs');
  await shot('07-memories');
  // An anchor leads to the file's history of tool calls.
  assert.equal(await page.$eval(`#memory-${memory.id} .anchors a`, (a) => a.getAttribute('href')),
    '#/files?path=' + encodeURIComponent('/work/Makefile'));
  await page.goto(`${origin}/#/files?path=${encodeURIComponent('a.txt')}`, { waitUntil: 'load' });
  await page.waitForSelector('.touch .diff .dl.add');
  await shot('07b-file-history');
  await page.goto(`${origin}/#/memories`, { waitUntil: 'load' });
  await page.waitForSelector(`#memory-${memory.id} button.forget`);
  // Clicked inside the page in one step: the list may be redrawn (the live update) between a lookup and a click.
  const press = (selector) => page.waitForFunction((sel) => {
    const b = document.querySelector(sel);
    if (b) b.click();
    return !!b;
  }, { timeout: 15000 }, selector);
  await press(`#memory-${memory.id} button.forget`);
  await page.waitForSelector(`#memory-${memory.id}.archived`, { timeout: 15000 });
  assert.equal(cli('memory', 'list').total, 0);
  await shot('08-memory-archived');
  await press(`#memory-${memory.id} button.restore`);
  await page.waitForSelector(`#memory-${memory.id}:not(.archived)`, { timeout: 15000 });
  assert.equal(cli('memory', 'list').total, 1);

  // Usage: the heatmap, the line chart and the tables.
  await page.goto(`${origin}/#/usage`, { waitUntil: 'load' });
  await page.waitForSelector('svg.heatmap rect.lvl4', { timeout: 15000 });
  await page.waitForSelector('svg.line-chart polyline');
  await page.waitForSelector('table.bars .bar');
  await shot('09-usage');

  // Live update: a new session appears in the open list without a reload.
  await page.goto(`${origin}/#/`, { waitUntil: 'load' });
  await page.waitForSelector('#search');
  await page.$eval('#search', (n) => { n.value = ''; n.dispatchEvent(new Event('input')); });
  await waitText('#summary', `of ${total} sessions`);
  fs.copyFileSync(path.join(data, 'mixed', 'codex', lateRel), path.join(src('codex'), lateRel));
  await waitText('#summary', `of ${total + 1} sessions`);
  await waitText('li.session .title', 'Codexindexword title');
  await shot('10-live-update');

  // A source root emptied under the index (a wrong --source, a moved tree): the refresh that marks
  // its sessions archived says so once, and the page shows it until dismissed.
  for (const entry of fs.readdirSync(src('claude'))) fs.rmSync(path.join(src('claude'), entry), { recursive: true, force: true });
  await waitText('#warnings .warning-line', `claude source ${src('claude')}: no transcript found there`);
  assert.equal(await page.$eval('#warnings', (n) => n.hidden), false);
  await shot('11-emptied-root');
  await page.click('#warnings-dismiss');
  await page.waitForFunction(() => document.getElementById('warnings').hidden, { timeout: 15000 });
  assert.equal(problems.length, 0, problems.join('\n'));
  exitCode = 0;
  console.log(`browser test: ok (screenshots in ${shots})`);
} finally {
  if (exitCode !== 0 && page) await page.screenshot({ path: path.join(shots, 'failure.png') }).catch(() => {});
  await browser.close();
  server.kill('SIGTERM');
  const code = await new Promise((resolve) => server.once('exit', (c) => resolve(c)));
  if (code !== 0) {
    console.error(`osearch serve exited ${code} on SIGTERM`);
    exitCode = 1;
  }
  fs.rmSync(tmp, { recursive: true, force: true });
  if (problems.length) console.error(problems.join('\n'));
}
process.exit(exitCode);
