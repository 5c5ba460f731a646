import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { McpkitError } from '../../jsonrpc/errors.js';
import { FileTokenStore } from './file-store.js';

const dir = mkdtempSync(join(tmpdir(), 'mcpkit-tokens-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const TOKENS = {
  accessToken: 'at-1',
  tokenType: 'Bearer',
  issuer: 'https://as.example',
  refreshToken: 'rt-1',
};

test('tokens and clients survive a new store on the same file, which is 0600 in a 0700 directory', async () => {
  const path = join(dir, 'nested', 'oauth.json');
  const store = new FileTokenStore(path);
  assert.equal(await store.loadTokens('https://a.example/mcp'), undefined);
  await store.saveTokens('https://a.example/mcp', TOKENS);
  await store.saveClient('https://as.example', { clientId: 'c1', clientSecret: 's1' });
  assert.equal(statSync(path).mode & 0o777, 0o600);
  assert.equal(statSync(join(dir, 'nested')).mode & 0o777, 0o700);
  const again = new FileTokenStore(path);
  assert.deepEqual(await again.loadTokens('https://a.example/mcp'), TOKENS);
  assert.deepEqual(await again.loadClient('https://as.example'), { clientId: 'c1', clientSecret: 's1' });
  assert.equal(await again.loadClient('https://other.example'), undefined);
  await again.saveTokens('https://a.example/mcp', undefined);
  assert.equal(await new FileTokenStore(path).loadTokens('https://a.example/mcp'), undefined);
});

test('concurrent writes are serialized, each atomic: the file always parses and no temporary file is left', async () => {
  const path = join(dir, 'many.json');
  const store = new FileTokenStore(path);
  await Promise.all(
    Array.from({ length: 40 }, (_, i) =>
      store.saveTokens(`https://s${i}.example/mcp`, { ...TOKENS, accessToken: `at-${i}` }),
    ),
  );
  const data = JSON.parse(readFileSync(path, 'utf8')) as { tokens: Record<string, unknown> };
  assert.equal(Object.keys(data.tokens).length, 40);
  assert.deepEqual(
    readdirSync(dir).filter((f) => f.startsWith('many.json.')),
    [],
  );
});

test('an existing world-readable file is replaced by a 0600 one on the first write', async () => {
  const path = join(dir, 'loose.json');
  writeFileSync(path, '{"tokens":{},"clients":{}}', { mode: 0o644 });
  await new FileTokenStore(path).saveClient('https://as.example', { clientId: 'c' });
  assert.equal(statSync(path).mode & 0o777, 0o600);
});

test('a hand-edited file: wrong entries are dropped, a file that is not JSON is a clear error', async () => {
  const odd = join(dir, 'odd.json');
  writeFileSync(
    odd,
    JSON.stringify({ tokens: { a: { accessToken: 5 }, b: TOKENS, __proto__: 1 }, clients: [] }),
  );
  const store = new FileTokenStore(odd);
  assert.equal(await store.loadTokens('a'), undefined);
  assert.deepEqual(await store.loadTokens('b'), TOKENS);
  assert.equal(await store.loadTokens('toString'), undefined);
  const bad = join(dir, 'bad.json');
  writeFileSync(bad, 'not json');
  await assert.rejects(
    new FileTokenStore(bad).loadTokens('x'),
    (e) => e instanceof McpkitError && e.code === 'AUTH_STORE_FAILED' && !e.message.includes('not json'),
  );
});

test('a failed read is not kept: the next call reads the file again', async () => {
  const path = join(dir, 'flaky.json');
  writeFileSync(path, '{"tokens": ', { mode: 0o600 }); // caught half-written
  const store = new FileTokenStore(path);
  await assert.rejects(store.loadTokens('https://a.example/mcp'), (e) => e instanceof McpkitError);
  writeFileSync(path, JSON.stringify({ tokens: { 'https://a.example/mcp': TOKENS }, clients: {} }));
  assert.deepEqual(await store.loadTokens('https://a.example/mcp'), TOKENS);
});
