// Re-lint latency of `ljcheck lsp` after a one-line edit, measured through
// the server as an editor sees it: from sending didChange to receiving the
// publishDiagnostics of that version (the client's JSON parse included).
// Paired in the same run with a baseline: `ljcheck lint` of the same text,
// 20 runs after the edits; the client's own decode and parse of one publish
// (clientParse); and a reference with no analysis at all (replay): the same
// client and edits against replay_server.mjs, a node process that answers
// each edit at once with the same publish, from a fresh client process (cold,
// to set against the first 200 edits) and from this one after its edits
// (warm, against the last 200). It is not a strict floor: node writing the
// publish into the pipe costs about what ljcheck's analysis and write do. Latency is given for the first 200 edits
// (a fresh client) and the last 200 (a warm one, as an editor's is), each with
// the client's own garbage-collection pauses inside them (clientGc, with --gc). Also the server's resident memory
// (/proc/<pid>/status VmRSS) after 10 edits and after all of them.
// Run: node bench/lsp/edit_latency.mjs [--project] [--gc] [--session FILE] [--text FILE] [build/bin/ljcheck] [lines] [edits]
//   --project: the file lies in a workspace root the client names (the
//              server's project mode, as with cross-file analysis);
//   --session FILE: write the messages the client would send to FILE and
//              exit (for callgrind: ljcheck lsp < FILE, see instructions.sh);
//   --text FILE: write the generated file to FILE and exit (neovim_latency.sh);
//   --gc: also count the client's garbage-collection pauses inside each
//              window (clientGc), which perturbs the timings a little.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { PerformanceObserver, performance } from 'node:perf_hooks';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const args = process.argv.slice(2);
const flag = (name) => { const i = args.indexOf(name); if (i < 0) return false; args.splice(i, 1); return true; };
const option = (name) => { const i = args.indexOf(name); if (i < 0) return null; const v = args[i + 1]; args.splice(i, 2); return v; };
const projectMode = flag('--project');
const sessionFile = option('--session');
const textFile = option('--text');
const withGc = flag('--gc');
const coldReplayParams = option('--cold-replay');  // internal: see replay.cold below
const exe = resolve(args[0] || resolve(root, 'build/bin/ljcheck'));
const lineCount = Number(args[1] || 5000);
const edits = Number(args[2] || 1000);

// A 5,000-line module: functions with loops, some with a closure (FNEW).
const lines = ['local M = {}'];
for (let f = 0; lines.length + 7 < lineCount; f++) {
  lines.push(`function M.f${f}(t, n)`, '  local s = 0', '  for i = 1, n do',
    f % 4 === 0 ? '    t[i] = function() return i end' : `    s = s + t[i] * ${f}`, '  end', '  return s', 'end');
}
while (lines.length < lineCount - 1) lines.push('-- padding');
lines.push('return M');
const text = lines.join('\n') + '\n';

// The v-th edit: rewrite one `local s = 0` line somewhere in the file.
function editAt(v) {
  const line = 2 + 7 * ((v * 37) % Math.floor(lineCount / 7 - 1));
  return { range: { start: { line, character: 12 }, end: { line, character: 13 } }, text: String(v % 10) };
}
function applyEdit(t, e) {
  let at = 0;
  for (let l = 0; l < e.range.start.line; l++) at = t.indexOf('\n', at) + 1;
  return t.slice(0, at + e.range.start.character) + e.text + t.slice(at + e.range.end.character);
}

if (textFile) {  // the generated file alone, for another client (neovim_latency.sh)
  writeFileSync(textFile, text);
  process.exit(0);
}

const dir = mkdtempSync(resolve(tmpdir(), 'ljcheck-lsp-bench-'));
const file = resolve(dir, 'edit_latency.lua');
writeFileSync(file, text);
const uri = pathToFileURL(file).href;
const initialize = { processId: process.pid, rootUri: projectMode ? pathToFileURL(dir).href : null, capabilities: {} };

if (sessionFile) {
  let out = '';
  const send = (m) => { const b = JSON.stringify({ jsonrpc: '2.0', ...m }); out += `Content-Length: ${Buffer.byteLength(b)}\r\n\r\n${b}`; };
  send({ id: 1, method: 'initialize', params: initialize });
  send({ method: 'textDocument/didOpen', params: { textDocument: { uri, languageId: 'lua', version: 1, text } } });
  for (let v = 2; v < edits + 2; v++)
    send({ method: 'textDocument/didChange', params: { textDocument: { uri, version: v }, contentChanges: [editAt(v)] } });
  send({ id: 2, method: 'shutdown' });
  send({ method: 'exit' });
  writeFileSync(sessionFile, out);
  process.exit(0);  // the file stays: the session names it
}

const rpc = createRequire(resolve(root, 'third_party/lsp-client/package.json'))('vscode-jsonrpc/node');
const rss = (pid) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))[1]);

// A server process and the client's connection to it. Each version's waiter
// is dropped once it is answered: kept, its resolved promise would hold that
// version's diagnostics (about 1 MB of objects) for the whole run, and the
// client's young-generation collections would copy them again and again
// (18-34 ms pauses every ~25 edits, counted as latency).
async function start(command, commandArgs) {
  const server = spawn(command, commandArgs, { cwd: dir, stdio: ['pipe', 'pipe', 'inherit'] });
  const connection = rpc.createMessageConnection(new rpc.StreamMessageReader(server.stdout), new rpc.StreamMessageWriter(server.stdin));
  const pending = new Map();
  const client = { server, connection, lastPublished: null };  // the latest publish only, for clientParse and the replay below
  connection.onNotification('textDocument/publishDiagnostics', (p) => {
    client.lastPublished = p;
    const done = pending.get(p.version);
    pending.delete(p.version);
    done?.(p);
  });
  connection.listen();
  client.published = (version) => new Promise((done) => pending.set(version, done));
  await connection.sendRequest('initialize', initialize);
  connection.sendNotification('initialized', {});
  return client;
}

async function stop(client) {
  await client.connection.sendRequest('shutdown');
  client.connection.sendNotification('exit');
  client.connection.dispose();
}

// The client's own garbage collections (start and duration, in
// performance.now() milliseconds), to tell how many of the slow edits are the
// client's pauses rather than the server's time.
const gcPauses = [];
// Only with --gc: observing them costs the client about a millisecond per edit
// at the median on this machine (measured with and without, alternating).
if (withGc) new PerformanceObserver((list) => { for (const e of list.getEntries()) gcPauses.push(e); }).observe({ entryTypes: ['gc'] });

// Edits v = 2 .. edits + 1 of the text, each timed from sending didChange to
// receiving the publish of its version; `after(v)` runs after each one.
// Returns the times and each edit's [start, end] on performance.now().
async function timeEdits(client, edits, after = () => {}) {
  const times = [];
  const spans = [];
  let edited = text;
  for (let v = 2; v < edits + 2; v++) {
    const edit = editAt(v);
    edited = applyEdit(edited, edit);
    const wait = client.published(v);
    const start = process.hrtime.bigint();
    const from = performance.now();
    client.connection.sendNotification('textDocument/didChange', { textDocument: { uri, version: v }, contentChanges: [edit] });
    await wait;
    times.push(Number(process.hrtime.bigint() - start) / 1e6);
    spans.push([from, performance.now()]);
    after(v);
  }
  return { times, spans, text: edited };
}

// The client's collections within `window` (edit spans): how many, their
// total, and how many edits had one.
async function clientGc(window) {
  await new Promise((done) => setImmediate(done));  // observer entries arrive a tick late
  let pauses = 0, totalMs = 0;
  const hit = new Set();
  for (const e of gcPauses)
    window.forEach(([from, to], i) => {
      if (e.startTime < to && e.startTime + e.duration > from) { ++pauses; totalMs += e.duration; hit.add(i); }
    });
  return { pauses, totalMs: +totalMs.toFixed(2), editsWithPause: hit.size };
}

const quantile = (values, p) => {
  const sorted = [...values].sort((a, b) => a - b);
  return +sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))].toFixed(2);
};
const summary = (values) => ({ p50Ms: quantile(values, 0.5), p95Ms: quantile(values, 0.95), maxMs: quantile(values, 1) });

// The replay reference from a fresh client process (the run below starts
// one with --cold-replay): the first 200 edits against the replay server, as
// the first 200 edits against ljcheck run in this process, fresh too.
if (coldReplayParams) {
  const replay = await start(process.execPath, [resolve(root, 'bench/lsp/replay_server.mjs'), coldReplayParams]);
  const { times: cold } = await timeEdits(replay, Math.min(edits, 200));
  await stop(replay);
  rmSync(dir, { recursive: true, force: true });
  console.log(JSON.stringify(summary(cold)));
  process.exit(0);
}

const ljcheck = await start(exe, ['lsp', '--no-config']);
let wait = ljcheck.published(1);
ljcheck.connection.sendNotification('textDocument/didOpen', { textDocument: { uri, languageId: 'lua', version: 1, text } });
const first = await wait;
const codes = new Set(first.diagnostics.map((d) => d.code));
if (codes.has('syntax')) throw new Error(`the generated file does not compile: ${first.diagnostics[0].message}`);

// The baseline: a fresh `ljcheck lint` of the same text, as a pre-commit hook would run it.
function lintOnce() {
  const start = process.hrtime.bigint();
  const run = spawnSync(exe, ['lint', '--no-config', '--format', 'json', file], { cwd: dir });
  if (run.status !== 0 && run.status !== 1) throw new Error(`lint exited ${run.status}: ${run.stderr}`);
  return Number(process.hrtime.bigint() - start) / 1e6;
}

const lintTimes = [];
let rssAfter10 = 0, rssAfter100 = 0, rssAfter500 = 0;
const { times, spans, text: editedText } = await timeEdits(ljcheck, edits, (v) => {
  if (v === 11) rssAfter10 = rss(ljcheck.server.pid);
  if (v === 101) rssAfter100 = rss(ljcheck.server.pid);
  if (v === 501) rssAfter500 = rss(ljcheck.server.pid);
});
const rssAfterAll = rss(ljcheck.server.pid);
const lastPublished = ljcheck.lastPublished;
await stop(ljcheck);
// The baseline runs after the edits, not between them: a 45 ms lint process
// spawned before every tenth edit left that edit slower (caches and the
// scheduler after it), which is the spawn's cost, not the server's.
writeFileSync(file, editedText);
for (let run = 0; run < 20; run++) lintTimes.push(lintOnce());
// The client's own share of each edit's latency: decoding and parsing one
// publish of this file (the last one, as compact JSON like the server's),
// with no server, pipe or event loop involved.
const publishBytes = Buffer.from(JSON.stringify({ jsonrpc: '2.0', method: 'textDocument/publishDiagnostics', params: lastPublished }));
const parseTimes = [];
for (let run = 0; run < 200; run++) {
  const start = process.hrtime.bigint();
  JSON.parse(publishBytes.toString('utf8'));
  parseTimes.push(Number(process.hrtime.bigint() - start) / 1e6);
}
// The replay reference: the same edits and client against a server that
// does no analysis and answers each with that same publish
// (replay_server.mjs): the pipe, the wake-ups and the client's reading and
// parsing, over 200 edits.
const paramsFile = resolve(dir, 'publish.json');
writeFileSync(paramsFile, JSON.stringify(lastPublished));
const replay = await start(process.execPath, [resolve(root, 'bench/lsp/replay_server.mjs'), paramsFile]);
const { times: replayTimes, spans: replaySpans } = await timeEdits(replay, Math.min(edits, 200));
await stop(replay);
const coldRun = spawnSync(process.execPath, [fileURLToPath(import.meta.url), '--cold-replay', paramsFile, exe, String(lineCount), String(edits)],
  { encoding: 'utf8' });
if (coldRun.status !== 0) throw new Error(`the cold replay run failed: ${coldRun.stderr}`);
const coldReplay = JSON.parse(coldRun.stdout);
rmSync(dir, { recursive: true, force: true });
const gc = withGc ? await clientGc(spans.slice(0, 200)) : undefined;
const lastGc = withGc ? await clientGc(spans.slice(-200)) : undefined;
const replayGc = withGc ? await clientGc(replaySpans) : undefined;

const window = times.slice(0, 200);
const p50 = quantile(window, 0.5);
const p95 = quantile(window, 0.95);
// The warm replay runs after the edits, on this client: its ratios are taken
// against the last 200 edits, which run on a warm client too; the cold
// replay's against the first 200.
const warm = summary(replayTimes);
const last = times.slice(-200);
const ratio = (a, b) => +(a / b).toFixed(2);
const lintP50 = quantile(lintTimes, 0.5);
console.log(JSON.stringify({
  mode: projectMode ? 'project' : 'document', lines: lineCount, diagnostics: first.diagnostics.length,
  codes: [...codes], edits: times.length,
  first200: { ...summary(window), clientGc: gc },
  // The same server after its warm-up and the client's: a node process starts
  // with a small young generation that grows over the first few hundred
  // publishes, where an editor's has long grown.
  last200: { ...summary(last), clientGc: lastGc },
  replay: {
    edits: replayTimes.length,
    cold: { ...coldReplay, firstOverColdP50: ratio(p50, coldReplay.p50Ms), firstOverColdP95: ratio(p95, coldReplay.p95Ms) },
    warm: { ...warm, clientGc: replayGc, lastOverWarmP50: ratio(quantile(last, 0.5), warm.p50Ms),
            lastOverWarmP95: ratio(quantile(last, 0.95), warm.p95Ms) },
  },
  lintBaseline: { runs: lintTimes.length, p50Ms: lintP50, editOverLint: +(p50 / lintP50).toFixed(3) },
  clientParse: { bytes: publishBytes.length, p50Ms: quantile(parseTimes, 0.5), p95Ms: quantile(parseTimes, 0.95) },
  rssKiB: { after10: rssAfter10, after100: rssAfter100, after500: rssAfter500, afterAll: rssAfterAll, growthPct: +((100 * (rssAfterAll - rssAfter10)) / rssAfter10).toFixed(1) },
}));
