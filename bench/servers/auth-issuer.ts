// A minimal authorization server for the auth bench: an ES256 key, its metadata and JWKS on 127.0.0.1, and one
// signed JWT access token for the bench server's URI. Runs inside the bench server process; its keys are fetched
// once (at the first request), so it costs nothing while the benchmark measures.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';

/** Starts the issuer; resolves with its identifier and a token for `audience`, valid for an hour. */
export async function startBenchIssuer(audience: string): Promise<{ issuer: string; token: string }> {
  const { privateKey, publicKey } = await generateKeyPair('ES256');
  const jwk = { ...(await exportJWK(publicKey)), kid: 'bench', alg: 'ES256', use: 'sig' };
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  server.unref();
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  server.on('request', (req, res) => {
    const body =
      req.url === '/.well-known/oauth-authorization-server'
        ? { issuer, jwks_uri: `${issuer}/jwks`, token_endpoint: `${issuer}/token` }
        : req.url === '/jwks'
          ? { keys: [jwk] }
          : undefined;
    if (body === undefined) res.writeHead(404).end();
    else res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  });
  const token = await new SignJWT({ scope: 'mcp:read', client_id: 'bench-client' })
    .setProtectedHeader({ alg: 'ES256', kid: 'bench', typ: 'at+jwt' })
    .setIssuer(issuer)
    .setAudience(audience)
    .setSubject('bench-user')
    .setIssuedAt()
    .setExpirationTime('1h')
    .sign(privateKey);
  return { issuer, token };
}
