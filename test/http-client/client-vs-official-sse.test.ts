// OUR Client + HttpClientTransport against the OFFICIAL SDK 1.x SSEServerTransport (the 2024-11-05 HTTP+SSE
// transport): the initialize POST is refused with 405, the transport falls back to GET + `endpoint` event,
// and everything else (calls, logs, progress, elicitation) runs over the legacy transport.
import assert from 'node:assert/strict';
import { afterEach, describe, test } from 'node:test';
import { Client } from '../../src/client/client.js';
import type { LoggingMessageParams, ProgressParams } from '../../src/spec/types.js';
import { HttpClientTransport } from '../../src/transport/http-client/fallback.js';
import { SseLegacyClientTransport } from '../../src/transport/http-client/legacy-sse.js';
import { type OfficialHttpServer, officialLegacy } from './official-servers.js';

const CALL = { timeout: 5_000 } as const;
const running: { server: OfficialHttpServer; client: Client }[] = [];
afterEach(async () => {
  for (const { server, client } of running.splice(0)) {
    await client.close();
    await server.close();
  }
});

function text(result: { content: unknown[] }): string {
  const first = result.content[0] as { type: string; text?: string } | undefined;
  return first?.type === 'text' ? (first.text ?? '') : '';
}

async function setup() {
  const server = await officialLegacy();
  const logs: LoggingMessageParams[] = [];
  const errors: Error[] = [];
  const closes: (Error | undefined)[] = [];
  const client = new Client(
    { name: 'mcpkit-sse-e2e', version: '1.0.0' },
    {
      elicitation: () => ({ action: 'accept', content: { name: 'Grace' } }),
      onlog: (params) => logs.push(params),
      onerror: (error) => errors.push(error),
      onclose: (error) => closes.push(error),
    },
  );
  running.push({ server, client });
  return { server, client, logs, errors, closes };
}

describe('mcpkit client vs official SSEServerTransport (2024-11-05)', { timeout: 30_000 }, () => {
  test('HttpClientTransport falls back on 405 and then works end to end', async () => {
    const { server, client, logs, errors, closes } = await setup();
    const transport = new HttpClientTransport(server.url);
    await client.connect(transport, CALL);
    assert.equal(transport.kind, 'sse');
    assert.equal(client.protocolVersion, '2025-11-25');
    // The Client's server/discover probe fails (HTTP 405) without deciding anything; the initialize decides.
    assert.deepEqual(
      server.log.slice(0, 4).map((r) => `${r.method} ${r.path.split('?')[0]} ${r.body?.method ?? ''}`.trim()),
      ['POST /mcp server/discover', 'POST /mcp initialize', 'GET /mcp', 'POST /messages initialize'],
    );
    assert.equal(server.log[0]?.headers['mcp-protocol-version'], '2026-07-28');

    const tools = await client.listTools(CALL);
    assert.ok(tools.some((t) => t.name === 'echo'));
    assert.equal(text(await client.callTool('echo', { text: 'legacy' }, CALL)), 'echo: legacy');
    const progress: ProgressParams[] = [];
    assert.equal(
      text(await client.callTool('chatty', {}, { ...CALL, onprogress: (p) => progress.push(p) })),
      'done',
    );
    assert.deepEqual(
      logs.map((l) => l.data),
      ['working'],
    );
    assert.equal(progress.length, 2);
    assert.equal(text(await client.callTool('ask', {}, CALL)), 'hello Grace');

    await client.close();
    assert.deepEqual(closes, [undefined]);
    assert.deepEqual(errors, []);
  });

  test('SseLegacyClientTransport connects directly', async () => {
    const { server, client } = await setup();
    const transport = new SseLegacyClientTransport(server.url);
    await client.connect(transport, CALL);
    assert.match(transport.endpoint?.pathname ?? '', /^\/messages$/);
    assert.equal(text(await client.callTool('echo', { text: 'direct' }, CALL)), 'echo: direct');
  });
});
