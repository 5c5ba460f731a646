// Shared helpers of the Streamable HTTP server end-to-end tests: a small McpServer with test tools, a tracker
// that stops every server a test file started, raw node:http requests (every header under the test's control),
// an SSE reader that can be cut at any event, and bounded waits. Not a test file itself.

import type { Agent } from 'node:http';
import { type ClientRequest, type IncomingHttpHeaders, type IncomingMessage, request } from 'node:http';
import { z } from 'zod';
import { type SseEvent, SseParser } from '../../src/framing/sse.js';
import type { JsonObject, JsonRpcMessage, RequestId } from '../../src/jsonrpc/types.js';
import { type RunningServer, type ServeOptions, serve } from '../../src/node.js';
import type { RegisteredHandle } from '../../src/server/definitions/registry.js';
import type { ToolUpdate } from '../../src/server/definitions/tools.js';
import { McpServer } from '../../src/server/server.js';

/** Generous bound of every "eventually" wait: never what decides a timing property. */
export const EVENTUALLY_MS = 5_000;
/** Per-test bound (node:test `timeout`). */
export const TEST_TIMEOUT = 20_000;
/** The Accept header a conforming client sends on POST. */
export const ACCEPT_BOTH = 'application/json, text/event-stream';
/** The revision the raw tests negotiate unless told otherwise. */
export const LATEST = '2025-11-25';

export type Json = Record<string, unknown>;

/** A ref'd sleep. */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Resolves with `promise`, or rejects after `ms` naming `what` (the timer never outlives the race). */
export function within<T>(promise: Promise<T>, what: string, ms = EVENTUALLY_MS): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms waiting for ${what}`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** Polls `check` until it holds; fails after `ms`. */
export async function eventually(
  check: () => boolean | Promise<boolean>,
  what: string,
  ms = EVENTUALLY_MS,
): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await sleep(10);
  }
}

/**
 * Named gates a test opens step by step: a tool waits for a permit at each step, so the test decides exactly
 * when the server emits the next message (no timing involved).
 */
export class Gates {
  readonly #permits = new Map<string, number>();
  readonly #waiters = new Map<string, (() => void)[]>();
  readonly #arrivals = new Map<string, number>();
  readonly #watchers = new Set<() => void>();

  /** Called by a tool: resolves once a permit for `key` is available (and takes it). */
  wait(key: string): Promise<void> {
    this.#arrivals.set(key, (this.#arrivals.get(key) ?? 0) + 1);
    for (const w of this.#watchers) w();
    const permits = this.#permits.get(key) ?? 0;
    if (permits > 0) {
      this.#permits.set(key, permits - 1);
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      const list = this.#waiters.get(key) ?? [];
      list.push(resolve);
      this.#waiters.set(key, list);
    });
  }

  /** Lets `n` more steps of `key` proceed. */
  release(key: string, n = 1): void {
    for (let i = 0; i < n; i++) {
      const waiter = this.#waiters.get(key)?.shift();
      if (waiter) waiter();
      else this.#permits.set(key, (this.#permits.get(key) ?? 0) + 1);
    }
  }

  /** Resolves once the tools have reached `count` wait points of `key` in total. */
  arrived(key: string, count = 1, ms = EVENTUALLY_MS): Promise<void> {
    return within(
      new Promise<void>((resolve) => {
        const check = () => {
          if ((this.#arrivals.get(key) ?? 0) >= count) {
            this.#watchers.delete(check);
            resolve();
          }
        };
        this.#watchers.add(check);
        check();
      }),
      `gate ${key} to be reached ${count} time(s)`,
      ms,
    );
  }

  /** Releases every waiter (so no handler stays suspended after a test). */
  releaseAll(): void {
    for (const [key, list] of this.#waiters) {
      for (const w of list.splice(0)) w();
      this.#permits.set(key, 1_000_000);
    }
  }
}

/** The test server definition and the handles a test pokes at. */
export interface TestServer {
  server: McpServer;
  gates: Gates;
  /** A tool whose handle tests disable/enable to provoke `notifications/tools/list_changed`. */
  target: RegisteredHandle<ToolUpdate>;
  /** Problems the server reported (kept for diagnostics; never printed). */
  errors: Error[];
}

/**
 * The small server every HTTP test serves: echo, a slow progress tool, a gated tool, sampling, elicitation,
 * logging, a flood of logs, a tool that closes its own SSE connection (SSE polling); a resource and a prompt.
 */
export function makeServer(): TestServer {
  const errors: Error[] = [];
  const gates = new Gates();
  const server = new McpServer(
    { name: 'http-test-server', version: '1.0.0' },
    { onerror: (error) => errors.push(error) },
  );
  server.tool(
    'echo',
    { description: 'Echoes its text.', inputSchema: z.object({ text: z.string() }) },
    ({ text }) => `echo: ${text}`,
  );
  server.tool(
    'slow_progress',
    {
      description: 'Sends `steps` progress notifications `delayMs` apart, waits `tailMs`, then answers.',
      inputSchema: z.object({
        steps: z.number().int().min(0).max(100).default(5),
        delayMs: z.number().int().min(0).max(1000).default(50),
        tailMs: z.number().int().min(0).max(1000).default(0),
        tag: z.string().default(''),
      }),
    },
    async ({ steps, delayMs, tailMs, tag }, ctx) => {
      for (let i = 1; i <= steps; i++) {
        await sleep(delayMs);
        await ctx.progress(i, steps, `${tag}step ${i}`);
      }
      if (tailMs > 0) await sleep(tailMs);
      return `${tag}done after ${steps} steps`;
    },
  );
  server.tool(
    'gated',
    {
      description:
        'For each step waits for the test to open gate `key`, then sends progress; one more opening answers.',
      inputSchema: z.object({
        key: z.string(),
        steps: z.number().int().min(0).max(100).default(0),
        log: z.boolean().default(false),
      }),
    },
    async ({ key, steps, log }, ctx) => {
      for (let i = 1; i <= steps; i++) {
        await gates.wait(key);
        if (log) await ctx.log('info', `${key} log ${i}`);
        else await ctx.progress(i, steps, `${key} step ${i}`);
      }
      await gates.wait(key);
      return `gated ${key} done`;
    },
  );
  server.tool(
    'sample',
    { description: 'Asks the client to sample.', inputSchema: z.object({ prompt: z.string() }) },
    async ({ prompt }, ctx) => {
      const result = await ctx.sample({
        messages: [{ role: 'user', content: { type: 'text', text: prompt } }],
        maxTokens: 50,
      });
      const blocks = Array.isArray(result.content) ? result.content : [result.content];
      return `sampled: ${blocks.map((b) => (b.type === 'text' ? b.text : '')).join('')}`;
    },
  );
  server.tool('elicit', { description: 'Asks the user for a name.' }, async (_args, ctx) => {
    const result = await ctx.elicit({
      message: 'Your name?',
      requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
    });
    return `elicited: ${JSON.stringify(result)}`;
  });
  server.tool(
    'log',
    {
      description: 'Sends `count` log messages at `level`, then answers.',
      inputSchema: z.object({
        count: z.number().int().min(0).max(100).default(1),
        level: z.enum(['debug', 'info', 'error']).default('info'),
      }),
    },
    async ({ count, level }, ctx) => {
      for (let i = 1; i <= count; i++) await ctx.log(level, `log ${i}`, 'test');
      return `logged ${count}`;
    },
  );
  server.tool(
    'flood',
    {
      description:
        'Sends `count` log messages of `size` characters, yielding to the event loop now and then.',
      inputSchema: z.object({
        count: z.number().int().min(1).max(100_000),
        size: z.number().int().min(1).max(1_000_000),
        key: z.string().optional(),
      }),
    },
    async ({ count, size, key }, ctx) => {
      const payload = 'x'.repeat(size);
      for (let i = 1; i <= count; i++) {
        await ctx.log('info', payload);
        if (i % 16 === 0) await new Promise((resolve) => setImmediate(resolve));
      }
      // Lets a test see that the flood is over (and decide when the answer goes out).
      if (key !== undefined) await gates.wait(key);
      return `flooded ${count}`;
    },
  );
  server.tool(
    'reconnect',
    {
      description: 'Closes the SSE connection of this request (SSE polling), then answers after `delayMs`.',
      inputSchema: z.object({ delayMs: z.number().int().min(0).max(5000).default(100) }),
    },
    async ({ delayMs }, ctx) => {
      ctx.closeStream();
      await sleep(delayMs);
      return 'reconnected';
    },
  );
  const target = server.tool('target', { description: 'A tool that tests hide and show.' }, () => 'target');
  server.resource(
    'test://static',
    { name: 'static', description: 'A static text resource.', mimeType: 'text/plain' },
    () => 'static text',
  );
  server.prompt(
    'greet',
    { description: 'Greets someone.', arguments: { name: { required: true } } },
    ({ name }) => `Hello, ${name}!`,
  );
  return { server, gates, target, errors };
}

/** A served test server. */
export interface Served extends TestServer {
  running: RunningServer;
  url: string;
  port: number;
}

/** Starts servers and stops every one of them (and releases every gate) in an `after` hook. */
export class Servers {
  readonly #all: Served[] = [];
  readonly #agents: Agent[] = [];

  /** Serves a fresh test server on 127.0.0.1 with `options`. */
  async start(options: ServeOptions = {}): Promise<Served> {
    const test = makeServer();
    const running = await serve(test.server, options);
    const port = new URL(running.url).port;
    const served: Served = { ...test, running, url: running.url, port: Number(port) };
    this.#all.push(served);
    return served;
  }

  /** Remembers an agent to destroy at the end. */
  agent<A extends Agent>(agent: A): A {
    this.#agents.push(agent);
    return agent;
  }

  async closeAll(): Promise<void> {
    for (const s of this.#all) s.gates.releaseAll();
    for (const a of this.#agents) a.destroy();
    await Promise.all(this.#all.splice(0).map((s) => s.running.close()));
  }
}

/** A complete HTTP response. */
export interface RawResponse {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
  /** True when the whole message arrived (false: the server cut the connection). */
  complete: boolean;
}

/** Options of one raw request. */
export interface RawInit {
  method?: string;
  headers?: Record<string, string | undefined>;
  body?: string | Buffer | undefined;
  agent?: Agent | false;
  /** How long to wait for the response head and then for its body (default EVENTUALLY_MS). */
  timeoutMs?: number;
}

function cleanHeaders(headers: Record<string, string | undefined> = {}): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(headers)) if (v !== undefined) out[k] = v;
  return out;
}

/** Starts a node:http request with exactly the given headers (plus Host and Content-Length unless given). */
export function startRequest(
  url: string,
  init: RawInit = {},
): { req: ClientRequest; response: Promise<IncomingMessage> } {
  const req = request(url, {
    method: init.method ?? 'GET',
    headers: cleanHeaders(init.headers),
    agent: init.agent ?? false,
  });
  const response = new Promise<IncomingMessage>((resolve, reject) => {
    req.once('response', resolve);
    req.once('error', reject);
  });
  return { req, response };
}

/** Sends one request and reads the whole response. */
export async function raw(url: string, init: RawInit = {}): Promise<RawResponse> {
  const { req, response } = startRequest(url, init);
  req.end(init.body);
  const res = await within(response, `a response to ${init.method ?? 'GET'} ${url}`, init.timeoutMs);
  return readAll(res, init.timeoutMs);
}

/** Reads a response to its end (or until the connection drops). */
export function readAll(res: IncomingMessage, timeoutMs = EVENTUALLY_MS): Promise<RawResponse> {
  return within(
    new Promise<RawResponse>((resolve) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        body += chunk;
      });
      res.on('error', () => undefined);
      res.once('close', () =>
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body, complete: res.complete }),
      );
    }),
    'the response body',
    timeoutMs,
  );
}

/** The headers of a POST from a conforming client. */
export function postHeaders(
  sessionId: string | undefined,
  extra: Record<string, string | undefined> = {},
): Record<string, string | undefined> {
  return {
    accept: ACCEPT_BOTH,
    'content-type': 'application/json',
    'mcp-protocol-version': LATEST,
    'mcp-session-id': sessionId,
    ...extra,
  };
}

/** A JSON-RPC request body. */
export function rpcBody(id: RequestId, method: string, params?: JsonObject): string {
  return JSON.stringify(
    params === undefined ? { jsonrpc: '2.0', id, method } : { jsonrpc: '2.0', id, method, params },
  );
}

/** A tools/call body. */
export function toolCall(
  id: RequestId,
  name: string,
  args: Json = {},
  progressToken?: string | number,
): string {
  const params: Json = { name, arguments: args };
  if (progressToken !== undefined) params._meta = { progressToken };
  return rpcBody(id, 'tools/call', params as JsonObject);
}

/** The events of a complete SSE body. */
export function parseSse(body: string): SseEvent[] {
  return new SseParser().push(body.endsWith('\n\n') ? body : `${body}\n\n`);
}

/** The JSON-RPC messages of a reply (JSON or SSE). */
export function messagesOf(res: RawResponse): JsonRpcMessage[] {
  const type = String(res.headers['content-type'] ?? '');
  if (type.startsWith('text/event-stream')) {
    return parseSse(res.body)
      .filter((e) => e.data !== '')
      .map((e) => JSON.parse(e.data) as JsonRpcMessage);
  }
  if (res.body === '') return [];
  const value = JSON.parse(res.body) as JsonRpcMessage | JsonRpcMessage[];
  return Array.isArray(value) ? value : [value];
}

/** The response with `id` in a reply, or undefined. */
export function responseOf(res: RawResponse, id: RequestId): Json | undefined {
  return messagesOf(res).find((m) => !('method' in m) && m.id === id) as Json | undefined;
}

/** The `result` of the response with `id` in a reply (throws when there is none). */
export function resultOf<T = Json>(res: RawResponse, id: RequestId): T {
  const response = responseOf(res, id);
  if (response === undefined || !('result' in response))
    throw new Error(`no result for id ${String(id)}: ${res.body}`);
  return response.result as T;
}

/** The text of a tools/call result response. */
export function resultText(response: unknown): string {
  const result = (response as Json | undefined)?.result as
    | { content?: { type: string; text?: string }[] }
    | undefined;
  return (result?.content ?? []).map((c) => c.text ?? '').join('');
}

/** POSTs `body` with a conforming client's headers. */
export function post(
  url: string,
  sessionId: string | undefined,
  body: string,
  extra: Record<string, string | undefined> = {},
): Promise<RawResponse> {
  return raw(url, { method: 'POST', headers: postHeaders(sessionId, extra), body });
}

/** Options of {@link initSession}. */
export interface InitOptions {
  protocolVersion?: string;
  capabilities?: Json;
  headers?: Record<string, string | undefined>;
  /** Send notifications/initialized afterwards. Default true. */
  initialized?: boolean;
}

/** Runs the handshake over raw HTTP: initialize, then notifications/initialized. */
export async function initSession(
  url: string,
  options: InitOptions = {},
): Promise<{ sessionId: string; result: Json; response: RawResponse }> {
  const body = rpcBody(0, 'initialize', {
    protocolVersion: options.protocolVersion ?? LATEST,
    capabilities: (options.capabilities ?? {}) as JsonObject,
    clientInfo: { name: 'raw-http-test', version: '1.0.0' },
  });
  const headers = { ...postHeaders(undefined), 'mcp-protocol-version': undefined, ...options.headers };
  const response = await raw(url, { method: 'POST', headers, body });
  if (response.status !== 200) throw new Error(`initialize answered ${response.status}: ${response.body}`);
  const sessionId = response.headers['mcp-session-id'];
  if (typeof sessionId !== 'string') throw new Error('initialize gave no mcp-session-id');
  const answer = responseOf(response, 0);
  const result = answer?.result as Json | undefined;
  if (!result) throw new Error(`initialize failed: ${response.body}`);
  if (options.initialized !== false) {
    const version = String(result.protocolVersion);
    const ack = await post(
      url,
      sessionId,
      JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
      {
        'mcp-protocol-version': version,
      },
    );
    if (ack.status !== 202) throw new Error(`notifications/initialized answered ${ack.status}`);
  }
  return { sessionId, result, response };
}

/** Calls a tool over raw HTTP and returns the whole reply and its response message. */
export async function callTool(
  url: string,
  sessionId: string | undefined,
  id: RequestId,
  name: string,
  args: Json = {},
  extra: Record<string, string | undefined> = {},
): Promise<{ res: RawResponse; response: Json | undefined; text: string }> {
  const res = await post(url, sessionId, toolCall(id, name, args), extra);
  const response = responseOf(res, id);
  return { res, response, text: resultText(response) };
}

/** A JSON-RPC error body, parsed (throws if the body is not one). */
export function errorBody(res: RawResponse): { id: unknown; error: { code: number; message: string } } {
  const value = JSON.parse(res.body) as {
    jsonrpc?: string;
    id?: unknown;
    error?: { code: number; message: string };
  };
  if (
    value.jsonrpc !== '2.0' ||
    typeof value.error?.code !== 'number' ||
    typeof value.error.message !== 'string'
  ) {
    throw new Error(`not a JSON-RPC error body: ${res.body}`);
  }
  return { id: value.id, error: value.error };
}

/** An SSE response read event by event; the test may cut it at any point. */
export class SseConnection {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly events: SseEvent[] = [];
  /** Everything received, raw. */
  text = '';
  /** Resolves when the connection ends, either way. */
  readonly ended: Promise<void>;
  #ended = false;
  #cursor = 0;
  readonly #req: ClientRequest;
  readonly #res: IncomingMessage;
  readonly #watchers = new Set<() => void>();

  constructor(req: ClientRequest, res: IncomingMessage) {
    this.#req = req;
    this.#res = res;
    this.status = res.statusCode ?? 0;
    this.headers = res.headers;
    const parser = new SseParser();
    const isSse = String(res.headers['content-type'] ?? '').startsWith('text/event-stream');
    res.setEncoding('utf8');
    res.on('data', (chunk: string) => {
      this.text += chunk;
      if (isSse) this.events.push(...parser.push(chunk));
      this.#notify();
    });
    res.on('error', () => undefined);
    this.ended = new Promise((resolve) => {
      res.once('close', () => {
        this.#ended = true;
        this.#notify();
        resolve();
      });
    });
  }

  /** True once the connection has ended. */
  get isEnded(): boolean {
    return this.#ended;
  }

  /** True when the server ended the response properly (not cut). */
  get complete(): boolean {
    return this.#res.complete;
  }

  /** The JSON-RPC messages received so far (events with data). */
  get messages(): JsonRpcMessage[] {
    return this.events.filter((e) => e.data !== '').map((e) => JSON.parse(e.data) as JsonRpcMessage);
  }

  /** The next event not yet returned by `next`; fails if the stream ends first. */
  async next(ms = EVENTUALLY_MS): Promise<SseEvent> {
    await this.#until(() => this.events.length > this.#cursor || this.#ended, 'the next SSE event', ms);
    const event = this.events[this.#cursor];
    if (event === undefined) throw new Error(`the SSE stream ended after ${this.events.length} event(s)`);
    this.#cursor++;
    return event;
  }

  /** Waits until `count` events with data (messages) have arrived; fails if the stream ends first. */
  async messagesAtLeast(count: number, ms = EVENTUALLY_MS): Promise<JsonRpcMessage[]> {
    const have = () => this.events.filter((e) => e.data !== '').length;
    await this.#until(() => have() >= count || this.#ended, `${count} SSE message(s)`, ms);
    if (have() < count) throw new Error(`the SSE stream ended after ${have()} message(s): ${this.text}`);
    return this.messages;
  }

  /** Waits for a message matching `predicate`; fails if the stream ends first. */
  async waitForMessage<T = Json>(
    predicate: (m: JsonRpcMessage) => boolean,
    what: string,
    ms = EVENTUALLY_MS,
  ): Promise<T> {
    await this.#until(() => this.messages.some(predicate) || this.#ended, what, ms);
    const found = this.messages.find(predicate);
    if (!found) throw new Error(`the SSE stream ended without ${what}: ${this.text}`);
    return found as unknown as T;
  }

  /** Waits for the end of the stream. */
  waitEnd(ms = EVENTUALLY_MS): Promise<void> {
    return within(this.ended, 'the SSE stream to end', ms);
  }

  /** Cuts the connection (a client that goes away without a word). */
  cut(): void {
    this.#req.destroy();
    this.#res.destroy();
  }

  #until(check: () => boolean, what: string, ms: number): Promise<void> {
    if (check()) return Promise.resolve();
    return within(
      new Promise<void>((resolve) => {
        const watcher = () => {
          if (check()) {
            this.#watchers.delete(watcher);
            resolve();
          }
        };
        this.#watchers.add(watcher);
      }),
      what,
      ms,
    );
  }

  #notify(): void {
    for (const w of [...this.#watchers]) w();
  }
}

/** Opens a request whose response is read as a stream of SSE events. */
export async function openSse(url: string, init: RawInit = {}): Promise<SseConnection> {
  const { req, response } = startRequest(url, init);
  req.on('error', () => undefined);
  req.end(init.body);
  const res = await within(response, `the response headers of ${init.method ?? 'GET'} ${url}`);
  return new SseConnection(req, res);
}

/** Opens the standalone GET stream of a session (or resumes a stream with `lastEventId`). */
export function openGet(
  url: string,
  sessionId: string | undefined,
  lastEventId?: string,
  extra: Record<string, string | undefined> = {},
): Promise<SseConnection> {
  return openSse(url, {
    method: 'GET',
    headers: {
      accept: 'text/event-stream',
      'mcp-session-id': sessionId,
      'mcp-protocol-version': LATEST,
      'last-event-id': lastEventId,
      ...extra,
    },
  });
}

/** POSTs `body` and reads the reply as an SSE stream (for replies the test wants to read event by event). */
export function openPost(
  url: string,
  sessionId: string | undefined,
  body: string,
  extra: Record<string, string | undefined> = {},
): Promise<SseConnection> {
  return openSse(url, { method: 'POST', headers: postHeaders(sessionId, extra), body });
}

/** The params of a message (for reading notifications and server requests). */
export function paramsOf<T = Json>(message: unknown): T {
  return (message as { params: T }).params;
}

/** True for a notification with this method. */
export function isNotification(method: string): (m: JsonRpcMessage) => boolean {
  return (m) => 'method' in m && !('id' in m) && m.method === method;
}

/** True for the response to request `id`. */
export function isResponse(id: RequestId): (m: JsonRpcMessage) => boolean {
  return (m) => !('method' in m) && m.id === id;
}

/** True for a request from the server with this method. */
export function isServerRequest(method: string): (m: JsonRpcMessage) => boolean {
  return (m) => 'method' in m && 'id' in m && m.method === method;
}

/** Opens a legacy HTTP+SSE session at `sseUrl`: its messages path, and the request holding its stream open. */
export async function legacySession(sseUrl: string): Promise<{ path: string; stream: ClientRequest }> {
  const stream = request(sseUrl, { headers: { accept: 'text/event-stream' }, agent: false });
  stream.on('error', () => undefined);
  stream.end();
  const res = await within(
    new Promise<IncomingMessage>((resolve) => stream.once('response', resolve)),
    'the legacy SSE stream',
  );
  res.setEncoding('utf8');
  let text = '';
  const path = await within(
    new Promise<string>((resolve) =>
      res.on('data', (chunk: string) => {
        text += chunk;
        const found = /event: endpoint\ndata: (\S+)/.exec(text);
        if (found) resolve(found[1] as string);
      }),
    ),
    'the endpoint event',
  );
  return { path, stream };
}
