// server.mount(prefix, other): one process, servers combined. Names prefixed (tools, prompts, URIs of resources and
// templates), list changes of the mounted server reaching the parent's clients in both eras (in memory stateful,
// Streamable HTTP stateful and stateless), resource updates passed on, clashes refused at mount time and on later
// registration, tool transforms visible in lists and applied on call, bad input refused with a clear error.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Client, HttpClientTransport, McpkitError, McpServer } from '../../src/index.js';
import { serve } from '../../src/node.js';
import { connectInMemory } from '../../src/testing.js';
import { eventually } from '../eras/helpers.js';

function weather(): McpServer {
  const server = new McpServer({ name: 'weather', version: '1.0.0' });
  server.tool(
    'forecast',
    {
      description: 'Forecast for a city',
      inputSchema: {
        type: 'object',
        properties: { city: { type: 'string' }, units: { type: 'string', enum: ['c', 'f'] } },
        required: ['city', 'units'],
      },
    },
    (args: Record<string, unknown>) => `${String(args.city)} in ${String(args.units)}: sunny`,
  );
  server.tool('secret', { description: 'not for everyone' }, () => 'hidden');
  server.resource('weather://stations', { name: 'stations', mimeType: 'text/plain' }, () => 'Oslo\nLima');
  server.resourceTemplate(
    'weather://city/{name}',
    { name: 'city', complete: { name: (v) => ['Oslo', 'Lima'].filter((c) => c.startsWith(v)) } },
    (uri, vars) => [{ uri, text: `city ${String(vars.name)}` }],
  );
  server.prompt(
    'plan',
    { arguments: { city: { required: true, complete: () => ['Oslo'] } } },
    ({ city }) => `Plan ${city}`,
  );
  return server;
}

function notes(): McpServer {
  const server = new McpServer({ name: 'notes', version: '1.0.0' });
  server.tool('add', {}, () => 'added');
  server.resource('file:///notes.txt', { name: 'notes' }, () => 'a note');
  return server;
}

test('mounted names are prefixed in lists and work on call, read, get and complete', async () => {
  const app = new McpServer({ name: 'app', version: '1.0.0' });
  app.tool('ping_me', {}, () => 'pong');
  app.mount('weather', weather());
  app.mount('notes', notes());
  const { client } = await connectInMemory(app);
  try {
    const tools = (await client.listTools()).map((t) => t.name);
    assert.deepEqual(tools, ['ping_me', 'weather_forecast', 'weather_secret', 'notes_add']);
    const r = await client.callTool('weather_forecast', { city: 'Oslo', units: 'c' });
    assert.deepEqual(r.content, [{ type: 'text', text: 'Oslo in c: sunny' }]);
    const resources = (await client.listResources()).map((x) => x.uri);
    assert.deepEqual(resources, ['weather://weather/stations', 'file://notes//notes.txt']);
    const read = await client.readResource('file://notes//notes.txt');
    assert.deepEqual(read.contents, [{ uri: 'file://notes//notes.txt', text: 'a note' }]);
    const templates = (await client.listResourceTemplates()).map((t) => t.uriTemplate);
    assert.deepEqual(templates, ['weather://weather/city/{name}']);
    const city = await client.readResource('weather://weather/city/Lima');
    assert.deepEqual(city.contents, [{ uri: 'weather://weather/city/Lima', text: 'city Lima' }]);
    const done = await client.complete(
      { type: 'ref/resource', uri: 'weather://weather/city/{name}' },
      { name: 'name', value: 'L' },
    );
    assert.deepEqual(done.values, ['Lima']);
    const prompt = await client.getPrompt('weather_plan', { city: 'Oslo' });
    assert.deepEqual(prompt.messages[0]?.content, { type: 'text', text: 'Plan Oslo' });
    const argDone = await client.complete(
      { type: 'ref/prompt', name: 'weather_plan' },
      { name: 'city', value: '' },
    );
    assert.deepEqual(argDone.values, ['Oslo']);
  } finally {
    await client.close();
  }
});

test('options: another separator, URIs kept as they are', async () => {
  const app = new McpServer({ name: 'app', version: '1.0.0' });
  app.mount('n', notes(), { separator: '.', uris: 'keep' });
  const { client } = await connectInMemory(app);
  try {
    assert.deepEqual(
      (await client.listTools()).map((t) => t.name),
      ['n.add'],
    );
    assert.deepEqual(
      (await client.listResources()).map((r) => r.uri),
      ['file:///notes.txt'],
    );
    assert.equal((await client.readResource('file:///notes.txt')).contents[0]?.uri, 'file:///notes.txt');
  } finally {
    await client.close();
  }
});

test('clashing names are an error at mount time, and nothing of the refused mount is offered', () => {
  const app = new McpServer({ name: 'app', version: '1.0.0' });
  app.mount('x', notes());
  const other = new McpServer({ name: 'other', version: '1.0.0' });
  other.tool('fresh', {}, () => 'fresh');
  other.tool('add', {}, () => 'again');
  assert.throws(
    () => app.mount('x', other),
    (e: unknown) =>
      e instanceof McpkitError &&
      e.code === 'INVALID_DEFINITION' &&
      /Mounting "x": the tool "x_add" is already offered/.test(e.message),
  );
  assert.equal(app.tools.get('x_fresh'), undefined);
  // URIs kept as they are: the same resource in two mounted servers clashes.
  const app2 = new McpServer({ name: 'app2', version: '1.0.0' });
  app2.mount('a', notes(), { uris: 'keep' });
  assert.throws(() => app2.mount('b', notes(), { uris: 'keep' }), /the resource "file:\/\/\/notes.txt"/);
});

test('a later registration that clashes is an error, on either side', () => {
  const app = new McpServer({ name: 'app', version: '1.0.0' });
  const child = notes();
  app.mount('n', child);
  assert.throws(() => app.tool('n_add', {}, () => 'mine'), /already registered/);
  app.tool('n_later', {}, () => 'parent');
  assert.throws(() => child.tool('later', {}, () => 'child'), /the tool "n_later" is already offered/);
  assert.equal(
    child.tools.get('later'),
    undefined,
    'the refused registration is not kept by the child either',
  );
});

test('bad input is refused with a clear error: prefixes, unknown tools in transforms, cycles', () => {
  const app = new McpServer({ name: 'app', version: '1.0.0' });
  assert.throws(() => app.mount('has space', notes()), /Invalid mount prefix "has space"/);
  assert.throws(() => app.mount('n', notes(), { separator: '/' }), /Invalid mount separator/);
  const long = new McpServer({ name: 'long', version: '1.0.0' });
  long.tool('y'.repeat(100), {}, () => 'long');
  assert.throws(() => app.mount('x'.repeat(64), long), /Mounting "x{64}": Invalid tool name "x{64}_y{100}"/);
  assert.throws(
    () => app.mount('w', weather(), { tools: { nope: { hidden: true } } }),
    /Mounting "w": a tool transform names the unknown tool "nope" \(tools: forecast, secret\)/,
  );
  assert.throws(
    () => app.mount('w', weather(), { tools: { forecast: { fixed: { nope: 1 } } } }),
    /fixes the unknown argument "nope"/,
  );
  assert.throws(
    () => app.mount('w', weather(), { tools: { forecast: { name: 'secret' } } }),
    /"secret" and "forecast" would both be offered as "secret"|"forecast" and "secret"/,
  );
  assert.throws(
    () => app.mount('w', weather(), { tools: { forecast: { name: 'no spaces' } } }),
    /Mounting "w": the transform of tool "forecast": Invalid tool name "no spaces"/,
  );
  const template = new McpServer({ name: 't', version: '1.0.0' });
  template.resourceTemplate('{+anything}', { name: 'any' }, () => 'x');
  assert.throws(() => app.mount('t', template), /Cannot prefix the resource URI "\{\+anything\}"/);
  assert.equal(app.templates.size, 0);
  const inner = new McpServer({ name: 'inner', version: '1.0.0' });
  inner.mount('app', app);
  assert.throws(() => app.mount('inner', inner), /cannot be mounted in itself/);
  assert.throws(() => app.mount('self', app), /cannot be mounted in itself/);
});

test('tool transforms: renamed, hidden, redescribed, an argument fixed (gone from the schema, sent on call)', async () => {
  const app = new McpServer({ name: 'app', version: '1.0.0' });
  app.mount('w', weather(), {
    tools: {
      forecast: { name: 'celsius', description: 'Forecast in Celsius', fixed: { units: 'c' } },
      secret: { hidden: true },
    },
  });
  const { client } = await connectInMemory(app);
  try {
    const tools = await client.listTools();
    assert.deepEqual(
      tools.map((t) => t.name),
      ['w_celsius'],
    );
    assert.equal(tools[0]?.description, 'Forecast in Celsius');
    assert.deepEqual(tools[0]?.inputSchema, {
      type: 'object',
      properties: { city: { type: 'string' } },
      required: ['city'],
    });
    const r = await client.callTool('w_celsius', { city: 'Lima' });
    assert.deepEqual(r.content, [{ type: 'text', text: 'Lima in c: sunny' }]);
    await assert.rejects(client.callTool('w_secret'), /Unknown tool/);
  } finally {
    await client.close();
  }
});

test('an empty prefix transforms any server in place of it', async () => {
  const shaped = new McpServer({ name: 'shaped', version: '1.0.0' });
  shaped.mount('', weather(), { tools: { secret: { hidden: true } } });
  const { client } = await connectInMemory(shaped);
  try {
    assert.deepEqual(
      (await client.listTools()).map((t) => t.name),
      ['forecast'],
    );
    assert.deepEqual(
      (await client.listResources()).map((r) => r.uri),
      ['weather://stations'],
    );
  } finally {
    await client.close();
  }
});

test('list changes and resource updates of a mounted server reach the parent (in memory, stateful)', async () => {
  const app = new McpServer({ name: 'app', version: '1.0.0' });
  const child = notes();
  const mounted = app.mount('n', child);
  const changes: string[][] = [];
  const updated: string[] = [];
  const { client } = await connectInMemory(app, {
    onToolsChanged: (tools) => changes.push((tools ?? []).map((t) => t.name)),
    onResourceUpdated: (uri) => updated.push(uri),
  });
  try {
    const handle = child.tool('edit', {}, () => 'edited');
    await eventually(() => changes.some((c) => c.includes('n_edit')), 'n_edit listed');
    handle.disable();
    await eventually(() => changes.at(-1)?.includes('n_edit') === false, 'n_edit hidden');
    handle.update({ description: 'changed' });
    handle.enable();
    await eventually(() => changes.at(-1)?.includes('n_edit') === true, 'n_edit back');
    assert.equal((await client.listTools()).find((t) => t.name === 'n_edit')?.description, 'changed');
    await client.subscribeResource('file://n//notes.txt');
    child.notifyResourceUpdated('file:///notes.txt');
    await eventually(() => updated.includes('file://n//notes.txt'), 'the update with the parent URI');
    mounted.unmount();
    await eventually(() => changes.at(-1)?.length === 0, 'everything gone after unmount');
    child.tool('after', {}, () => 'x');
    assert.equal(app.tools.get('n_after'), undefined);
  } finally {
    await client.close();
  }
});

for (const era of ['stateful', 'stateless'] as const) {
  test(`over Streamable HTTP (${era}): mounted tools called and list changes delivered`, async () => {
    const app = new McpServer(
      { name: 'app', version: '1.0.0' },
      {
        capabilities: {
          tools: { listChanged: true },
          prompts: { listChanged: true },
          completions: {},
          resources: { listChanged: true, subscribe: true },
        },
      },
    );
    const child = weather();
    app.mount('w', child);
    const running = await serve(app, { port: 0, host: '127.0.0.1' });
    const seen: string[][] = [];
    const client = new Client(
      { name: 't', version: '0' },
      { era, onToolsChanged: (tools) => seen.push((tools ?? []).map((t) => t.name)) },
    );
    try {
      await client.connect(new HttpClientTransport(running.url));
      assert.equal(client.era, era);
      const r = await client.callTool('w_forecast', { city: 'Oslo', units: 'f' });
      assert.deepEqual(r.content, [{ type: 'text', text: 'Oslo in f: sunny' }]);
      if (era === 'stateless') {
        assert.ok(client.listChanges, 'the client listens for list changes');
        await client.listChanges.honoured;
      }
      child.tool('radar', {}, () => 'radar');
      await eventually(() => seen.some((names) => names.includes('w_radar')), 'w_radar listed');
      assert.deepEqual((await client.callTool('w_radar')).content, [{ type: 'text', text: 'radar' }]);
    } finally {
      await client.close();
      await running.close();
    }
  });
}

test('tools named like members of Object.prototype are not mistaken for transforms', () => {
  const odd = new McpServer({ name: 'odd', version: '1.0.0' });
  odd.tool('constructor', {}, () => 'c');
  odd.tool('Object', {}, () => 'o');
  const app = new McpServer({ name: 'app', version: '1.0.0' });
  app.mount('o', odd);
  assert.ok(app.tools.get('o_constructor') && app.tools.get('o_Object'));
});

test('nested mounts: a clash two levels up refuses the registration and the mount keeps syncing', () => {
  const g = new McpServer({ name: 'g', version: '1.0.0' });
  g.tool('p_c_x', {}, () => 'grandparent');
  const p = new McpServer({ name: 'p', version: '1.0.0' });
  g.mount('p', p);
  const c = new McpServer({ name: 'c', version: '1.0.0' });
  p.mount('c', c);
  assert.throws(() => c.tool('x', {}, () => 'child'), /the tool "p_c_x" is already offered/);
  assert.equal(c.tools.get('x'), undefined, 'the refused registration is not kept by the child');
  assert.equal(p.tools.get('c_x'), undefined, 'nor by the parent');
  c.tool('y', {}, () => 'y');
  assert.ok(p.tools.get('c_y'), 'later registrations still reach the parent');
  assert.ok(g.tools.get('p_c_y'), 'and the grandparent');
  assert.equal(g.tools.get('p_c_x')?.def.name, 'p_c_x');
});

test('nested mounts: a mount refused two levels up adds nothing anywhere', () => {
  const g = new McpServer({ name: 'g', version: '1.0.0' });
  g.tool('p_c_z', {}, () => 'grandparent');
  const p = new McpServer({ name: 'p', version: '1.0.0' });
  g.mount('p', p);
  const c = new McpServer({ name: 'c', version: '1.0.0' });
  c.tool('a', {}, () => 'a');
  c.tool('z', {}, () => 'z');
  assert.throws(() => p.mount('c', c), /the tool "p_c_z" is already offered/);
  assert.equal(p.tools.size, 0);
  assert.equal(g.tools.get('p_c_a'), undefined);
  assert.equal(g.tools.size, 1);
});

test('the same server mounted twice: unmounting one mount keeps the cycle check of the other', () => {
  const p = new McpServer({ name: 'p', version: '1.0.0' });
  const c = new McpServer({ name: 'c', version: '1.0.0' });
  c.tool('t', {}, () => 't');
  const one = p.mount('a', c);
  p.mount('b', c);
  one.unmount();
  one.unmount(); // twice changes nothing
  assert.throws(() => c.mount('z', p), /cannot be mounted in itself/);
});

test('an entry the parent cannot take after all (a diamond of mounts) is reported once, and syncing goes on', () => {
  const warnings: string[] = [];
  const onwarning = (m: string) => warnings.push(m);
  const g = new McpServer({ name: 'g', version: '1.0.0' });
  const p1 = new McpServer({ name: 'p1', version: '1.0.0' });
  const p2 = new McpServer({ name: 'p2', version: '1.0.0' }, { onwarning });
  g.mount('', p1);
  g.mount('', p2);
  const c = new McpServer({ name: 'c', version: '1.0.0' });
  const a = c.tool('a', {}, () => 'a');
  p1.mount('', c);
  p2.mount('', c, { tools: { a: { name: 'b' } } });
  // Each mount alone sees no clash; p2's, syncing second, finds x already offered by g through p1.
  c.tool('x', {}, () => 'x');
  assert.ok(g.tools.get('x') && p1.tools.get('x'));
  assert.equal(p2.tools.has('x'), false, 'p2 keeps nothing g refused');
  assert.equal(warnings.length, 1, warnings.join('\n'));
  assert.match(
    warnings[0] ?? '',
    /^Mounting "": the tool "x" of a mounted server could not be offered: .*"x" is already offered/,
  );
  a.disable();
  assert.equal(p2.tools.get('b'), undefined, 'later changes still sync');
  assert.equal(g.tools.get('b'), undefined);
  a.enable();
  assert.ok(p2.tools.get('b') && g.tools.get('b'));
  assert.equal(warnings.length, 1, `the refused entry is reported once: ${warnings.join('\n')}`);
});
