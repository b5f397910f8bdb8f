// Loads the sampler's outputs into speedscope (npm, served from node_modules
// over file://) in headless Debian chromium: each file must load, i.e. the
// title becomes "<file> - speedscope". An unrecognised file leaves an alert
// open: a dialog or a time-out is a failure. Speedscope JSON is first
// validated against the schema the npm package ships (ajv); a Chrome Trace
// Event file (the timeline: an object with traceEvents) has no such schema.
// usage: node speedscope_load.mjs <node_modules dir> <file>...
import { createRequire } from 'node:module';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const [modules, ...files] = process.argv.slice(2);
const require = createRequire(path.join(modules, 'x.js'));
const puppeteer = require('puppeteer-core');
const Ajv = require('ajv');
const release = path.join(modules, 'speedscope', 'dist', 'release');
const fail = (why) => { console.error('speedscope: ' + why); process.exitCode = 1; };

const schema = JSON.parse(fs.readFileSync(path.join(release, 'file-format-schema.json'), 'utf8'));
const validate = new Ajv({ strict: false, allErrors: true }).compile(schema);
const isChromeTrace = (file) => 'traceEvents' in JSON.parse(fs.readFileSync(file, 'utf8'));
for (const file of files.filter((f) => f.endsWith('.json') && !isChromeTrace(f))) {
  if (!validate(JSON.parse(fs.readFileSync(file, 'utf8'))))
    fail(`${file} does not match speedscope's schema: ${JSON.stringify(validate.errors).slice(0, 400)}`);
}

const browser = await puppeteer.launch({
  executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
  headless: true,
  args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'],
});
const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'ljcheck-speedscope-'));
try {
  for (const file of files) {
    const name = path.basename(file);
    // speedscope titles a speedscope JSON file by its own "name" field.
    const title = (file.endsWith('.json') && JSON.parse(fs.readFileSync(file, 'utf8')).name) || name;
    const loader = path.join(scratch, name + '.js');
    fs.writeFileSync(loader, `speedscope.loadFileFromBase64(${JSON.stringify(name)}, ${JSON.stringify(fs.readFileSync(file).toString('base64'))})`);
    const page = await browser.newPage();
    const problems = [];
    let dialogShown;
    const dialog = new Promise((resolve) => { dialogShown = resolve; });
    page.on('dialog', async (d) => { problems.push('dialog: ' + d.message()); await d.dismiss(); dialogShown(); });
    page.on('console', (m) => { if (/Failed to load/.test(m.text())) problems.push(m.text()); });
    page.on('request', (r) => { if (!r.url().startsWith('file://') && !r.url().startsWith('data:') && !r.url().startsWith('blob:')) problems.push('network request ' + r.url()); });
    await page.goto('file://' + path.join(release, 'index.html') + '#localProfilePath=' + loader, { waitUntil: 'load' });
    try {
      await Promise.race([dialog, page.waitForFunction((t) => document.title === t, { timeout: 20000 }, `${title} - speedscope`)]);
    } catch (e) {
      problems.push(`title is "${await page.title()}", not "${title} - speedscope" (timed out)`);
    }
    if (problems.length) fail(`${file}: ${problems.join(' | ')}`);
    else console.log(`speedscope: ${name} loaded`);
    await page.close();
  }
} finally {
  await browser.close();
  fs.rmSync(scratch, { recursive: true, force: true });
}
