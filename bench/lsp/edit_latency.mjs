// Re-lint latency of `ljcheck lsp` after a one-line edit, measured through
// the server as an editor sees it: from sending didChange to receiving the
// publishDiagnostics of that version. Also the server's resident memory
// after warm-up and after all edits (/proc/<pid>/status VmRSS).
// Run: node bench/lsp/edit_latency.mjs [build/bin/ljcheck] [lines] [edits]
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const rpc = createRequire(resolve(root, 'third_party/lsp-client/package.json'))('vscode-jsonrpc/node');
const exe = process.argv[2] || resolve(root, 'build/bin/ljcheck');
const lineCount = Number(process.argv[3] || 5000);
const edits = Number(process.argv[4] || 1000);

// A 5,000-line module: functions with loops, some with a closure (FNEW).
const lines = ['local M = {}'];
for (let f = 0; lines.length + 7 < lineCount; f++) {
  lines.push(`function M.f${f}(t, n)`, '  local s = 0', '  for i = 1, n do',
    f % 4 === 0 ? '    t[i] = function() return i end' : `    s = s + t[i] * ${f}`, '  end', '  return s', 'end');
}
while (lines.length < lineCount - 1) lines.push('-- padding');
lines.push('return M');
const text = lines.join('\n') + '\n';

const rss = (pid) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))[1]);
const server = spawn(exe, ['lsp'], { stdio: ['pipe', 'pipe', 'inherit'] });
const connection = rpc.createMessageConnection(new rpc.StreamMessageReader(server.stdout), new rpc.StreamMessageWriter(server.stdin));
const pending = new Map();
connection.onNotification('textDocument/publishDiagnostics', (p) => pending.get(p.version)?.(p));
connection.listen();
const published = (version) => new Promise((done) => pending.set(version, done));

await connection.sendRequest('initialize', { processId: process.pid, rootUri: null, capabilities: {} });
connection.sendNotification('initialized', {});
const uri = 'file:///bench/edit_latency.lua';
let wait = published(1);
connection.sendNotification('textDocument/didOpen', { textDocument: { uri, languageId: 'lua', version: 1, text } });
const first = await wait;
const codes = new Set(first.diagnostics.map((d) => d.code));
if (codes.has('syntax')) throw new Error(`the generated file does not compile: ${first.diagnostics[0].message}`);

const times = [];
let warmRss = 0;
for (let v = 2; v < edits + 2; v++) {
  // Rewrite one `local s = 0` line: a one-line edit somewhere in the file.
  const line = 2 + 7 * ((v * 37) % Math.floor(lineCount / 7 - 1));
  const edit = { range: { start: { line, character: 12 }, end: { line, character: 13 } }, text: String(v % 10) };
  wait = published(v);
  const start = process.hrtime.bigint();
  connection.sendNotification('textDocument/didChange', { textDocument: { uri, version: v }, contentChanges: [edit] });
  await wait;
  times.push(Number(process.hrtime.bigint() - start) / 1e6);
  if (v === 101) warmRss = rss(server.pid);
}
const endRss = rss(server.pid);
await connection.sendRequest('shutdown');
connection.sendNotification('exit');
connection.dispose();

const window = times.slice(0, 200).sort((a, b) => a - b);
const q = (p) => window[Math.min(window.length - 1, Math.floor(p * window.length))];
console.log(JSON.stringify({
  lines: lineCount, diagnostics: first.diagnostics.length, codes: [...codes], edits: times.length,
  first200: { p50Ms: +q(0.5).toFixed(2), p95Ms: +q(0.95).toFixed(2), maxMs: +window[window.length - 1].toFixed(2) },
  rssKiB: { after100: warmRss, afterAll: endRss, growthPct: +((100 * (endRss - warmRss)) / warmRss).toFixed(1) },
}));
