// A raw node:http server for the HTTP client transport tests: records every request (with its arrival time)
// and lets each test answer them by hand, so retry timing, Last-Event-ID, 404s and backoff can be staged.
// Listens on 127.0.0.1 only; close() destroys every open connection.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { formatSseEvent, type SseEvent } from '../../src/framing/sse.js';
import type { TransportReceiver } from '../../src/protocol/transport.js';

/** One request as the mock server saw it. */
export interface Seen {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  /** The parsed JSON body (undefined when empty or not JSON). */
  body: any;
  /** performance.now() when the request's body had arrived. */
  at: number;
  res: http.ServerResponse;
}

export type Handler = (req: Seen, res: http.ServerResponse) => void | Promise<void>;

/** A mock MCP endpoint on 127.0.0.1 with a hand-written handler. */
export class MockServer {
  readonly requests: Seen[] = [];
  readonly #server: http.Server;
  readonly #waiters: { match: (r: Seen) => boolean; resolve: (r: Seen) => void }[] = [];
  handler: Handler;
  url = '';

  private constructor(handler: Handler) {
    this.handler = handler;
    this.#server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let body: unknown;
        try {
          body = text === '' ? undefined : JSON.parse(text);
        } catch {
          body = undefined;
        }
        const seen: Seen = {
          method: req.method ?? '',
          url: req.url ?? '',
          headers: req.headers,
          body,
          at: performance.now(),
          res,
        };
        this.requests.push(seen);
        for (const w of [...this.#waiters]) {
          if (w.match(seen)) {
            this.#waiters.splice(this.#waiters.indexOf(w), 1);
            w.resolve(seen);
          }
        }
        Promise.resolve(this.handler(seen, res)).catch((e: unknown) => {
          if (!res.headersSent) res.writeHead(500);
          res.end(String(e));
        });
      });
    });
  }

  static async start(handler: Handler): Promise<MockServer> {
    const mock = new MockServer(handler);
    await new Promise<void>((resolve) => mock.#server.listen(0, '127.0.0.1', resolve));
    const { port } = mock.#server.address() as AddressInfo;
    mock.url = `http://127.0.0.1:${port}/mcp`;
    return mock;
  }

  /** Resolves with the first request (already seen or still to come) that matches, or rejects after `ms`. */
  waitFor(match: (r: Seen) => boolean, ms = 3_000): Promise<Seen> {
    const found = this.requests.find(match);
    if (found) return Promise.resolve(found);
    return new Promise((resolve, reject) => {
      const waiter = {
        match,
        resolve: (r: Seen) => {
          clearTimeout(timer);
          resolve(r);
        },
      };
      const timer = setTimeout(() => {
        this.#waiters.splice(this.#waiters.indexOf(waiter), 1);
        reject(new Error(`no matching request within ${ms} ms`));
      }, ms);
      this.#waiters.push(waiter);
    });
  }

  /** Requests with this HTTP method (and JSON-RPC method, when given). */
  seen(method: string, rpcMethod?: string): Seen[] {
    return this.requests.filter(
      (r) => r.method === method && (rpcMethod === undefined || r.body?.method === rpcMethod),
    );
  }

  async close(): Promise<void> {
    this.#server.closeAllConnections();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }
}

/** Answers with one JSON body. */
export function json(
  res: http.ServerResponse,
  body: unknown,
  headers: Record<string, string> = {},
  status = 200,
): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

/** Starts an SSE reply. */
export function openSse(res: http.ServerResponse, headers: Record<string, string> = {}): void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', ...headers });
  res.flushHeaders();
}

/** Writes one SSE event. */
export function event(res: http.ServerResponse, e: SseEvent): void {
  res.write(formatSseEvent(e));
}

/** Writes one message as an SSE `message` event. */
export function message(res: http.ServerResponse, body: unknown, id?: string): void {
  event(
    res,
    id === undefined
      ? { event: 'message', data: JSON.stringify(body) }
      : { event: 'message', id, data: JSON.stringify(body) },
  );
}

/** An `initialize` result. */
export function initResult(id: unknown, protocolVersion = '2025-11-25'): unknown {
  return {
    jsonrpc: '2.0',
    id,
    result: { protocolVersion, capabilities: { tools: {} }, serverInfo: { name: 'mock', version: '1.0.0' } },
  };
}

/** A receiver that records everything a transport delivers. */
export class Recorder implements TransportReceiver {
  readonly messages: any[] = [];
  readonly invalid: unknown[] = [];
  readonly errors: Error[] = [];
  readonly closes: (Error | undefined)[] = [];
  readonly #waiters: { match: (m: any) => boolean; resolve: (m: any) => void }[] = [];

  onmessage(message: unknown): void {
    this.messages.push(message);
    for (const w of [...this.#waiters]) {
      if (w.match(message)) {
        this.#waiters.splice(this.#waiters.indexOf(w), 1);
        w.resolve(message);
      }
    }
  }
  oninvalid(parsed: unknown): void {
    this.invalid.push(parsed);
  }
  onerror(error: Error): void {
    this.errors.push(error);
  }
  onclose(error?: Error): void {
    this.closes.push(error);
  }

  /** Resolves with the first delivered message that matches, or rejects after `ms`. */
  waitFor(match: (m: any) => boolean, ms = 3_000): Promise<any> {
    const found = this.messages.find(match);
    if (found) return Promise.resolve(found);
    return new Promise((resolve, reject) => {
      const waiter = {
        match,
        resolve: (m: any) => {
          clearTimeout(timer);
          resolve(m);
        },
      };
      const timer = setTimeout(() => {
        this.#waiters.splice(this.#waiters.indexOf(waiter), 1);
        reject(new Error(`no matching message within ${ms} ms`));
      }, ms);
      this.#waiters.push(waiter);
    });
  }

  /** Resolves with the response to request `id`. */
  response(id: unknown, ms?: number): Promise<any> {
    return this.waitFor((m) => m.id === id && !('method' in m), ms);
  }
}

/** Sleeps `ms`. */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Polls until `check` holds; fails after `ms`. */
export async function eventually(check: () => boolean, what: string, ms = 3_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(10);
  }
}

/** Options of {@link mcpHandler}. */
export interface McpMock {
  /** Session id assigned at `initialize` (a function gives a fresh one each time). */
  session?: string | (() => string);
  /** Protocol revision the initialize result names. */
  version?: string;
  /** The GET handler; default 405. */
  get?: Handler;
  /** The DELETE handler; default 200. */
  delete?: Handler;
  /** Handlers of POSTed requests by JSON-RPC method; others are answered `{}` as JSON. */
  methods?: Record<string, Handler>;
}

/** A handler that plays a minimal MCP server: sessions, 202 for notifications, JSON answers; overridable. */
export function mcpHandler(mock: McpMock = {}): Handler {
  return (req, res) => {
    if (req.method === 'GET') {
      if (mock.get) return mock.get(req, res);
      res.writeHead(405).end();
      return;
    }
    if (req.method === 'DELETE') {
      if (mock.delete) return mock.delete(req, res);
      res.writeHead(200).end();
      return;
    }
    const body = req.body;
    if (!body || !('method' in body) || !('id' in body)) {
      res.writeHead(202).end();
      return;
    }
    const own = mock.methods?.[body.method];
    if (own) return own(req, res);
    if (body.method === 'initialize') {
      const session = typeof mock.session === 'function' ? mock.session() : mock.session;
      json(
        res,
        initResult(body.id, mock.version),
        session === undefined ? {} : { 'mcp-session-id': session },
      );
      return;
    }
    json(res, { jsonrpc: '2.0', id: body.id, result: {} });
  };
}

/** The JSON-RPC messages a client sends to set up a session. */
export const INIT = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } },
} as const;
export const INITIALIZED = { jsonrpc: '2.0', method: 'notifications/initialized' } as const;
