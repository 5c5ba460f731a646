/**
 * A hand-made authorization server for the bad-input tests: metadata and a JWKS on 127.0.0.1 that a test can
 * make slow, broken or down, and a signer for tokens of any shape (wrong audience, `alg: none`, HMAC with the
 * public key, unknown `kid`...). Real flows use the oidc-provider fixture (test/fixtures/oidc.ts) instead.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type CryptoKey, exportJWK, generateKeyPair, type JWK, type JWTPayload, SignJWT } from 'jose';

export type KeyServerMode = 'ok' | 'slow' | 'error' | 'garbage';

export interface KeyServer {
  readonly issuer: string;
  /** The audience tokens are signed for by default. */
  readonly audience: string;
  /** The published public key (JWK, with its kid). */
  readonly publicJwk: JWK;
  /** How the JWKS and metadata endpoints behave from now on. */
  mode: KeyServerMode;
  /** Requests per path. */
  readonly hits: Map<string, number>;
  /** Adds a new signing key to the published set and returns its kid. */
  rotate(): Promise<string>;
  /** A token signed with the current (or a given) key; claims default to a valid token for `audience`. */
  sign(
    claims?: JWTPayload,
    options?: { kid?: string; unpublished?: boolean; omitExp?: boolean; noKid?: boolean; typ?: string },
  ): Promise<string>;
  stop(): Promise<void>;
}

export async function startKeyServer(audience: string): Promise<KeyServer> {
  const server: Server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const keys = new Map<string, { privateKey: CryptoKey; jwk: JWK }>();
  let current = '';
  const addKey = async (): Promise<string> => {
    const { privateKey, publicKey } = await generateKeyPair('ES256', { extractable: true });
    const kid = `k${keys.size + 1}`;
    keys.set(kid, { privateKey, jwk: { ...(await exportJWK(publicKey)), kid, alg: 'ES256', use: 'sig' } });
    return kid;
  };
  current = await addKey();
  const unpublished = await generateKeyPair('ES256');
  const hits = new Map<string, number>();
  const state: KeyServer = {
    issuer,
    audience,
    get publicJwk() {
      return (keys.get(current) as { jwk: JWK }).jwk;
    },
    mode: 'ok',
    hits,
    async rotate() {
      current = await addKey();
      return current;
    },
    async sign(claims = {}, options = {}) {
      const now = Math.floor(Date.now() / 1000);
      const kid = options.kid ?? current;
      const key = options.unpublished
        ? unpublished.privateKey
        : (keys.get(kid) as { privateKey: CryptoKey }).privateKey;
      const jwt = new SignJWT({ scope: 'mcp:read', client_id: 'test-client', ...claims })
        .setProtectedHeader(
          options.noKid
            ? { alg: 'ES256', typ: options.typ ?? 'at+jwt' }
            : { alg: 'ES256', kid, typ: options.typ ?? 'at+jwt' },
        )
        .setIssuer(typeof claims.iss === 'string' ? claims.iss : issuer)
        .setAudience(claims.aud ?? audience)
        .setSubject(typeof claims.sub === 'string' ? claims.sub : 'user-1')
        .setIssuedAt(now);
      if (!options.omitExp) jwt.setExpirationTime(typeof claims.exp === 'number' ? claims.exp : now + 600);
      return jwt.sign(key);
    },
    async stop() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  server.on('request', (req, res) => {
    const path = req.url ?? '/';
    hits.set(path, (hits.get(path) ?? 0) + 1);
    const answer = (body: unknown) => {
      if (state.mode === 'error') return res.writeHead(500).end('down');
      if (state.mode === 'garbage')
        return res.writeHead(200, { 'content-type': 'application/json' }).end('{"keys":');
      const send = () => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
      if (state.mode === 'slow') setTimeout(send, 3000).unref();
      else send();
    };
    if (path === '/.well-known/oauth-authorization-server')
      return answer({ issuer, jwks_uri: `${issuer}/jwks`, token_endpoint: `${issuer}/token` });
    if (path === '/jwks') return answer({ keys: [...keys.values()].map((k) => k.jwk) });
    res.writeHead(404).end();
  });
  return state;
}

/** Base64url of a JSON value (for hand-built tokens). */
export function b64(value: unknown): string {
  return Buffer.from(JSON.stringify(value)).toString('base64url');
}
