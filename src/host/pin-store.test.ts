// The tool pin stores: in memory, and in one file (0600 in a 0700 folder, replaced atomically), where two stores of
// the same file keep each other's pins, entries of the wrong shape are dropped, and a file that is not JSON is an error.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { FilePinStore, MemoryPinStore, type PinnedTool } from './pin-store.js';
import { definitionDigest, serverPinKey, toolDigest } from './tool-digest.js';

const dir = mkdtempSync(join(tmpdir(), 'mcpkit-pins-'));
after(() => rmSync(dir, { recursive: true, force: true }));

function pin(name: string, description: string): PinnedTool {
  const definition = { name, description };
  return { digest: definitionDigest(definition), definition, pinnedAt: '2026-01-01T00:00:00.000Z' };
}

test('memory: saved, loaded by server, forgotten', async () => {
  const store = new MemoryPinStore();
  await store.save('a@1', 'echo', pin('echo', 'x'));
  assert.deepEqual(Object.keys(await store.load('a@1')), ['echo']);
  assert.deepEqual(await store.load('b@1'), {});
  await store.save('a@1', 'echo', undefined);
  assert.deepEqual(await store.load('a@1'), {});
});

test('file: 0600 in a 0700 folder; two stores of one file keep each other’s pins', async () => {
  const file = join(dir, 'nested', 'tool-pins.json');
  const one = new FilePinStore(file);
  const two = new FilePinStore(file);
  await Promise.all([one.save('a@1', 'echo', pin('echo', 'x')), two.save('a@1', 'other', pin('other', 'y'))]);
  await two.save('b@2', 'echo', pin('echo', 'z'));
  assert.equal(statSync(file).mode & 0o777, 0o600);
  assert.equal(statSync(join(dir, 'nested')).mode & 0o777, 0o700);
  assert.deepEqual(Object.keys(await one.load('a@1')).sort(), ['echo', 'other']);
  assert.equal((await new FilePinStore(file).load('b@2')).echo?.definition.description, 'z');
});

test('file: entries of the wrong shape are dropped; a file that is not JSON is an error', async () => {
  const file = join(dir, 'odd.json');
  writeFileSync(
    file,
    JSON.stringify({
      servers: {
        'a@1': {
          good: pin('good', 'x'),
          renamed: pin('other', 'x'),
          broken: { digest: 7 },
        },
        'b@1': 'nonsense',
      },
    }),
  );
  const store = new FilePinStore(file);
  assert.deepEqual(Object.keys(await store.load('a@1')), ['good']);
  assert.deepEqual(await store.load('b@1'), {});
  assert.deepEqual(await store.load('__proto__'), {});
  writeFileSync(file, '{"servers": ');
  await assert.rejects(store.load('a@1'), /not JSON/);
  await assert.rejects(store.save('a@1', 'good', pin('good', 'y')), /not JSON/);
  assert.equal(readFileSync(file, 'utf8'), '{"servers": ', 'a broken file is not overwritten');
});

test('digests: key order does not matter; the server key follows the command line or URL, not the environment', () => {
  const a = { name: 't', inputSchema: { type: 'object', properties: { x: { type: 'string' } } } };
  const b = { inputSchema: { properties: { x: { type: 'string' } }, type: 'object' }, name: 't' };
  assert.equal(toolDigest(a), toolDigest(b));
  assert.match(toolDigest(a), /^sha256:[0-9a-f]{64}$/);
  const base = {
    name: 's',
    disabled: false,
    trusted: false,
    source: { file: 'f', format: 'mcpkit' as const },
  };
  const stdio = (args: string[], env: Record<string, string>) =>
    serverPinKey({ ...base, transport: { type: 'stdio', command: 'node', args, env, namedEnv: [] } });
  assert.equal(stdio(['x.js'], {}), stdio(['x.js'], { K: 'v' }));
  assert.notEqual(stdio(['x.js'], {}), stdio(['y.js'], {}));
  assert.match(stdio(['x.js', '--token', 'secret'], {}), /^s@[0-9a-f]{16}$/);
  const url = (u: string) => serverPinKey({ ...base, transport: { type: 'http', url: u, headers: {} } });
  assert.notEqual(url('https://a.example/mcp'), url('https://b.example/mcp'));
});
