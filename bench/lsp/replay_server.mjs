// A stand-in language server that does no analysis: it answers every
// didOpen/didChange with one publishDiagnostics recorded from `ljcheck lsp`
// (the params in PARAMS_FILE, JSON), the document's version put in.
// edit_latency.mjs drives it like the real server, over the same kind of pipe
// and with the same client, as a reference with no analysis at all: what is
// left is the client's reading and parsing of that publish, the pipe, the
// wake-ups, and node's own writing of the publish.
// Run by edit_latency.mjs: node bench/lsp/replay_server.mjs PARAMS_FILE
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const rpc = createRequire(resolve(root, 'third_party/lsp-client/package.json'))('vscode-jsonrpc/node');

const params = JSON.parse(readFileSync(process.argv[2], 'utf8'));
delete params.version;
const body = JSON.stringify(params);
// The body up to the version, written once; each publish appends its version.
const head = Buffer.from(
  `{"jsonrpc":"2.0","method":"textDocument/publishDiagnostics","params":${body.slice(0, -1)},"version":`);

function write(body) {
  process.stdout.write(Buffer.concat([Buffer.from(`Content-Length: ${body.length}\r\n\r\n`), body]));
}
function reply(id, result) {
  write(Buffer.from(JSON.stringify({ jsonrpc: '2.0', id, result })));
}

const reader = new rpc.StreamMessageReader(process.stdin);
reader.listen((m) => {
  if (m.method === 'initialize') reply(m.id, { capabilities: { textDocumentSync: 2 } });
  else if (m.method === 'shutdown') reply(m.id, null);
  else if (m.method === 'exit') process.exit(0);
  else if (m.method === 'textDocument/didOpen' || m.method === 'textDocument/didChange')
    write(Buffer.concat([head, Buffer.from(`${m.params.textDocument.version}}}`)]));
});
process.stdin.on('end', () => process.exit(0));
