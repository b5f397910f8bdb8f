// Opens an `ljcheck report` page from disk in headless Debian chromium and
// checks it: no console errors, no network requests, the expected rows, and
// sorting by cost driven through the page. Takes a screenshot.
// usage: node report_page.mjs <node_modules dir> <report.html> <screenshot.png> <expected rows>
import { createRequire } from 'node:module';
import path from 'node:path';

const [modules, report, screenshot, expectedRows] = process.argv.slice(2);
const puppeteer = createRequire(path.join(modules, 'x.js'))('puppeteer-core');
const fail = (why) => { console.error('report page: ' + why); process.exitCode = 1; };

const browser = await puppeteer.launch({
  executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
  headless: true,
  args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'],
});
try {
  const page = await browser.newPage();
  const pageUrl = 'file://' + path.resolve(report);
  const errors = [], requests = [];
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  page.on('pageerror', (e) => errors.push(String(e)));
  page.on('request', (r) => { if (r.url() !== pageUrl) requests.push(r.url()); });
  await page.setViewport({ width: 1300, height: 1000 });
  await page.goto(pageUrl, { waitUntil: 'load', timeout: 20000 });
  if (errors.length) fail('console errors: ' + errors.join(' | '));
  if (requests.length) fail('network requests: ' + requests.join(' '));

  const rows = await page.$$eval('#sites tbody tr', (trs) => trs.map((tr) => ({
    reasonId: tr.cells[1].textContent, cost: parseFloat(tr.cells[7].getAttribute('data-value')) })));
  if (rows.length !== Number(expectedRows)) fail(`expected ${expectedRows} site rows, found ${rows.length}`);
  if (!rows.some((r) => r.reasonId === 'NYIBC:FNEW' && r.cost > 0)) fail('no costed NYIBC:FNEW row');
  if (!(await page.$('#flame svg.flame g.frame'))) fail('no flame graph frames');
  // The flame graph comes from the runtime JSON alone: its frames are
  // coloured by VM state, not the grey of a frame without one.
  const fills = await page.$$eval('#flame svg.flame g.frame rect', (rects) => rects.map((r) => getComputedStyle(r).fill));
  const grey = (fill) => { const m = fill.match(/\d+/g); return !m || (m[0] === m[1] && m[1] === m[2]); };
  const coloured = fills.filter((f) => !grey(f));
  if (coloured.length === 0) fail('no coloured flame graph frames: fills ' + [...new Set(fills)].join(' '));
  if (coloured.length < fills.length / 2) fail(`only ${coloured.length} of ${fills.length} flame graph frames are coloured`);

  const costs = async () => page.$$eval('#sites tbody tr', (trs) => trs.map((tr) => parseFloat(tr.cells[7].getAttribute('data-value'))));
  const sorted = (xs, desc) => xs.every((x, i) => i === 0 || (desc ? xs[i - 1] >= x : xs[i - 1] <= x));
  await page.click('#sites th[data-key="status"]');
  await page.click('#sites th[data-key="cost"]');  // first click on a number: most costly first
  const desc = await costs();
  if (!sorted(desc, true)) fail('not sorted by cost descending: ' + desc);
  await page.click('#sites th[data-key="cost"]');
  const asc = await costs();
  if (!sorted(asc, false) || asc[0] === desc[0] && desc[0] !== desc[desc.length - 1]) fail('not sorted ascending: ' + asc);
  const sortState = await page.$eval('#sites th[data-key="cost"]', (th) => th.getAttribute('aria-sort'));
  if (sortState !== 'ascending') fail('aria-sort is ' + sortState);

  await page.type('#filter', 'STITCH');
  const visible = await page.$$eval('#sites tbody tr:not([hidden])', (trs) => trs.map((tr) => tr.cells[1].textContent));
  if (visible.length === 0 || !visible.every((id) => id.startsWith('STITCH'))) fail('filter shows ' + visible);
  await page.click('#filter', { clickCount: 3 });
  await page.keyboard.press('Backspace');

  await page.screenshot({ path: screenshot, fullPage: true });
  if (errors.length) fail('console errors: ' + errors.join(' | '));
  if (requests.length) fail('network requests: ' + requests.join(' '));
  if (!process.exitCode) console.log(`report page: ${rows.length} rows, sorted by cost both ways, screenshot ${screenshot}`);
} finally {
  await browser.close();
}
