// Client era negotiation against real servers: `era: 'auto'` picks the stateless revision on our dual-era server
// (stdio and HTTP) and falls back to `initialize` on stateful-only servers (the official SDK 1.x over stdio and
// over Streamable HTTP); a pinned stateless era refuses a stateful-only server; the verdict can be remembered
// (`connect(t, { era: client.era })`). Then the fallback rules themselves, against scripted in-memory servers:
// a silent probe, any non-modern error (never one specific code), and a recognised modern error (no fallback).
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import process from 'node:process';
import { after, before, describe, test } from 'node:test';
import { Client } from '../../src/client/client.js';
import { ErrorCode, JsonRpcError, McpkitError } from '../../src/jsonrpc/errors.js';
import type { JsonObject, JsonRpcMessage, JsonRpcRequest } from '../../src/jsonrpc/types.js';
import { type RunningServer, serve } from '../../src/node.js';
import { HttpClientTransport } from '../../src/transport/http-client/fallback.js';
import { createLinkedTransports } from '../../src/transport/memory.js';
import { StdioClientTransport } from '../../src/transport/stdio-client.js';
import { createDualServer, DUAL_INFO } from './fixtures/dual-server.js';
import { type StatefulOnlyServer, startStatefulOnly } from './fixtures/stateful-only-http.js';
import {
  CALL,
  connectClient,
  DUAL_STDIO_MAIN,
  EXITS_BEFORE_INITIALIZE,
  firstText,
  OFFICIAL_V1_STDIO,
  Pids,
  SUITE_TIMEOUT,
  Tap,
  type Target,
} from './helpers.js';

const pids = new Pids();
const dual = createDualServer();
let running: RunningServer;
let legacyHttp: StatefulOnlyServer;

before(async () => {
  running = await serve(dual.server);
  legacyHttp = await startStatefulOnly();
});
after(async () => {
  await running?.close();
  await legacyHttp?.close();
  pids.killAll();
});

const dualStdio = (): Target => ({ kind: 'stdio', command: process.execPath, args: [DUAL_STDIO_MAIN] });
const officialStdio = (): Target => ({ kind: 'stdio', command: process.execPath, args: [OFFICIAL_V1_STDIO] });
const methodsSent = (tap: Tap) => tap.sentRequests().map((m) => m.method);

describe('auto negotiation against real servers', { timeout: SUITE_TIMEOUT }, () => {
  test('auto against the dual-era server over stdio: stateless, from the server/discover probe alone', async () => {
    const { client, tap } = await connectClient(dualStdio(), 'auto', {}, pids);
    try {
      assert.equal(client.era, 'stateless');
      assert.equal(client.protocolVersion, '2026-07-28');
      assert.deepEqual(client.serverInfo, DUAL_INFO);
      assert.deepEqual(methodsSent(tap), ['server/discover']);
      assert.equal(firstText(await client.callTool('echo', { text: 'a' }, CALL)), 'echo: a');
    } finally {
      await client.close();
    }
  });

  test('auto against the dual-era server over HTTP: stateless (Streamable HTTP and the fallback-capable transport)', async () => {
    const { client, tap } = await connectClient({ kind: 'http', url: running.url }, 'auto', {}, pids);
    try {
      assert.equal(client.era, 'stateless');
      assert.deepEqual(methodsSent(tap), ['server/discover']);
      assert.equal(firstText(await client.callTool('echo', { text: 'b' }, CALL)), 'echo: b');
    } finally {
      await client.close();
    }
    const http = new HttpClientTransport(running.url);
    const other = new Client({ name: 'auto-http', version: '1' }, { era: 'auto' });
    try {
      await other.connect(http, CALL);
      assert.equal(other.era, 'stateless');
      assert.equal(http.kind, 'streamable-http');
      assert.equal(firstText(await other.callTool('echo', { text: 'c' }, CALL)), 'echo: c');
    } finally {
      await other.close();
    }
  });

  test('auto against a stateful-only server over stdio (official SDK 1.x): falls back to initialize', async () => {
    const { client, tap } = await connectClient(officialStdio(), 'auto', {}, pids);
    try {
      assert.equal(client.era, 'stateful');
      assert.equal(client.protocolVersion, '2025-11-25');
      assert.equal(client.serverInfo?.name, 'official-fixture-server');
      assert.deepEqual(methodsSent(tap).slice(0, 2), ['server/discover', 'initialize']);
      assert.equal(firstText(await client.callTool('echo', { text: 'd' }, CALL)), 'echo: d');
      const results = tap.results();
      assert.ok(
        results.every((r) => r.result.resultType === undefined),
        'a legacy server sends no resultType',
      );
    } finally {
      await client.close();
    }
  });

  test('auto against a stateful-only server over HTTP (official SDK 1.x): falls back to initialize', async () => {
    const from = legacyHttp.methods.length;
    const { client } = await connectClient({ kind: 'http', url: legacyHttp.url }, 'auto', {}, pids);
    try {
      assert.equal(client.era, 'stateful');
      assert.equal(client.serverInfo?.name, 'stateful-only');
      assert.deepEqual(legacyHttp.methods.slice(from, from + 2), ['server/discover', 'initialize']);
      assert.equal(firstText(await client.callTool('echo', { text: 'e' }, CALL)), 'echo: e');
    } finally {
      await client.close();
    }
    const http = new HttpClientTransport(legacyHttp.url);
    const other = new Client({ name: 'auto-http', version: '1' }, { era: 'auto' });
    try {
      await other.connect(http, CALL);
      assert.equal(other.era, 'stateful');
      assert.equal(http.kind, 'streamable-http', 'a 400 to the modern probe is not a reason to use HTTP+SSE');
      assert.equal(firstText(await other.callTool('echo', { text: 'f' }, CALL)), 'echo: f');
    } finally {
      await other.close();
    }
  });

  test('auto against a stdio server that exits on the probe: a fresh process is initialized instead', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'mcpkit-exits-'));
    const log = join(dir, 'exits.log');
    const closes: (Error | undefined)[] = [];
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [EXITS_BEFORE_INITIALIZE],
      env: { EXITS_LOG: log },
      closeTimeoutMs: 1_000,
    });
    const client = new Client(
      { name: 'eras-test-client', version: '0.0.1' },
      { probeTimeoutMs: 3_000, onclose: (e) => closes.push(e) },
    );
    try {
      await client.connect(transport, CALL);
      assert.equal(client.era, 'stateful');
      assert.equal(client.serverInfo?.name, 'exits-before-initialize');
      assert.equal(firstText(await client.callTool('echo', { text: 'again' }, CALL)), 'echo: again');
      assert.deepEqual(closes, [], 'the probed process going away is not reported as the connection closing');
      const first = transport.pid;
      assert.ok(first !== undefined);
      assert.deepEqual((await readFile(log, 'utf8')).trim().split('\n'), [
        `${first} exited on server/discover`,
      ]);
    } finally {
      await client.close();
      await rm(dir, { recursive: true, force: true });
    }
    assert.equal(closes.length, 1, 'closing the client reports the close of the connection in use');
  });

  test('pinned stateless against a stdio server that exits on the probe: a clear error, no second process', async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [EXITS_BEFORE_INITIALIZE],
      env: {},
      closeTimeoutMs: 1_000,
    });
    const client = new Client({ name: 'eras-test-client', version: '0.0.1' }, { era: 'stateless' });
    await assert.rejects(client.connect(transport, CALL), (e: unknown) => {
      assert.ok(e instanceof McpkitError);
      assert.equal(e.code, 'CONNECTION_CLOSED');
      assert.match(e.message, /closed the connection on the server\/discover probe.*era 'stateful'/);
      return true;
    });
    pids.add(transport.pid);
  });

  test('pinned stateless against stateful-only servers: refused, no initialize', async () => {
    for (const target of [officialStdio(), { kind: 'http', url: legacyHttp.url } as Target]) {
      const from = legacyHttp.methods.length;
      await assert.rejects(connectClient(target, 'stateless', {}, pids), (e: unknown) => {
        assert.ok(e instanceof McpkitError, String(e));
        assert.equal(e.code, 'UNSUPPORTED_PROTOCOL_VERSION');
        return true;
      });
      if (target.kind === 'http') assert.ok(!legacyHttp.methods.slice(from).includes('initialize'));
    }
  });

  test('pinned stateful against the dual-era server: initialize straight away, no probe', async () => {
    const { client, tap } = await connectClient(dualStdio(), 'stateful', {}, pids);
    try {
      assert.equal(client.era, 'stateful');
      assert.deepEqual(methodsSent(tap), ['initialize']);
    } finally {
      await client.close();
    }
  });

  test('era memory: connect(t, { era: client.era }) reuses the verdict (no second probe for a stateful server)', async () => {
    const first = await connectClient(officialStdio(), 'auto', {}, pids);
    const verdict = first.client.era;
    await first.client.close();
    assert.equal(verdict, 'stateful');
    const second = await connectClient(officialStdio(), 'auto', {}, pids, { era: verdict });
    try {
      assert.equal(second.client.era, 'stateful');
      assert.equal(methodsSent(second.tap)[0], 'initialize', 'no server/discover probe the second time');
      assert.ok(!methodsSent(second.tap).includes('server/discover'));
    } finally {
      await second.client.close();
    }

    const modern = await connectClient({ kind: 'http', url: running.url }, 'auto', {}, pids);
    const remembered = modern.client.era;
    await modern.client.close();
    assert.equal(remembered, 'stateless');
    const again = await connectClient({ kind: 'http', url: running.url }, 'auto', {}, pids, {
      era: remembered,
    });
    try {
      assert.equal(again.client.era, 'stateless');
      assert.ok(
        !methodsSent(again.tap).includes('initialize'),
        'a remembered stateless verdict never initializes',
      );
    } finally {
      await again.client.close();
    }
  });
});

/** A scripted server on an in-memory pair: `answer` decides the reply to each request (undefined: silence). */
async function scripted(
  answer: (
    request: JsonRpcRequest,
  ) => JsonObject | { error: { code: number; message: string; data?: unknown } } | undefined,
): Promise<{
  client: Client;
  seen: JsonRpcRequest[];
  tap: Tap;
  connect: (era?: 'auto' | 'stateless') => Promise<void>;
}> {
  const [clientSide, serverSide] = createLinkedTransports();
  const seen: JsonRpcRequest[] = [];
  await serverSide.start({
    onmessage: (message: JsonRpcMessage) => {
      if (!('method' in message) || !('id' in message)) return;
      seen.push(message);
      const reply = answer(message);
      if (reply === undefined) return;
      void serverSide.send(
        'error' in reply && typeof reply.error === 'object'
          ? { jsonrpc: '2.0', id: message.id, error: reply.error as { code: number; message: string } }
          : { jsonrpc: '2.0', id: message.id, result: reply as JsonObject },
      );
    },
    oninvalid: () => undefined,
    onerror: () => undefined,
    onclose: () => undefined,
  });
  const tap = new Tap(clientSide);
  const client = new Client({ name: 'scripted', version: '1' }, { probeTimeoutMs: 200 });
  return {
    client,
    seen,
    tap,
    connect: async (era = 'auto') => {
      await client.connect(tap, { ...CALL, era });
    },
  };
}

const INIT_RESULT = {
  protocolVersion: '2025-11-25',
  capabilities: { tools: {} },
  serverInfo: { name: 'scripted-legacy', version: '1' },
};

describe('fallback rules (scripted servers in memory)', { timeout: SUITE_TIMEOUT }, () => {
  test('a probe that gets no answer in time: falls back to initialize', async () => {
    const s = await scripted((r) => (r.method === 'initialize' ? INIT_RESULT : undefined));
    await s.connect();
    assert.equal(s.client.era, 'stateful');
    assert.deepEqual(
      s.seen.map((r) => r.method),
      ['server/discover', 'initialize'],
    );
    await s.client.close();
  });

  for (const code of [ErrorCode.MethodNotFound, ErrorCode.InvalidParams, ErrorCode.InvalidRequest, -32000]) {
    test(`a legacy error ${code} to the probe: falls back to initialize`, async () => {
      const s = await scripted((r) =>
        r.method === 'initialize' ? INIT_RESULT : { error: { code, message: 'not before initialize' } },
      );
      await s.connect();
      assert.equal(s.client.era, 'stateful');
      assert.equal(s.client.serverInfo?.name, 'scripted-legacy');
      await s.client.close();
    });
  }

  test('-32022 listing only stateful revisions: initialize with the newest one listed', async () => {
    const s = await scripted((r) =>
      r.method === 'initialize'
        ? { ...INIT_RESULT, protocolVersion: (r.params as { protocolVersion: string }).protocolVersion }
        : {
            error: {
              code: ErrorCode.UnsupportedProtocolVersion,
              message: 'Unsupported protocol version',
              data: { supported: ['2025-03-26', '2025-06-18'], requested: '2026-07-28' },
            },
          },
    );
    await s.connect();
    assert.equal(s.client.era, 'stateful');
    assert.equal(s.client.protocolVersion, '2025-06-18');
    await s.client.close();
  });

  test('-32022 naming only revisions the client does not speak: no fallback, an error', async () => {
    const s = await scripted((r) =>
      r.method === 'initialize'
        ? INIT_RESULT
        : {
            error: {
              code: ErrorCode.UnsupportedProtocolVersion,
              message: 'Unsupported protocol version',
              data: { supported: ['2099-01-01'], requested: '2026-07-28' },
            },
          },
    );
    await assert.rejects(s.connect(), (e: unknown) => e instanceof McpkitError || e instanceof JsonRpcError);
    assert.ok(
      !s.seen.some((r) => r.method === 'initialize'),
      'a modern refusal never falls back to initialize',
    );
  });

  test('-32021 or -32020 to the probe: a modern server; no fallback to initialize', async () => {
    for (const code of [ErrorCode.MissingClientCapability, ErrorCode.HeaderMismatch]) {
      const s = await scripted((r) =>
        r.method === 'initialize' ? INIT_RESULT : { error: { code, message: 'modern' } },
      );
      await assert.rejects(s.connect());
      assert.ok(!s.seen.some((r) => r.method === 'initialize'), `code ${code}`);
    }
  });

  test('a discover result without 2026-07-28 (auto): falls back to initialize; pinned stateless: refused', async () => {
    const answer = (r: JsonRpcRequest) =>
      r.method === 'initialize'
        ? INIT_RESULT
        : {
            resultType: 'complete',
            supportedVersions: ['2099-01-01'],
            capabilities: {},
            ttlMs: 0,
            cacheScope: 'private',
          };
    const auto = await scripted(answer);
    await auto.connect();
    assert.equal(auto.client.era, 'stateful');
    await auto.client.close();
    const pinned = await scripted(answer);
    await assert.rejects(pinned.connect('stateless'), McpkitError);
    assert.ok(!pinned.seen.some((r) => r.method === 'initialize'));
  });
});

const DISCOVER = {
  resultType: 'complete',
  supportedVersions: ['2026-07-28'],
  capabilities: { tools: {} },
  ttlMs: 0,
  cacheScope: 'private',
};

describe('result shapes from a stateless server (scripted)', { timeout: SUITE_TIMEOUT }, () => {
  test('an absent resultType counts as "complete"; an unknown one is invalid', async () => {
    const s = await scripted((r) => {
      if (r.method === 'server/discover') return DISCOVER;
      const name = (r.params as { name?: string }).name;
      if (name === 'plain') return { content: [{ type: 'text', text: 'no resultType' }] };
      return { resultType: 'task', task: { taskId: 't1' } };
    });
    await s.connect('stateless');
    assert.equal(s.client.era, 'stateless');
    const plain = await s.client.callTool('plain', {}, CALL);
    assert.equal(firstText(plain), 'no resultType');
    await assert.rejects(s.client.callTool('weird', {}, CALL), (e: unknown) => {
      assert.ok(e instanceof McpkitError, String(e));
      assert.equal(e.code, 'INVALID_RESULT');
      return true;
    });
    await s.client.close();
  });

  test('input_required on a method that may not ask for input is invalid', async () => {
    const s = await scripted((r) =>
      r.method === 'server/discover'
        ? DISCOVER
        : { resultType: 'input_required', inputRequests: { x: { method: 'roots/list' } }, requestState: 's' },
    );
    await s.connect('stateless');
    await assert.rejects(s.client.listTools(CALL), McpkitError);
    await s.client.close();
  });

  test('a server that keeps asking: the client gives up after maxInputRounds', async () => {
    let calls = 0;
    const s = await scripted((r) => {
      if (r.method === 'server/discover') return DISCOVER;
      calls++;
      return { resultType: 'input_required', requestState: `round-${calls}` };
    });
    await s.connect('stateless');
    await assert.rejects(s.client.callTool('endless', {}, CALL), McpkitError);
    assert.equal(calls, 11, 'the first call and 10 retries (the default maxInputRounds)');
    const states = s.seen
      .filter((r) => r.method === 'tools/call')
      .map((r) => (r.params as JsonObject).requestState);
    assert.deepEqual(
      states.slice(0, 3),
      [undefined, 'round-1', 'round-2'],
      'each retry echoes the latest state',
    );
    await s.client.close();
  });
});
