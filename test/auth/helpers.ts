// Shared helpers of the resource-server tests: a free port (the canonical URI must be known before the server
// starts), a protected test server, and raw HTTP exchanges in both eras with a bearer token.
import { createServer } from 'node:net';
import { z } from 'zod';
import type { ResourceAuthOptions } from '../../src/server/http/core/auth-gate.js';
import { McpServer, type ServerOptions } from '../../src/server/server.js';
import { META } from '../../src/spec/modern.js';

/** A port that was free a moment ago (the OS does not hand it out again at once). */
export async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as { port: number };
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

/**
 * The protected test server: `whoami` answers the handler's `ctx.authInfo`; `admin` (tool), `secret://admin`
 * (resource), `vault://{id}` (template) and `briefing` (prompt) need `mcp:admin`; `ask` asks the client for input
 * (for requestState); everything else is open to any valid token.
 */
export function protectedServer(options: ServerOptions = {}): McpServer {
  const server = new McpServer({ name: 'protected', version: '1.0.0' }, options);
  server.tool('whoami', {}, (_args, ctx) => ({
    content: [{ type: 'text', text: 'me' }],
    structuredContent: {
      subject: ctx.authInfo?.subject ?? null,
      clientId: ctx.authInfo?.clientId ?? null,
      scopes: [...(ctx.authInfo?.scopes ?? [])],
      expiresAt: ctx.authInfo?.expiresAt ?? null,
      aud: (ctx.authInfo?.claims?.aud as string | undefined) ?? null,
    },
  }));
  server.tool('admin', { requiredScopes: ['mcp:admin'] }, () => 'admin done');
  server.tool('ask', { inputSchema: z.object({ topic: z.string() }) }, async ({ topic }, ctx) => {
    const answer = await ctx.elicit({
      message: `About ${topic}?`,
      requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } } },
    });
    return `answered ${answer.action}`;
  });
  server.resource(
    'secret://admin',
    { name: 'admin secret', requiredScopes: ['mcp:admin'] },
    () => 'top secret',
  );
  server.resource('public://info', { name: 'info' }, () => 'public');
  server.resourceTemplate(
    'vault://{id}',
    { name: 'vault', requiredScopes: ['mcp:admin'] },
    (uri) => `vault ${uri}`,
  );
  server.prompt('briefing', { requiredScopes: ['mcp:admin'] }, () => 'brief');
  server.prompt('hello', {}, () => 'hi');
  return server;
}

/** The `auth` option for a server at `resource` trusting `issuer` with `verifier`. */
export function authOptions(
  resource: string,
  issuer: string,
  verifier: ResourceAuthOptions['verifier'],
): ResourceAuthOptions {
  return {
    verifier,
    resource,
    authorizationServers: [issuer],
    scopesSupported: ['mcp:read', 'mcp:write'],
  };
}

export const ACCEPT = 'application/json, text/event-stream';

export interface Exchange {
  status: number;
  headers: Headers;
  body: Record<string, unknown> | undefined;
}

/** One POST to `url` with `token` (none when undefined) and extra headers; the JSON body parsed when there is one. */
export async function post(
  url: string,
  token: string | undefined,
  message: Record<string, unknown>,
  headers: Record<string, string> = {},
  fetcher: (request: Request) => Promise<Response> = fetch,
): Promise<Exchange> {
  const all: Record<string, string> = { accept: ACCEPT, 'content-type': 'application/json', ...headers };
  if (token !== undefined) all.authorization = `Bearer ${token}`;
  const res = await fetcher(
    new Request(url, { method: 'POST', headers: all, body: JSON.stringify(message) }),
  );
  const text = await res.text();
  let body: Record<string, unknown> | undefined;
  if (res.headers.get('content-type')?.includes('application/json') && text !== '')
    body = JSON.parse(text) as Record<string, unknown>;
  else if (text.startsWith('event:') || text.startsWith('id:') || text.startsWith('data:')) {
    const data = text
      .split('\n')
      .filter((l) => l.startsWith('data:'))
      .map((l) => l.slice(5).trim())
      .filter((l) => l !== '');
    const last = data.at(-1);
    body = last === undefined ? undefined : (JSON.parse(last) as Record<string, unknown>);
  }
  return { status: res.status, headers: res.headers, body };
}

/** A stateless-revision (2026-07-28) request: envelope in `_meta`, the `Mcp-*` headers. */
export function modern(
  method: string,
  params: Record<string, unknown> = {},
  id = 1,
  capabilities: Record<string, unknown> = { elicitation: { form: {} } },
): { message: Record<string, unknown>; headers: Record<string, string> } {
  const message = {
    jsonrpc: '2.0',
    id,
    method,
    params: {
      ...params,
      _meta: {
        [META.protocolVersion]: '2026-07-28',
        [META.clientCapabilities]: capabilities,
        [META.clientInfo]: { name: 'raw', version: '1' },
      },
    },
  };
  const headers: Record<string, string> = { 'mcp-protocol-version': '2026-07-28', 'mcp-method': method };
  const name = params.name ?? params.uri;
  if (typeof name === 'string') headers['mcp-name'] = name;
  return { message, headers };
}

/** A stateful `initialize` request. */
export function initialize(id = 0): Record<string, unknown> {
  return {
    jsonrpc: '2.0',
    id,
    method: 'initialize',
    params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
  };
}

/** A stateful request (the session id and version headers go in `headers`). */
export function request(
  method: string,
  params: Record<string, unknown> = {},
  id = 1,
): Record<string, unknown> {
  return { jsonrpc: '2.0', id, method, params };
}
