// Tasks in the real topology (redis-server, three instances of the everything example server, nginx round robin):
// a task started on one instance whose process is then killed (-9) is started again by a surviving instance when a
// client polling through nginx reads it, and completes there; with nobody polling, a `subscriptions/listen` stream on
// another instance hears it started again and completed (the survivors' sweep); an instance stopped gracefully
// (SIGTERM) hands its re-runnable task to another instance, which completes it, instead of failing it.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Topology } from '../../examples/cluster/topology.js';
import { Client } from '../../src/client/client.js';
import type { JsonObject } from '../../src/jsonrpc/types.js';
import { TASKS_EXTENSION } from '../../src/spec/modern.js';
import { StreamableHttpClientTransport } from '../../src/transport/http-client/streamable.js';
import { eventually } from './helpers.js';

let top: Topology;
const T = { timeout: 90_000 };

before(async () => {
  top = await Topology.start({ instances: 3 });
});

after(async () => {
  await top?.stop();
});

async function taskClient(url: string, notes?: JsonObject[]): Promise<Client> {
  const client = new Client(
    { name: 'topology-tasks', version: '1' },
    {
      era: 'stateless',
      capabilities: { extensions: { [TASKS_EXTENSION]: {} } },
      onnotification: (n) => {
        if (n.method === 'notifications/tasks') notes?.push(n.params as JsonObject);
      },
    },
  );
  await client.connect(new StreamableHttpClientTransport(url));
  return client;
}

test(
  'kill -9 of the instance running a re-runnable task: another instance runs it again to completion',
  T,
  async () => {
    const direct = await taskClient(top.instanceUrl(0));
    const runner = await direct.callTool('cluster_instance', {});
    const killed = runner.content[0]?.type === 'text' ? runner.content[0].text : '';
    const started = await direct.callToolAsTask('cluster_task', { ms: 2000 });
    await direct.close();
    assert.ok(started.task, 'a task');
    await top.kill(0);
    const balanced = await taskClient(top.url);
    try {
      const statuses: string[] = [];
      const result = await balanced.waitForTask(started.task.taskId, {
        onUpdate: (t) => statuses.push(t.statusMessage ?? t.status),
      });
      const text = result.content[0]?.type === 'text' ? result.content[0].text : '';
      assert.match(text, /^task done by /);
      assert.notEqual(text, `task done by ${killed}`, 'finished elsewhere');
      assert.ok(
        statuses.includes('Started again: the server instance running it stopped'),
        statuses.join(', '),
      );
    } finally {
      await balanced.close();
    }
  },
);

/** The instance `i` names itself with (cluster_instance). */
async function nameOf(i: number): Promise<string> {
  const client = await taskClient(top.instanceUrl(i));
  try {
    const answer = await client.callTool('cluster_instance', {});
    return answer.content[0]?.type === 'text' ? answer.content[0].text : '';
  } finally {
    await client.close();
  }
}

/**
 * Starts cluster_task on instance `runner`, opens a listen for it on instance `listener` (while the runner is alive,
 * so the listen's own read finds nothing to do), lets `end` end the runner, and waits, without polling, until the
 * listen hears the task end.
 */
async function heard(runner: number, listener: number, end: () => Promise<void>): Promise<JsonObject[]> {
  const direct = await taskClient(top.instanceUrl(runner));
  const started = await direct.callToolAsTask('cluster_task', { ms: 1500 });
  await direct.close();
  assert.ok(started.task, 'a task');
  const taskId = started.task.taskId;
  const notes: JsonObject[] = [];
  const listening = await taskClient(top.instanceUrl(listener), notes);
  try {
    const sub = listening.listen({ taskIds: [taskId] });
    assert.deepEqual((await sub.honoured).taskIds, [taskId]);
    await end();
    await eventually(
      () => notes.some((n) => n.status === 'completed' || n.status === 'failed'),
      `the end of the task (heard: ${JSON.stringify(notes)})`,
      30_000,
    );
    sub.close();
    return notes;
  } finally {
    await listening.close();
  }
}

function summary(notes: JsonObject[]): string[] {
  return notes.map((n) => `${n.status}: ${n.statusMessage ?? ''}`);
}

test(
  'kill -9 with nobody polling: a listen on another instance hears the task run again and complete',
  T,
  async () => {
    const killed = await nameOf(1);
    const notes = await heard(1, 2, () => top.kill(1));
    assert.ok(
      summary(notes).includes('working: Started again: the server instance running it stopped'),
      summary(notes).join(', '),
    );
    const done = notes.find((n) => n.status === 'completed');
    const content = (done?.result as JsonObject | undefined)?.content as { text?: string }[] | undefined;
    assert.match(String(content?.[0]?.text), /^task done by /);
    assert.notEqual(content?.[0]?.text, `task done by ${killed}`);
  },
);

test(
  'SIGTERM of the instance running a re-runnable task: another instance completes it, never failed',
  T,
  async () => {
    const stopped = await nameOf(2);
    // Instance 0 was killed by the first test: instance 2 runs it, and hands it over to the one left, where it is heard.
    await top.revive(0);
    const notes = await heard(2, 0, () => top.terminate(2));
    assert.ok(!notes.some((n) => n.status === 'failed'), summary(notes).join(', '));
    const done = notes.find((n) => n.status === 'completed');
    const content = (done?.result as JsonObject | undefined)?.content as { text?: string }[] | undefined;
    assert.match(String(content?.[0]?.text), /^task done by /);
    assert.notEqual(content?.[0]?.text, `task done by ${stopped}`);
  },
);
