// Shared helpers of the protocol end-to-end tests: a raw JSON-RPC peer on one end of an in-memory pair
// (to play a client or a server byte by byte), a send-recording transport wrapper, and waits that fail
// loudly instead of hanging. Not a test file itself.
import { setImmediate as immediate } from 'node:timers/promises';
import type { Parsed } from '../../src/jsonrpc/parse.js';
import type {
  JsonObject,
  JsonRpcErrorObject,
  JsonRpcMessage,
  JsonRpcNotification,
  JsonRpcRequest,
  JsonRpcResponse,
  RequestId,
} from '../../src/jsonrpc/types.js';
import type { Transport } from '../../src/protocol/transport.js';
import type { ServerSession } from '../../src/server/dispatch/session.js';
import type { McpServer } from '../../src/server/server.js';
import { createLinkedTransports, type MemoryTransport } from '../../src/transport/memory.js';

/** Generous bound for "eventually happens" waits; never decides pass/fail of a timing property. */
export const EVENTUALLY_MS = 5000;

/** Resolves with `promise`, or rejects if it takes longer than `ms` (keeps the event loop alive meanwhile). */
export function deadline<T>(promise: Promise<T>, what: string, ms = EVENTUALLY_MS): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms waiting for ${what}`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** Waits until `check()` is true, polling; fails after `ms`. */
export async function eventually(check: () => boolean, what: string, ms = EVENTUALLY_MS): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await sleep(5);
  }
}

/** A ref'd sleep. */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Lets every queued microtask chain and in-memory delivery run to completion. */
export async function settle(rounds = 5): Promise<void> {
  for (let i = 0; i < rounds; i++) await immediate();
}

/** A promise with its resolve function outside (a gate a handler can wait on). */
export function gate<T = void>(): { promise: Promise<T>; open: (value: T) => void } {
  let open!: (value: T) => void;
  const promise = new Promise<T>((resolve) => {
    open = resolve;
  });
  return { promise, open };
}

/** What a raw peer answers to an incoming request: a result, an error, or nothing at all (`undefined`). */
export type RawAnswer = { result: JsonObject } | { error: JsonRpcErrorObject } | undefined;

/**
 * A JSON-RPC peer with no protocol logic: records every message it receives (batches and invalid payloads
 * too), sends whatever it is told to, and can answer incoming requests through a callback.
 */
export class RawPeer {
  readonly transport: MemoryTransport;
  /** Every well-formed message received, in order. */
  readonly messages: JsonRpcMessage[] = [];
  /** Every batch (JSON array) received. */
  readonly batches: unknown[][] = [];
  /** Every payload that was not a well-formed message or batch. */
  readonly invalid: Exclude<Parsed, { kind: 'message' | 'batch' }>[] = [];
  closed = false;
  answer: ((request: JsonRpcRequest) => RawAnswer | Promise<RawAnswer>) | undefined;
  #nextId = 1000;
  #listeners = new Set<() => void>();

  constructor(transport: MemoryTransport) {
    this.transport = transport;
  }

  start(): Promise<void> {
    return this.transport.start({
      onmessage: (message) => {
        this.messages.push(message);
        if ('method' in message && 'id' in message && this.answer) void this.#reply(message);
        this.#changed();
      },
      oninvalid: (parsed) => {
        if (parsed.kind === 'batch') this.batches.push(parsed.items);
        else this.invalid.push(parsed);
        this.#changed();
      },
      onerror: () => {},
      onclose: () => {
        this.closed = true;
        this.#changed();
      },
    });
  }

  /** Sends one message object. */
  send(message: JsonRpcMessage | JsonRpcMessage[]): Promise<void> {
    return this.transport.send(message);
  }

  /** Sends raw text, exactly as a wire would carry it. */
  sendRaw(text: string): Promise<void> {
    return this.transport.sendRaw(text);
  }

  /** Sends a request and waits for the response with its id. */
  async request(
    method: string,
    params?: JsonObject,
    id: RequestId = this.#nextId++,
  ): Promise<JsonRpcResponse> {
    const message: JsonRpcRequest =
      params === undefined ? { jsonrpc: '2.0', id, method } : { jsonrpc: '2.0', id, method, params };
    const seen = this.messages.length;
    await this.send(message);
    return (await this.waitFor(
      (m) => !('method' in m) && m.id === id,
      `the response to ${method} (id ${JSON.stringify(id)})`,
      seen,
    )) as JsonRpcResponse;
  }

  /** Sends a notification. */
  notify(method: string, params?: JsonObject): Promise<void> {
    const message: JsonRpcNotification =
      params === undefined ? { jsonrpc: '2.0', method } : { jsonrpc: '2.0', method, params };
    return this.send(message);
  }

  /** A fresh request id. */
  nextId(): number {
    return this.#nextId++;
  }

  /** Waits for the first message (from index `from`) matching `match`. */
  waitFor(match: (m: JsonRpcMessage) => boolean, what: string, from = 0): Promise<JsonRpcMessage> {
    return deadline(
      new Promise<JsonRpcMessage>((resolve) => {
        const check = () => {
          const found = this.messages.slice(from).find(match);
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

  /** Waits for the first batch received from index `from`. */
  waitForBatch(what: string, from = 0): Promise<unknown[]> {
    return deadline(
      new Promise<unknown[]>((resolve) => {
        const check = () => {
          const found = this.batches[from];
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

  /** Messages received with this method. */
  received(method: string): JsonRpcMessage[] {
    return this.messages.filter((m) => 'method' in m && m.method === method);
  }

  /** Responses received for this id. */
  responses(id: RequestId | null): JsonRpcResponse[] {
    return this.messages.filter((m): m is JsonRpcResponse => !('method' in m) && m.id === id);
  }

  async #reply(request: JsonRpcRequest): Promise<void> {
    const answer = await this.answer?.(request);
    if (answer === undefined || this.closed) return;
    await this.send({ jsonrpc: '2.0', id: request.id, ...answer } as JsonRpcResponse);
  }

  #changed(): void {
    for (const listener of [...this.#listeners]) listener();
  }
}

/** Options of {@link rawClient}. */
export interface RawClientOptions {
  /** The revision to request; `false` skips initialization altogether. Default 2025-11-25. */
  version?: string | false;
  /** Client capabilities to declare. */
  capabilities?: JsonObject;
  /** Whether to send notifications/initialized after the initialize result. Default true. */
  initialized?: boolean;
}

/** Connects a raw client to `server` over an in-memory pair, optionally performing the handshake. */
export async function rawClient(
  server: McpServer,
  options: RawClientOptions = {},
): Promise<{ raw: RawPeer; session: ServerSession; init: JsonRpcResponse | undefined }> {
  const [clientSide, serverSide] = createLinkedTransports();
  const session = await server.connect(serverSide);
  const raw = new RawPeer(clientSide);
  await raw.start();
  const version = options.version ?? '2025-11-25';
  if (version === false) return { raw, session, init: undefined };
  const init = await raw.request('initialize', {
    protocolVersion: version,
    capabilities: options.capabilities ?? {},
    clientInfo: { name: 'raw-client', version: '0.0.0' },
  });
  if (options.initialized !== false) await raw.notify('notifications/initialized');
  return { raw, session, init };
}

/** A raw peer playing the server, answering initialize like a real server unless told otherwise. */
export async function fakeServer(
  answer: (request: JsonRpcRequest) => RawAnswer | Promise<RawAnswer>,
): Promise<{ raw: RawPeer; clientTransport: Transport }> {
  const [clientSide, serverSide] = createLinkedTransports();
  const raw = new RawPeer(serverSide);
  raw.answer = answer;
  await raw.start();
  return { raw, clientTransport: clientSide };
}

/** The usual initialize result of a fake server speaking `version` with `capabilities`. */
export function initializeResult(
  version = '2025-11-25',
  capabilities: JsonObject = { tools: {} },
): RawAnswer {
  return {
    result: { protocolVersion: version, capabilities, serverInfo: { name: 'fake-server', version: '0.0.0' } },
  };
}

/** Wraps a transport so every message it sends is recorded (in send order). */
export function recordSends(transport: Transport): { transport: Transport; sent: JsonRpcMessage[] } {
  const sent: JsonRpcMessage[] = [];
  const wrapped: Transport = {
    start: (receiver) => transport.start(receiver),
    send: (message, options) => {
      if (Array.isArray(message)) sent.push(...message);
      else sent.push(message);
      return transport.send(message, options);
    },
    close: () => transport.close(),
  };
  return { transport: wrapped, sent };
}

/** The error object of a response, failing clearly when it was a result. */
export function errorOf(response: JsonRpcResponse): JsonRpcErrorObject {
  if (!('error' in response)) throw new Error(`expected an error response, got ${JSON.stringify(response)}`);
  return response.error;
}

/** The result object of a response, failing clearly when it was an error. */
export function resultOf(response: JsonRpcResponse): JsonObject {
  if (!('result' in response)) throw new Error(`expected a result response, got ${JSON.stringify(response)}`);
  return response.result;
}
