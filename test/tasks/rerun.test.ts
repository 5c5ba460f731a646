// What a task keeps to be started again after its instance died (the re-run itself needs a shared store that knows
// instances: test/cluster/redis-task-rerun.test.ts): only a tool allowing re-runs keeps its request, as JSON, with its
// arguments, its caller's authInfo and its _meta without the progress token; an authInfo that is not JSON is
// reported and the task simply cannot be re-run; the option is bounded at registration.
import assert from 'node:assert/strict';
import { afterEach, test } from 'node:test';
import { McpkitError } from '../../src/jsonrpc/errors.js';
import { McpServer } from '../../src/server/server.js';
import { MemoryTaskStore } from '../../src/store/task-store.js';
import { connect, WITH_TASKS } from './fixture.js';

const servers: McpServer[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close();
});

function server(errors: Error[]) {
  const store = new MemoryTaskStore();
  const s = new McpServer(
    { name: 'rerun', version: '1' },
    { tasks: { store }, onerror: (e) => errors.push(e) },
  );
  s.tool('again', { task: { mode: 'required', reruns: 2 } }, () => 'done');
  s.tool('plain', { task: 'required' }, () => 'done');
  servers.push(s);
  return { s, store };
}

test('a task of a tool allowing re-runs keeps its request as JSON; other tools keep nothing', async () => {
  const errors: Error[] = [];
  const { s, store } = server(errors);
  const authInfo = { issuer: 'https://i.test', subject: 'ada', scopes: ['a'], expiresAt: undefined };
  const { client } = await connect(s, { capabilities: WITH_TASKS, authInfo });
  const kept = await client.callToolAsTask('again', { n: 1 }, { onprogress: () => undefined });
  const plain = await client.callToolAsTask('plain', { n: 2 });
  const record = await store.get(kept.task?.taskId ?? '');
  assert.equal(record?.rerunsLeft, 2);
  assert.equal(record?.run, undefined, 'the first run has no number');
  const request = record?.request;
  assert.equal(request?.tool, 'again');
  assert.deepEqual(request?.arguments, { n: 1 });
  assert.deepEqual(request?.authInfo, { issuer: 'https://i.test', subject: 'ada', scopes: ['a'] });
  assert.equal(request?.protocolVersion, '2026-07-28');
  assert.ok(request?.clientCapabilities.extensions, 'the client capabilities');
  assert.equal(request?.clientInfo?.name, 'tasks-test-client');
  assert.equal(request?.meta && 'progressToken' in request.meta, false, 'no progress token');
  assert.deepEqual(JSON.parse(JSON.stringify(record)), record, 'JSON through and through');
  const other = await store.get(plain.task?.taskId ?? '');
  assert.equal(other !== undefined && ('request' in other || 'rerunsLeft' in other), false);
  assert.deepEqual(errors, []);
});

test('an authInfo that is not JSON is reported; the task runs, without a request to re-run', async () => {
  const errors: Error[] = [];
  const { s, store } = server(errors);
  const { client } = await connect(s, { capabilities: WITH_TASKS, authInfo: { subject: 'ada', big: 1n } });
  const started = await client.callToolAsTask('again', {});
  const record = await store.get(started.task?.taskId ?? '');
  assert.equal(record?.request, undefined);
  assert.equal(record?.rerunsLeft, undefined);
  assert.match(errors[0]?.message ?? '', /cannot be started again: its authInfo is not JSON/);
  assert.equal((await client.waitForTask(started.task?.taskId ?? '')).content[0]?.type, 'text');
});

test('reruns is bounded at registration', () => {
  const s = new McpServer({ name: 'bad', version: '1' });
  assert.throws(
    () => s.tool('t', { task: { reruns: 4 } }, () => ''),
    (e: unknown) => e instanceof McpkitError && e.code === 'INVALID_DEFINITION' && /reruns/.test(e.message),
  );
});
