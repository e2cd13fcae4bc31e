// First page load of `osearch serve` in headless chromium (bench/web_latency.py runs it):
//   node bench/web_page_load.mjs URL RUNS
// Each run is a fresh browser context (no cookie, no cache) loading the printed URL: navigation start to
// the load event, and to the first session row drawn; then the same tab reloaded (cookie set, renderer
// running). Prints a JSON array of {load, rows, commit, reload, reload_rows} in ms; with THREAD_ID, then
// {thread_first, thread_all}: that session's thread view opened from the list.
//   node bench/web_page_load.mjs URL RUNS [THREAD_ID]
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const require = createRequire(path.join(here, '..', 'tests', 'web', 'package.json'));
const puppeteer = (await import(require.resolve('puppeteer-core'))).default;

const [url, runsText, threadId] = process.argv.slice(2);
const runs = Number(runsText || 10);
const browser = await puppeteer.launch({
  executablePath: '/usr/bin/chromium',
  headless: true,
  args: [...(process.getuid() === 0 ? ['--no-sandbox'] : []), '--disable-gpu', '--disable-dev-shm-usage'],
});
const samples = [];
try {
  for (let i = 0; i < runs + 2; i++) {
    const context = await browser.createBrowserContext();
    const page = await context.newPage();
    await page.goto(url, { waitUntil: 'load' });
    await page.waitForSelector('li.session');
    const timing = () => page.evaluate(() => {
      const nav = performance.getEntriesByType('navigation')[0];
      const rows = performance.getEntriesByName('first-rows')[0];
      return { load: nav.loadEventEnd, rows: rows ? rows.startTime : performance.now(), commit: nav.responseEnd };
    });
    const first = await timing();
    // The same tab again (the cookie set, a renderer running): what reopening the app costs.
    await page.reload({ waitUntil: 'load' });
    await page.waitForSelector('li.session');
    const again = await timing();
    if (i >= 2) samples.push({ ...first, reload: again.load, reload_rows: again.rows }); // two warm-up loads
    await context.close();
  }
  // The thread view of a long session, opened from the list: the first message drawn, and every page
  // fetched and drawn (messages arrive 100, then 400 a call, and are drawn 40 per animation frame).
  if (threadId) {
    const page = await browser.newPage();
    await page.goto(url, { waitUntil: 'load' });
    const origin = new URL(url).origin;
    for (let i = 0; i < Math.max(3, Math.floor(runs / 2)) + 1; i++) {
      await page.goto(origin + '/#/', { waitUntil: 'load' });
      await page.waitForSelector('li.session');
      const t0 = Date.now();
      await page.evaluate((id) => { location.hash = '#/thread/' + encodeURIComponent(id); }, threadId);
      await page.waitForSelector('.msg');
      const first = Date.now() - t0;
      await page.waitForFunction(() => /^\d+ messages$/.test(document.querySelector('.thread > .summary').textContent),
        { timeout: 120000, polling: 10 });
      if (i >= 1) samples.push({ thread_first: first, thread_all: Date.now() - t0 });
    }
  }
} finally {
  await browser.close();
}
console.log(JSON.stringify(samples));
