// Shared helpers of the guard tests: a server with guard options, clients of it in both eras over the in-memory
// transport (with an AuthInfo stamped on every message), over Streamable HTTP (stateful sessions, the legacy
// stateless mode, and the 2026-07-28 revision) with bearer tokens a trivial verifier turns into principals, and a
// collecting audit sink. Not a test file itself.
import { Client, type ClientOptions } from '../../src/client/client.js';
import { type RunningServer, serve } from '../../src/node.js';
import type { AuditRecord } from '../../src/server/guard/audit.js';
import type { AuthInfo, TokenVerifier } from '../../src/server/handler/auth.js';
import type { McpServer } from '../../src/server/server.js';
import { StreamableHttpClientTransport } from '../../src/transport/http-client/streamable.js';
import { connect } from '../tasks/fixture.js';

export type Era = 'stateful' | 'stateless';
export const ERAS: readonly Era[] = ['stateful', 'stateless'];

/** A token is the subject; "admin…" tokens hold the scope "admin". */
export const VERIFIER: TokenVerifier = {
  verify: async (token) => ({
    subject: token,
    clientId: `app-${token}`,
    issuer: 'https://issuer.test',
    scopes: token.startsWith('admin') ? ['admin'] : [],
  }),
};

/** The principal of a token of {@link VERIFIER}. */
export function principal(token: string): string {
  return `https://issuer.test|sub:${token}`;
}

/** An AuthInfo as the verifier gives it for `subject`. */
export function authOf(subject: string, scopes: string[] = []): AuthInfo {
  return { subject, clientId: `app-${subject}`, issuer: 'https://issuer.test', scopes };
}

/** A client over the in-memory transport, every message stamped with `auth` (when given). */
export async function memoryClient(
  server: McpServer,
  era: Era,
  auth?: AuthInfo,
  options: ClientOptions = {},
): Promise<Client> {
  const { client } = await connect(server, {
    era,
    ...(auth === undefined ? {} : { authInfo: auth }),
    ...options,
  });
  return client;
}

/** Serves `server` on 127.0.0.1 (bearer tokens checked by {@link VERIFIER} when `auth`). */
export function serveHttp(
  server: McpServer,
  options: { auth?: boolean; sessions?: boolean } = {},
): Promise<RunningServer> {
  return serve(server, {
    ...(options.sessions === undefined ? {} : { sessions: options.sessions }),
    ...(options.auth
      ? {
          auth: {
            verifier: VERIFIER,
            resource: 'http://127.0.0.1/mcp',
            authorizationServers: ['https://issuer.test'],
          },
        }
      : {}),
  });
}

/** A client of `url` in `era`, sending `token` as a bearer token when given. */
export async function httpClient(
  url: string,
  era: Era,
  token?: string,
  options: ClientOptions = {},
  name = 'guard-test-client',
): Promise<Client> {
  const transport = new StreamableHttpClientTransport(
    url,
    token === undefined ? {} : { headers: { authorization: `Bearer ${token}` } },
  );
  const client = new Client({ name, version: '1.0.0' }, { era, onerror: () => undefined, ...options });
  await client.connect(transport);
  return client;
}

/** An audit sink that keeps its records. */
export function collect(): { records: AuditRecord[]; sink: (r: AuditRecord) => void } {
  const records: AuditRecord[] = [];
  return { records, sink: (r) => records.push(r) };
}

/** The JSON-RPC error code of a rejection, if it carries one. */
export async function codeOf(p: Promise<unknown>): Promise<number | string | undefined> {
  try {
    await p;
    return undefined;
  } catch (e) {
    return (e as { code?: number | string }).code;
  }
}

/** Registers tool `ask`, which samples once and elicits a name from the client, answering what it was told. */
export function addAskTool(server: McpServer): void {
  server.tool('ask', {}, async (_args, ctx) => {
    await ctx.sample({ messages: [{ role: 'user', content: { type: 'text', text: 'q' } }], maxTokens: 5 });
    const answer = await ctx.elicit({
      message: 'name?',
      requestedSchema: { type: 'object', properties: { name: { type: 'string' } } },
    });
    return `asked ${JSON.stringify(answer.content)}`;
  });
}
