// Rate limits a client cannot step around over real HTTP: with the default key, twenty calls each on a new session,
// or each with a token of a new OAuth client for the same user, or each announcing a new client name, meet the
// same bucket (the client's address without a token, the principal with one); the keys a client chooses (session,
// client) are opt-in, and do let it through; where the host hands in no address, all share one bucket. The clock
// stands still: no token comes back during a test.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createStreamableHttpHandler, toFetchHandler } from '../../src/index.js';
import { ErrorCode } from '../../src/jsonrpc/errors.js';
import { type RunningServer, serve } from '../../src/node.js';
import type { RequestKey } from '../../src/server/guard/subject.js';
import type { TokenVerifier } from '../../src/server/handler/auth.js';
import { McpServer } from '../../src/server/server.js';
import { codeOf, type Era, httpClient } from './helpers.js';

const CALLS = 20;

/** "alice/7": the user alice through the OAuth client "app-7" (a client registered anew for every call). */
const PER_CALL_CLIENT: TokenVerifier = {
  verify: async (token) => {
    const [subject = '', client = ''] = token.split('/');
    return { subject, clientId: `app-${client}`, issuer: 'https://issuer.test', scopes: [] };
  },
};

function limited(key?: RequestKey): McpServer {
  const s = new McpServer(
    { name: 'limited', version: '1' },
    {
      rateLimit: {
        methods: { 'tools/call': key === undefined ? '5/s' : { limit: '5/s', key } },
        now: () => 1_000_000,
      },
    },
  );
  s.tool('echo', {}, () => 'echo');
  return s;
}

function serveLimited(key?: RequestKey, auth = false): Promise<RunningServer> {
  return serve(limited(key), {
    ...(auth
      ? {
          auth: {
            verifier: PER_CALL_CLIENT,
            resource: 'http://127.0.0.1/mcp',
            authorizationServers: ['https://issuer.test'],
          },
        }
      : {}),
  });
}

/** `CALLS` tool calls, each by a new client (a new session, a new name, and `token(i)` when given); the outcomes. */
async function eachNew(
  url: string,
  era: Era,
  token?: (i: number) => string,
): Promise<{ ok: number; limited: number; other: unknown[] }> {
  const out = { ok: 0, limited: 0, other: [] as unknown[] };
  for (let i = 0; i < CALLS; i++) {
    const client = await httpClient(url, era, token?.(i), {}, `client-${i}`);
    try {
      const code = await codeOf(client.callTool('echo'));
      if (code === undefined) out.ok++;
      else if (code === ErrorCode.RateLimited) out.limited++;
      else out.other.push(code);
    } finally {
      await client.close();
    }
  }
  return out;
}

describe('rate limits a client cannot escape', { timeout: 60_000 }, () => {
  for (const era of ['stateful', 'stateless'] as const) {
    test(`${era}: 5/s by default, ${CALLS} calls each on a new session (and name): 5 through, the rest refused`, async () => {
      const running = await serveLimited();
      try {
        assert.deepEqual(await eachNew(running.url, era), { ok: 5, limited: CALLS - 5, other: [] });
      } finally {
        await running.close();
      }
    });

    test(`${era}: with auth, ${CALLS} calls each with a token of a new OAuth client for one user: 5 through`, async () => {
      const running = await serveLimited(undefined, true);
      try {
        assert.deepEqual(await eachNew(running.url, era, (i) => `alice/${i}`), {
          ok: 5,
          limited: CALLS - 5,
          other: [],
        });
        // Another user has a bucket of their own.
        assert.deepEqual(await eachNew(running.url, era, (i) => `bob/${i}`), {
          ok: 5,
          limited: CALLS - 5,
          other: [],
        });
      } finally {
        await running.close();
      }
    });
  }

  test('the keys a client chooses are opt-in, and a new session escapes them (as documented)', async () => {
    for (const key of ['session', 'client'] as const) {
      const running = await serveLimited(key);
      try {
        assert.deepEqual(await eachNew(running.url, 'stateful'), { ok: CALLS, limited: 0, other: [] }, key);
      } finally {
        await running.close();
      }
    }
  });

  test('a host that hands in no address (toFetchHandler without one): one bucket for all, not one per client name', async () => {
    const fetchHandler = toFetchHandler(createStreamableHttpHandler(limited()));
    const call = async (name: string) => {
      const response = await fetchHandler(
        new Request('http://127.0.0.1/mcp', {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
            'mcp-protocol-version': '2026-07-28',
            'mcp-method': 'tools/call',
            'mcp-name': 'echo',
          },
          body: JSON.stringify({
            jsonrpc: '2.0',
            id: 1,
            method: 'tools/call',
            params: {
              name: 'echo',
              _meta: {
                'io.modelcontextprotocol/protocolVersion': '2026-07-28',
                'io.modelcontextprotocol/clientInfo': { name, version: '1' },
                'io.modelcontextprotocol/clientCapabilities': {},
              },
            },
          }),
        }),
      );
      await response.body?.cancel();
      return response.status;
    };
    const statuses: number[] = [];
    for (let i = 0; i < CALLS; i++) statuses.push(await call(`client-${i}`));
    assert.deepEqual(statuses, [...Array<number>(5).fill(200), ...Array<number>(CALLS - 5).fill(429)]);
  });
});
