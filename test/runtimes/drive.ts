// What runtimes.test.ts checks against the example server under each runtime: our client in both eras and the
// official SDK 1.x client, over Streamable HTTP or stdio. Each walk lists tools, calls one, reads a resource, gets
// a prompt, and sees a tool's logs.
import assert from 'node:assert/strict';
import { Client as SdkClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport as SdkStdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport as SdkHttpClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { LoggingMessageNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import {
  Client,
  type EraChoice,
  HttpClientTransport,
  type LoggingMessageParams,
  type Transport,
} from '../../src/index.js';
import { StdioClientTransport } from '../../src/stdio.js';

const SIMPLE_TEXT = 'This is a simple text response for testing.';
const LOG_LINES = ['Tool execution started', 'Tool processing data', 'Tool execution completed'];

/** Where the server is: a Streamable HTTP URL, or a command speaking stdio. */
export type Target = { url: string } | { command: string; args: string[] };

function ourTransport(target: Target): Transport {
  return 'url' in target
    ? new HttpClientTransport(target.url)
    : new StdioClientTransport({ command: target.command, args: target.args });
}

/** Our client, in the era given: tools, a call, a resource, a prompt, and the logs of a call. */
export async function driveWithMcpkit(target: Target, era: EraChoice): Promise<string> {
  const logs: LoggingMessageParams[] = [];
  const client = new Client({ name: 'runtime-test', version: '1.0.0' }, { onlog: (p) => logs.push(p) });
  await client.connect(ourTransport(target), { era });
  try {
    const tools = await client.listTools();
    assert.ok(
      tools.some((t) => t.name === 'test_simple_text'),
      'tools/list has test_simple_text',
    );
    assert.deepEqual((await client.callTool('test_simple_text')).content, [
      { type: 'text', text: SIMPLE_TEXT },
    ]);
    const error = await client.callTool('test_error_handling', {});
    assert.equal(error.isError, true);
    const read = await client.readResource('test://static-text');
    assert.equal(read.contents[0]?.uri, 'test://static-text');
    const prompt = await client.getPrompt('test_simple_prompt');
    assert.ok(prompt.messages.length > 0);
    await client.callTool('test_tool_with_logging', {});
    await client.ping();
    assert.deepEqual(
      logs.map((l) => l.data),
      LOG_LINES,
    );
    return `${client.era} ${client.protocolVersion}`;
  } finally {
    await client.close();
  }
}

/** The official SDK 1.x client: the same walk. */
export async function driveWithSdk(target: Target): Promise<string> {
  const client = new SdkClient({ name: 'runtime-test-sdk', version: '1.0.0' });
  const logs: unknown[] = [];
  client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => {
    logs.push(n.params.data);
  });
  const transport =
    'url' in target
      ? new SdkHttpClientTransport(new URL(target.url))
      : new SdkStdioClientTransport({ command: target.command, args: target.args, stderr: 'ignore' });
  await client.connect(transport);
  try {
    const { tools } = await client.listTools();
    assert.ok(
      tools.some((t) => t.name === 'test_simple_text'),
      'tools/list has test_simple_text',
    );
    const call = await client.callTool({ name: 'test_simple_text', arguments: {} });
    assert.deepEqual(call.content, [{ type: 'text', text: SIMPLE_TEXT }]);
    const read = await client.readResource({ uri: 'test://static-text' });
    assert.equal(read.contents[0]?.uri, 'test://static-text');
    await client.setLoggingLevel('info');
    await client.callTool({ name: 'test_tool_with_logging', arguments: {} });
    await client.ping();
    assert.deepEqual(logs, LOG_LINES);
    return client.getServerVersion()?.name ?? '';
  } finally {
    await client.close();
  }
}
