// Closing the Streamable HTTP endpoint ends the stateless (2026-07-28) requests whose handlers are still at work:
// such a request has no session, so closing the sessions alone would leave it waiting. Its handler's signal aborts
// and the client gets 503 with a JSON-RPC error (or that error as the stream's last event when it had turned SSE).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { toFetchHandler } from '../../src/server/http/adapters/web.js';
import { createStreamableHttpHandler } from '../../src/server/http/streamable/handler.js';
import { McpServer } from '../../src/server/server.js';
import { envelope, SUITE_TIMEOUT, within } from './helpers.js';

/** A tools/call of `tool`; with `progressToken` the client asks for progress, so a report turns the reply SSE. */
function callRequest(tool: string, progressToken?: string): Request {
  return new Request('http://127.0.0.1/mcp', {
    method: 'POST',
    headers: {
      accept: 'application/json, text/event-stream',
      'content-type': 'application/json',
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': 'tools/call',
      'mcp-name': tool,
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 7,
      method: 'tools/call',
      params: {
        _meta: progressToken === undefined ? envelope() : envelope({}, { progressToken }),
        name: tool,
        arguments: {},
      },
    }),
  });
}

/** A server whose `wait` tool runs until its signal aborts, recording why; `progress` reports progress first. */
function waitingServer(): { server: McpServer; started: Promise<void>; aborted: Promise<unknown> } {
  const server = new McpServer({ name: 'closing', version: '1' });
  let markStarted!: () => void;
  let markAborted!: (reason: unknown) => void;
  const started = new Promise<void>((resolve) => {
    markStarted = resolve;
  });
  const aborted = new Promise<unknown>((resolve) => {
    markAborted = resolve;
  });
  const wait = (signal: AbortSignal) =>
    new Promise<string>((resolve) => {
      markStarted();
      signal.addEventListener('abort', () => {
        markAborted(signal.reason);
        resolve('late answer');
      });
    });
  server.tool('wait', {}, (_args, ctx) => wait(ctx.signal));
  server.tool('progress', {}, async (_args, ctx) => {
    await ctx.progress(1, 2, 'working');
    return wait(ctx.signal);
  });
  return { server, started, aborted };
}

describe('closing the endpoint with stateless requests at work', { timeout: SUITE_TIMEOUT }, () => {
  test('a JSON reply still pending: 503 with a JSON-RPC error, the handler aborted', async () => {
    const { server, started, aborted } = waitingServer();
    const handler = createStreamableHttpHandler(server);
    const fetchHandler = toFetchHandler(handler);
    const response = fetchHandler(callRequest('wait'));
    await within(started, 'the handler to start');
    await handler.close();
    const res = await within(response, 'the reply after close');
    assert.equal(res.status, 503);
    const body = (await res.json()) as { id: number; error: { code: number; message: string } };
    assert.equal(body.id, 7);
    assert.equal(body.error.code, -32603);
    assert.equal(body.error.message, 'Server closing');
    assert.equal(await within(aborted, 'the abort'), 'server closing');
  });

  test('a reply already streaming (SSE): the error is its last event and the stream ends', async () => {
    const { server, started, aborted } = waitingServer();
    const handler = createStreamableHttpHandler(server);
    const res = await toFetchHandler(handler)(callRequest('progress', 'p1'));
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /text\/event-stream/);
    await within(started, 'the handler to start');
    await handler.close();
    const text = await within(res.text(), 'the stream to end');
    const last = text.trim().split('\n\n').at(-1) ?? '';
    const message = JSON.parse(last.replace(/^data: /m, '')) as { id: number; error: { message: string } };
    assert.equal(message.id, 7);
    assert.equal(message.error.message, 'Server closing');
    assert.equal(await within(aborted, 'the abort'), 'server closing');
  });

  test('a request answered before close is not touched, and close() with nothing at work resolves', async () => {
    const server = new McpServer({ name: 'closing', version: '1' });
    server.tool('quick', {}, async () => 'done');
    const handler = createStreamableHttpHandler(server);
    const res = await toFetchHandler(handler)(callRequest('quick'));
    assert.equal(res.status, 200);
    const body = (await res.json()) as { result: { content: { text: string }[] } };
    assert.equal(body.result.content[0]?.text, 'done');
    await handler.close();
  });
});
