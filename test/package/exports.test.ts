import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
  exports: Record<string, unknown>;
};

test('the export map is exactly the documented subpaths', () => {
  assert.deepEqual(Object.keys(pkg.exports).sort(), [
    '.',
    './auth',
    './host',
    './node',
    './otel',
    './package.json',
    './redis',
    './search-embeddings',
    './stdio',
    './testing',
  ]);
});

/** Every module reachable from `entry` through relative imports, and the bare specifiers they import. */
function imports(entry: string): { files: string[]; bare: Set<string> } {
  const seen = new Set<string>();
  const bare = new Set<string>();
  const queue = [entry];
  const pattern =
    /(?:^|\n)\s*(?:import|export)\s[^'"]*?from\s*['"]([^'"]+)['"]|(?:^|\n)\s*import\s*['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g;
  while (queue.length > 0) {
    const file = queue.pop() as string;
    if (seen.has(file)) continue;
    seen.add(file);
    const text = readFileSync(file, 'utf8');
    for (const m of text.matchAll(pattern)) {
      const spec = m[1] ?? m[2] ?? m[3];
      if (spec === undefined) continue;
      if (spec.startsWith('.')) queue.push(resolve(dirname(file), spec));
      else bare.add(spec);
    }
  }
  return { files: [...seen], bare };
}

test('the root entry and mcpkit/testing import no node: module, directly or transitively', () => {
  // Both the compiled modules and the published bundles (dist/pkg, what `import 'mcpkit'` loads).
  for (const entry of [
    'dist/src/index.js',
    'dist/src/testing.js',
    'dist/pkg/index.js',
    'dist/pkg/testing.js',
  ]) {
    const { files, bare } = imports(join(root, entry));
    assert.ok(
      files.length > (entry.includes('/pkg/') ? 1 : 10),
      `walked ${files.length} files from ${entry}`,
    );
    const nodeish = [...bare].filter((s) => s.startsWith('node:') || !s.startsWith('ajv'));
    assert.deepEqual(nodeish, [], `${entry} imports ${nodeish.join(', ')}`);
  }
});

test('a stdio server loads three files of the package: mcpkit and mcpkit/stdio share one flat core', () => {
  // Issue 24: each file Node loads costs at start, beside its bytes (the split bundle loaded 32).
  const main = imports(join(root, 'dist/pkg/index.js')).files;
  const stdio = imports(join(root, 'dist/pkg/stdio.js')).files;
  assert.equal(main.length, 2, `mcpkit loads ${main.length} files`);
  assert.equal(stdio.length, 2, `mcpkit/stdio loads ${stdio.length} files`);
  assert.equal(new Set([...main, ...stdio]).size, 3);
});

test('every subpath resolves and exposes its main names', async () => {
  const main = await import('mcpkit');
  for (const name of [
    'McpServer',
    'Client',
    'JsonRpcError',
    'McpkitError',
    'ErrorCode',
    'createLinkedTransports',
    'UriTemplate',
  ]) {
    assert.ok(name in main, `mcpkit exports ${name}`);
  }
  const stdio = await import('mcpkit/stdio');
  assert.ok('StdioServerTransport' in stdio && 'StdioClientTransport' in stdio);
  const testing = await import('mcpkit/testing');
  assert.ok('connectInMemory' in testing);
  const redis = await import('mcpkit/redis');
  assert.ok('redisCluster' in redis && 'RedisEventStore' in redis && 'RedisTaskStore' in redis);
  const otel = await import('mcpkit/otel');
  assert.ok('instrumentServer' in otel && 'instrumentTransport' in otel && 'hostInstrumentation' in otel);
});

test('no entry but mcpkit/otel imports @opentelemetry, directly or through a chunk', () => {
  // Nothing of OpenTelemetry is loaded unless the app imports mcpkit/otel (or runs --otel, which imports it).
  for (const entry of ['index', 'stdio', 'node', 'testing', 'auth', 'host', 'redis']) {
    const { bare } = imports(join(root, 'dist/pkg', `${entry}.js`));
    const otel = [...bare].filter((s) => s.startsWith('@opentelemetry/'));
    assert.deepEqual(otel, [], `dist/pkg/${entry}.js reaches ${otel.join(', ')}`);
  }
  const { bare } = imports(join(root, 'dist/pkg/otel.js'));
  assert.ok(bare.has('@opentelemetry/api'), 'mcpkit/otel imports the API');
});

test('no entry but mcpkit/search-embeddings reaches the model, and it only by import() on first use', () => {
  // The model's packages (about 30 MB, optional peers) load only when an app's embedding ranker first indexes.
  for (const entry of ['index', 'stdio', 'node', 'testing', 'auth', 'host', 'redis', 'otel', 'cli']) {
    const { bare } = imports(join(root, 'dist/pkg', `${entry}.js`));
    const model = [...bare].filter((s) => s.startsWith('@energetic-ai/'));
    assert.deepEqual(model, [], `dist/pkg/${entry}.js reaches ${model.join(', ')}`);
  }
  const text = readFileSync(join(root, 'dist/pkg/search-embeddings.js'), 'utf8');
  assert.match(text, /import\(\s*["']@energetic-ai\/embeddings["']\s*\)/);
  assert.doesNotMatch(text, /(?:^|\n)\s*import\s[^(]*?from\s*["']@energetic-ai\//);
});

test('entry modules use named exports only', async () => {
  for (const entry of ['mcpkit', 'mcpkit/stdio', 'mcpkit/testing']) {
    const mod = (await import(entry)) as Record<string, unknown>;
    assert.equal('default' in mod, false, `${entry} has no default export`);
  }
});

test('the published bundles keep every exported class and function its own name', async () => {
  // esbuild renames a class whose body refers to itself (`_JsonRpcError`); `keepNames` restores the name that stack
  // traces, `error.name` defaults and `constructor.name` show.
  const entries = ['index', 'stdio', 'node', 'testing', 'auth', 'host', 'otel', 'search-embeddings'];
  let checked = 0;
  for (const entry of entries) {
    const mod = (await import(pathToFileURL(join(root, 'dist/pkg', `${entry}.js`)).href)) as Record<
      string,
      unknown
    >;
    for (const [name, value] of Object.entries(mod)) {
      if (typeof value !== 'function') continue;
      assert.equal(value.name, name, `dist/pkg/${entry}.js exports ${name} named ${value.name}`);
      checked++;
    }
  }
  assert.ok(checked > 50, `checked ${checked} exported functions and classes`);
  const { JsonRpcError } = (await import(
    pathToFileURL(join(root, 'dist/pkg/index.js')).href
  )) as typeof import('mcpkit');
  const error = new JsonRpcError(-32600, 'bad');
  assert.equal(error.constructor.name, 'JsonRpcError');
  assert.match(String(error.stack), /^JsonRpcError: bad/);
});
