// A mounted server keeps its own middleware and access rules (review finding L6): its middleware runs around its
// handlers inside the parent's (parent outer, child inner, each server's middleware seeing its own names), for tool
// calls, prompt gets, resource and template reads and completions, through nested mounts, including middleware added
// after the mount; its access rules still hide its entries from the parent's lists and refuse their use. In both
// eras: in memory (stateful) and over Streamable HTTP (stateful and stateless).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  Client,
  ErrorCode,
  HttpClientTransport,
  JsonRpcError,
  McpServer,
  type Middleware,
} from '../../src/index.js';
import { type RunningServer, serve } from '../../src/node.js';
import { connectInMemory } from '../../src/testing.js';

type Way = 'memory' | 'stateful' | 'stateless';

/** Records each request it sees as `<label>>` (with the name or URI it names) and `<label><` on the way out. */
function recorder(label: string, log: string[]): Middleware {
  return async (request, next) => {
    const p = request.params;
    const ref = p.ref as { name?: string; uri?: string } | undefined;
    log.push(`${label}> ${request.method} ${String(p.name ?? p.uri ?? ref?.name ?? ref?.uri ?? '')}`);
    try {
      return await next();
    } finally {
      log.push(`${label}<`);
    }
  };
}

function weather(log: string[]): McpServer {
  const server = new McpServer(
    { name: 'weather', version: '1.0.0' },
    { access: { rules: [{ effect: 'deny', tools: ['secret'], resources: ['weather://private'] }] } },
  );
  server.tool('forecast', {}, () => {
    log.push('handler');
    return 'sunny';
  });
  server.tool('secret', {}, () => 'never');
  server.resource('weather://stations', { name: 'stations' }, () => {
    log.push('handler');
    return 'Oslo';
  });
  server.resource('weather://private', { name: 'private' }, () => 'never');
  server.resourceTemplate(
    'weather://city/{name}',
    { name: 'city', complete: { name: () => ['Oslo'] } },
    (uri) => {
      log.push('handler');
      return [{ uri, text: 'a city' }];
    },
  );
  server.prompt('plan', { arguments: { city: { complete: () => ['Lima'] } } }, () => {
    log.push('handler');
    return 'Plan';
  });
  server.use(recorder('child', log));
  return server;
}

async function connect(app: McpServer, way: Way): Promise<{ client: Client; close: () => Promise<void> }> {
  if (way === 'memory') {
    const { client } = await connectInMemory(app);
    return { client, close: () => client.close() };
  }
  const running: RunningServer = await serve(app, { port: 0, host: '127.0.0.1' });
  const client = new Client({ name: way, version: '1.0.0' }, { era: way });
  await client.connect(new HttpClientTransport(running.url));
  return {
    client,
    close: async () => {
      await client.close();
      await running.close();
    },
  };
}

for (const way of ['memory', 'stateful', 'stateless'] as const)
  describe(`a mounted server's middleware and access rules (${way})`, () => {
    test("the parent's middleware runs outside the child's, each seeing its own names", async () => {
      const log: string[] = [];
      const app = new McpServer({ name: 'app', version: '1.0.0' });
      app.use(recorder('parent', log));
      app.mount('weather', weather(log));
      const { client, close } = await connect(app, way);
      try {
        const expect = async (run: () => Promise<unknown>, parent: string, child: string) => {
          log.length = 0;
          await run();
          assert.deepEqual(log, [`parent> ${parent}`, `child> ${child}`, 'handler', 'child<', 'parent<']);
        };
        await expect(
          () => client.callTool('weather_forecast'),
          'tools/call weather_forecast',
          'tools/call forecast',
        );
        await expect(() => client.getPrompt('weather_plan'), 'prompts/get weather_plan', 'prompts/get plan');
        await expect(
          () => client.readResource('weather://weather/stations'),
          'resources/read weather://weather/stations',
          'resources/read weather://stations',
        );
        await expect(
          () => client.readResource('weather://weather/city/Oslo'),
          'resources/read weather://weather/city/Oslo',
          'resources/read weather://city/Oslo',
        );
        log.length = 0;
        const done = await client.complete(
          { type: 'ref/resource', uri: 'weather://weather/city/{name}' },
          { name: 'name', value: '' },
        );
        assert.deepEqual(done.values, ['Oslo']);
        assert.deepEqual(log, [
          'parent> completion/complete weather://weather/city/{name}',
          'child> completion/complete weather://city/{name}',
          'child<',
          'parent<',
        ]);
      } finally {
        await close();
      }
    });

    test("the child's access rules hide its entries from the parent's lists and refuse their use", async () => {
      const app = new McpServer({ name: 'app', version: '1.0.0' });
      app.tool('own', {}, () => 'mine');
      app.mount('weather', weather([]));
      const { client, close } = await connect(app, way);
      try {
        const tools = (await client.listTools()).map((t) => t.name);
        assert.deepEqual(tools, ['own', 'weather_forecast']);
        await assert.rejects(
          client.callTool('weather_secret'),
          /Forbidden: the tool weather_secret is not available/,
        );
        const resources = (await client.listResources()).map((r) => r.uri);
        assert.deepEqual(resources, ['weather://weather/stations']);
        await assert.rejects(client.readResource('weather://weather/private'), /Forbidden/);
        assert.match(String((await client.callTool('weather_forecast')).content[0]?.type), /text/);
      } finally {
        await close();
      }
    });
  });

describe('mounted middleware, further', () => {
  test('nested mounts: each server in turn, outermost first, and middleware added after the mount applies', async () => {
    const log: string[] = [];
    const inner = new McpServer({ name: 'inner', version: '1.0.0' });
    inner.tool('deep', {}, () => {
      log.push('handler');
      return 'deep';
    });
    const middle = new McpServer({ name: 'middle', version: '1.0.0' });
    middle.use(recorder('middle', log));
    middle.mount('in', inner);
    const app = new McpServer({ name: 'app', version: '1.0.0' });
    app.use(recorder('app', log));
    app.mount('mid', middle);
    inner.use(recorder('inner', log)); // after both mounts
    const { client } = await connectInMemory(app);
    try {
      await client.callTool('mid_in_deep');
      assert.deepEqual(log, [
        'app> tools/call mid_in_deep',
        'middle> tools/call in_deep',
        'inner> tools/call deep',
        'handler',
        'inner<',
        'middle<',
        'app<',
      ]);
    } finally {
      await client.close();
    }
  });

  test("a mounted tool run as a task (2026-07-28 tasks extension) starts inside the child's middleware", async () => {
    const log: string[] = [];
    const child = new McpServer({ name: 'child', version: '1.0.0' });
    child.tool('job', { task: 'optional' }, () => 'worked');
    child.use(recorder('child', log));
    const app = new McpServer({ name: 'app', version: '1.0.0' });
    app.use(recorder('app', log));
    app.mount('c', child);
    const { client } = await connectInMemory(app, {
      era: 'stateless',
      capabilities: { extensions: { 'io.modelcontextprotocol/tasks': {} } },
    });
    try {
      const started = await client.callToolAsTask('c_job');
      assert.ok(started.task, 'a task');
      assert.deepEqual(log.slice(0, 2), ['app> tools/call c_job', 'child> tools/call job']);
    } finally {
      await client.close();
      await app.close();
    }
  });

  test("access rules refuse a tool run as a task as they refuse a call: its own server's and, mounted, the child's", async () => {
    const rules = { rules: [{ effect: 'deny' as const, tools: ['job'] }] };
    const alone = new McpServer({ name: 'alone', version: '1.0.0' }, { access: rules });
    alone.tool('job', { task: 'optional' }, () => 'never');
    const child = new McpServer({ name: 'child', version: '1.0.0' }, { access: rules });
    child.tool('job', { task: 'optional' }, () => 'never');
    const app = new McpServer({ name: 'app', version: '1.0.0' });
    app.mount('c', child);
    const capabilities = { extensions: { 'io.modelcontextprotocol/tasks': {} } };
    for (const [server, name] of [
      [alone, 'job'],
      [app, 'c_job'],
    ] as const) {
      const { client } = await connectInMemory(server, { era: 'stateless', capabilities });
      try {
        await assert.rejects(client.callToolAsTask(name), /Forbidden: the tool \w+ is not available/);
      } finally {
        await client.close();
        await server.close();
      }
    }
  });

  test("a child's middleware that refuses a call refuses it through the parent too", async () => {
    const child = new McpServer({ name: 'child', version: '1.0.0' });
    child.tool('guarded', {}, () => 'never');
    child.use(async (request, next) => {
      if (request.method === 'tools/call' && request.params.name === 'guarded')
        throw new JsonRpcError(ErrorCode.InvalidRequest, 'not today');
      return next();
    });
    const app = new McpServer({ name: 'app', version: '1.0.0' });
    app.mount('c', child);
    const { client } = await connectInMemory(app);
    try {
      await assert.rejects(client.callTool('c_guarded'), /not today/);
    } finally {
      await client.close();
    }
  });
});
