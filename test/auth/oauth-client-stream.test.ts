// A 401 mid-stream: the reply stream of a call is lost, the resumption GET (Last-Event-ID) meets a 401 because the
// access token expired meanwhile; the OAuth client refreshes and the same GET goes again and resumes the call.
// Everything (resource server, authorization server, the user) is an in-memory fetch.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { OAuthClient } from '../../src/auth.js';
import { Client, StreamableHttpClientTransport } from '../../src/index.js';

const RS = 'https://rs.example';
const AS = 'https://as.example';
const SSE = { 'content-type': 'text/event-stream' };
const json = (body: unknown, status = 200, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } });

test('a 401 on the resumption GET refreshes the token and the stream resumes', {
  timeout: 20_000,
}, async () => {
  const log: string[] = [];
  let issued = 0;
  const valid = new Set<string>();
  const fetch = async (url: URL, init: RequestInit): Promise<Response> => {
    const key = `${init.method ?? 'GET'} ${url.origin}${url.pathname}`;
    const auth = new Headers(init.headers).get('authorization') ?? '';
    const body = typeof init.body === 'string' ? init.body : (init.body?.toString() ?? '');
    switch (key) {
      case `GET ${RS}/.well-known/oauth-protected-resource/mcp`:
        return json({ resource: `${RS}/mcp`, authorization_servers: [AS] });
      case `GET ${AS}/.well-known/oauth-authorization-server`:
        return json({
          issuer: AS,
          authorization_endpoint: `${AS}/authorize`,
          token_endpoint: `${AS}/token`,
          response_types_supported: ['code'],
          code_challenge_methods_supported: ['S256'],
        });
      case `POST ${AS}/token`: {
        const grant = new URLSearchParams(body).get('grant_type') ?? '';
        log.push(`token ${grant}`);
        const token = `t${++issued}`;
        valid.clear();
        valid.add(token);
        return json({
          access_token: token,
          token_type: 'Bearer',
          expires_in: 3600,
          refresh_token: `r${issued}`,
        });
      }
      case `POST ${RS}/mcp`:
      case `GET ${RS}/mcp`: {
        const token = auth.startsWith('Bearer ') ? auth.slice(7) : '';
        if (!valid.has(token)) {
          log.push(`401 ${init.method}`);
          return new Response(null, {
            status: 401,
            headers: { 'www-authenticate': 'Bearer error="invalid_token"' },
          });
        }
        if (init.method === 'GET') {
          const last = new Headers(init.headers).get('last-event-id');
          if (last === null) return new Response(null, { status: 405 });
          log.push(`resumed ${last} with ${token}`);
          const result = {
            jsonrpc: '2.0',
            id: pendingId,
            result: { content: [{ type: 'text', text: 'done' }] },
          };
          return new Response(`id: e2\ndata: ${JSON.stringify(result)}\n\n`, { headers: SSE });
        }
        const message = JSON.parse(body) as { id?: number; method: string };
        if (message.method === 'initialize') {
          return json(
            {
              jsonrpc: '2.0',
              id: message.id,
              result: {
                protocolVersion: '2025-11-25',
                capabilities: { tools: {} },
                serverInfo: { name: 'm', version: '1' },
              },
            },
            200,
            { 'mcp-session-id': 's1' },
          );
        }
        if (message.id === undefined) return new Response(null, { status: 202 });
        // tools/call: a priming event, then the stream ends without the result; meanwhile the token is revoked.
        pendingId = message.id;
        valid.clear();
        return new Response('id: e1\nretry: 10\ndata: \n\n', { headers: SSE });
      }
      default:
        return new Response('not found', { status: 404 });
    }
  };
  let pendingId: number | undefined;
  let authorizations = 0;
  const auth = new OAuthClient({
    grant: {
      type: 'authorization_code',
      redirectUri: 'http://127.0.0.1:9/cb',
      authorize: async (url) => {
        authorizations++;
        return `http://127.0.0.1:9/cb?code=c&state=${url.searchParams.get('state')}`;
      },
    },
    credentials: { clientId: 'pre' },
    fetch,
  });
  const client = new Client({ name: 't', version: '1' }, { era: 'stateful' });
  await client.connect(new StreamableHttpClientTransport(`${RS}/mcp`, { auth, fetch }));
  try {
    const result = await client.callTool('anything', {}, { timeout: 10_000 });
    assert.deepEqual(result.content, [{ type: 'text', text: 'done' }]);
    assert.equal(authorizations, 1);
    assert.deepEqual(log, [
      '401 POST',
      'token authorization_code',
      '401 GET',
      'token refresh_token',
      'resumed e1 with t2',
    ]);
  } finally {
    await client.close();
  }
});
