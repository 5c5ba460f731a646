// Our OAuth client against an OFFICIAL SDK 1.x server protected by the SDK's own bearer middleware and metadata
// router (express), with oidc-provider as the authorization server: a peer we did not write on the resource side.
import assert from 'node:assert/strict';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { after, before, test } from 'node:test';
import { InvalidTokenError } from '@modelcontextprotocol/sdk/server/auth/errors.js';
import { requireBearerAuth } from '@modelcontextprotocol/sdk/server/auth/middleware/bearerAuth.js';
import {
  getOAuthProtectedResourceMetadataUrl,
  mcpAuthMetadataRouter,
} from '@modelcontextprotocol/sdk/server/auth/router.js';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import { createMcpExpressApp } from '@modelcontextprotocol/sdk/server/express.js';
import { McpServer as SdkMcpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import { OAuthClient } from '../../src/auth.js';
import { Client, HttpClientTransport } from '../../src/index.js';
import { LoopbackReceiver } from '../../src/node.js';
import { type OidcFixture, startOidcProvider } from '../fixtures/oidc.js';
import { freePort } from './helpers.js';

type AuthedRequest = IncomingMessage & { body?: unknown; auth?: AuthInfo };

let as: OidcFixture;
let server: Server;
let resource: string;
let receiver: LoopbackReceiver;

before(async () => {
  const port = await freePort();
  resource = `http://127.0.0.1:${port}/mcp`;
  as = await startOidcProvider({ resource });
  const jwks = createRemoteJWKSet(new URL(`${as.issuer}/jwks`));
  const metadata = await as.metadata();
  const verifier = {
    async verifyAccessToken(token: string) {
      try {
        const { payload } = await jwtVerify(token, jwks, { issuer: as.issuer, audience: resource });
        return {
          token,
          clientId: String(payload.client_id),
          scopes: typeof payload.scope === 'string' ? payload.scope.split(' ') : [],
          ...(payload.exp === undefined ? {} : { expiresAt: payload.exp }),
          resource: new URL(resource),
        };
      } catch (e) {
        throw new InvalidTokenError(e instanceof Error ? e.message : 'invalid token');
      }
    },
  };
  const app = createMcpExpressApp({ host: '127.0.0.1' });
  app.use(
    mcpAuthMetadataRouter({
      oauthMetadata: metadata as Parameters<typeof mcpAuthMetadataRouter>[0]['oauthMetadata'],
      resourceServerUrl: new URL(resource),
      scopesSupported: ['mcp:read'],
    }),
  );
  const bearer = requireBearerAuth({
    verifier,
    requiredScopes: ['mcp:read'],
    resourceMetadataUrl: getOAuthProtectedResourceMetadataUrl(new URL(resource)),
  });
  app.post('/mcp', bearer, async (req: AuthedRequest, res: ServerResponse) => {
    const mcp = new SdkMcpServer({ name: 'official-protected', version: '1.0.0' });
    mcp.registerTool('whoami', { description: 'Who is calling.' }, async (extra) => ({
      content: [{ type: 'text', text: `${extra.authInfo?.clientId} ${extra.authInfo?.scopes.join(',')}` }],
    }));
    const transport = new StreamableHTTPServerTransport({});
    res.on('close', () => {
      void transport.close();
      void mcp.close();
    });
    await mcp.connect(transport);
    await transport.handleRequest(req, res, req.body);
  });
  app.get('/mcp', bearer, (_req: IncomingMessage, res: ServerResponse) => {
    res.writeHead(405).end();
  });
  server = await new Promise<Server>((resolve) => {
    const s = app.listen(port, '127.0.0.1', () => resolve(s));
  });
  receiver = await LoopbackReceiver.start({ timeoutMs: 20_000 });
});

after(async () => {
  await receiver.close();
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
  await as.stop();
});

test('our OAuthClient authorizes against an official SDK server protected by requireBearerAuth', {
  timeout: 60_000,
}, async () => {
  let authorizations = 0;
  const auth = new OAuthClient({
    grant: {
      type: 'authorization_code',
      redirectUri: receiver.redirectUri,
      authorize: (url, signal) =>
        receiver.authorize(
          url,
          async (u) => {
            authorizations++;
            await (await fetch(await as.authorize(u))).text();
          },
          signal,
        ),
    },
  });
  const client = new Client({ name: 'e2e', version: '1.0.0' }, { era: 'stateful' });
  await client.connect(new HttpClientTransport(resource, { auth }));
  try {
    const result = await client.callTool('whoami', {});
    const text = result.content[0]?.type === 'text' ? result.content[0].text : '';
    assert.match(text, /mcp:read/);
    assert.equal(authorizations, 1);
    assert.equal(auth.scope?.split(' ').includes('mcp:read'), true);
  } finally {
    await client.close();
  }
});
