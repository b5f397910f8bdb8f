// Writes to stdout the messages an editor would send to `ljcheck lsp` over a
// workspace, for the ThreadSanitizer stage (scripts/test.sh): the project
// pass over every file under ROOT runs on the lint workers, and each edit of
// a file under ROOT/EDITED (open, change, change back, close) analyzes it
// again with the files it makes hot.
// Usage: node tests/sanitizers/lsp_session.mjs ROOT EDITED > session
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const [rootArg, editedArg] = process.argv.slice(2);
if (!rootArg || !editedArg) {
  process.stderr.write('usage: node tests/sanitizers/lsp_session.mjs ROOT EDITED > session\n');
  process.exit(2);
}
const root = resolve(rootArg);
const luaFiles = (dir) => readdirSync(dir).sort().flatMap((name) => {
  const path = join(dir, name);
  if (statSync(path).isDirectory()) return luaFiles(path);
  return name.endsWith('.lua') ? [path] : [];
});
const edited = existsSync(resolve(root, editedArg)) ? luaFiles(resolve(root, editedArg)) : [];
if (edited.length === 0) {
  process.stderr.write(`lsp_session: no .lua file under ${resolve(root, editedArg)}\n`);
  process.exit(2);
}

let id = 0;
const send = (message) => {
  const body = JSON.stringify({ jsonrpc: '2.0', ...message });
  process.stdout.write(`Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
};
send({ id: ++id, method: 'initialize', params: { processId: null, rootUri: pathToFileURL(root).href, capabilities: {} } });
send({ method: 'initialized', params: {} });
for (const path of edited) {
  const uri = pathToFileURL(path).href;
  const text = readFileSync(path, 'utf8');
  send({ method: 'textDocument/didOpen', params: { textDocument: { uri, languageId: 'lua', version: 1, text } } });
  send({ method: 'textDocument/didChange',
         params: { textDocument: { uri, version: 2 }, contentChanges: [{ text: `${text}\nlocal edited = 1\n` }] } });
  send({ method: 'textDocument/didChange', params: { textDocument: { uri, version: 3 }, contentChanges: [{ text }] } });
  send({ method: 'textDocument/didClose', params: { textDocument: { uri } } });
}
send({ id: ++id, method: 'shutdown' });
send({ method: 'exit' });
