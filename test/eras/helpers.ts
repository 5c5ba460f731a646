// Shared helpers of the era tests (test/eras) and the official-SDK-v2 interop tests (test/interop-v2): where the
// compiled fixtures are, a transport tap that records both directions, a raw stdio process speaking JSON lines,
// raw HTTP POSTs, bounded waits, and pid bookkeeping so every process started is killed by its own pid.
// Not a test file itself.
import { type ChildProcess, spawn } from 'node:child_process';
import process from 'node:process';
import { fileURLToPath } from 'node:url';
import { Client, type ClientOptions } from '../../src/client/client.js';
import type { EraChoice } from '../../src/client/negotiate.js';
import type { JsonObject, JsonRpcMessage, JsonRpcRequest, RequestId } from '../../src/jsonrpc/types.js';
import type { SendOptions, Transport, TransportReceiver } from '../../src/protocol/transport.js';
import { META } from '../../src/spec/modern.js';
import type { Root } from '../../src/spec/types.js';
import { StreamableHttpClientTransport } from '../../src/transport/http-client/streamable.js';
import { StdioClientTransport } from '../../src/transport/stdio-client.js';

/** The dual-era server definition over stdio (compiled). */
export const DUAL_STDIO_MAIN = fileURLToPath(new URL('./fixtures/dual-stdio-main.js', import.meta.url));
/** A stateful-only stdio server that exits on any request before `initialize`, like rmcp (compiled). */
export const EXITS_BEFORE_INITIALIZE = fileURLToPath(
  new URL('./fixtures/exits-before-initialize.js', import.meta.url),
);
/** The official SDK 1.x stdio server: stateful only (compiled). */
export const OFFICIAL_V1_STDIO = fileURLToPath(
  new URL('../fixtures/official-stdio-server.js', import.meta.url),
);

/** Per-call options: far above what a local round trip needs. */
export const CALL = { timeout: 5_000 } as const;
/** Generous bound of every "eventually" wait. */
export const EVENTUALLY_MS = 5_000;
/** Per-describe bound. */
export const SUITE_TIMEOUT = 60_000;

/** A ref'd sleep. */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Resolves with `promise`, or rejects naming `what` after `ms` (the timer never outlives the race). */
export async function within<T>(promise: Promise<T>, what: string, ms = EVENTUALLY_MS): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms waiting for ${what}`)), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
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

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Remembers pids so an `after` hook can SIGKILL whatever is still running, each by its own id. */
export class Pids {
  readonly #pids = new Set<number>();

  add(pid: number | null | undefined): void {
    if (typeof pid === 'number') this.#pids.add(pid);
  }

  killAll(): void {
    for (const pid of this.#pids) {
      if (!isAlive(pid)) continue;
      try {
        process.kill(pid, 'SIGKILL');
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error;
      }
    }
    this.#pids.clear();
  }
}

/** Wraps a transport and records every message in both directions (the library is untouched). */
export class Tap implements Transport {
  readonly sent: JsonRpcMessage[] = [];
  readonly received: JsonRpcMessage[] = [];
  readonly inner: Transport;

  constructor(inner: Transport) {
    this.inner = inner;
  }

  get sessionId(): string | undefined {
    return this.inner.sessionId;
  }

  start(receiver: TransportReceiver): Promise<void> {
    return this.inner.start({
      onmessage: (message, context) => {
        this.received.push(message);
        receiver.onmessage(message, context);
      },
      oninvalid: (parsed, context) => receiver.oninvalid(parsed, context),
      onerror: (error) => receiver.onerror(error),
      onclose: (error) => receiver.onclose(error),
    });
  }

  send(message: JsonRpcMessage | JsonRpcMessage[], options?: SendOptions): Promise<void> {
    for (const m of Array.isArray(message) ? message : [message]) this.sent.push(m);
    return this.inner.send(message, options);
  }

  close(): Promise<void> {
    return this.inner.close();
  }

  /** Requests sent, by method. */
  sentRequests(method?: string): JsonRpcRequest[] {
    return this.sent.filter(
      (m): m is JsonRpcRequest => 'method' in m && 'id' in m && (method === undefined || m.method === method),
    );
  }

  /** Requests received from the server, by method. */
  receivedRequests(method?: string): JsonRpcRequest[] {
    return this.received.filter(
      (m): m is JsonRpcRequest => 'method' in m && 'id' in m && (method === undefined || m.method === method),
    );
  }

  /** Results received (successful responses). */
  results(): { id: RequestId; result: JsonObject }[] {
    return this.received.filter(
      (m): m is { jsonrpc: '2.0'; id: RequestId; result: JsonObject } => 'result' in m,
    );
  }
}

/** The handlers every era test client declares, answering deterministically. */
export interface Seen {
  elicitations: JsonObject[];
  samplings: JsonObject[];
  rootsCalls: number;
  logs: JsonObject[];
  toolsChanged: (string[] | undefined)[];
  updated: string[];
  errors: Error[];
}

/** The roots the test clients offer. */
export const ROOTS: Root[] = [{ uri: 'file:///work/project', name: 'project' }];

/** Client options with handlers for sampling, elicitation and roots that record what they were asked. */
export function recordingOptions(seen: Seen, extra: ClientOptions = {}): ClientOptions {
  return {
    sampling: (params) => {
      seen.samplings.push(params as unknown as JsonObject);
      const first = params.messages[0]?.content;
      const text = first && !Array.isArray(first) && first.type === 'text' ? first.text : '';
      return { role: 'assistant', content: { type: 'text', text: `sampled: ${text}` }, model: 'test-model' };
    },
    elicitation: (params) => {
      seen.elicitations.push(params as unknown as JsonObject);
      const schema = (params as { requestedSchema?: { properties?: JsonObject } }).requestedSchema;
      if (schema?.properties?.ok !== undefined) return { action: 'accept', content: { ok: true } };
      return { action: 'accept', content: { name: 'Ada' } };
    },
    rootsHandler: () => {
      seen.rootsCalls++;
      return ROOTS;
    },
    onlog: (entry) => seen.logs.push(entry as unknown as JsonObject),
    onToolsChanged: (tools) => seen.toolsChanged.push(tools?.map((t) => t.name)),
    onResourceUpdated: (uri) => seen.updated.push(uri),
    onerror: (error) => seen.errors.push(error),
    ...extra,
  };
}

/** A fresh, empty record of what a client saw. */
export function newSeen(): Seen {
  return {
    elicitations: [],
    samplings: [],
    rootsCalls: 0,
    logs: [],
    toolsChanged: [],
    updated: [],
    errors: [],
  };
}

/** Where a client connects: a stdio command, or an HTTP URL. */
export type Target =
  | { kind: 'stdio'; command: string; args: string[]; env?: Record<string, string> }
  | { kind: 'http'; url: string };

/** A new transport to `target` (stdio processes are recorded in `pids`). */
export function transportTo(target: Target): Transport {
  if (target.kind === 'http') return new StreamableHttpClientTransport(target.url);
  return new StdioClientTransport({
    command: target.command,
    args: target.args,
    env: target.env ?? {},
    closeTimeoutMs: 1_000,
  });
}

/** Connects a new client (wrapped in a Tap) to `target` in `era`; the stdio pid goes into `pids`. */
export async function connectClient(
  target: Target,
  era: EraChoice,
  options: ClientOptions,
  pids: Pids,
  connectOptions: { era?: EraChoice } = {},
): Promise<{ client: Client; tap: Tap }> {
  const inner = transportTo(target);
  const tap = new Tap(inner);
  const client = new Client(
    { name: 'eras-test-client', version: '0.0.1' },
    { era, probeTimeoutMs: 3_000, ...options },
  );
  try {
    await client.connect(tap, { ...CALL, ...connectOptions });
  } finally {
    if (inner instanceof StdioClientTransport) pids.add(inner.pid);
  }
  return { client, tap };
}

/** A raw response as the tests read it (result and error fields untyped). */
export interface RawReply {
  id: RequestId | null;
  result?: any;
  error?: { code: number; message: string; data?: any };
}

/** The `_meta` envelope of a raw 2026-07-28 request. */
export function envelope(capabilities: JsonObject = {}, extra: JsonObject = {}): JsonObject {
  return {
    [META.protocolVersion]: '2026-07-28',
    [META.clientCapabilities]: capabilities,
    [META.clientInfo]: { name: 'raw', version: '1' },
    ...extra,
  };
}

/** A server process spoken to with raw JSON lines (no client library in between). */
export class RawStdio {
  readonly child: ChildProcess;
  readonly messages: JsonRpcMessage[] = [];
  readonly #listeners = new Set<() => void>();
  #buffer = '';
  #next = 1;

  constructor(script: string, pids: Pids, env: Record<string, string> = {}) {
    this.child = spawn(process.execPath, [script], {
      stdio: ['pipe', 'pipe', 'pipe'],
      env: { PATH: process.env.PATH ?? '', ...env },
    });
    pids.add(this.child.pid);
    this.child.stdout?.setEncoding('utf8');
    this.child.stdout?.on('data', (chunk: string) => {
      this.#buffer += chunk;
      for (let nl = this.#buffer.indexOf('\n'); nl !== -1; nl = this.#buffer.indexOf('\n')) {
        const line = this.#buffer.slice(0, nl);
        this.#buffer = this.#buffer.slice(nl + 1);
        if (line.trim() !== '') this.messages.push(JSON.parse(line) as JsonRpcMessage);
      }
      for (const listener of [...this.#listeners]) listener();
    });
    // stderr is drained so the child never blocks on it.
    this.child.stderr?.resume();
  }

  /** Writes one message. */
  write(message: JsonObject): void {
    this.child.stdin?.write(`${JSON.stringify(message)}\n`);
  }

  /** Sends a request and resolves with its response. */
  async request(
    method: string,
    params?: JsonObject,
    id: RequestId = `raw-${this.#next++}`,
  ): Promise<RawReply> {
    this.write(
      params === undefined ? { jsonrpc: '2.0', id, method } : { jsonrpc: '2.0', id, method, params },
    );
    return (await this.waitFor(
      (m) => !('method' in m) && m.id === id,
      `the response to ${method}`,
    )) as unknown as RawReply;
  }

  /** Resolves with the first message (now or later) matching `match`. */
  waitFor(match: (m: JsonRpcMessage) => boolean, what: string): Promise<JsonRpcMessage> {
    return within(
      new Promise<JsonRpcMessage>((resolve) => {
        const check = () => {
          const found = this.messages.find(match);
          if (found === undefined) return;
          this.#listeners.delete(check);
          resolve(found);
        };
        this.#listeners.add(check);
        check();
      }),
      what,
    );
  }

  /** Ends stdin and waits (bounded) for the process to exit. */
  async stop(): Promise<void> {
    const exited = new Promise<void>((resolve) => {
      if (this.child.exitCode !== null || this.child.signalCode !== null) resolve();
      else this.child.once('exit', () => resolve());
    });
    this.child.stdin?.end();
    await within(exited, 'the server to exit after stdin closed', 3_000).catch(() => {
      if (this.child.pid !== undefined && isAlive(this.child.pid)) process.kill(this.child.pid, 'SIGKILL');
    });
  }
}

/** The text of a tool result's first text block. */
export function firstText(result: { content?: unknown }): string {
  const blocks = Array.isArray(result.content) ? result.content : [];
  const block = blocks.find((b) => (b as { type?: string }).type === 'text') as { text?: string } | undefined;
  return block?.text ?? '';
}
