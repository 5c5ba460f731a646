import assert from 'node:assert/strict';
import { test } from 'node:test';
import { McpkitError } from '../../jsonrpc/errors.js';
import {
  addressRefusal,
  authorizationServerMetadataUrls,
  canonicalResource,
  isLoopback,
  isSecureFor,
  reachable,
  requireAddress,
  requireReachable,
  requireSecure,
  resourceCovers,
  resourceMetadataUrls,
} from './urls.js';

const paths = (urls: URL[]) => urls.map((u) => u.href);

test('protected-resource metadata: path-inserted, then root', () => {
  assert.deepEqual(paths(resourceMetadataUrls(new URL('https://a.example/mcp'))), [
    'https://a.example/.well-known/oauth-protected-resource/mcp',
    'https://a.example/.well-known/oauth-protected-resource',
  ]);
  assert.deepEqual(paths(resourceMetadataUrls(new URL('https://a.example/'))), [
    'https://a.example/.well-known/oauth-protected-resource',
  ]);
});

test('authorization server metadata in the order of the MCP specification', () => {
  assert.deepEqual(paths(authorizationServerMetadataUrls(new URL('https://as.example'))), [
    'https://as.example/.well-known/oauth-authorization-server',
    'https://as.example/.well-known/openid-configuration',
  ]);
  assert.deepEqual(paths(authorizationServerMetadataUrls(new URL('https://as.example/tenant1'))), [
    'https://as.example/.well-known/oauth-authorization-server/tenant1',
    'https://as.example/.well-known/openid-configuration/tenant1',
    'https://as.example/tenant1/.well-known/openid-configuration',
  ]);
});

test('a resource covers the server at it or below it on the same origin, nothing else', () => {
  const server = new URL('https://a.example/mcp');
  assert.ok(resourceCovers(new URL('https://a.example/mcp'), server));
  assert.ok(resourceCovers(new URL('https://a.example/'), server));
  assert.ok(resourceCovers(new URL('https://a.example'), server));
  assert.ok(!resourceCovers(new URL('https://evil.example.com/mcp'), server));
  assert.ok(!resourceCovers(new URL('https://a.example/mc'), server));
  assert.ok(!resourceCovers(new URL('https://a.example/mcp/x'), server));
  assert.ok(!resourceCovers(new URL('http://a.example/mcp'), server));
  assert.ok(!resourceCovers(new URL('https://a.example:8443/mcp'), server));
});

test('the canonical resource drops fragment, query and a trailing slash', () => {
  assert.equal(canonicalResource(new URL('HTTPS://A.example/mcp/?x=1#f')).href, 'https://a.example/mcp');
  assert.equal(canonicalResource(new URL('https://a.example')).href, 'https://a.example/');
});

test('plain HTTP only on loopback', () => {
  for (const ok of [
    'https://as.example/t',
    'http://127.0.0.1:9/t',
    'http://localhost/t',
    'http://[::1]:8/t',
  ]) {
    assert.equal(
      requireSecure(new URL(ok), 'x', new URL('http://localhost:3000/mcp')).href,
      new URL(ok).href,
    );
  }
  for (const bad of [
    'http://as.example/t',
    'http://10.0.0.1/t',
    'ftp://as.example/t',
    'http://127.0.0.1.evil.example/t',
  ]) {
    assert.throws(
      () => requireSecure(new URL(bad), 'token endpoint', new URL('http://localhost:3000/mcp')),
      (e) => e instanceof McpkitError && e.code === 'AUTH_INSECURE_ENDPOINT',
      bad,
    );
  }
  assert.ok(isLoopback(new URL('http://app.localhost:3000')));
  assert.ok(!isLoopback(new URL('http://127.evil.example/')));
  assert.ok(!isLoopback(new URL('http://127.0.0.1.nip.io/')));
});

test('plain HTTP to loopback only for an MCP server on loopback; a remote server cannot aim the client at this machine', () => {
  const remote = new URL('https://mcp.example/mcp');
  const local = new URL('http://127.0.0.1:3000/mcp');
  assert.throws(
    () => requireSecure(new URL('http://127.0.0.1:9/token'), 'token endpoint', remote),
    (e) => e instanceof McpkitError && e.code === 'AUTH_INSECURE_ENDPOINT',
  );
  assert.ok(isSecureFor(new URL('http://127.0.0.1:9/token'), local));
  assert.ok(reachable(new URL('https://other.example/prm'), { server: remote }));
  assert.ok(!reachable(new URL('http://127.0.0.1:9/prm'), { server: remote }));
  assert.ok(!reachable(new URL('https://localhost/prm'), { server: remote }));
  assert.ok(!reachable(new URL('http://other.example/prm'), { server: remote }));
  assert.ok(reachable(new URL('http://localhost:9/prm'), { server: local }));
  // The loopback rule in the notations it missed, and the rest of the private ranges.
  for (const host of ['[::ffff:127.0.0.1]', '0.0.0.0', '[::]', '10.1.2.3', '169.254.169.254', '[fd00::1]'])
    assert.ok(!reachable(new URL(`https://${host}/prm`), { server: remote }), host);
});

test("the address rule: the server's own origin and range pass, the app may allow more, refusals name the URL and range", () => {
  const server = new URL('https://10.0.0.5/mcp');
  assert.equal(addressRefusal(new URL('https://10.0.0.5/x'), '10.0.0.5', { server }), undefined);
  assert.equal(addressRefusal(new URL('https://10.9.9.9/x'), '10.9.9.9', { server }), undefined);
  assert.equal(addressRefusal(new URL('https://as.example/x'), '127.0.0.1', { server }), 'loopback');
  const named = new URL('https://mcp.example/mcp');
  // A name on the server's own origin is the server the person chose, whatever it resolves to.
  assert.equal(addressRefusal(new URL('https://mcp.example/prm'), '10.0.0.1', { server: named }), undefined);
  assert.equal(addressRefusal(new URL('https://as.example/t'), '10.0.0.1', { server: named }), 'private');
  assert.equal(
    addressRefusal(new URL('https://as.example/t'), '10.0.0.1', { server: named, allowPrivateNetwork: true }),
    undefined,
  );
  assert.throws(
    () =>
      requireAddress(new URL('https://as.example/t'), '169.254.169.254', 'token endpoint', { server: named }),
    (e) =>
      e instanceof McpkitError &&
      e.code === 'AUTH_PRIVATE_NETWORK' &&
      e.message.startsWith(
        'Refused the token endpoint https://as.example/t: as.example resolves to 169.254.169.254, a link-local address',
      ),
  );
  assert.throws(
    () => requireReachable(new URL('https://[::ffff:7f00:1]/t'), 'token endpoint', { server: named }),
    (e) =>
      e instanceof McpkitError &&
      e.code === 'AUTH_PRIVATE_NETWORK' &&
      e.message.startsWith(
        'Refused the token endpoint https://[::ffff:7f00:1]/t: it is on a loopback address',
      ),
  );
});
