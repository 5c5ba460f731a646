// A remembered era is a hint: it saves the probe, and a stale one is noticed and corrected.
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import { Client, createLinkedTransports, type JsonRpcMessage } from '../../src/index.js';
import { HttpClientTransport } from '../../src/transport/http-client/fallback.js';

/** A scripted server: `answer` returns the reply to each request; every method seen is recorded. */
async function scripted(answer: (method: string) => object) {
  const [clientSide, serverSide] = createLinkedTransports();
  const seen: string[] = [];
  await serverSide.start({
    onmessage: (m) => {
      if (!('method' in m)) return;
      seen.push(m.method);
      if (!('id' in m)) return;
      void serverSide.send({ jsonrpc: '2.0', id: m.id, ...answer(m.method) } as JsonRpcMessage);
    },
    oninvalid: () => {},
    onerror: () => {},
    onclose: () => {},
  });
  return { clientSide, seen };
}

const INIT = {
  result: { protocolVersion: '2025-11-25', capabilities: {}, serverInfo: { name: 'old', version: '1' } },
};
const DISCOVER = {
  result: {
    resultType: 'complete',
    supportedVersions: ['2026-07-28'],
    capabilities: {},
    ttlMs: 0,
    cacheScope: 'private',
  },
};

test('a server remembered as stateful is initialized without a probe', async () => {
  const { clientSide, seen } = await scripted((m) => (m === 'initialize' ? INIT : { result: {} }));
  const client = new Client({ name: 'c', version: '1' });
  await client.connect(clientSide, { prior: 'stateful' });
  assert.equal(client.era, 'stateful');
  assert.deepEqual(seen, ['initialize', 'notifications/initialized']);
  await client.close();
});

const REFUSAL = {
  error: {
    code: -32022,
    message: 'Unsupported protocol version',
    data: { supported: ['2026-07-28'], requested: '2025-11-25' },
  },
};

test('a stale stateful verdict is corrected: a modern refusal of initialize leads to the probe', async () => {
  const { clientSide, seen } = await scripted((m) => (m === 'initialize' ? REFUSAL : DISCOVER));
  const client = new Client({ name: 'c', version: '1' });
  await client.connect(clientSide, { prior: 'stateful' });
  assert.equal(client.era, 'stateless');
  assert.equal(client.protocolVersion, '2026-07-28');
  assert.deepEqual(seen, ['initialize', 'server/discover']);
  await client.close();
});

test('a stateful refusal that is not modern is reported as it is', async () => {
  const refusal = { error: { code: -32603, message: 'Internal error' } };
  const { clientSide, seen } = await scripted(() => refusal);
  const client = new Client({ name: 'c', version: '1' });
  await assert.rejects(client.connect(clientSide, { prior: 'stateful' }), { code: -32603 });
  assert.deepEqual(seen, ['initialize']);
});

/** A stub HTTP endpoint on 127.0.0.1: `answer` replies to each POSTed message, GETs get 405; it records what came. */
async function stubEndpoint(
  answer: (message: { id: number; method: string }) => { status: number; body: string },
) {
  const seen: { verb: string | undefined; method?: string }[] = [];
  const http = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => {
      body += chunk;
    });
    req.on('end', () => {
      if (req.method !== 'POST') {
        seen.push({ verb: req.method });
        res.writeHead(405).end();
        return;
      }
      const message = JSON.parse(body) as { id: number; method: string };
      seen.push({ verb: req.method, method: message.method });
      const reply = answer(message);
      res.writeHead(reply.status, { 'content-type': 'application/json' }).end(reply.body);
    });
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const { port } = http.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    seen,
    close: () => new Promise<void>((resolve) => http.close(() => resolve())),
  };
}

test('over HTTP too: a modern 400 refusal of initialize leads to the probe, never to the legacy SSE fallback', async () => {
  // A stateless-only endpoint: initialize is refused with -32022 (HTTP 400), server/discover is answered.
  const stub = await stubEndpoint(({ id, method }) =>
    method === 'initialize'
      ? { status: 400, body: JSON.stringify({ jsonrpc: '2.0', id, ...REFUSAL }) }
      : { status: 200, body: JSON.stringify({ jsonrpc: '2.0', id, ...DISCOVER }) },
  );
  const client = new Client({ name: 'c', version: '1' });
  try {
    await client.connect(new HttpClientTransport(stub.url), { prior: 'stateful' });
    assert.equal(client.era, 'stateless');
    assert.deepEqual(
      stub.seen.map((s) => `${s.verb} ${s.method ?? ''}`),
      ['POST initialize', 'POST server/discover'],
    );
  } finally {
    await client.close();
    await stub.close();
  }
});

test('over HTTP, a 401 or a 5xx to the server/discover probe is an error, never taken for a stateful server', async () => {
  for (const status of [401, 503]) {
    const stub = await stubEndpoint(() => ({ status, body: '{"error":"no"}' }));
    const client = new Client({ name: 'c', version: '1' });
    try {
      await assert.rejects(client.connect(new HttpClientTransport(stub.url)));
      assert.deepEqual(
        stub.seen.map((s) => s.method ?? `${s.verb}`),
        ['server/discover'],
        `HTTP ${status}: no initialize, no legacy fallback`,
      );
    } finally {
      await client.close();
      await stub.close();
    }
  }
});
