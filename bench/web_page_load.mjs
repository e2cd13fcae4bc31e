// First page load of `osearch serve` in headless chromium (bench/web_latency.py runs it):
//   node bench/web_page_load.mjs URL RUNS
// Each run is a fresh browser context (no cookie, no cache) loading the printed URL: navigation start to
// the load event, and to the first session row drawn; then the same tab reloaded (cookie set, renderer
// running). Prints a JSON array of {load, rows, commit, reload, reload_rows} in ms.
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const require = createRequire(path.join(here, '..', 'tests', 'web', 'package.json'));
const puppeteer = (await import(require.resolve('puppeteer-core'))).default;

const [url, runsText] = process.argv.slice(2);
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
} finally {
  await browser.close();
}
console.log(JSON.stringify(samples));
