// logging/setLevel and notifications/message: the threshold, invalid levels, and the logging capability.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { z } from 'zod';
import { JsonRpcError, type LoggingLevel, type LoggingMessageParams, McpServer } from '../../src/index.js';
import { connectInMemory } from '../../src/testing.js';

const LEVELS: LoggingLevel[] = [
  'debug',
  'info',
  'notice',
  'warning',
  'error',
  'critical',
  'alert',
  'emergency',
];

function logServer(options: ConstructorParameters<typeof McpServer>[1] = {}): McpServer {
  const server = new McpServer({ name: 'log', version: '1' }, options);
  server.tool('log_all', {}, async (_args, ctx) => {
    for (const level of LEVELS) await ctx.log(level, { at: level }, 'test-logger');
    return 'logged';
  });
  server.tool('log_one', { inputSchema: z.object({ level: z.string() }) }, async ({ level }, ctx) => {
    await ctx.log(level as LoggingLevel, 'one');
    return 'logged';
  });
  return server;
}

async function levelsAfter(setLevel: LoggingLevel | undefined): Promise<LoggingLevel[]> {
  const logs: LoggingMessageParams[] = [];
  const { client } = await connectInMemory(logServer(), { onlog: (params) => logs.push(params) });
  if (setLevel) await client.setLoggingLevel(setLevel);
  await client.callTool('log_all');
  await client.ping();
  await client.close();
  return logs.map((l) => l.level);
}

test('without setLevel the default threshold (info) applies', async () => {
  assert.deepEqual(await levelsAfter(undefined), LEVELS.slice(1));
});

for (const [i, level] of LEVELS.entries()) {
  test(`setLevel ${level}: only messages at ${level} and above are sent`, async () => {
    assert.deepEqual(await levelsAfter(level), LEVELS.slice(i));
  });
}

test('a log message carries level, logger and data', async () => {
  const logs: LoggingMessageParams[] = [];
  const { client } = await connectInMemory(logServer(), { onlog: (p) => logs.push(p) });
  await client.setLoggingLevel('emergency');
  await client.callTool('log_all');
  await client.ping();
  assert.deepEqual(logs, [{ level: 'emergency', data: { at: 'emergency' }, logger: 'test-logger' }]);
  await client.close();
});

test('the threshold can be lowered again', async () => {
  const logs: LoggingMessageParams[] = [];
  const { client } = await connectInMemory(logServer(), { onlog: (p) => logs.push(p) });
  await client.setLoggingLevel('error');
  await client.callTool('log_one', { level: 'warning' });
  await client.setLoggingLevel('debug');
  await client.callTool('log_one', { level: 'debug' });
  await client.ping();
  assert.deepEqual(
    logs.map((l) => l.level),
    ['debug'],
  );
  await client.close();
});

test('the defaultLogLevel option sets the threshold before any setLevel', async () => {
  const logs: LoggingMessageParams[] = [];
  const { client } = await connectInMemory(logServer({ defaultLogLevel: 'critical' }), {
    onlog: (p) => logs.push(p),
  });
  await client.callTool('log_all');
  await client.ping();
  assert.deepEqual(
    logs.map((l) => l.level),
    ['critical', 'alert', 'emergency'],
  );
  await client.close();
});

test('the threshold belongs to one session', async () => {
  const server = logServer();
  const quiet: LoggingMessageParams[] = [];
  const chatty: LoggingMessageParams[] = [];
  const a = await connectInMemory(server, { onlog: (p) => quiet.push(p) });
  const b = await connectInMemory(server, { onlog: (p) => chatty.push(p) });
  await a.client.setLoggingLevel('emergency');
  await b.client.setLoggingLevel('debug');
  await a.client.callTool('log_one', { level: 'info' });
  await b.client.callTool('log_one', { level: 'info' });
  await a.client.ping();
  await b.client.ping();
  assert.equal(quiet.length, 0);
  assert.equal(chatty.length, 1);
  await a.client.close();
  await b.client.close();
});

test('an invalid level is -32602 and leaves the threshold alone', async () => {
  const logs: LoggingMessageParams[] = [];
  const { client } = await connectInMemory(logServer(), { onlog: (p) => logs.push(p) });
  await client.setLoggingLevel('error');
  for (const level of ['verbose', 'INFO', '', 3, null]) {
    await assert.rejects(
      () => client.request('logging/setLevel', { level } as Record<string, unknown>),
      (e: unknown) => e instanceof JsonRpcError && e.code === -32602,
      JSON.stringify(level),
    );
  }
  await assert.rejects(
    () => client.request('logging/setLevel', {}),
    (e: unknown) => e instanceof JsonRpcError && e.code === -32602,
  );
  await client.callTool('log_all');
  await client.ping();
  assert.deepEqual(
    logs.map((l) => l.level),
    LEVELS.slice(4),
  );
  await client.close();
});

test('a server that does not declare logging sends no log messages', {}, async () => {
  const logs: LoggingMessageParams[] = [];
  const server = logServer({ capabilities: { tools: {} } });
  const { client } = await connectInMemory(server, { onlog: (p) => logs.push(p) });
  assert.equal(client.serverCapabilities?.logging, undefined);
  await assert.rejects(() => client.setLoggingLevel('debug'), { code: 'CAPABILITY_MISSING' });
  await client.callTool('log_all');
  await client.ping();
  assert.deepEqual(logs, [], 'logging was not negotiated, so no notifications/message may be sent');
  await client.close();
});
