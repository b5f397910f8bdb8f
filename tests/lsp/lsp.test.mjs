// End-to-end tests of `ljcheck lsp` with a real LSP client library (npm
// vscode-jsonrpc, pinned by scripts/setup.sh into third_party/lsp-client).
// Run: LJCHECK_EXE=build/bin/ljcheck node --test tests/lsp/lsp.test.mjs
import { afterEach, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createRequire } from 'node:module';
import { dirname, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, '../..');
const require = createRequire(resolve(root, 'third_party/lsp-client/package.json'));
const rpc = require('vscode-jsonrpc/node');

const exe = process.env.LJCHECK_EXE || resolve(root, 'build/bin/ljcheck');
const fixturePath = resolve(here, 'fixture.lua');
const fixtureUri = pathToFileURL(fixturePath).href;
const fixture = readFileSync(fixturePath, 'utf8');

// The LSP position of the first `needle` in `text`. JavaScript strings index
// UTF-16 code units, so this is the client's own count, not the server's.
function positionOf(text, needle) {
  const at = text.indexOf(needle);
  assert.notEqual(at, -1, `'${needle}' not in the text`);
  const before = text.slice(0, at).split('\n');
  return { line: before.length - 1, character: before[before.length - 1].length };
}

function offsetOf(text, position) {
  const lines = text.split('\n');
  let offset = 0;
  for (let i = 0; i < position.line; i++) offset += lines[i].length + 1;
  return offset + position.character;
}

// Applies TextEdits (UTF-16 positions) the way an editor does, last first.
function applyEdits(text, edits) {
  const sorted = [...edits].sort((a, b) => offsetOf(text, b.range.start) - offsetOf(text, a.range.start));
  for (const e of sorted)
    text = text.slice(0, offsetOf(text, e.range.start)) + e.newText + text.slice(offsetOf(text, e.range.end));
  return text;
}

// Every server a test started and that has not exited: killed when the test
// ends, whatever its outcome, so that a failed assertion cannot leave one
// running (the runner would wait for it until ctest's timeout).
const running = new Set();
afterEach(() => {
  for (const server of running) server.kill();
  running.clear();
});

// A server process and a client connection; `diagnostics(version)` waits for
// the publishDiagnostics of that document version.
function startServer(cwd) {
  const server = spawn(exe, ['lsp'], { cwd, stdio: ['pipe', 'pipe', 'inherit'] });
  running.add(server);
  server.on('exit', () => running.delete(server));
  const connection = rpc.createMessageConnection(
    new rpc.StreamMessageReader(server.stdout), new rpc.StreamMessageWriter(server.stdin));
  const published = [];
  const waiters = [];
  connection.onNotification('textDocument/publishDiagnostics', (params) => {
    published.push(params);
    for (const w of waiters.splice(0)) w();
  });
  connection.listen();
  const exited = new Promise((done) => server.on('exit', (code) => done(code)));
  async function diagnostics(version) {
    for (;;) {
      const found = published.find((p) => p.version === version);
      if (found) return found;
      let timer;
      await Promise.race([
        new Promise((done) => waiters.push(done)),
        new Promise((_, fail) => { timer = setTimeout(() => fail(new Error(`no diagnostics for version ${version}`)), 10000); }),
      ]).finally(() => clearTimeout(timer));
    }
  }
  return { server, connection, diagnostics, exited };
}

async function initialize(connection, positionEncodings) {
  const capabilities = positionEncodings ? { general: { positionEncodings } } : {};
  const result = await connection.sendRequest('initialize', { processId: process.pid, rootUri: null, capabilities });
  connection.sendNotification('initialized', {});
  return result;
}

async function shutdown({ connection, exited }) {
  await connection.sendRequest('shutdown');
  connection.sendNotification('exit');
  assert.equal(await exited, 0, 'the server exits 0 after shutdown and exit');
  connection.dispose();
}

function byCode(published, code) {
  return published.diagnostics.filter((d) => d.code === code);
}

test('diagnostics, incremental edits, quickfix and hover', async () => {
  const s = startServer();
  const { connection, diagnostics } = s;
  const init = await initialize(connection);
  assert.equal(init.capabilities.positionEncoding, 'utf-16');
  assert.equal(init.capabilities.textDocumentSync.change, 2, 'incremental sync');

  connection.sendNotification('textDocument/didOpen',
    { textDocument: { uri: fixtureUri, languageId: 'lua', version: 1, text: fixture } });
  const first = await diagnostics(1);
  assert.equal(first.uri, fixtureUri);
  const [fnew] = byCode(first, 'NYIBC:FNEW');
  assert.ok(fnew, `a NYIBC:FNEW diagnostic in ${JSON.stringify(first.diagnostics)}`);
  const start = positionOf(fixture, 'function()');
  assert.deepEqual(fnew.range, { start, end: { line: start.line, character: start.character + 'function'.length } });
  assert.equal(fnew.source, 'ljcheck');
  assert.equal(fnew.severity, 1, 'a blocker in a loop body predicts blacklist: an error');
  assert.match(fnew.codeDescription.href, /^file:\/\/.*\/reasons\/NYIBC\.md$/);
  assert.equal(fnew.data.confidence, 'certain');
  assert.match(fnew.message, /confidence: certain/);
  const [uclo] = byCode(first, 'NYIBC:UCLO');
  assert.ok(uclo, 'the masked upvalue close is shown too');
  assert.equal(uclo.severity, 4, 'a masked site is a hint');
  assert.equal(uclo.relatedInformation[0].location.uri, fixtureUri);
  assert.ok(uclo.message.includes(`(masked by NYIBC:FNEW at line ${fnew.range.start.line + 1})`),
    `a masking site in the same document is named by the line its diagnostic is on: ${uclo.message}`);
  assert.deepEqual(uclo.relatedInformation[0].location.range, fnew.range,
    'the related location is the masking diagnostic itself');

  // Incremental edit: the closure becomes a plain expression; nothing is left.
  const closure = 'function() return label .. i end';
  const at = positionOf(fixture, closure);
  const closureRange = { start: at, end: { line: at.line, character: at.character + closure.length } };
  connection.sendNotification('textDocument/didChange', {
    textDocument: { uri: fixtureUri, version: 2 },
    contentChanges: [{ range: closureRange, text: 'label .. i' }],
  });
  assert.deepEqual((await diagnostics(2)).diagnostics, []);

  // And back: the diagnostic returns where it was.
  connection.sendNotification('textDocument/didChange', {
    textDocument: { uri: fixtureUri, version: 3 },
    contentChanges: [{ range: { start: at, end: { line: at.line, character: at.character + 'label .. i'.length } }, text: closure }],
  });
  const third = await diagnostics(3);
  assert.deepEqual(byCode(third, 'NYIBC:FNEW')[0].range, fnew.range);

  // Hover on the construct explains the reason from the catalog.
  const hover = await connection.sendRequest('textDocument/hover',
    { textDocument: { uri: fixtureUri }, position: { line: start.line, character: start.character + 2 } });
  assert.equal(hover.contents.kind, 'markdown');
  assert.match(hover.contents.value, /NYIBC:FNEW/);
  assert.match(hover.contents.value, /What to do:/);
  const elsewhere = await connection.sendRequest('textDocument/hover',
    { textDocument: { uri: fixtureUri }, position: { line: 0, character: 0 } });
  assert.equal(elsewhere, null);

  // The line quickfix, applied as an incremental change, silences FNEW.
  const actions = await connection.sendRequest('textDocument/codeAction', {
    textDocument: { uri: fixtureUri }, range: fnew.range, context: { diagnostics: [fnew] },
  });
  const lineFix = actions.find((a) => a.kind === 'quickfix' && a.title.includes('NYIBC:FNEW on this line'));
  const fileFix = actions.find((a) => a.kind === 'quickfix' && a.title.includes('NYIBC:FNEW in this file'));
  assert.ok(lineFix && fileFix, `both quickfixes in ${JSON.stringify(actions.map((a) => a.title))}`);
  const edits = lineFix.edit.changes[fixtureUri];
  assert.match(edits[0].newText, /-- ljcheck: allow\(NYIBC:FNEW\)$/);
  assert.equal(fileFix.edit.changes[fixtureUri][0].newText, '-- ljcheck: allow-file(NYIBC:FNEW)\n');
  const fixed = applyEdits(fixture, edits);
  connection.sendNotification('textDocument/didChange',
    { textDocument: { uri: fixtureUri, version: 4 }, contentChanges: edits.map((e) => ({ range: e.range, text: e.newText })) });
  assert.deepEqual(byCode(await diagnostics(4), 'NYIBC:FNEW'), [], `no FNEW left in:\n${fixed}`);

  // The file-wide quickfix too, from the original text (full-text change).
  const fileWide = applyEdits(fixture, fileFix.edit.changes[fixtureUri]);
  connection.sendNotification('textDocument/didChange',
    { textDocument: { uri: fixtureUri, version: 5 }, contentChanges: [{ text: fileWide }] });
  assert.deepEqual(byCode(await diagnostics(5), 'NYIBC:FNEW'), []);

  connection.sendNotification('textDocument/didClose', { textDocument: { uri: fixtureUri } });
  await shutdown(s);
});

test('the line quickfix works beside another allow comment, and is not offered inside a long string', async () => {
  const s = startServer();
  await initialize(s.connection);
  const uri = 'file:///tmp/ljcheck-quickfix.lua';
  const text = 'local t = {}\nfor i = 1, 100 do\n  t[i] = function() return i end -- ljcheck: allow(STITCH:print)\n' +
    '  t[-i] = string.gsub("abc", "a", [[\nx]])\nend\nreturn t\n';
  s.connection.sendNotification('textDocument/didOpen', { textDocument: { uri, languageId: 'lua', version: 1, text } });
  const first = await s.diagnostics(1);
  const [fnew] = byCode(first, 'NYIBC:FNEW');
  const [gsub] = byCode(first, 'STITCH:string.gsub');
  assert.ok(fnew && gsub, JSON.stringify(first.diagnostics));
  const titles = async (d) => (await s.connection.sendRequest('textDocument/codeAction',
    { textDocument: { uri }, range: d.range, context: { diagnostics: [d] } }));
  // The gsub's VM line ends inside [[...]]: a comment there would be data.
  const gsubActions = await titles(gsub);
  assert.equal(gsubActions.filter((a) => a.title.includes('on this line')).length, 0, JSON.stringify(gsubActions.map((a) => a.title)));
  assert.ok(gsubActions.some((a) => a.title.includes('STITCH:string.gsub in this file')));
  // Beside the existing allow comment: the appended one is honoured too.
  const fnewActions = await titles(fnew);
  const lineFix = fnewActions.find((a) => a.title.includes('NYIBC:FNEW on this line'));
  assert.ok(lineFix);
  const edits = lineFix.edit.changes[uri];
  s.connection.sendNotification('textDocument/didChange',
    { textDocument: { uri, version: 2 }, contentChanges: edits.map((e) => ({ range: e.range, text: e.newText })) });
  assert.deepEqual(byCode(await s.diagnostics(2), 'NYIBC:FNEW'), [], applyEdits(text, edits));
  await shutdown(s);
});

test('an allow of an ID nothing is called offers to replace it with the nearest one', async () => {
  const s = startServer();
  await initialize(s.connection);
  const uri = 'file:///tmp/ljcheck-unknown-allow.lua';
  const text = 'local t = {}\nfor i = 1, 100 do\n  t[i] = function() return i end -- ljcheck: allow(STITCH:print, NYBIC:FNEW)\nend\nreturn t\n';
  s.connection.sendNotification('textDocument/didOpen', { textDocument: { uri, languageId: 'lua', version: 1, text } });
  const first = await s.diagnostics(1);
  const [unknown] = byCode(first, 'unknown-reason');
  assert.ok(unknown, JSON.stringify(first.diagnostics));
  assert.equal(byCode(first, 'NYIBC:FNEW').length, 1, 'the typo suppressed nothing');
  // Hovering the comment says what is wrong with it and what to do.
  const hover = await s.connection.sendRequest('textDocument/hover',
    { textDocument: { uri }, position: unknown.range.start });
  assert.ok(hover, 'no hover on the unknown-reason diagnostic');
  assert.match(hover.contents.value, /^\*\*unknown-reason\*\*/);
  assert.match(hover.contents.value, /NYBIC:FNEW/);
  assert.match(hover.contents.value, /replace it with `NYIBC:FNEW`/);
  assert.deepEqual(hover.range, unknown.range);
  const actions = await s.connection.sendRequest('textDocument/codeAction',
    { textDocument: { uri }, range: unknown.range, context: { diagnostics: [unknown] } });
  const replace = actions.find((a) => a.title === 'Replace NYBIC:FNEW with NYIBC:FNEW (ljcheck)');
  assert.ok(replace, JSON.stringify(actions.map((a) => a.title)));
  assert.equal(replace.isPreferred, true);
  const edits = replace.edit.changes[uri];
  const fixed = applyEdits(text, edits);
  assert.match(fixed, /allow\(STITCH:print, NYIBC:FNEW\)/);
  s.connection.sendNotification('textDocument/didChange',
    { textDocument: { uri, version: 2 }, contentChanges: edits.map((e) => ({ range: e.range, text: e.newText })) });
  const after = await s.diagnostics(2);
  assert.deepEqual(byCode(after, 'NYIBC:FNEW'), [], fixed);
  assert.deepEqual(byCode(after, 'unknown-reason'), []);
  await shutdown(s);
});

test('utf-8 positions when the client offers them', async () => {
  const s = startServer();
  const init = await initialize(s.connection, ['utf-8', 'utf-16']);
  assert.equal(init.capabilities.positionEncoding, 'utf-8');
  s.connection.sendNotification('textDocument/didOpen',
    { textDocument: { uri: fixtureUri, languageId: 'lua', version: 1, text: fixture } });
  const [fnew] = byCode(await s.diagnostics(1), 'NYIBC:FNEW');
  const line = fixture.split('\n')[fnew.range.start.line];
  const byteColumn = Buffer.byteLength(line.slice(0, line.indexOf('function()')), 'utf8');
  assert.equal(fnew.range.start.character, byteColumn);
  assert.notEqual(byteColumn, positionOf(fixture, 'function()').character, 'the fixture tells the encodings apart');
  await shutdown(s);
});

test('reason levels from .ljcheck.toml apply', async () => {
  const project = mkdtempSync(resolve(tmpdir(), 'ljcheck-lsp-'));
  writeFileSync(resolve(project, '.ljcheck.toml'), '[reasons]\nFNEW = "note"\n');
  const s = startServer(project);
  await initialize(s.connection);
  const uri = pathToFileURL(resolve(project, 'fixture.lua')).href;
  s.connection.sendNotification('textDocument/didOpen',
    { textDocument: { uri, languageId: 'lua', version: 1, text: fixture } });
  const [fnew] = byCode(await s.diagnostics(1), 'NYIBC:FNEW');
  assert.equal(fnew.severity, 3, 'FNEW = "note" in the config: information, not error');
  await shutdown(s);
});

test('the config is the one lint finds from the workspace root, read again when it changes', async () => {
  // The server starts elsewhere (as Neovim starts it in its own working
  // directory): the workspace's .ljcheck.toml must still apply, and a
  // change to it reach the open documents.
  const project = mkdtempSync(resolve(tmpdir(), 'ljcheck-lsp-root-config-'));
  const elsewhere = mkdtempSync(resolve(tmpdir(), 'ljcheck-lsp-elsewhere-'));
  const config = resolve(project, '.ljcheck.toml');
  writeFileSync(config, '[reasons]\nFNEW = "note"\n');
  writeFileSync(resolve(project, 'fixture.lua'), fixture);
  const s = startServer(elsewhere);
  const shown = [];
  s.connection.onNotification('window/showMessage', (m) => shown.push(m));
  const published = [];
  const waiters = [];
  s.connection.onNotification('textDocument/publishDiagnostics', (p) => { published.push(p); waiters.splice(0).forEach((w) => w()); });
  async function next(seen) {
    const deadline = Date.now() + 10000;
    for (;;) {
      if (published.length > seen) return published[published.length - 1];
      assert.ok(Date.now() < deadline, 'no diagnostics');
      await new Promise((done) => { waiters.push(done); setTimeout(done, 200); });
    }
  }
  try {
    await s.connection.sendRequest('initialize', { processId: process.pid, rootUri: pathToFileURL(project).href, capabilities: {} });
    s.connection.sendNotification('initialized', {});
    const uri = pathToFileURL(resolve(project, 'fixture.lua')).href;
    let seen = published.length;
    s.connection.sendNotification('textDocument/didOpen', { textDocument: { uri, languageId: 'lua', version: 1, text: fixture } });
    const [noted] = byCode(await next(seen), 'NYIBC:FNEW');
    assert.equal(noted.severity, 3, 'FNEW = "note" in the workspace root\'s config: information');

    // Edited: FNEW back to an error once the document is saved (a client
    // that watches no files; a watching one says so with didChangeWatchedFiles).
    writeFileSync(config, '[reasons]\nFNEW = "error"\n');
    seen = published.length;
    s.connection.sendNotification('textDocument/didSave', { textDocument: { uri } });
    const [error] = byCode(await next(seen), 'NYIBC:FNEW');
    assert.equal(error.severity, 1, 'the edited config applies');

    // Broken: the user is told where, and the server runs without it.
    writeFileSync(config, '[reasons]\nNYBIC = "off"\n');
    seen = published.length;
    s.connection.sendNotification('textDocument/didSave', { textDocument: { uri } });
    await next(seen);
    assert.equal(shown.length, 1, `one message: ${JSON.stringify(shown)}`);
    assert.equal(shown[0].type, 1, 'an error');
    assert.match(shown[0].message, /\.ljcheck\.toml:2:9: \[reasons\] "NYBIC": .*did you mean NYIBC\?.*running without/);
    assert.equal(byCode(published[published.length - 1], 'NYIBC:FNEW')[0].severity, 1, 'the default level');
    await shutdown(s);
  } finally {
    rmSync(project, { recursive: true, force: true });
    rmSync(elsewhere, { recursive: true, force: true });
  }
});

test('a workspace root that is not a folder is said, not passed over', async () => {
  const s = startServer();
  const shown = new Promise((done) => s.connection.onNotification('window/showMessage', done));
  await s.connection.sendRequest('initialize',
    { processId: process.pid, rootUri: pathToFileURL(resolve(tmpdir(), 'ljcheck-no-such-root')).href, capabilities: {} });
  const message = await shown;
  assert.equal(message.type, 2);
  assert.match(message.message, /ljcheck-no-such-root is not a folder/);
  s.connection.sendNotification('initialized', {});
  await shutdown(s);
});

test('a document the config excludes gets no diagnostics, as lint gives it none', async () => {
  const project = mkdtempSync(resolve(tmpdir(), 'ljcheck-lsp-exclude-'));
  writeFileSync(resolve(project, '.ljcheck.toml'), 'exclude = ["vendor"]\n');
  mkdirSync(resolve(project, 'vendor'));
  const s = startServer(project);
  try {
    await s.connection.sendRequest('initialize', { processId: process.pid, rootUri: pathToFileURL(project).href, capabilities: {} });
    s.connection.sendNotification('initialized', {});
    const vendored = pathToFileURL(resolve(project, 'vendor', 'lib.lua')).href;
    s.connection.sendNotification('textDocument/didOpen', { textDocument: { uri: vendored, languageId: 'lua', version: 1, text: fixture } });
    const published = await s.diagnostics(1);
    assert.equal(published.uri, vendored);
    assert.deepEqual(published.diagnostics, [], 'excluded: nothing, as lint reports nothing for it');
    await shutdown(s);
  } finally {
    rmSync(project, { recursive: true, force: true });
  }
});

test('globals from .ljcheck.toml apply to the documents of a workspace project', async () => {
  // With a rootUri the document is analyzed as part of the project: the
  // config's aliases must reach that pass too, as they reach `ljcheck lint`.
  const project = mkdtempSync(resolve(tmpdir(), 'ljcheck-lsp-globals-'));
  writeFileSync(resolve(project, '.ljcheck.toml'), '[globals]\nstr = "string"\n');
  const text = 'local out, lines = {}, {}\nfor i = 1, 1000 do\n  out[i] = str.gsub(lines[i] or "", "-", "+")\nend\nreturn out\n';
  writeFileSync(resolve(project, 'aliased.lua'), text);
  const s = startServer(project);
  try {
    await s.connection.sendRequest('initialize', { processId: process.pid, rootUri: pathToFileURL(project).href, capabilities: {} });
    s.connection.sendNotification('initialized', {});
    const uri = pathToFileURL(resolve(project, 'aliased.lua')).href;
    s.connection.sendNotification('textDocument/didOpen', { textDocument: { uri, languageId: 'lua', version: 1, text } });
    const gsub = byCode(await s.diagnostics(1), 'STITCH:string.gsub');
    assert.equal(gsub.length, 1, 'str.gsub through the config alias is string.gsub');
    assert.equal(gsub[0].range.start.line, 2);
    const lint = spawnSync(exe, ['lint', '--format', 'json', 'aliased.lua'], { cwd: project, encoding: 'utf8' });
    assert.deepEqual(JSON.parse(lint.stdout).predictions.filter((p) => p.reasonId === 'STITCH:string.gsub').map((p) => p.line),
      [3], 'and lint says the same');
    await shutdown(s);
  } finally {
    rmSync(project, { recursive: true, force: true });
  }
});

test('a document that does not compile gets one syntax diagnostic', async () => {
  const s = startServer();
  await initialize(s.connection);
  const uri = pathToFileURL(resolve(here, 'broken.lua')).href;
  s.connection.sendNotification('textDocument/didOpen',
    { textDocument: { uri, languageId: 'lua', version: 7, text: 'local x = 1\nfor i = 1, do\nend\n' } });
  const published = await s.diagnostics(7);
  assert.equal(published.diagnostics.length, 1);
  assert.equal(published.diagnostics[0].code, 'syntax');
  assert.equal(published.diagnostics[0].range.start.line, 1);
  await shutdown(s);
});

test('requests before initialize and unknown methods get JSON-RPC errors', async () => {
  const s = startServer();
  await assert.rejects(s.connection.sendRequest('textDocument/hover', {}), (e) => e.code === -32002);
  await initialize(s.connection);
  await assert.rejects(s.connection.sendRequest('ljcheck/noSuchMethod', {}), (e) => e.code === -32601);
  await assert.rejects(s.connection.sendRequest('textDocument/hover', { position: 3 }), (e) => e.code === -32602);
  await shutdown(s);
});

// Raw bytes, for what a well-behaved client library cannot send.
function frame(body) {
  return `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
}

function rawSession(input) {
  return new Promise((done) => {
    const server = spawn(exe, ['lsp'], { stdio: ['pipe', 'pipe', 'inherit'] });
    let output = '';
    server.stdout.on('data', (d) => { output += d; });
    server.on('exit', (code) => {
      const messages = [];
      const re = /Content-Length: (\d+)\r\n\r\n/g;
      let m;
      while ((m = re.exec(output))) {
        const body = Buffer.from(output.slice(m.index + m[0].length)).subarray(0, Number(m[1])).toString();
        messages.push(JSON.parse(body));
      }
      done({ code, messages });
    });
    server.stdin.end(input);  // then stdin ends: the client is gone
  });
}

test('bad framing and bad JSON get parse errors and the server keeps serving', async () => {
  const init = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { capabilities: {} } });
  const { code, messages } = await rawSession(
    'Content-Length: twelve\r\n\r\n{"jsonrpc":"2.0"}' +
    frame('{"jsonrpc": "2.0", "id": 9, "method": ') +
    frame(init) +
    frame(JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'shutdown' })));
  const errors = messages.filter((m) => m.error).map((m) => m.error.code);
  assert.deepEqual(errors, [-32700, -32700]);
  assert.ok(messages.find((m) => m.id === 1 && m.result && m.result.capabilities), 'initialize answered after the errors');
  assert.ok(messages.find((m) => m.id === 2 && m.result === null), 'shutdown answered');
  assert.equal(code, 1, 'stdin ended without exit: exit code 1, and no hang');
});

// What a fresh `ljcheck lint` says of each file of a project directory, in
// the terms a diagnostic carries (data), to compare the server against.
function lintProject(dir) {
  const run = spawnSync(exe, ['lint', '--no-config', '--format', 'json', '.'], { cwd: dir, encoding: 'utf8' });
  assert.ok(run.status === 0 || run.status === 1, `lint exits 0 or 1 (findings), not ${run.status}: ${run.stderr}`);
  const out = run.stdout;
  const byPath = {};
  for (const p of JSON.parse(out).predictions)
    (byPath[p.path] ||= []).push([p.line, p.reasonId, p.severity, p.confidence, p.reasoning, p.maskedBy?.location ?? null]);
  return byPath;
}
// The message ends "confidence: <level>; <reasoning>".
const reasoningOf = (d) => /\nconfidence: [a-z]+; ([^]*)$/.exec(d.message)?.[1] ?? '';
const asLinted = (published) => published.diagnostics.map((d) =>
  [d.data.line, d.code, d.data.severity, d.data.confidence, reasoningOf(d), d.data.maskedBy?.location ?? null]);

test('cross-file: an edit to the caller re-publishes the module it makes hot, as lint sees it', async () => {
  // A copy of the two-module fixture: the buffers' unsaved text is written
  // to it only to ask a fresh lint what the server should have said.
  const project = mkdtempSync(resolve(tmpdir(), 'ljcheck-lsp-project-'));
  const fixtureDir = resolve(root, 'fixtures/projects/hot_module');
  const texts = {};
  for (const name of ['main.lua', 'shapes.lua']) {
    texts[name] = readFileSync(resolve(fixtureDir, name), 'utf8');
    writeFileSync(resolve(project, name), texts[name]);
  }
  const uri = (name) => pathToFileURL(resolve(project, name)).href;
  const s = startServer(project);
  const { connection } = s;
  await connection.sendRequest('initialize', { processId: process.pid, rootUri: pathToFileURL(project).href, capabilities: {} });
  connection.sendNotification('initialized', {});

  // The next diagnostics published for `name` after the `seen` already received.
  const published = [];
  const waiters = [];
  connection.onNotification('textDocument/publishDiagnostics', (p) => { published.push(p); waiters.splice(0).forEach((w) => w()); });
  async function next(name, seen) {
    const deadline = Date.now() + 10000;
    for (;;) {
      const found = published.slice(seen).find((p) => p.uri === uri(name));
      if (found) return found;
      assert.ok(Date.now() < deadline, `no diagnostics for ${name}`);
      await new Promise((done) => { waiters.push(done); setTimeout(done, 200); });
    }
  }
  // The server's view of both files, and lint's of the same texts on disk.
  async function expectAsLint(published, name) {
    for (const [n, t] of Object.entries(texts)) writeFileSync(resolve(project, n), t);
    assert.deepEqual(asLinted(published), lintProject(project)[name] || [], `${name} as lint sees it`);
  }
  const fnewIn = (p) => p.diagnostics.filter((d) => d.code === 'NYIBC:FNEW');

  let seen = published.length;
  connection.sendNotification('textDocument/didOpen', { textDocument: { uri: uri('shapes.lua'), languageId: 'lua', version: 1, text: texts['shapes.lua'] } });
  const shapes1 = await next('shapes.lua', seen);
  const [hot] = fnewIn(shapes1);
  assert.equal(hot.severity, 1, 'the loop in main.lua (on disk) makes area hot: an error');
  assert.match(hot.message, /main\.lua/);
  await expectAsLint(shapes1, 'shapes.lua');
  seen = published.length;
  connection.sendNotification('textDocument/didOpen', { textDocument: { uri: uri('main.lua'), languageId: 'lua', version: 1, text: texts['main.lua'] } });
  await next('main.lua', seen);

  // Edit the caller, unsaved: its loop now runs 5 times. shapes.lua is re-published without the error.
  const loop = positionOf(texts['main.lua'], '50000 do');
  const edit = (name, version, at, length, text) => {
    const lines = texts[name].split('\n');
    const line = lines[at.line];
    lines[at.line] = line.slice(0, at.character) + text + line.slice(at.character + length);
    texts[name] = lines.join('\n');
    connection.sendNotification('textDocument/didChange', { textDocument: { uri: uri(name), version },
      contentChanges: [{ range: { start: at, end: { line: at.line, character: at.character + length } }, text }] });
  };
  seen = published.length;
  edit('main.lua', 2, loop, 5, '5');
  const shapes2 = await next('shapes.lua', seen);
  assert.ok(fnewIn(shapes2).every((d) => d.severity !== 1), `no error left in ${JSON.stringify(fnewIn(shapes2))}`);
  await expectAsLint(shapes2, 'shapes.lua');

  // And back: the error returns.
  seen = published.length;
  edit('main.lua', 3, loop, 1, '50000');
  const shapes3 = await next('shapes.lua', seen);
  assert.equal(fnewIn(shapes3)[0].severity, 1);
  await expectAsLint(shapes3, 'shapes.lua');

  // The callee loses its closure, then gains it back: its own diagnostics follow,
  // the heat still coming from main.lua's buffer.
  const closure = 'local scale = function(x) return x * 3 end';
  const at = positionOf(texts['shapes.lua'], closure);
  seen = published.length;
  edit('shapes.lua', 2, at, closure.length, 'local scale = 3');
  const shapes4 = await next('shapes.lua', seen);
  assert.equal(shapes4.version, 2);
  assert.deepEqual(fnewIn(shapes4), []);
  seen = published.length;
  edit('shapes.lua', 3, at, 'local scale = 3'.length, closure);
  const shapes5 = await next('shapes.lua', seen);
  assert.equal(fnewIn(shapes5)[0].severity, 1);
  assert.match(fnewIn(shapes5)[0].message, /main\.lua/);
  await expectAsLint(shapes5, 'shapes.lua');
  await shutdown(s);
  rmSync(project, { recursive: true, force: true });
});

// A workspace holding only shapes.lua of the hot_module fixture project, a
// server started in it with `capabilities`, and shapes.lua opened: main.lua,
// the driver whose loop makes shapes.area hot, is then written and removed
// on disk by the test. `next(seen)` waits for shapes.lua's next publish.
async function shapesWorkspace(prefix, capabilities) {
  const project = mkdtempSync(resolve(tmpdir(), prefix));
  const fixtureDir = resolve(root, 'fixtures/projects/hot_module');
  const shapesText = readFileSync(resolve(fixtureDir, 'shapes.lua'), 'utf8');
  const mainText = readFileSync(resolve(fixtureDir, 'main.lua'), 'utf8');
  writeFileSync(resolve(project, 'shapes.lua'), shapesText);
  const uri = (name) => pathToFileURL(resolve(project, name)).href;
  const s = startServer(project);
  const { connection } = s;
  const registrations = [];
  connection.onRequest('client/registerCapability', (params) => { registrations.push(...params.registrations); return null; });
  const published = [];
  const waiters = [];
  connection.onNotification('textDocument/publishDiagnostics', (p) => { published.push(p); waiters.splice(0).forEach((w) => w()); });
  await connection.sendRequest('initialize', { processId: process.pid, rootUri: pathToFileURL(project).href, capabilities });
  connection.sendNotification('initialized', {});
  async function next(seen) {
    const deadline = Date.now() + 10000;
    for (;;) {
      const found = published.slice(seen).find((p) => p.uri === uri('shapes.lua'));
      if (found) return found;
      assert.ok(Date.now() < deadline, 'no diagnostics for shapes.lua');
      await new Promise((done) => { waiters.push(done); setTimeout(done, 200); });
    }
  }
  const seen = published.length;
  connection.sendNotification('textDocument/didOpen', { textDocument: { uri: uri('shapes.lua'), languageId: 'lua', version: 1, text: shapesText } });
  const opened = await next(seen);
  const main = (text) => (text === null ? rmSync(resolve(project, 'main.lua')) : writeFileSync(resolve(project, 'main.lua'), text));
  return { s, connection, project, uri, published, next, opened, mainText, main, registrations };
}
const hotErrors = (p) => p.diagnostics.filter((d) => d.code === 'NYIBC:FNEW' && d.severity === 1);

test('files created, changed and deleted on disk change the project as lint sees it', async () => {
  // The driver appears on disk, changes and goes, as a `git checkout` would,
  // and the client says so through the watcher the server registered.
  const w = await shapesWorkspace('ljcheck-lsp-watch-', { workspace: { didChangeWatchedFiles: { dynamicRegistration: true } } });
  const { connection, published, next, uri, project } = w;
  const watched = (changes) => connection.sendNotification('workspace/didChangeWatchedFiles',
    { changes: changes.map(([name, type]) => ({ uri: uri(name), type })) });
  const alone = w.opened;
  assert.deepEqual(hotErrors(alone), [], 'nothing calls area hot yet');
  assert.deepEqual(asLinted(alone), lintProject(project)['shapes.lua'] || []);
  assert.equal(w.registrations.length, 1, 'the server asks the client to watch the project files');
  assert.equal(w.registrations[0].method, 'workspace/didChangeWatchedFiles');
  assert.deepEqual(w.registrations[0].registerOptions.watchers.map((x) => x.globPattern), ['**/*.lua', '**/.ljcheck.toml']);

  // Created: main.lua's loop makes area hot.
  w.main(w.mainText);
  let seen = published.length;
  watched([['main.lua', 1]]);
  const created = await next(seen);
  assert.equal(hotErrors(created).length, 1, `an error once main.lua exists: ${JSON.stringify(created.diagnostics)}`);
  assert.match(hotErrors(created)[0].message, /main\.lua/);
  assert.deepEqual(asLinted(created), lintProject(project)['shapes.lua']);

  // Changed: the loop now runs 5 times.
  w.main(w.mainText.replace('50000 do', '5 do'));
  seen = published.length;
  watched([['main.lua', 2]]);
  const changed = await next(seen);
  assert.deepEqual(hotErrors(changed), [], 'a loop of 5 makes nothing hot');
  assert.deepEqual(asLinted(changed), lintProject(project)['shapes.lua'] || []);

  // Back to 2,000, then deleted.
  w.main(w.mainText);
  seen = published.length;
  watched([['main.lua', 2]]);
  assert.equal(hotErrors(await next(seen)).length, 1);
  w.main(null);
  seen = published.length;
  watched([['main.lua', 3]]);
  const deleted = await next(seen);
  assert.deepEqual(asLinted(deleted), asLinted(alone), 'as before main.lua existed');
  assert.deepEqual(asLinted(deleted), lintProject(project)['shapes.lua'] || []);

  // A config written in the workspace, reported by the watcher: the open
  // document is published again under its levels.
  w.main(w.mainText);
  seen = published.length;
  watched([['main.lua', 1]]);
  assert.equal(hotErrors(await next(seen)).length, 1);
  writeFileSync(resolve(project, '.ljcheck.toml'), '[reasons]\nFNEW = "note"\n');
  seen = published.length;
  watched([['.ljcheck.toml', 1]]);
  const configured = await next(seen);
  assert.deepEqual(hotErrors(configured), [], 'FNEW = "note" in the new config');
  assert.ok(configured.diagnostics.some((d) => d.code === 'NYIBC:FNEW' && d.severity === 3), 'FNEW is information now');
  rmSync(resolve(project, '.ljcheck.toml'));

  // A malformed change is logged, and the server keeps serving.
  const logged = new Promise((done) => connection.onNotification('window/logMessage', done));
  connection.sendNotification('workspace/didChangeWatchedFiles', { changes: [{ uri: 42, type: 1 }] });
  assert.match((await logged).message, /didChangeWatchedFiles: 'uri' is not a string/);
  await shutdown(w.s);
  rmSync(project, { recursive: true, force: true });
});

test('a client that watches no files: the server looks at the disk when a document is opened or saved', async () => {
  const w = await shapesWorkspace('ljcheck-lsp-nowatch-', {});
  const { connection, published, next, uri, project } = w;
  const saved = () => connection.sendNotification('textDocument/didSave', { textDocument: { uri: uri('shapes.lua') } });
  const alone = w.opened;
  assert.deepEqual(hotErrors(alone), []);

  w.main(w.mainText);
  let seen = published.length;
  saved();
  const created = await next(seen);
  assert.equal(hotErrors(created).length, 1, 'main.lua, created on disk, is part of the project at the next save');
  assert.deepEqual(asLinted(created), lintProject(project)['shapes.lua']);

  w.main(w.mainText.replace('50000 do', '5 do'));
  seen = published.length;
  saved();
  assert.deepEqual(hotErrors(await next(seen)), [], 'main.lua, written on disk, is read again');

  w.main(null);
  seen = published.length;
  saved();
  const deleted = await next(seen);
  assert.deepEqual(asLinted(deleted), asLinted(alone));
  assert.deepEqual(w.registrations, [], 'nothing to register with a client that cannot watch');
  await shutdown(w.s);
  rmSync(project, { recursive: true, force: true });
});
