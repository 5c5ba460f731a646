// The tasks extension over Streamable HTTP (`serve()` on 127.0.0.1): a tool call becomes a task, the
// client polls and answers input through tasks/get and tasks/update, every tasks/* request carries
// `Mcp-Name: <taskId>`, and a mismatched Mcp-Name is refused with -32020.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Client } from '../../src/client/client.js';
import { ErrorCode } from '../../src/jsonrpc/errors.js';
import { type RunningServer, serve } from '../../src/node.js';
import type { McpServer } from '../../src/server/server.js';
import { META } from '../../src/spec/modern.js';
import { StreamableHttpClientTransport } from '../../src/transport/http-client/streamable.js';
import { createTaskServer, handlers, newObserved, WITH_TASKS } from './fixture.js';

let server: McpServer;
let running: RunningServer;

before(async () => {
  server = createTaskServer(newObserved());
  running = await serve(server);
});

after(async () => {
  await running.close();
});

describe('tasks over Streamable HTTP', { timeout: 20_000 }, () => {
  test('a task runs to completion with input answered, and tasks/* carry Mcp-Name = taskId', async () => {
    const sent: { method: string | null; name: string | null; taskId: unknown }[] = [];
    const transport = new StreamableHttpClientTransport(running.url, {
      fetch: (url, init) => {
        const headers = new Headers(init.headers);
        const body =
          typeof init.body === 'string' ? (JSON.parse(init.body) as { params?: { taskId?: unknown } }) : {};
        sent.push({
          method: headers.get('mcp-method'),
          name: headers.get('mcp-name'),
          taskId: body.params?.taskId,
        });
        return fetch(url, init);
      },
    });
    const client = new Client(
      { name: 'tasks-http', version: '1' },
      { era: 'stateless', capabilities: WITH_TASKS, ...handlers({ elicitations: 0, samplings: 0 }) },
    );
    await client.connect(transport);
    try {
      const result = await client.callTool('ask');
      assert.deepEqual(result.content, [{ type: 'text', text: 'hello Ada; sampled greet Ada; 1 roots' }]);
      const taskRequests = sent.filter((s) => s.method?.startsWith('tasks/'));
      assert.ok(taskRequests.some((s) => s.method === 'tasks/get'));
      assert.ok(taskRequests.some((s) => s.method === 'tasks/update'));
      for (const s of taskRequests) assert.equal(s.name, s.taskId, `${s.method} names its task`);
    } finally {
      await client.close();
    }
  });

  test('a tasks/get whose Mcp-Name disagrees with taskId: 400 with -32020', async () => {
    const body = {
      jsonrpc: '2.0',
      id: 1,
      method: 'tasks/get',
      params: {
        taskId: 'task-a',
        _meta: {
          [META.protocolVersion]: '2026-07-28',
          [META.clientCapabilities]: WITH_TASKS,
          [META.clientInfo]: { name: 'raw', version: '1' },
        },
      },
    };
    const response = await fetch(running.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': 'tasks/get',
        'mcp-name': 'task-b',
      },
      body: JSON.stringify(body),
    });
    assert.equal(response.status, 400);
    const reply = (await response.json()) as { error?: { code: number } };
    assert.equal(reply.error?.code, ErrorCode.HeaderMismatch);
  });
});
