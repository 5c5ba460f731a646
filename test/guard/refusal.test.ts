// Where a rate limit refuses a request, what the client gets, in every era and on every transport:
// - HTTP, a POST carrying one request refused before any response started (JSON replies; 'auto' mode answers JSON
//   when nothing streamed first): 429 with Retry-After, the body the JSON-RPC error (-32080, data.retryAfterMs),
//   with sessions, with sessions off, and in the 2026-07-28 revision;
// - HTTP, a response already started as an SSE stream ('sse' mode): 200, the stream's event is that JSON-RPC error;
// - HTTP, a batch (2025-03-26): 200, the error is one answer of the batch (the other requests were answered);
// - stdio (and in memory): the JSON-RPC error, its data saying when to retry.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { Client } from '../../src/client/client.js';
import { ErrorCode } from '../../src/jsonrpc/errors.js';
import { serve } from '../../src/node.js';
import type { ResponseMode } from '../../src/server/http/streamable/stream-settings.js';
import { McpServer } from '../../src/server/server.js';
import { StreamableHttpClientTransport } from '../../src/transport/http-client/streamable.js';
import { StdioClientTransport } from '../../src/transport/stdio-client.js';
import { ERAS } from './helpers.js';

const MODERN_META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
  'io.modelcontextprotocol/clientCapabilities': {},
};

function limited(): McpServer {
  const s = new McpServer(
    { name: 'limited', version: '1' },
    { rateLimit: { methods: { 'tools/call': { limit: '1/h', key: 'global' } } } },
  );
  s.tool('echo', {}, () => 'echo');
  return s;
}

interface Exchange {
  status: number;
  retryAfter: string | null;
  type: string;
  /** The JSON-RPC messages of the reply (JSON body, or the SSE events' data). */
  messages: { id?: unknown; result?: unknown; error?: { code: number; data?: { retryAfterMs?: number } } }[];
}

async function post(url: string, headers: Record<string, string>, body: unknown): Promise<Exchange> {
  const response = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...headers,
    },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  const type = response.headers.get('content-type') ?? '';
  const parsed = type.includes('text/event-stream')
    ? text
        .split('\n')
        .filter((l) => l.startsWith('data: ') && l.length > 6)
        .map((l) => JSON.parse(l.slice(6)))
    : text === ''
      ? []
      : [JSON.parse(text)].flat();
  return { status: response.status, retryAfter: response.headers.get('retry-after'), type, messages: parsed };
}

const call = (id: number, modern = false) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: modern ? { name: 'echo', _meta: MODERN_META } : { name: 'echo' },
});

/** Opens a 2025 session on `url` and answers the headers of its later requests. */
async function session(url: string, version: string): Promise<Record<string, string>> {
  const init = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: { protocolVersion: version, capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
    }),
  });
  await init.text();
  const id = init.headers.get('mcp-session-id');
  assert.ok(id, 'a session id');
  const headers = { 'mcp-session-id': id, 'mcp-protocol-version': version };
  await post(url, headers, { jsonrpc: '2.0', method: 'notifications/initialized' });
  return headers;
}

function assertRefusal(reply: Exchange, id: number): void {
  const error = reply.messages.find((m) => m.id === id)?.error;
  assert.equal(error?.code, ErrorCode.RateLimited);
  assert.ok((error?.data?.retryAfterMs ?? 0) > 1000, 'data.retryAfterMs');
}

function assert429(reply: Exchange, id: number): void {
  assert.equal(reply.status, 429);
  assert.match(reply.type, /application\/json/);
  const seconds = Number(reply.retryAfter);
  assert.ok(Number.isInteger(seconds) && seconds >= 1 && seconds <= 3600, `Retry-After ${reply.retryAfter}`);
  assertRefusal(reply, id);
}

describe('a rate-limited request: 429 where the whole POST is refused, the error elsewhere', {
  timeout: 60_000,
}, () => {
  for (const mode of ['auto', 'json'] as const satisfies readonly ResponseMode[]) {
    test(`2025 session, '${mode}' replies: 429 with Retry-After`, async () => {
      const running = await serve(limited(), { responseMode: mode, legacySse: false });
      try {
        const headers = await session(running.url, '2025-11-25');
        assert.equal((await post(running.url, headers, call(1))).status, 200);
        assert429(await post(running.url, headers, call(2)), 2);
      } finally {
        await running.close();
      }
    });
  }

  test('2025 without sessions: 429 with Retry-After', async () => {
    const running = await serve(limited(), { sessions: false, legacySse: false });
    try {
      const headers = { 'mcp-protocol-version': '2025-06-18' };
      assert.equal((await post(running.url, headers, call(1))).status, 200);
      assert429(await post(running.url, headers, call(2)), 2);
    } finally {
      await running.close();
    }
  });

  test('2026-07-28, JSON and through the transport of a request whose reply may stream: 429', async () => {
    const running = await serve(limited(), { legacySse: false });
    try {
      const headers = {
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': 'tools/call',
        'mcp-name': 'echo',
      };
      assert.equal((await post(running.url, headers, call(1, true))).status, 200);
      assert429(await post(running.url, headers, call(2, true)), 2);
    } finally {
      await running.close();
    }
  });

  test("'sse' replies (the stream starts before the answer): 200, the error is the stream's event", async () => {
    const running = await serve(limited(), { responseMode: 'sse', legacySse: false });
    try {
      const headers = await session(running.url, '2025-11-25');
      assert.equal((await post(running.url, headers, call(1))).status, 200);
      const refused = await post(running.url, headers, call(2));
      assert.equal(refused.status, 200);
      assert.match(refused.type, /text\/event-stream/);
      assert.equal(refused.retryAfter, null);
      assertRefusal(refused, 2);
      const modern = {
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': 'tools/call',
        'mcp-name': 'echo',
      };
      const alsoRefused = await post(running.url, modern, call(3, true));
      assert.equal(alsoRefused.status, 200);
      assert.match(alsoRefused.type, /text\/event-stream/);
      assertRefusal(alsoRefused, 3);
    } finally {
      await running.close();
    }
  });

  test('a batch (2025-03-26) is answered 200: the refusal is one answer among others', async () => {
    const running = await serve(limited(), { responseMode: 'json', legacySse: false });
    try {
      const headers = await session(running.url, '2025-03-26');
      const reply = await post(running.url, headers, [
        call(1),
        call(2),
        { jsonrpc: '2.0', id: 3, method: 'ping' },
      ]);
      assert.equal(reply.status, 200);
      assert.equal(reply.retryAfter, null);
      assert.equal(reply.messages.length, 3);
      assert.equal(reply.messages.filter((m) => m.error === undefined).length, 2);
      assert.equal(reply.messages.find((m) => m.error !== undefined)?.error?.code, ErrorCode.RateLimited);
    } finally {
      await running.close();
    }
  });

  test('other errors keep their 2025 status: an unknown tool is 200 with the error', async () => {
    const running = await serve(limited(), { sessions: false, legacySse: false });
    try {
      const reply = await post(
        running.url,
        { 'mcp-protocol-version': '2025-06-18' },
        { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'nope' } },
      );
      assert.equal(reply.status, 200);
      assert.equal(reply.messages[0]?.error?.code, ErrorCode.InvalidParams);
    } finally {
      await running.close();
    }
  });

  const serverPath = fileURLToPath(new URL('../../examples/everything/server.js', import.meta.url));
  for (const era of ERAS) {
    test(`stdio, ${era}: the JSON-RPC error says when to retry`, async () => {
      const client = new Client({ name: 'stdio', version: '1' }, { era });
      await client.connect(
        new StdioClientTransport({
          command: process.execPath,
          args: [serverPath, '--rate-limit', '1/h'],
          stderr: 'pipe',
        }),
      );
      try {
        await client.callTool('test_simple_text');
        const error = (await client.callTool('test_simple_text').catch((e: unknown) => e)) as {
          code?: number;
          data?: { retryAfterMs?: number };
        };
        assert.equal(error.code, ErrorCode.RateLimited);
        assert.ok((error.data?.retryAfterMs ?? 0) > 1000);
      } finally {
        await client.close();
      }
    });

    test(`HTTP, ${era}, our client: the 429's JSON-RPC error reaches the caller with data.retryAfterMs`, async () => {
      const running = await serve(limited(), { legacySse: false });
      const client = new Client({ name: 'http', version: '1' }, { era, onerror: () => undefined });
      await client.connect(new StreamableHttpClientTransport(running.url));
      try {
        await client.callTool('echo');
        const error = (await client.callTool('echo').catch((e: unknown) => e)) as {
          code?: number;
          data?: { retryAfterMs?: number };
        };
        assert.equal(error.code, ErrorCode.RateLimited);
        assert.ok((error.data?.retryAfterMs ?? 0) > 1000);
      } finally {
        await client.close();
        await running.close();
      }
    });
  }
});
