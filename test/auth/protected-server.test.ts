// Our protected server (serve(): node:http listener, and the web-standard fetch handler) against real JWT access
// tokens from oidc-provider: Protected Resource Metadata, challenges, ctx.authInfo in both eras, per-item scopes
// (step-up and hidden list entries), sessions and requestState bound to their principal.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { jwtVerifier } from '../../src/auth.js';
import { type RunningServer, serve } from '../../src/node.js';
import { toFetchHandler } from '../../src/server/http/adapters/web.js';
import { createStreamableHttpHandler } from '../../src/server/http/streamable/handler.js';
import { type OidcFixture, startOidcProvider } from '../fixtures/oidc.js';
import {
  authOptions,
  type Exchange,
  freePort,
  initialize,
  modern,
  post,
  protectedServer,
  request,
} from './helpers.js';

const TIMEOUT = { timeout: 60_000 };

function result(x: Exchange): Record<string, unknown> {
  assert.equal(x.status, 200, JSON.stringify(x.body));
  const r = x.body?.result as Record<string, unknown> | undefined;
  assert.ok(r, JSON.stringify(x.body));
  return r;
}

function names(list: Record<string, unknown>, key: string, field = 'name'): string[] {
  return (list[key] as Record<string, unknown>[]).map((i) => String(i[field]));
}

describe('a protected server with JWT access tokens from oidc-provider', TIMEOUT, () => {
  let as: OidcFixture;
  let running: RunningServer;
  let resource: string;
  let read: string;
  let admin: string;
  let user: string;

  before(async () => {
    const port = await freePort();
    resource = `http://127.0.0.1:${port}/mcp`;
    as = await startOidcProvider({ resource });
    running = await serve(protectedServer(), {
      port,
      auth: authOptions(resource, as.issuer, jwtVerifier({ issuer: as.issuer, audience: resource })),
    });
    read = (await as.clientCredentialsToken({ scope: 'mcp:read' })).access_token;
    admin = (await as.clientCredentialsToken({ scope: 'mcp:read mcp:admin' })).access_token;
    user = (
      await as.authorizationCodeToken({
        client: as.client,
        redirectUri: 'http://127.0.0.1/callback',
        scope: 'mcp:read',
      })
    ).access_token;
  });
  after(async () => {
    await running.close();
    await as.stop();
  });

  test('Protected Resource Metadata at the path-inserted and the root well-known URIs', async () => {
    const origin = new URL(resource).origin;
    for (const path of [
      '/.well-known/oauth-protected-resource/mcp',
      '/.well-known/oauth-protected-resource',
    ]) {
      const res = await fetch(`${origin}${path}`);
      assert.equal(res.status, 200, path);
      assert.equal(res.headers.get('access-control-allow-origin'), '*');
      assert.deepEqual(await res.json(), {
        resource,
        authorization_servers: [as.issuer],
        bearer_methods_supported: ['header'],
        scopes_supported: ['mcp:read', 'mcp:write'],
      });
    }
    assert.equal((await fetch(`${origin}/.well-known/oauth-protected-resource/other`)).status, 404);
  });

  test('no token: 401 naming the metadata and the scopes', async () => {
    const x = await post(running.url, undefined, initialize());
    assert.equal(x.status, 401);
    assert.equal(
      x.headers.get('www-authenticate'),
      `Bearer resource_metadata="${new URL(resource).origin}/.well-known/oauth-protected-resource/mcp", scope="mcp:read mcp:write"`,
    );
    assert.equal(typeof (x.body?.error as { message?: unknown } | undefined)?.message, 'string');
  });

  test('a malformed Authorization header: 400 invalid_request; a bad token: 401 invalid_token', async () => {
    for (const authorization of [
      'Basic dXNlcjpwYXNz',
      'Bearer',
      'Bearer a b',
      `Bearer ${read}, Bearer ${read}`,
    ]) {
      const x = await post(running.url, undefined, initialize(), { authorization });
      assert.equal(x.status, 400, authorization.slice(0, 20));
      assert.match(x.headers.get('www-authenticate') ?? '', /error="invalid_request"/);
    }
    const bad = await post(running.url, 'not-a-token', initialize());
    assert.equal(bad.status, 401);
    assert.match(
      bad.headers.get('www-authenticate') ?? '',
      /error="invalid_token", error_description="[^"]+"/,
    );
    const forged = `${read.slice(0, -4)}AAAA`;
    const x = await post(running.url, forged, initialize());
    assert.equal(x.status, 401);
    assert.ok(!JSON.stringify(x.body).includes(forged.split('.')[1] as string), 'the token is never echoed');
  });

  test('ctx.authInfo reaches handlers on a stateful session', async () => {
    const init = await post(running.url, read, initialize());
    result(init);
    const session = init.headers.get('mcp-session-id') as string;
    const headers = { 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' };
    await post(running.url, read, { jsonrpc: '2.0', method: 'notifications/initialized' }, headers);
    const who = result(await post(running.url, read, request('tools/call', { name: 'whoami' }), headers));
    const auth = who.structuredContent as Record<string, unknown>;
    assert.equal(auth.subject, as.client.clientId);
    assert.equal(auth.clientId, as.client.clientId);
    assert.deepEqual(auth.scopes, ['mcp:read']);
    assert.equal(auth.aud, resource);
    assert.ok(typeof auth.expiresAt === 'number');
  });

  test('ctx.authInfo reaches handlers in the stateless revision', async () => {
    const { message, headers } = modern('tools/call', { name: 'whoami', arguments: {} });
    const who = result(await post(running.url, user, message, headers));
    const auth = who.structuredContent as Record<string, unknown>;
    assert.equal(auth.subject, as.accountId);
    assert.deepEqual(auth.scopes, ['mcp:read']);
  });

  test('a tool, resource, template or prompt needing a scope the token lacks: 403 insufficient_scope (step-up)', async () => {
    const calls: [string, Record<string, unknown>][] = [
      ['tools/call', { name: 'admin', arguments: {} }],
      ['resources/read', { uri: 'secret://admin' }],
      ['resources/read', { uri: 'vault://7' }],
      ['prompts/get', { name: 'briefing' }],
      [
        'completion/complete',
        { ref: { type: 'ref/resource', uri: 'vault://{id}' }, argument: { name: 'id', value: '' } },
      ],
    ];
    for (const [method, params] of calls) {
      const { message, headers } = modern(method, params);
      const refused = await post(running.url, read, message, headers);
      assert.equal(refused.status, 403, `${method} ${JSON.stringify(params)}`);
      const challenge = refused.headers.get('www-authenticate') ?? '';
      assert.match(
        challenge,
        /^Bearer error="insufficient_scope", scope="mcp:read mcp:admin", resource_metadata="http:\/\/127\.0\.0\.1:\d+\/\.well-known\/oauth-protected-resource\/mcp"/,
      );
      result(await post(running.url, admin, message, headers));
    }
  });

  test('the same refusal on a stateful session, where the admin token succeeds', async () => {
    const init = await post(running.url, admin, initialize());
    const headers = {
      'mcp-session-id': init.headers.get('mcp-session-id') as string,
      'mcp-protocol-version': '2025-11-25',
    };
    const ok = result(
      await post(running.url, admin, request('tools/call', { name: 'admin', arguments: {} }), headers),
    );
    assert.deepEqual(ok.content, [{ type: 'text', text: 'admin done' }]);
  });

  test('lists hide what the principal may not use, and show it to one who may', async () => {
    const list = async (token: string, method: string) => {
      const { message, headers } = modern(method);
      return result(await post(running.url, token, message, headers));
    };
    assert.deepEqual(names(await list(read, 'tools/list'), 'tools'), ['whoami', 'ask']);
    assert.deepEqual(names(await list(admin, 'tools/list'), 'tools'), ['whoami', 'admin', 'ask']);
    assert.deepEqual(names(await list(read, 'resources/list'), 'resources', 'uri'), ['public://info']);
    assert.deepEqual(names(await list(admin, 'resources/list'), 'resources', 'uri'), [
      'secret://admin',
      'public://info',
    ]);
    assert.deepEqual(
      names(await list(read, 'resources/templates/list'), 'resourceTemplates', 'uriTemplate'),
      [],
    );
    assert.deepEqual(
      names(await list(admin, 'resources/templates/list'), 'resourceTemplates', 'uriTemplate'),
      ['vault://{id}'],
    );
    assert.deepEqual(names(await list(read, 'prompts/list'), 'prompts'), ['hello']);
    assert.deepEqual(names(await list(admin, 'prompts/list'), 'prompts'), ['briefing', 'hello']);
  });

  test("a session belongs to its principal: another principal's token gets 404 on POST, GET and DELETE", async () => {
    const init = await post(running.url, user, initialize());
    const session = init.headers.get('mcp-session-id') as string;
    const headers = { 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' };
    const hijack = await post(running.url, read, request('tools/call', { name: 'whoami' }), headers);
    assert.equal(hijack.status, 404);
    const get = await fetch(running.url, {
      headers: { ...headers, accept: 'text/event-stream', authorization: `Bearer ${read}` },
    });
    assert.equal(get.status, 404);
    await get.body?.cancel();
    const del = await fetch(running.url, {
      method: 'DELETE',
      headers: { ...headers, authorization: `Bearer ${read}` },
    });
    assert.equal(del.status, 404);
    const own = result(await post(running.url, user, request('tools/call', { name: 'whoami' }), headers));
    assert.equal((own.structuredContent as { subject: string }).subject, as.accountId);
  });

  test("requestState is bound to the principal: another principal's replay is refused", async () => {
    const first = modern('tools/call', { name: 'ask', arguments: { topic: 'x' } });
    const asked = result(await post(running.url, user, first.message, first.headers));
    assert.equal(asked.resultType, 'input_required');
    const key = Object.keys(asked.inputRequests as object)[0] as string;
    const retry = modern('tools/call', {
      name: 'ask',
      arguments: { topic: 'x' },
      requestState: asked.requestState,
      inputResponses: { [key]: { action: 'accept', content: { ok: true } } },
    });
    const replay = await post(running.url, read, retry.message, retry.headers);
    assert.ok(replay.body?.error, `replay refused: ${JSON.stringify(replay.body)}`);
    const done = result(await post(running.url, user, retry.message, retry.headers));
    assert.deepEqual(done.content, [{ type: 'text', text: 'answered accept' }]);
  });

  test('the legacy SSE transport is protected too, and its session bound', async () => {
    const sseUrl = running.sseUrl as string;
    const anonymous = await fetch(sseUrl, { headers: { accept: 'text/event-stream' } });
    assert.equal(anonymous.status, 401);
    await anonymous.body?.cancel();
    const stream = await fetch(sseUrl, {
      headers: { accept: 'text/event-stream', authorization: `Bearer ${user}` },
    });
    assert.equal(stream.status, 200);
    const reader = (stream.body as ReadableStream<Uint8Array>).getReader();
    let text = '';
    while (!text.includes('\n\n')) text += new TextDecoder().decode((await reader.read()).value);
    const endpoint = /data: (\S+)/.exec(text)?.[1] as string;
    const target = new URL(endpoint, sseUrl).href;
    const other = await post(target, read, initialize());
    assert.equal(other.status, 404);
    const own = await post(target, user, initialize());
    assert.equal(own.status, 202);
    await reader.cancel();
  });
});

describe('the web-standard fetch handler with the same gate', TIMEOUT, () => {
  let as: OidcFixture;
  const resource = 'https://mcp.example.com/tenant/mcp';

  before(async () => {
    as = await startOidcProvider({ resource });
  });
  after(() => as.stop());

  test('metadata, challenge and a verified call without node:http', async () => {
    const handler = createStreamableHttpHandler(protectedServer(), {
      sessions: false,
      auth: authOptions(resource, as.issuer, jwtVerifier({ issuer: as.issuer, audience: resource })),
    });
    assert.deepEqual(handler.extraPaths, [
      '/.well-known/oauth-protected-resource/tenant/mcp',
      '/.well-known/oauth-protected-resource',
    ]);
    const fetcher = toFetchHandler(handler);
    const prm = await fetcher(
      new Request('https://mcp.example.com/.well-known/oauth-protected-resource/tenant/mcp'),
    );
    assert.equal(((await prm.json()) as { resource: string }).resource, resource);
    const denied = await post(resource, undefined, initialize(), {}, fetcher);
    assert.equal(denied.status, 401);
    assert.match(
      denied.headers.get('www-authenticate') ?? '',
      /resource_metadata="https:\/\/mcp\.example\.com\/\.well-known\/oauth-protected-resource\/tenant\/mcp"/,
    );
    const token = (await as.clientCredentialsToken({ scope: 'mcp:read' })).access_token;
    const { message, headers } = modern('tools/call', { name: 'whoami', arguments: {} });
    const who = result(await post(resource, token, message, headers, fetcher));
    assert.equal((who.structuredContent as { subject: string }).subject, as.client.clientId);
    await handler.close();
  });

  test('scopes every request needs: 403 on the first (verified) and the next (cached) request alike', async () => {
    const handler = createStreamableHttpHandler(protectedServer(), {
      sessions: false,
      auth: {
        ...authOptions(resource, as.issuer, jwtVerifier({ issuer: as.issuer, audience: resource })),
        requiredScopes: ['mcp:write'],
      },
    });
    const fetcher = toFetchHandler(handler);
    const { message, headers } = modern('tools/list');
    const read = (await as.clientCredentialsToken({ scope: 'mcp:read' })).access_token;
    for (let i = 0; i < 2; i++) {
      const x = await post(resource, read, message, headers, fetcher);
      assert.equal(x.status, 403);
      assert.match(
        x.headers.get('www-authenticate') ?? '',
        /error="insufficient_scope", scope="mcp:write mcp:read"/,
      );
    }
    const write = (await as.clientCredentialsToken({ scope: 'mcp:read mcp:write' })).access_token;
    for (let i = 0; i < 2; i++) result(await post(resource, write, message, headers, fetcher));
    const unauthenticated = await post(resource, undefined, message, headers, fetcher);
    assert.match(unauthenticated.headers.get('www-authenticate') ?? '', /scope="mcp:write"/);
    await handler.close();
  });
});
