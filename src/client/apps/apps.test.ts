import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ErrorCode, JsonRpcError, McpkitError } from '../../jsonrpc/errors.js';
import { APP_MIME_TYPE } from '../../spec/apps.js';
import type { CallToolResult, Tool } from '../../spec/types.js';
import { AppFrame, type AppMessageEvent } from './bridge.js';
import { appContentSecurityPolicy, appFrameAllow } from './csp.js';
import { AppPolicy } from './policy.js';
import { appDocumentOf } from './resource.js';

/** A page's `window` as the bridge sees it: listeners of `message`, and a way to deliver one. */
function page() {
  const listeners = new Set<(event: AppMessageEvent) => void>();
  return {
    addEventListener: (_: 'message', l: (event: AppMessageEvent) => void) => listeners.add(l),
    removeEventListener: (_: 'message', l: (event: AppMessageEvent) => void) => listeners.delete(l),
    deliver: (source: unknown, data: unknown) => {
      for (const l of listeners) l({ source, data });
    },
    listening: () => listeners.size,
  };
}

/** An App frame's window: what the host posted to it. */
function frameWindow() {
  const posted: Record<string, unknown>[] = [];
  return { posted, postMessage: (message: unknown) => posted.push(message as Record<string, unknown>) };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

function bridge(calls: string[] = []) {
  const host = page();
  const frame = frameWindow();
  const app = new AppFrame({
    frame: () => frame,
    listener: host,
    hostInfo: { name: 'test-host', version: '1' },
    hostContext: { theme: 'dark' },
    handlers: {
      callTool: async (name) => {
        calls.push(name);
        return { content: [{ type: 'text', text: `ran ${name}` }] };
      },
      readResource: async (uri) => ({ contents: [{ uri, text: 'x' }] }),
      openLink: async () => false,
    },
  });
  return { host, frame, app, calls };
}

test('bridge: answers ui/initialize with the host context, then sends the queued tool input and result', async () => {
  const { host, frame, app } = bridge();
  app.toolInput({ sides: 6 });
  app.toolResult({ content: [{ type: 'text', text: 'rolled 4' }] } as CallToolResult);
  host.deliver(frame, {
    jsonrpc: '2.0',
    id: 1,
    method: 'ui/initialize',
    params: { protocolVersion: '2026-01-26', appInfo: { name: 'a', version: '1' }, appCapabilities: {} },
  });
  await settle();
  const init = frame.posted[0] as { id: number; result: { hostContext: unknown; protocolVersion: string } };
  assert.equal(init.id, 1);
  assert.equal(init.result.protocolVersion, '2026-01-26');
  assert.deepEqual(init.result.hostContext, { theme: 'dark' });
  assert.equal(frame.posted.length, 1, 'nothing else before the App says it is initialized');
  host.deliver(frame, { jsonrpc: '2.0', method: 'ui/notifications/initialized', params: {} });
  assert.deepEqual(
    frame.posted.slice(1).map((m) => m.method),
    ['ui/notifications/tool-input', 'ui/notifications/tool-result'],
  );
  app.close();
  assert.equal(host.listening(), 0);
});

test("bridge: a message from any window but the App's frame is ignored", async () => {
  const { host, frame, calls } = bridge();
  const call = { jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'secret' } };
  host.deliver(frameWindow(), call); // another frame
  host.deliver(host, call); // the page itself
  host.deliver(null, call);
  await settle();
  assert.deepEqual(calls, []);
  assert.deepEqual(frame.posted, []);
  host.deliver(frame, call);
  await settle();
  assert.deepEqual(calls, ['secret']);
  assert.equal((frame.posted as Record<string, unknown>[])[0]?.id, 7);
});

test('bridge: an unknown method is MethodNotFound, a handler refusal reaches the App as its JSON-RPC error', async () => {
  const host = page();
  const frame = frameWindow();
  new AppFrame({
    frame: () => frame,
    listener: host,
    hostInfo: { name: 'h', version: '1' },
    handlers: {
      callTool: async () => {
        throw new JsonRpcError(ErrorCode.UserRejected, 'declined');
      },
      readResource: async () => ({ contents: [] }),
      openLink: async () => false,
    },
  });
  host.deliver(frame, { jsonrpc: '2.0', id: 1, method: 'sampling/createMessage', params: {} });
  host.deliver(frame, { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 't' } });
  host.deliver(frame, {
    jsonrpc: '2.0',
    id: 3,
    method: 'ui/open-link',
    params: { url: 'https://example.com' },
  });
  await settle();
  const byId = new Map(frame.posted.map((m) => [m.id, m]));
  assert.equal((byId.get(1)?.error as { code?: number } | undefined)?.code, ErrorCode.MethodNotFound);
  assert.deepEqual(byId.get(2)?.error, { code: ErrorCode.UserRejected, message: 'declined' });
  assert.deepEqual(byId.get(3)?.result, { isError: true });
});

test('CSP: declared origins only; wildcards, schemes, keywords, remote http and the host origin are refused', () => {
  const host = 'http://127.0.0.1:4000';
  const decision = appContentSecurityPolicy(
    {
      connectDomains: [
        'https://api.example.com',
        '*',
        'https:',
        host,
        'http://example.com',
        'ws://localhost:5173',
      ],
      resourceDomains: [
        "'unsafe-eval'",
        'https://*.cdn.example.com',
        'https://*.com',
        "https://a.com 'unsafe-eval'",
      ],
      frameDomains: 'https://www.youtube.com',
    },
    { frameAncestors: [host], forbiddenOrigins: [host] },
  );
  assert.deepEqual(decision.applied.connectDomains, ['https://api.example.com', 'ws://localhost:5173']);
  assert.deepEqual(decision.applied.resourceDomains, ['https://*.cdn.example.com']);
  assert.deepEqual(decision.applied.frameDomains, []);
  assert.deepEqual(
    decision.refused.map((r) => r.source),
    [
      '*',
      'https:',
      host,
      'http://example.com',
      "'unsafe-eval'",
      'https://*.com',
      "https://a.com 'unsafe-eval'",
      'https://www.youtube.com',
    ],
  );
  assert.match(decision.policy, /connect-src https:\/\/api\.example\.com ws:\/\/localhost:5173;/);
  assert.match(decision.policy, /frame-src 'none'/);
  assert.match(decision.policy, /frame-ancestors http:\/\/127\.0\.0\.1:4000$/);
  assert.doesNotMatch(decision.policy, /'self'|unsafe-eval|\*(?!\.cdn)/);
});

test('CSP: nothing declared is no network at all; permissions map to the four features only', () => {
  const { policy, refused } = appContentSecurityPolicy(undefined);
  assert.deepEqual(refused, []);
  assert.match(policy, /^default-src 'none'; script-src 'unsafe-inline'; /);
  assert.match(policy, /connect-src 'none'; frame-src 'none'; base-uri 'none'/);
  assert.equal(appFrameAllow({ camera: {}, clipboardWrite: {}, usb: {} }), 'camera; clipboard-write');
  assert.equal(appFrameAllow('camera'), '');
});

test('resource: a document without the App MIME type is refused, naming the type it had', () => {
  const uri = 'ui://x/app.html';
  assert.throws(
    () => appDocumentOf(uri, { contents: [{ uri, mimeType: 'text/html', text: '<p>hi</p>' }] }),
    (e: unknown) =>
      e instanceof McpkitError &&
      e.code === 'INVALID_RESULT' &&
      e.message === `${uri} is not an MCP App: its MIME type is "text/html", not "${APP_MIME_TYPE}"`,
  );
  assert.throws(() => appDocumentOf(uri, { contents: [{ uri, text: '<p>hi</p>' }] }), /MIME type is null/);
  assert.throws(() => appDocumentOf('https://x/app.html', { contents: [] }), /starts with ui:\/\//);
  const doc = appDocumentOf(
    uri,
    {
      contents: [
        { uri, mimeType: 'text/html; profile=mcp-app', blob: Buffer.from('<p>é</p>').toString('base64') },
      ],
    },
    { uri, name: 'x', _meta: { ui: { csp: { connectDomains: ['https://a.example'] } } } },
  );
  assert.equal(doc.html, '<p>é</p>');
  assert.deepEqual(doc.meta, { csp: { connectDomains: ['https://a.example'] } });
});

test("policy: only the server's tools the App may see, each approved; links http(s) only", async () => {
  const tools: Tool[] = [
    { name: 'open', inputSchema: { type: 'object' } },
    { name: 'model_only', inputSchema: { type: 'object' }, _meta: { ui: { visibility: ['model'] } } },
  ];
  const asked: string[] = [];
  let verdict = true;
  const policy = new AppPolicy({
    app: 'ui://x/app.html',
    tools: () => tools,
    approve: (call) => {
      asked.push(`${call.app} ${call.name} ${JSON.stringify(call.arguments)}`);
      return verdict;
    },
  });
  await policy.toolCall('open', { a: 1 });
  assert.deepEqual(asked, ['ui://x/app.html open {"a":1}']);
  await assert.rejects(policy.toolCall('missing', {}), /Unknown tool "missing"/);
  await assert.rejects(policy.toolCall('model_only', {}), /not callable from an App/);
  assert.equal(asked.length, 1, 'refused calls are never put to the person');
  verdict = false;
  await assert.rejects(
    policy.toolCall('open', {}),
    (e: unknown) => e instanceof JsonRpcError && e.code === ErrorCode.UserRejected,
  );
  assert.equal(policy.link('https://example.com/a'), 'https://example.com/a');
  assert.throws(() => policy.link('javascript:alert(1)'), /Only http\(s\) links/);
  assert.throws(() => policy.link('https://user:pw@example.com/'), /without credentials/);
  assert.throws(() => policy.link(42), /absolute URL/);
});
