// `mcpkit serve <module>`: a JavaScript and a TypeScript module (types, a `./x.js` import of a `.ts` file) served
// over stdio and over Streamable HTTP in both eras, --watch restarting on change (HTTP: same port; stdio: the
// client's session goes on), and modules that cannot be served.
import assert from 'node:assert/strict';
import { appendFileSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { Client, type EraChoice, HttpClientTransport } from '../../src/index.js';
import { StdioClientTransport } from '../../src/stdio.js';
import { freePort, MCPKIT, mcpkit, ROOT } from './helpers.js';
import { type Running, startMcpkit, stop, until } from './long-running.js';

const PACKAGE = pathToFileURL(join(ROOT, 'dist/pkg/index.js')).href;
const CALL = { timeout: 20_000 };

/** A folder with a JS module (named export) and a TS module (default export) importing a `.ts` helper as `.js`. */
function modules() {
  const dir = mkdtempSync(join(tmpdir(), 'mcpkit-serve-'));
  const js = join(dir, 'server.mjs');
  writeFileSync(
    js,
    `import { McpServer } from ${JSON.stringify(PACKAGE)};
export const server = new McpServer({ name: 'js-module', version: '1.0.0' });
server.tool('hello', { description: 'says hello' }, () => 'hello from js');
`,
  );
  const ts = join(dir, 'server.ts');
  writeFileSync(
    ts,
    `import { McpServer } from ${JSON.stringify(PACKAGE)};
import { greeting } from './greet.js';
interface Args { name: string }
const server: McpServer = new McpServer({ name: 'ts-module', version: '1.0.0' });
server.tool(
  'greet',
  { description: 'greets', inputSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] } },
  (args: Args) => greeting(args.name),
);
export default server;
`,
  );
  writeFileSync(
    join(dir, 'greet.ts'),
    [
      'export function greeting(name: string): string {',
      '  return "hello " + name + " from ts";',
      '}',
      '',
    ].join('\n'),
  );
  return { dir, js, ts };
}

function text(result: { content?: unknown }): string | undefined {
  const first = (result.content as { type: string; text?: string }[] | undefined)?.[0];
  return first?.type === 'text' ? first.text : undefined;
}

const clients: Client[] = [];
const processes: Running[] = [];
after(async () => {
  await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
  await Promise.all(processes.map((p) => stop(p.child)));
});

async function overStdio(args: string[], era: EraChoice = 'auto'): Promise<Client> {
  const client = new Client({ name: 'serve-test', version: '1.0.0' }, { era, onerror: () => undefined });
  clients.push(client);
  await client.connect(
    new StdioClientTransport({ command: process.execPath, args: [MCPKIT, 'serve', ...args], cwd: ROOT }),
    CALL,
  );
  return client;
}

async function overHttp(url: string, era: EraChoice): Promise<Client> {
  const client = new Client({ name: 'serve-test', version: '1.0.0' }, { era, onerror: () => undefined });
  clients.push(client);
  await client.connect(new HttpClientTransport(url), CALL);
  return client;
}

async function serveHttp(args: string[]): Promise<{ url: string; running: Running }> {
  const running = await startMcpkit(['serve', ...args], /at (http:\/\/\S+\/mcp) /);
  processes.push(running);
  return { url: running.match[1] as string, running };
}

describe('mcpkit serve', { timeout: 240_000 }, () => {
  test('a JavaScript module over stdio (its only named export)', async () => {
    const { js } = modules();
    const client = await overStdio([js]);
    assert.equal(client.serverInfo?.name, 'js-module');
    assert.deepEqual(
      (await client.listTools(CALL)).map((t) => t.name),
      ['hello'],
    );
    assert.equal(text(await client.callTool('hello', {}, CALL)), 'hello from js');
  });

  test('a TypeScript module over stdio (default export, a .js import of a .ts file)', async () => {
    const { ts } = modules();
    const client = await overStdio([ts], 'stateful');
    assert.equal(client.serverInfo?.name, 'ts-module');
    assert.equal(text(await client.callTool('greet', { name: 'Ada' }, CALL)), 'hello Ada from ts');
  });

  for (const kind of ['js', 'ts'] as const) {
    test(`a ${kind} module over Streamable HTTP, both eras on one endpoint`, async () => {
      const m = modules();
      const { url } = await serveHttp([m[kind], '--http', '0']);
      const [tool, args, expected] =
        kind === 'js' ? ['hello', {}, 'hello from js'] : ['greet', { name: 'Bo' }, 'hello Bo from ts'];
      for (const era of ['stateless', 'stateful'] as const) {
        const client = await overHttp(url, era);
        assert.equal(client.era, era, era);
        assert.equal(text(await client.callTool(tool, args, CALL)), expected, era);
        await client.close();
      }
    });
  }

  test('--watch over HTTP: a change restarts the server on the same port', async () => {
    const { js } = modules();
    const port = await freePort();
    const { url, running } = await serveHttp([js, '--http', String(port), '--watch']);
    assert.equal(url, `http://127.0.0.1:${port}/mcp`);
    const names = async () => {
      const client = await overHttp(url, 'stateful');
      try {
        return (await client.listTools(CALL)).map((t) => t.name);
      } finally {
        await client.close();
      }
    };
    assert.deepEqual(await names(), ['hello']);
    appendFileSync(js, "server.tool('bye', { description: 'says bye' }, () => 'bye from js');\n");
    await until(
      async () => (await names().catch((): string[] => [])).includes('bye'),
      30_000,
      `the restarted server on ${url}:\n${running.stderr()}`,
    );
    assert.match(running.stderr(), /server\.mjs changed, restarting/);
  });

  test('--watch over stdio: the same client session goes on across a restart', async () => {
    const { js } = modules();
    const client = await overStdio([js, '--watch'], 'stateful');
    assert.deepEqual(
      (await client.listTools(CALL)).map((t) => t.name),
      ['hello'],
    );
    appendFileSync(js, "server.tool('bye', { description: 'says bye' }, () => 'bye from js');\n");
    await until(
      async () => (await client.listTools(CALL).catch(() => [])).some((t) => t.name === 'bye'),
      30_000,
      'the new tool through the same session',
    );
    assert.equal(text(await client.callTool('bye', {}, CALL)), 'bye from js');
  });

  test('modules that cannot be served: no server exported (1), a failing import (2), no such file (1)', async () => {
    const { dir } = modules();
    const none = join(dir, 'none.mjs');
    writeFileSync(none, 'export const x = 1;\n');
    const broken = join(dir, 'broken.mjs');
    writeFileSync(broken, "throw new Error('broken at load');\n");
    const noServer = await mcpkit(['serve', none]);
    assert.equal(noServer.code, 1);
    assert.match(noServer.stderr, /exports no McpServer/);
    const failing = await mcpkit(['serve', broken]);
    assert.equal(failing.code, 2);
    assert.match(failing.stderr, /broken at load/);
    const missing = await mcpkit(['serve', join(dir, 'nope.mjs')]);
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /no such module/);
    const badPort = await mcpkit(['serve', none, '--http', 'eighty']);
    assert.equal(badPort.code, 1);
    assert.match(badPort.stderr, /--http needs a port number/);
  });
});
