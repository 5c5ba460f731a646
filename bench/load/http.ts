// The HTTP load generator: spawns an HTTP bench server (which prints `listening <port>`), opens N keep-alive
// clients (one undici Client, one connection each), performs the initialize handshake per client for session modes,
// and drives `tools/call echo` through load/driver.ts. Every reply is checked: status 200, then the JSON body or the
// SSE events are parsed and the echoed text compared. The server's memory is read on demand (SIGUSR2 makes a bench
// server collect garbage twice and print `memory <json>`).
import { type ChildProcess, spawn } from 'node:child_process';
import { Client } from 'undici';
import { cpuMs, peakRssKiB } from '../lib/proc.js';
import type { CallTarget } from './driver.js';
import { MODERN_META, MODERN_VERSION, PROTOCOL_VERSION, type ServerCommand } from './stdio.js';

/** How the generator talks: stateless 2025 requests, a session per client, or the stateless 2026-07-28 revision. */
export type HttpStyle = 'stateless' | 'session' | 'modern';

const PATH = '/mcp';
const STDERR_TAIL = 4096;
const ACCEPT = 'application/json, text/event-stream';
const HEAD = '{"jsonrpc":"2.0","id":';
const CLIENT_INFO = { name: 'mcpkit-bench', version: '1.0.0' };
const INITIALIZE = JSON.stringify({
  jsonrpc: '2.0',
  id: 0,
  method: 'initialize',
  params: { protocolVersion: PROTOCOL_VERSION, capabilities: {}, clientInfo: CLIENT_INFO },
});
const INITIALIZED = '{"jsonrpc":"2.0","method":"notifications/initialized"}';

/** What process.memoryUsage() reported in the server after forced collections. */
export interface ServerMemory {
  rss: number;
  heapUsed: number;
  heapTotal: number;
  external: number;
  arrayBuffers: number;
  gc: boolean;
}

/** One spawned HTTP bench server on 127.0.0.1. */
export class HttpServerProcess {
  readonly pid: number;
  readonly #child: ChildProcess;
  readonly #exited: Promise<void>;
  #exitedNow = false;
  #stopping = false;
  #stderr = '';
  #line = '';
  #waiters: { prefix: string; resolve: (rest: string) => void; reject: (error: Error) => void }[] = [];

  constructor(server: ServerCommand, mode: string) {
    const child = spawn(server.command, [...server.args, '0', mode], { stdio: ['ignore', 'pipe', 'pipe'] });
    this.#child = child;
    if (child.pid === undefined) throw new Error(`could not spawn ${server.command}`);
    this.pid = child.pid;
    this.#exited = new Promise((resolve) => {
      child.once('exit', (code, signal) => {
        this.#exitedNow = true;
        if (!this.#stopping) {
          const why = new Error(
            `server exited (code ${code}, signal ${signal}); stderr: ${this.#stderr.trim()}`,
          );
          for (const w of this.#waiters.splice(0)) w.reject(why);
        }
        resolve();
      });
    });
    child.stdout!.setEncoding('utf8');
    child.stdout!.on('data', (chunk: string) => {
      this.#line += chunk;
      for (;;) {
        const nl = this.#line.indexOf('\n');
        if (nl < 0) break;
        const line = this.#line.slice(0, nl);
        this.#line = this.#line.slice(nl + 1);
        const at = this.#waiters.findIndex((w) => line.startsWith(w.prefix));
        if (at >= 0) this.#waiters.splice(at, 1)[0]!.resolve(line);
      }
    });
    child.stderr!.on('data', (chunk: Buffer) => {
      this.#stderr = (this.#stderr + chunk.toString()).slice(-STDERR_TAIL);
    });
  }

  /** What the server wrote to stderr lately. */
  get stderr(): string {
    return this.#stderr;
  }

  /** Resolves with the server's origin (`http://127.0.0.1:<port>`) once it prints its ready line. */
  async ready(timeoutMs: number): Promise<string> {
    const line = await this.#next('listening ', timeoutMs);
    return `http://127.0.0.1:${Number(line.slice('listening '.length))}`;
  }

  /**
   * The rest of the first line starting with `prefix` (e.g. the bearer token an auth-mode server prints before its
   * ready line). Call it before awaiting `ready`: lines printed before a waiter exists are not kept.
   */
  line(prefix: string, timeoutMs: number): Promise<string> {
    return this.#next(prefix, timeoutMs).then((line) => line.slice(prefix.length));
  }

  /** The server's memory after forced collections (it must run with --expose-gc). */
  async memory(timeoutMs: number): Promise<ServerMemory> {
    const waiting = this.#next('memory ', timeoutMs);
    this.#child.kill('SIGUSR2');
    const line = await waiting;
    return JSON.parse(line.slice('memory '.length)) as ServerMemory;
  }

  /** CPU time the server has used so far (ms). */
  cpuMs(): number {
    return cpuMs(this.pid);
  }

  /** Peak resident set size so far (KiB). */
  peakRssKiB(): number {
    return peakRssKiB(this.pid);
  }

  /** Stops the server by its pid: SIGTERM, then SIGKILL after `graceMs`. */
  async stop(graceMs = 1000): Promise<void> {
    this.#stopping = true;
    for (const w of this.#waiters.splice(0)) w.reject(new Error('server stopped'));
    if (this.#exitedNow) return;
    this.#child.kill('SIGTERM');
    const timer = setTimeout(() => this.#child.kill('SIGKILL'), graceMs);
    await this.#exited;
    clearTimeout(timer);
  }

  #next(prefix: string, timeoutMs: number): Promise<string> {
    return new Promise((resolve, reject) => {
      const waiter = {
        prefix,
        resolve: (line: string) => {
          clearTimeout(timer);
          resolve(line);
        },
        reject: (error: Error) => {
          clearTimeout(timer);
          reject(error);
        },
      };
      const timer = setTimeout(() => {
        const at = this.#waiters.indexOf(waiter);
        if (at >= 0) this.#waiters.splice(at, 1);
        reject(
          new Error(`no "${prefix.trim()}" line within ${timeoutMs} ms; stderr: ${this.#stderr.trim()}`),
        );
      }, timeoutMs);
      this.#waiters.push(waiter);
      if (this.#exitedNow) waiter.reject(new Error(`server already exited; stderr: ${this.#stderr.trim()}`));
    });
  }
}

/** One keep-alive client: one connection, and its session (if any). */
interface Conn {
  client: Client;
  headers: Record<string, string>;
}

/** The JSON-RPC messages of a reply body: the JSON body itself, or the `data` of each SSE event. */
function messagesOf(contentType: string | undefined, text: string): unknown[] {
  if (contentType?.startsWith('text/event-stream')) {
    const out: unknown[] = [];
    for (const event of text.split(/\r?\n\r?\n/)) {
      let data = '';
      for (const line of event.split(/\r?\n/)) {
        if (line.startsWith('data:')) data += (data === '' ? '' : '\n') + line.slice(line[5] === ' ' ? 6 : 5);
      }
      if (data !== '') out.push(JSON.parse(data));
    }
    return out;
  }
  return [JSON.parse(text)];
}

function header(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

/** N keep-alive HTTP clients driving one endpoint; a CallTarget for load/driver.ts. */
export class HttpLoad implements CallTarget {
  onreply: (id: number) => void = () => {};
  onfail: (error: Error) => void = () => {};
  readonly #origin: string;
  readonly #style: HttpStyle;
  readonly #conns: Conn[] = [];
  readonly #idle: Conn[] = [];
  #rest = '';
  #text = '';

  readonly #extra: Record<string, string>;

  /** `extraHeaders` go on every request (an `authorization` bearer token in the auth workload). */
  constructor(origin: string, style: HttpStyle, extraHeaders: Record<string, string> = {}) {
    this.#origin = origin;
    this.#style = style;
    this.#extra = extraHeaders;
  }

  /** Opens `clients` connections; in session style each performs initialize + notifications/initialized. */
  async connect(clients: number): Promise<void> {
    const opened = await Promise.all(
      Array.from({ length: clients }, () => openConn(this.#origin, this.#style, this.#extra)),
    );
    this.#conns.push(...opened);
    this.#idle.push(...opened);
  }

  /** Prepares the `tools/call echo` request that `send(id)` posts. */
  prepareEcho(text: string): void {
    this.#text = text;
    const params: Record<string, unknown> = { name: 'echo', arguments: { text } };
    if (this.#style === 'modern') params._meta = MODERN_META;
    this.#rest = `,"method":"tools/call","params":${JSON.stringify(params)}}`;
  }

  send(id: number): void {
    const conn = this.#idle.pop();
    if (conn === undefined) {
      this.onfail(new Error('more calls in flight than clients'));
      return;
    }
    conn.client
      .request({ path: PATH, method: 'POST', headers: conn.headers, body: HEAD + id + this.#rest })
      .then(async (res) => {
        const text = await res.body.text();
        if (res.statusCode !== 200) throw new Error(`HTTP ${res.statusCode}: ${text.slice(0, 300)}`);
        const reply = messagesOf(header(res.headers['content-type']), text).find(
          (m) => (m as { id?: unknown }).id === id,
        ) as { result?: { content?: { type?: unknown; text?: unknown }[] } } | undefined;
        const block = reply?.result?.content?.[0];
        if (reply?.result?.content?.length !== 1 || block?.type !== 'text' || block.text !== this.#text) {
          throw new Error(`wrong echo reply: ${text.slice(0, 300)}`);
        }
        this.#idle.push(conn);
        this.onreply(id);
      })
      .catch((error: unknown) => this.onfail(error instanceof Error ? error : new Error(String(error))));
  }

  /** Closes every connection. */
  async close(): Promise<void> {
    await Promise.all(this.#conns.map((c) => c.client.destroy()));
    this.#conns.length = 0;
    this.#idle.length = 0;
  }
}

async function post(
  client: Client,
  headers: Record<string, string>,
  body: string,
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; text: string }> {
  const res = await client.request({ path: PATH, method: 'POST', headers, body });
  return { status: res.statusCode, headers: res.headers, text: await res.body.text() };
}

/** One connection; in session style, with an initialized session whose id its headers carry. */
async function openConn(origin: string, style: HttpStyle, extra: Record<string, string> = {}): Promise<Conn> {
  const client = new Client(origin, { pipelining: 1, keepAliveTimeout: 60_000, keepAliveMaxTimeout: 60_000 });
  const base: Record<string, string> = { 'content-type': 'application/json', accept: ACCEPT, ...extra };
  if (style === 'modern') {
    return {
      client,
      headers: {
        ...base,
        'mcp-protocol-version': MODERN_VERSION,
        'mcp-method': 'tools/call',
        'mcp-name': 'echo',
      },
    };
  }
  if (style === 'stateless')
    return { client, headers: { ...base, 'mcp-protocol-version': PROTOCOL_VERSION } };
  try {
    const headers = await initializeSession(client, base);
    return { client, headers };
  } catch (error) {
    await client.destroy();
    throw error;
  }
}

/** initialize, then notifications/initialized; resolves with the headers of the session's later requests. */
async function initializeSession(
  client: Client,
  base: Record<string, string>,
): Promise<Record<string, string>> {
  const init = await post(client, base, INITIALIZE);
  const sessionId = header(init.headers['mcp-session-id']);
  const reply = messagesOf(header(init.headers['content-type']), init.text).find(
    (m) => (m as { id?: unknown }).id === 0,
  ) as { result?: { protocolVersion?: unknown } } | undefined;
  if (init.status !== 200 || sessionId === undefined || typeof reply?.result?.protocolVersion !== 'string') {
    throw new Error(`initialize failed: HTTP ${init.status} ${init.text.slice(0, 300)}`);
  }
  const headers = {
    ...base,
    'mcp-session-id': sessionId,
    'mcp-protocol-version': reply.result.protocolVersion,
  };
  const done = await post(client, headers, INITIALIZED);
  if (done.status !== 202) throw new Error(`notifications/initialized: HTTP ${done.status} ${done.text}`);
  return headers;
}

/** Opens `count` sessions (initialize + notifications/initialized each) over `parallel` keep-alive connections. */
export async function openSessions(origin: string, count: number, parallel: number): Promise<void> {
  const base: Record<string, string> = { 'content-type': 'application/json', accept: ACCEPT };
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(parallel, count) }, async () => {
      const client = new Client(origin, {
        pipelining: 1,
        keepAliveTimeout: 60_000,
        keepAliveMaxTimeout: 60_000,
      });
      try {
        while (next < count) {
          next++;
          await initializeSession(client, base);
        }
      } finally {
        await client.destroy();
      }
    }),
  );
}
