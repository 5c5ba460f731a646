// resources/list and resources/templates/list pagination over the in-memory transport.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { JsonRpcError, McpServer, type Resource } from '../../src/index.js';
import { connectInMemory } from '../../src/testing.js';
import { errorOf, rawClient, resultOf } from './helpers.js';

const URIS = ['test://r/1', 'test://r/2', 'test://r/3', 'test://r/4', 'test://r/5'];

function pagedServer(): McpServer {
  const server = new McpServer({ name: 'paged', version: '1' }, { pageSize: 2 });
  for (const [i, uri] of URIS.entries()) {
    server.resource(
      uri,
      { name: `r${i + 1}`, mimeType: 'text/plain', description: `resource ${i + 1}` },
      () => `text ${i + 1}`,
    );
  }
  for (const n of [1, 2, 3]) server.resourceTemplate(`test://t${n}/{id}`, { name: `t${n}` }, () => 'x');
  return server;
}

test('pageSize 2 over 5 resources: three pages, opaque cursors, registration order', async () => {
  const { raw } = await rawClient(pagedServer());
  const pages: Resource[][] = [];
  const cursors: string[] = [];
  let cursor: string | undefined;
  do {
    const page = resultOf(await raw.request('resources/list', cursor === undefined ? {} : { cursor }));
    pages.push(page.resources as Resource[]);
    cursor = page.nextCursor as string | undefined;
    if (cursor !== undefined) {
      assert.equal(typeof cursor, 'string');
      cursors.push(cursor);
    }
  } while (cursor !== undefined && pages.length < 10);
  assert.deepEqual(
    pages.map((p) => p.map((r) => r.uri)),
    [URIS.slice(0, 2), URIS.slice(2, 4), URIS.slice(4)],
  );
  assert.equal(cursors.length, 2);
  for (const c of cursors) {
    // Opaque: not a bare offset or index.
    assert.doesNotMatch(c, /^\d+$/);
    assert.ok(!URIS.includes(c));
  }
  assert.notEqual(cursors[0], cursors[1]);
  // Deterministic: the same cursor gives the same page again.
  const again = resultOf(await raw.request('resources/list', { cursor: cursors[0]! }));
  assert.deepEqual(
    (again.resources as Resource[]).map((r) => r.uri),
    URIS.slice(2, 4),
  );
  assert.equal(again.nextCursor, cursors[1]);
  assert.deepEqual((pages[0] ?? [])[0], {
    uri: 'test://r/1',
    name: 'r1',
    description: 'resource 1',
    mimeType: 'text/plain',
  });
  await raw.transport.close();
});

test('invalid cursors are -32602', async () => {
  const { raw } = await rawClient(pagedServer());
  const first = resultOf(await raw.request('resources/list'));
  const valid = first.nextCursor as string;
  for (const cursor of ['garbage', '', 'x'.repeat(500), `${valid}x`, `${valid.slice(0, -1)}`, 42, null, {}]) {
    for (const method of ['resources/list', 'resources/templates/list']) {
      const response = await raw.request(method, { cursor } as Record<string, unknown>);
      assert.equal(errorOf(response).code, -32602, `${method} with cursor ${JSON.stringify(cursor)}`);
    }
  }
  await raw.transport.close();
});

test('the client walks every page: 5 resources and 3 templates in order', async () => {
  const { client } = await connectInMemory(pagedServer());
  const resources = await client.listResources();
  assert.deepEqual(
    resources.map((r) => r.uri),
    URIS,
  );
  const templates = await client.listResourceTemplates();
  assert.deepEqual(
    templates.map((t) => t.uriTemplate),
    ['test://t1/{id}', 'test://t2/{id}', 'test://t3/{id}'],
  );
  assert.deepEqual(templates[0], { uriTemplate: 'test://t1/{id}', name: 't1' });
  await client.close();
});

test('a client pageLimit below the number of pages fails with PAGE_LIMIT', async () => {
  const { client } = await connectInMemory(pagedServer(), { pageLimit: 2 });
  await assert.rejects(() => client.listResources(), { code: 'PAGE_LIMIT' });
  await client.close();
});

test('resources listed by templates are paginated after the fixed ones', async () => {
  const server = new McpServer({ name: 'listed', version: '1' }, { pageSize: 2 });
  server.resource('test://fixed', { name: 'fixed' }, () => 'f');
  server.resourceTemplate(
    'test://items/{id}',
    {
      name: 'item',
      list: () => ['a', 'b', 'c'].map((id) => ({ uri: `test://items/${id}`, name: `item ${id}` })),
    },
    (_uri, { id }) => `item ${String(id)}`,
  );
  const { client } = await connectInMemory(server);
  assert.deepEqual(
    (await client.listResources()).map((r) => r.uri),
    ['test://fixed', 'test://items/a', 'test://items/b', 'test://items/c'],
  );
  await assert.rejects(
    () => client.request('resources/list', { cursor: 'bm9wZQ' }),
    (e: unknown) => e instanceof JsonRpcError && e.code === -32602,
  );
  await client.close();
});
