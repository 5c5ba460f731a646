// `mcpkit bridge` both ways with the official SDK 1.x client on the far side: stdio→HTTP (the SDK client over
// Streamable HTTP to the bridge in front of our example server's stdio) and URL→stdio (the SDK client over stdio to
// the bridge in front of our example server's HTTP endpoint). Requests, server-to-client requests (sampling,
// elicitation), progress, logs and cancellation cross it; bad input on either side does not stop it; a command that
// cannot start is exit 2.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { Client as SdkClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport as SdkStdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport as SdkTransport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  LoggingMessageNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { Client, HttpClientTransport } from '../../src/index.js';
import { EXAMPLE, MCPKIT, mcpkit, ROOT, startExampleHttp } from './helpers.js';
import { type Running, startMcpkit, stop, until } from './long-running.js';

const CALL = { timeout: 20_000 };
const cleanup: (() => Promise<unknown>)[] = [];
after(async () => {
  for (const c of cleanup.reverse()) await c().catch(() => undefined);
});

/** An SDK client that answers sampling with its own name and elicitation as told, recording logs. */
function sdkClient(name: string) {
  const client = new SdkClient(
    { name, version: '1.0.0' },
    { capabilities: { sampling: {}, elicitation: {} } },
  );
  const logs: string[] = [];
  const elicitAborted: boolean[] = [];
  let elicitation: 'accept' | 'hang' = 'accept';
  client.setRequestHandler(CreateMessageRequestSchema, async () => ({
    role: 'assistant',
    content: { type: 'text', text: `sampled by ${name}` },
    model: 'fixture',
    stopReason: 'endTurn',
  }));
  client.setRequestHandler(ElicitRequestSchema, async (_request, extra) => {
    if (elicitation === 'hang')
      return new Promise((resolve) => {
        extra.signal.addEventListener('abort', () => {
          elicitAborted.push(true);
          resolve({ action: 'cancel' });
        });
      });
    return { action: 'accept', content: { username: 'Ada', email: 'ada@example.com' } };
  });
  client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => {
    logs.push(String(n.params.data));
  });
  return {
    name,
    client,
    logs,
    elicitAborted,
    hangElicitation: () => {
      elicitation = 'hang';
    },
  };
}

function textOf(result: unknown): string | undefined {
  const first = (result as { content?: { type: string; text?: string }[] }).content?.[0];
  return first?.type === 'text' ? first.text : undefined;
}

/** Everything that must cross a bridge, asked through an SDK client connected to it. */
async function exercise(sdk: ReturnType<typeof sdkClient>, transport: SdkTransport): Promise<void> {
  const { client } = sdk;
  await client.connect(transport);
  cleanup.push(() => client.close());
  const tools = await client.listTools();
  assert.ok(tools.tools.some((t) => t.name === 'test_sampling'));
  // A server-to-client request crossing the bridge, inside a tool call.
  const sampled = await client.callTool(
    { name: 'test_sampling', arguments: { prompt: 'hi' } },
    undefined,
    CALL,
  );
  assert.equal(textOf(sampled), `LLM response: sampled by ${sdk.name}`);
  const elicited = await client.callTool(
    { name: 'test_elicitation', arguments: { message: 'who?' } },
    undefined,
    CALL,
  );
  assert.match(textOf(elicited) ?? '', /Ada/);
  // Progress notifications on the request's stream.
  const progress: number[] = [];
  const progressed = await client.callTool({ name: 'test_tool_with_progress', arguments: {} }, undefined, {
    ...CALL,
    onprogress: (p) => progress.push(p.progress),
  });
  assert.equal(textOf(progressed), 'Tool with progress executed successfully');
  // The SDK 1.x client runs notification handlers a microtask after a response's, so progress notifications that
  // arrive in the same read as their response reach no handler (how many do depends on the machine's load): what
  // did arrive is checked for order here; all three are checked exactly, byte level and with our client, below.
  assert.deepEqual(progress, [0, 50, 100].slice(0, progress.length));
  // Logs.
  await client.setLoggingLevel('debug');
  await client.callTool({ name: 'test_tool_with_logging', arguments: {} }, undefined, CALL);
  await until(() => sdk.logs.length >= 3, 10_000, 'three log messages');
  assert.deepEqual(sdk.logs.slice(-3), [
    'Tool execution started',
    'Tool processing data',
    'Tool execution completed',
  ]);
  // Cancellation: the client gives up on a call whose elicitation is never answered; the server's own request
  // to the client is cancelled in turn (both notifications crossed the bridge), and the session goes on.
  sdk.hangElicitation();
  const abort = new AbortController();
  const pending = client.callTool({ name: 'test_elicitation', arguments: { message: 'wait' } }, undefined, {
    ...CALL,
    signal: abort.signal,
  });
  await new Promise((r) => setTimeout(r, 300));
  abort.abort('the user gave up');
  await assert.rejects(pending);
  await until(() => sdk.elicitAborted.length === 1, 10_000, 'the server cancelling its elicitation');
  assert.equal((await client.ping()).constructor, Object);
}

describe('mcpkit bridge --from-stdio --http: the SDK client over Streamable HTTP', {
  timeout: 240_000,
}, () => {
  let bridge: Running;
  let url: string;

  test('starts in front of the example server', async () => {
    bridge = await startMcpkit(
      ['bridge', '--from-stdio', '--http', '0', '--', process.execPath, EXAMPLE],
      /at (http:\/\/\S+\/mcp) /,
    );
    cleanup.push(() => stop(bridge.child));
    url = bridge.match[1] as string;
  });

  test('requests, sampling, elicitation, progress, logs and cancellation cross it', async () => {
    const sdk = sdkClient('alice');
    await exercise(sdk, new StreamableHTTPClientTransport(new URL(url)) as SdkTransport);
  });

  test('our client in the stateless era, and another session beside it', async () => {
    const ours = new Client(
      { name: 'ours', version: '1.0.0' },
      { era: 'stateless', onerror: () => undefined },
    );
    await ours.connect(new HttpClientTransport(url), CALL);
    cleanup.push(() => ours.close());
    assert.equal(ours.era, 'stateless');
    const echoed = await ours.callTool('echo', { text: 'modern' }, CALL);
    assert.deepEqual(echoed.content, [{ type: 'text', text: 'echo: modern' }]);
    const progress: number[] = [];
    await ours.callTool(
      'test_tool_with_progress',
      {},
      { ...CALL, onprogress: (p) => progress.push(p.progress) },
    );
    assert.deepEqual(progress, [0, 50, 100], 'every progress notification, in order, before the result');
    const second = sdkClient('bob');
    await second.client.connect(new StreamableHTTPClientTransport(new URL(url)) as SdkTransport);
    cleanup.push(() => second.client.close());
    const sampled = await second.client.callTool(
      { name: 'test_sampling', arguments: { prompt: 'x' } },
      undefined,
      CALL,
    );
    assert.equal(textOf(sampled), 'LLM response: sampled by bob');
  });

  test('bad input on the HTTP side is refused and the bridge goes on', async () => {
    const post = (body: string, headers: Record<string, string> = {}) =>
      fetch(url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          ...headers,
        },
        body,
      });
    assert.equal((await post('{not json')).status, 400);
    assert.equal((await post('[]')).status, 400);
    assert.equal((await post('{"jsonrpc":"2.0","id":1,"method":"tools/list"}')).status, 400, 'no session id');
    assert.equal(
      (await post('{"jsonrpc":"2.0","id":1,"method":"tools/list"}', { 'mcp-session-id': 'nope' })).status,
      404,
    );
    const sdk = sdkClient('carol');
    await sdk.client.connect(new StreamableHTTPClientTransport(new URL(url)) as SdkTransport);
    cleanup.push(() => sdk.client.close());
    assert.ok((await sdk.client.listTools()).tools.length > 0);
  });
});

describe('mcpkit bridge --from-stdio --shared', { timeout: 240_000 }, () => {
  test('one server process for two sessions; each client gets its own answers', async () => {
    const bridge = await startMcpkit(
      ['bridge', '--from-stdio', '--shared', '--http', '0', '--', process.execPath, EXAMPLE],
      /at (http:\/\/\S+\/mcp) .*one shared process/,
    );
    cleanup.push(() => stop(bridge.child));
    const url = new URL(bridge.match[1] as string);
    const a = sdkClient('dave');
    const b = sdkClient('erin');
    await a.client.connect(new StreamableHTTPClientTransport(url) as SdkTransport);
    await b.client.connect(new StreamableHTTPClientTransport(url) as SdkTransport);
    cleanup.push(
      () => a.client.close(),
      () => b.client.close(),
    );
    for (const [sdk, name] of [
      [a, 'dave'],
      [b, 'erin'],
      [a, 'dave'],
    ] as const) {
      const sampled = await sdk.client.callTool(
        { name: 'test_sampling', arguments: { prompt: 'x' } },
        undefined,
        CALL,
      );
      assert.equal(textOf(sampled), `LLM response: sampled by ${name}`);
    }
    const [x, y] = await Promise.all([
      a.client.callTool({ name: 'echo', arguments: { text: 'from a' } }, undefined, CALL),
      b.client.callTool({ name: 'echo', arguments: { text: 'from b' } }, undefined, CALL),
    ]);
    assert.equal(textOf(x), 'echo: from a');
    assert.equal(textOf(y), 'echo: from b');
  });
});

describe('mcpkit bridge --from-url --to-stdio: the SDK client over stdio', { timeout: 240_000 }, () => {
  test('requests, sampling, elicitation, progress, logs and cancellation cross it', async () => {
    const server = await startExampleHttp();
    cleanup.push(() => stop(server.child));
    const sdk = sdkClient('frank');
    const transport = new SdkStdioClientTransport({
      command: process.execPath,
      args: [MCPKIT, 'bridge', '--from-url', server.url, '--to-stdio'],
      cwd: ROOT,
      stderr: 'pipe',
    });
    await exercise(sdk, transport as SdkTransport);
  });

  test('garbage on stdin is answered with a parse error, and the bridge goes on', async () => {
    const server = await startExampleHttp();
    cleanup.push(() => stop(server.child));
    const child = spawn(process.execPath, [MCPKIT, 'bridge', '--from-url', server.url, '--to-stdio'], {
      cwd: ROOT,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    cleanup.push(() => stop(child));
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => {
      out += c;
    });
    const init = {
      jsonrpc: '2.0',
      id: 7,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
    };
    child.stdin.write(`this is not json\n[]\n${JSON.stringify(init)}\n`);
    await until(() => out.includes('"id":7'), 20_000, `the initialize answer; got: ${out}`);
    // Progress crosses in order before its result, whatever reads the lines.
    const call = {
      jsonrpc: '2.0',
      id: 8,
      method: 'tools/call',
      params: { name: 'test_tool_with_progress', arguments: {}, _meta: { progressToken: 'p1' } },
    };
    child.stdin.write(
      `${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n${JSON.stringify(call)}\n`,
    );
    await until(() => out.includes('"id":8'), 20_000, `the tool's result; got: ${out}`);
    const answered = out
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { id?: unknown; method?: string; params?: { progress?: number } });
    const after = answered.slice(answered.findIndex((m) => m.id === 7) + 1);
    assert.deepEqual(
      after.map((m) => (m.method === 'notifications/progress' ? m.params?.progress : m.id)),
      [0, 50, 100, 8],
    );
    const lines = out
      .trim()
      .split('\n')
      .map(
        (l) => JSON.parse(l) as { id: unknown; error?: { code: number }; result?: { serverInfo?: unknown } },
      );
    assert.equal(lines[0]?.error?.code, -32700);
    assert.equal(lines[1]?.error?.code, -32600);
    assert.ok(lines.find((l) => l.id === 7)?.result?.serverInfo);
    child.stdin.end();
    const code = await new Promise((resolve) => child.once('exit', resolve));
    assert.equal(code, 0, 'the end of stdin ends the bridge');
  });

  test('an unreachable URL: each request is answered with an error saying so', async () => {
    const child = spawn(
      process.execPath,
      [MCPKIT, 'bridge', '--from-url', 'http://127.0.0.1:9/mcp', '--to-stdio'],
      {
        cwd: ROOT,
        stdio: ['pipe', 'pipe', 'pipe'],
      },
    );
    cleanup.push(() => stop(child));
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => {
      out += c;
    });
    child.stdin.write(
      '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}\n',
    );
    await until(() => out.includes('"id":1'), 20_000, 'an error answer');
    const answer = JSON.parse(out.trim().split('\n')[0] ?? '') as { error?: { message: string } };
    assert.match(answer.error?.message ?? '', /Not delivered to the server/);
  });
});

/** The host tests' misbehaving stdio server (garbage on stdout, a tool that crashes it, one that never answers). */
const ODD_SERVER = join(ROOT, 'dist/test/host/fixtures/odd-server.js');

describe('mcpkit bridge: a server that misbehaves', { timeout: 120_000 }, () => {
  test('garbage on its stdout is dropped; its crash ends that session only; the bridge goes on', async () => {
    const bridge = await startMcpkit(
      ['bridge', '--from-stdio', '--http', '0', '--', process.execPath, ODD_SERVER, '--garbage'],
      /at (http:\/\/\S+\/mcp) /,
    );
    cleanup.push(() => stop(bridge.child));
    const url = new URL(bridge.match[1] as string);
    const first = sdkClient('gina');
    await first.client.connect(new StreamableHTTPClientTransport(url) as SdkTransport);
    cleanup.push(() => first.client.close());
    assert.ok((await first.client.listTools()).tools.some((t) => t.name === 'echo'));
    assert.match(bridge.stderr(), /invalid message/);
    await first.client.callTool({ name: 'crash', arguments: {} }, undefined, CALL);
    await until(() => bridge.stderr().includes('crashing on purpose'), 10_000, 'the crash');
    // The session's process is gone, so is the session (404); a new session gets a new process.
    await until(
      async () =>
        await first.client.listTools().then(
          () => false,
          () => true,
        ),
      10_000,
      'the crashed session to be refused',
    );
    const second = sdkClient('hank');
    await second.client.connect(new StreamableHTTPClientTransport(url) as SdkTransport);
    cleanup.push(() => second.client.close());
    const echoed = await second.client.callTool(
      { name: 'echo', arguments: { text: 'still here' } },
      undefined,
      CALL,
    );
    assert.match(textOf(echoed) ?? '', /still here/);
    assert.equal(bridge.child.exitCode, null, 'the bridge is still running');
  });

  test('a server that never answers initialize: exit 2 once --startup-timeout has passed', async () => {
    const r = await mcpkit([
      'bridge',
      '--from-stdio',
      '--http',
      '0',
      '--startup-timeout',
      '1500',
      '--',
      process.execPath,
      ODD_SERVER,
      '--hang',
    ]);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /no answer to initialize within 1500 ms/);
  });
});

describe('mcpkit bridge: bad input', { timeout: 120_000 }, () => {
  test('a command that cannot start: exit 2 with its stderr tail', async () => {
    const exits = await mcpkit([
      'bridge',
      '--from-stdio',
      '--http',
      '0',
      '--',
      process.execPath,
      '-e',
      "console.error('boom: missing API_KEY'); process.exit(3)",
    ]);
    assert.equal(exits.code, 2);
    assert.match(exits.stderr, /the server did not start/);
    assert.match(exits.stderr, /--- the server's stderr \(last lines\) ---\nboom: missing API_KEY/);
    // The tail once, under the message: not in the message too.
    assert.doesNotMatch(exits.stderr, /Last stderr/);
    const missing = await mcpkit(['bridge', '--from-stdio', '--http', '0', '--', 'mcpkit-no-such-command']);
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /command not found/);
  });

  test('usage: no direction, both, a missing port or command: exit 1', async () => {
    for (const args of [
      ['bridge'],
      ['bridge', '--from-stdio', '--http', '0'],
      ['bridge', '--from-stdio', '--', 'node'],
      ['bridge', '--from-url', 'http://x.example/mcp'],
      ['bridge', '--from-url', 'nope', '--to-stdio'],
      ['bridge', '--from-stdio', '--from-url', 'http://x.example/mcp', '--to-stdio'],
    ]) {
      const r = await mcpkit(args);
      assert.equal(r.code, 1, `${args.join(' ')}: ${r.stderr}`);
      assert.match(r.stderr, /^error: /);
    }
  });
});
