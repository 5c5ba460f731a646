// The host's HTTP servers behind OAuth: a server from a Claude Code config answers 401, the host's OAuthClient
// (mcpkit/auth) signs in once through the loopback receiver against a real authorization server (oidc-provider),
// tokens go to one FileTokenStore, and a second host started on the same token file needs no new sign-in.
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { jwtVerifier } from '../../src/auth.js';
import { Host, type HostOAuthOptions } from '../../src/host.js';
import { LoopbackReceiver, type RunningServer, serve } from '../../src/node.js';
import { authOptions, freePort, protectedServer } from '../auth/helpers.js';
import { type OidcFixture, startOidcProvider } from '../fixtures/oidc.js';
import { tempDir, writeConfig } from './helpers.js';

const dir = tempDir('mcpkit-host-oauth-');
let as: OidcFixture;
let running: RunningServer;
let receiver: LoopbackReceiver;
let config: string;
let authorizations = 0;

before(async () => {
  const port = await freePort();
  const resource = `http://127.0.0.1:${port}/mcp`;
  as = await startOidcProvider({ resource });
  running = await serve(protectedServer(), {
    port,
    auth: authOptions(resource, as.issuer, jwtVerifier({ issuer: as.issuer, audience: resource })),
  });
  receiver = await LoopbackReceiver.start({ timeoutMs: 20_000 });
  config = writeConfig(dir, 'ws/.mcp.json', { mcpServers: { secure: { type: 'http', url: resource } } });
});

after(async () => {
  await receiver?.close();
  await running?.close();
  await as?.stop();
  rmSync(dir, { recursive: true, force: true });
});

function oauth(): HostOAuthOptions {
  return {
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
    tokenFile: join(dir, 'tokens.json'),
    clientMetadata: { client_name: 'mcpkit host e2e' },
  };
}

async function whoami(host: Host): Promise<unknown> {
  const result = await host.callTool('secure__whoami', {});
  assert.equal(result.isError ?? false, false, JSON.stringify(result));
  return (result.structuredContent as { subject: unknown }).subject;
}

test('the first host signs in once; a second host on the same token file does not', {
  timeout: 60_000,
}, async () => {
  const first = await Host.load(config, {}, { oauth: oauth(), defaultApproval: 'allow' });
  try {
    await first.start();
    assert.equal(first.server('secure')?.state, 'ready', first.server('secure')?.reason);
    assert.equal(await whoami(first), as.accountId);
    assert.equal(authorizations, 1);
  } finally {
    await first.close();
  }
  const second = await Host.load(config, {}, { oauth: oauth(), defaultApproval: 'allow' });
  try {
    await second.start();
    assert.equal(second.server('secure')?.state, 'ready', second.server('secure')?.reason);
    assert.equal(await whoami(second), as.accountId);
    assert.equal(authorizations, 1, 'the stored token was used');
  } finally {
    await second.close();
  }
});

test('without an authorizer the protected server fails with a clear reason, and the host goes on', {
  timeout: 30_000,
}, async () => {
  const host = await Host.load(config, {}, { connectTimeoutMs: 10_000 });
  try {
    await host.start();
    const status = host.server('secure');
    assert.equal(status?.state, 'failed');
    assert.match(status?.reason ?? '', /Unauthorized: a bearer token is required/);
  } finally {
    await host.close();
  }
});
