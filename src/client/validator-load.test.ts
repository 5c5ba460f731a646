// The client loads the JSON Schema validator (ajv: some 100 ms of module loading on the main thread) only when a
// listed tool has an output schema to check. Loaded at every connect, it blocked the event loop while the first
// requests' answers streamed in: a response stream's end was seen late, and a resumption honouring the server's
// `retry` started that much late (the conformance suite's sse-retry measured 1,047 ms for 500).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const stdio = fileURLToPath(new URL('../stdio.js', import.meta.url));
const index = fileURLToPath(new URL('../index.js', import.meta.url));

/** A server in its own process (a server loads ajv itself), with `outputSchema` on its one tool or not. */
function serverSource(withOutputSchema: boolean): string {
  return `
    const { McpServer } = await import(${JSON.stringify(index)});
    const { StdioServerTransport } = await import(${JSON.stringify(stdio)});
    const server = new McpServer({ name: 'plain', version: '1.0.0' });
    server.tool('hello', {
      inputSchema: { type: 'object' },
      ${withOutputSchema ? "outputSchema: { type: 'object', properties: { n: { type: 'number' } } }," : ''}
    }, () => (${withOutputSchema ? '{ structuredContent: { n: 1 } }' : "'hello'"}));
    await server.connect(new StdioServerTransport());
  `;
}

/** Connects a client in a fresh process, lists and calls the tool, and says whether ajv was loaded. */
function ajvLoaded(withOutputSchema: boolean): boolean {
  const client = `
    import { createRequire } from 'node:module';
    const { Client } = await import(${JSON.stringify(index)});
    const { StdioClientTransport } = await import(${JSON.stringify(stdio)});
    const client = new Client({ name: 'probe', version: '1.0.0' }, { era: 'stateful' });
    await client.connect(new StdioClientTransport({
      command: process.execPath,
      args: ['--input-type=module', '-e', ${JSON.stringify(serverSource(withOutputSchema))}],
    }));
    await client.listTools();
    await client.callTool('hello', {});
    // Anything scheduled "in the background" after connecting has had its turn.
    await new Promise((resolve) => setTimeout(resolve, 200));
    await client.close();
    const cache = createRequire(import.meta.url).cache;
    process.stdout.write(String(Object.keys(cache).some((path) => /[\\\\/]node_modules[\\\\/]ajv[\\\\/]/.test(path))));
  `;
  const run = spawnSync(process.execPath, ['--input-type=module', '-e', client], {
    encoding: 'utf8',
    timeout: 60_000,
  });
  assert.equal(run.status, 0, run.stderr);
  return run.stdout === 'true';
}

test('a client with no output schema to check never loads the JSON Schema validator', () => {
  assert.equal(ajvLoaded(false), false);
});

test('a listed output schema loads it, ready for the result', () => {
  assert.equal(ajvLoaded(true), true);
});
