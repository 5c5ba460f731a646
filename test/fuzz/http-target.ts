import fc from 'fast-check';
import { z } from 'zod';
import type { SseSink } from '../../src/index.js';
import { createStreamableHttpHandler, McpServer, type StreamableHttpHandler } from '../../src/index.js';
import { expect, type FuzzTarget } from './target.js';

/** One generated HTTP exchange, as plain JSON. */
export interface HttpInput {
  stateful: boolean;
  method: string;
  path: string;
  headers: Record<string, string>;
  /** Index into the live session ids (set up once), or -1 for the generated header value. */
  session: number;
  body: string;
}

const REVISIONS = ['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25', '2026-07-28'];
const odd = fc.string({ unit: 'binary', maxLength: 24 });
const pick = <T>(values: T[]) =>
  fc.oneof({ weight: 5, arbitrary: fc.constantFrom(...values) }, { weight: 1, arbitrary: odd });

const headers = fc.record(
  {
    'content-type': pick(['application/json', 'application/json; charset=utf-8', 'text/plain', '']),
    accept: pick(['application/json, text/event-stream', 'application/json', 'text/event-stream', '*/*', '']),
    'mcp-session-id': pick(['', 'x', 'a'.repeat(300)]),
    'mcp-protocol-version': pick(REVISIONS),
    'last-event-id': pick(['0', '1', 'abc_1', '-1']),
    origin: pick(['http://localhost', 'http://127.0.0.1:3000', 'http://evil.example', 'null']),
    host: pick(['127.0.0.1:3000', 'localhost', 'evil.example', '[::1]:80']),
    authorization: pick(['Bearer x', 'Basic Zm9vOmJhcg==', 'Bearer ']),
    'mcp-method': pick(['tools/call', 'ping', '']),
    'mcp-name': pick(['echo', '']),
    'content-length': pick(['0', '10', '-1', '99999999999']),
  },
  { requiredKeys: [] },
);

const METHODS = [
  'initialize',
  'ping',
  'tools/list',
  'tools/call',
  'resources/list',
  'resources/read',
  'resources/templates/list',
  'resources/subscribe',
  'prompts/list',
  'prompts/get',
  'completion/complete',
  'logging/setLevel',
  'subscriptions/listen',
  'server/discover',
  'tasks/get',
  'notifications/initialized',
  'notifications/cancelled',
  'notifications/roots/list_changed',
];

const meta = fc.oneof(
  fc.constant(undefined),
  fc.record(
    {
      'io.modelcontextprotocol/protocolVersion': pick(REVISIONS),
      'io.modelcontextprotocol/clientCapabilities': fc.oneof(fc.constant({}), fc.jsonValue({ maxDepth: 2 })),
      'io.modelcontextprotocol/clientInfo': fc.oneof(
        fc.constant({ name: 'fuzz', version: '1' }),
        fc.jsonValue({ maxDepth: 2 }),
      ),
      'io.modelcontextprotocol/logLevel': pick(['debug', 'info', 'error']),
      progressToken: fc.oneof(fc.string({ maxLength: 4 }), fc.integer()),
    },
    { requiredKeys: [] },
  ),
);

const params = fc.record(
  {
    protocolVersion: pick(REVISIONS),
    capabilities: fc.oneof(fc.constant({}), fc.jsonValue({ maxDepth: 2 })),
    clientInfo: fc.oneof(fc.constant({ name: 'fuzz', version: '1' }), fc.jsonValue({ maxDepth: 2 })),
    name: pick(['echo', 'fail', 'throws', 'image', 'greet']),
    arguments: fc.oneof(
      fc.record({ text: fc.oneof(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 1 })) }),
      fc.jsonValue({ maxDepth: 2 }),
    ),
    uri: pick(['test://static', 'test://items/7', 'test://items/', 'file:///etc/passwd']),
    level: pick(['debug', 'info', 'warning', 'emergency']),
    ref: fc.oneof(
      fc.constant({ type: 'ref/prompt', name: 'greet' }),
      fc.constant({ type: 'ref/resource', uri: 'test://items/{id}' }),
      fc.jsonValue({ maxDepth: 2 }),
    ),
    argument: fc.oneof(fc.constant({ name: 'name', value: 'a' }), fc.jsonValue({ maxDepth: 2 })),
    cursor: odd,
    requestId: fc.oneof(fc.string({ maxLength: 4 }), fc.integer()),
    taskId: odd,
    _meta: meta,
  },
  { requiredKeys: [] },
);

const message = fc.record(
  {
    jsonrpc: fc.oneof({ weight: 9, arbitrary: fc.constant('2.0') }, { weight: 1, arbitrary: fc.jsonValue() }),
    id: fc.oneof(fc.integer(), fc.string({ maxLength: 6 }), fc.constant(null)),
    method: pick(METHODS),
    params: fc.oneof(
      { weight: 9, arbitrary: params },
      { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 2 }) },
    ),
    result: fc.jsonValue({ maxDepth: 2 }),
  },
  { requiredKeys: ['jsonrpc'] },
);

const body = fc.oneof(
  { weight: 8, arbitrary: message.map((m) => JSON.stringify(m)) },
  { weight: 2, arbitrary: fc.array(message, { maxLength: 4 }).map((ms) => JSON.stringify(ms)) },
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v)) },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 64 }) },
  { weight: 1, arbitrary: fc.constantFrom('', '{', '[]', 'null', '{"jsonrpc":"2.0"', 'x'.repeat(70_000)) },
);

const arbitrary: fc.Arbitrary<HttpInput> = fc.record({
  stateful: fc.boolean(),
  method: fc.oneof(
    { weight: 8, arbitrary: fc.constant('POST') },
    { weight: 2, arbitrary: fc.constantFrom('GET', 'DELETE', 'PUT', 'OPTIONS', 'HEAD', 'PATCH') },
    { weight: 1, arbitrary: odd },
  ),
  path: fc.oneof({ weight: 9, arbitrary: fc.constant('/mcp') }, { weight: 1, arbitrary: odd }),
  headers,
  session: fc.integer({ min: -1, max: 3 }),
  body,
});

/** Longest an exchange may take before it counts as a hang. */
const HANG_MS = 5_000;
const MAX_BODY = 64 * 1024;

export function fuzzServer(errors: Error[]): McpServer {
  const server = new McpServer({ name: 'fuzz', version: '1' }, { onerror: (error) => errors.push(error) });
  server.tool(
    'echo',
    { description: 'Echoes.', inputSchema: z.object({ text: z.string() }) },
    ({ text }) => text,
  );
  server.tool('fail', { description: 'A tool error.' }, () => ({
    content: [{ type: 'text', text: 'no' }],
    isError: true,
  }));
  server.tool('throws', { description: 'Throws.' }, () => {
    throw new Error('thrown on purpose');
  });
  server.tool('image', { description: 'An image.' }, () => ({
    content: [{ type: 'image', data: 'AA==', mimeType: 'image/png' }],
  }));
  server.resource('test://static', { name: 'static' }, () => 'static');
  server.resourceTemplate(
    'test://items/{id}',
    { name: 'item', complete: { id: () => ['1', '2'] } },
    (params) => `item ${JSON.stringify(params)}`,
  );
  server.prompt(
    'greet',
    { description: 'Greets.', arguments: { name: { required: true } } },
    ({ name }) => `Hello, ${name}`,
  );
  return server;
}

interface Endpoint {
  handler: StreamableHttpHandler;
  sessions: string[];
}

let endpoints: { stateful: Endpoint; stateless: Endpoint } | undefined;
const serverErrors: Error[] = [];

/** A sink that takes what the handler writes and then goes away like a client would. */
class FuzzSink implements SseSink {
  closed = false;
  onclose: (() => void) | undefined;
  written = 0;
  write(text: string): boolean {
    if (this.closed) return false;
    this.written += text.length;
    return true;
  }
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.onclose?.();
  }
}

function requestOf(input: HttpInput, sessions: string[]) {
  const headers = new Map(Object.entries(input.headers).map(([k, v]) => [k.toLowerCase(), v]));
  const live = sessions[input.session];
  if (live !== undefined) headers.set('mcp-session-id', live);
  const controller = new AbortController();
  return {
    controller,
    request: {
      method: input.method.toUpperCase(),
      path: input.path,
      query: new URLSearchParams(),
      header: (name: string) => headers.get(name),
      text: async (limit: number) => (Buffer.byteLength(input.body) > limit ? undefined : input.body),
      signal: controller.signal,
    },
  };
}

async function initSessions(handler: StreamableHttpHandler): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < 4; i++) {
    const reply = await handler.handle(
      requestOf(
        {
          stateful: true,
          method: 'POST',
          path: '/mcp',
          session: -1,
          headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
          body: JSON.stringify({
            jsonrpc: '2.0',
            id: 1,
            method: 'initialize',
            params: {
              protocolVersion: '2025-11-25',
              capabilities: {},
              clientInfo: { name: 'fuzz', version: '1' },
            },
          }),
        },
        [],
      ).request,
    );
    const id = reply.headers['mcp-session-id'];
    expect(id !== undefined, `initialize gave no session: ${reply.status}`);
    ids.push(id);
  }
  return ids;
}

/**
 * Random methods, headers and bodies (valid messages of every era, near-misses, batches, any JSON, any text,
 * oversized) against the Streamable HTTP core in process: every exchange gets a well-formed reply in time, error
 * replies carry a JSON-RPC error, and no programming error (TypeError, RangeError, …) reaches the server's onerror.
 */
export const httpHandler: FuzzTarget<HttpInput> = {
  name: 'http-handler',
  weight: 1,
  arbitrary,
  async setup() {
    const stateful = createStreamableHttpHandler(fuzzServer(serverErrors), {
      maxBodyBytes: MAX_BODY,
      maxSessions: 2_000,
      keepAliveMs: 0,
    });
    const stateless = createStreamableHttpHandler(fuzzServer(serverErrors), {
      sessions: false,
      maxBodyBytes: MAX_BODY,
    });
    endpoints = {
      stateful: { handler: stateful, sessions: await initSessions(stateful) },
      stateless: { handler: stateless, sessions: [] },
    };
  },
  async teardown() {
    await endpoints?.stateful.handler.close();
    await endpoints?.stateless.handler.close();
    endpoints = undefined;
  },
  async check(input) {
    if (endpoints === undefined) await this.setup?.();
    const endpoint = input.stateful ? endpoints!.stateful : endpoints!.stateless;
    const { request, controller } = requestOf(input, endpoint.sessions);
    let timer: ReturnType<typeof setTimeout> | undefined;
    const hang = new Promise<never>((_r, reject) => {
      timer = setTimeout(() => reject(new Error(`no reply within ${HANG_MS} ms`)), HANG_MS);
    });
    try {
      const reply = await Promise.race([endpoint.handler.handle(request), hang]);
      expect(
        Number.isInteger(reply.status) && reply.status >= 200 && reply.status <= 599,
        `status ${reply.status}`,
      );
      for (const [k, v] of Object.entries(reply.headers))
        expect(typeof v === 'string', `header ${k} is not a string`);
      if ('sse' in reply) {
        const sink = new FuzzSink();
        reply.sse(sink);
        // The client reads what is there, then goes away.
        await new Promise((resolve) => setImmediate(resolve));
        controller.abort();
        sink.close();
      } else if (reply.status >= 400 && reply.body) {
        const parsed = JSON.parse(reply.body) as { jsonrpc?: unknown; error?: { code?: unknown } };
        expect(
          parsed.jsonrpc === '2.0' && Number.isInteger(parsed.error?.code),
          `error reply without a JSON-RPC error: ${reply.body.slice(0, 200)}`,
        );
      } else if (reply.body) JSON.parse(reply.body);
    } finally {
      clearTimeout(timer);
    }
    const bad = serverErrors.find(
      (e) =>
        e instanceof TypeError ||
        e instanceof RangeError ||
        e instanceof ReferenceError ||
        e instanceof SyntaxError,
    );
    serverErrors.length = 0;
    if (bad) throw new Error(`programming error reached onerror: ${bad.stack ?? String(bad)}`);
  },
};
