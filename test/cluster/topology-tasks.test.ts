// Tasks in the real topology (redis-server, three instances of the everything example server, nginx round robin):
// a task started on one instance whose process is then killed (-9) is started again by a surviving instance when a
// client polling through nginx reads it, and completes there.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Topology } from '../../examples/cluster/topology.js';
import { Client } from '../../src/client/client.js';
import { TASKS_EXTENSION } from '../../src/spec/modern.js';
import { StreamableHttpClientTransport } from '../../src/transport/streamable-http-client.js';

let top: Topology;
const T = { timeout: 90_000 };

before(async () => {
  top = await Topology.start({ instances: 3 });
});

after(async () => {
  await top?.stop();
});

async function taskClient(url: string): Promise<Client> {
  const client = new Client(
    { name: 'topology-tasks', version: '1' },
    { era: 'stateless', capabilities: { extensions: { [TASKS_EXTENSION]: {} } } },
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
