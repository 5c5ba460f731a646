// The server readies the JSON Schema validator (ajv: some 100 ms of module loading and as much again to compile its
// meta-schema, all on the main thread) once a client is in, and only when one of its schemas needs it. Loaded for a
// server whose tools all validate with zod, it stalled the event loop for nothing while the first answers streamed.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const index = fileURLToPath(new URL('../../index.js', import.meta.url));
const testing = fileURLToPath(new URL('../../testing.js', import.meta.url));

/**
 * In a fresh process: a server whose one tool validates with zod or with a raw JSON Schema, a client that only
 * says `initialize` (stateful) or `server/discover` (2026-07-28), raw over an in-memory pair; then whether ajv
 * was loaded once the background had its turn.
 */
function ajvLoaded(schema: 'zod' | 'json', first: 'initialize' | 'server/discover'): boolean {
  const source = `
    import { createRequire } from 'node:module';
    const { z } = await import('zod');
    const { McpServer } = await import(${JSON.stringify(index)});
    const { createLinkedTransports } = await import(${JSON.stringify(testing)});
    const server = new McpServer({ name: 'warm', version: '1.0.0' });
    const inputSchema = ${JSON.stringify(schema)} === 'zod'
      ? z.object({ a: z.number() })
      : { type: 'object', properties: { a: { type: 'number' } } };
    server.tool('t', { inputSchema }, () => 'ok');
    const [client, end] = createLinkedTransports();
    await server.connect(end);
    const answered = new Promise((resolve) => client.start({
      onmessage: (m) => { if ('id' in m && m.id === 1) resolve(m); },
      oninvalid() {}, onerror() {}, onclose() {},
    }));
    const info = { name: 'probe', version: '1.0.0' };
    await client.send(${JSON.stringify(first)} === 'initialize'
      ? { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: info } }
      : { jsonrpc: '2.0', id: 1, method: 'server/discover', params: { _meta: {
          'io.modelcontextprotocol/protocolVersion': '2026-07-28',
          'io.modelcontextprotocol/clientInfo': info,
          'io.modelcontextprotocol/clientCapabilities': {},
        } } });
    const reply = await answered;
    if (!('result' in reply)) throw new Error(JSON.stringify(reply));
    // Anything scheduled in the background after the answer has had its turn.
    await new Promise((resolve) => setTimeout(resolve, 500));
    const cache = createRequire(import.meta.url).cache;
    process.stdout.write(String(Object.keys(cache).some((path) => /[\\\\/]node_modules[\\\\/]ajv[\\\\/]/.test(path))));
    process.exit(0);
  `;
  const run = spawnSync(process.execPath, ['--input-type=module', '-e', source], {
    encoding: 'utf8',
    timeout: 60_000,
  });
  assert.equal(run.status, 0, run.stderr);
  return run.stdout === 'true';
}

test('a server whose schemas are all zod never loads the JSON Schema validator', () => {
  assert.equal(ajvLoaded('zod', 'initialize'), false);
  assert.equal(ajvLoaded('zod', 'server/discover'), false);
});

test('a server with a JSON Schema loads it once a client is in, in either era, before any call', () => {
  assert.equal(ajvLoaded('json', 'initialize'), true);
  assert.equal(ajvLoaded('json', 'server/discover'), true);
});
