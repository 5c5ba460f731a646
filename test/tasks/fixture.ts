// Shared fixture of the tasks-extension tests: one server definition with task-enabled tools, a transport
// wrapper that records traffic and stamps an authenticated principal on what the server receives, and a
// connect helper over the in-memory pair (serialised, so everything crosses a JSON "wire").
import { Client, type ClientOptions } from '../../src/client/client.js';
import { JsonRpcError } from '../../src/jsonrpc/errors.js';
import type {
  JsonObject,
  JsonRpcMessage,
  JsonRpcNotification,
  JsonRpcRequest,
} from '../../src/jsonrpc/types.js';
import type { SendOptions, Transport, TransportReceiver } from '../../src/protocol/transport.js';
import { McpServer, type ServerOptions } from '../../src/server/server.js';
import { currentTask } from '../../src/server/tasks/current.js';
import { inputRequired } from '../../src/spec/input-required.js';
import { TASKS_EXTENSION } from '../../src/spec/modern.js';
import type { ClientCapabilities } from '../../src/spec/types.js';
import { createLinkedTransports } from '../../src/transport/memory.js';

/** Client capabilities declaring the tasks extension (and everything tasks may ask for). */
export const WITH_TASKS: ClientCapabilities = {
  elicitation: { form: {} },
  sampling: {},
  roots: {},
  extensions: { [TASKS_EXTENSION]: {} },
};
/** The same client capabilities without the extension. */
export const WITHOUT_TASKS: ClientCapabilities = { elicitation: { form: {} }, sampling: {}, roots: {} };

export const NAME_SCHEMA = {
  type: 'object',
  properties: { name: { type: 'string' } },
  required: ['name'],
} as const;

/** A promise with its resolver, for tools the tests release by hand. */
export interface Gate {
  promise: Promise<void>;
  release(): void;
  /** The handler holding on this gate has begun. */
  started: boolean;
  aborted: boolean;
  finished: boolean;
}

/** What the fixture's tools saw, per test. */
export interface Observed {
  gates: Map<string, Gate>;
  progressCalls: number;
  /** Problems the server reported (onerror); the tests expect none. */
  errors: Error[];
}

export function gate(observed: Observed, key: string): Gate {
  let release!: () => void;
  const promise = new Promise<void>((r) => {
    release = r;
  });
  const g: Gate = { promise, release, started: false, aborted: false, finished: false };
  observed.gates.set(key, g);
  return g;
}

/** The task-enabled server the tests use (pollIntervalMs 10 unless a tool says otherwise). */
export function createTaskServer(observed: Observed, options: ServerOptions = {}): McpServer {
  const server = new McpServer(
    { name: 'tasks-fixture', version: '1.0.0' },
    { tasks: { pollIntervalMs: 10 }, onerror: (e) => observed.errors.push(e), ...options },
  );
  server.tool(
    'build',
    {
      task: 'optional',
      inputSchema: { type: 'object', properties: { ms: { type: 'number' } } },
    },
    async (args, ctx) => {
      const ms = typeof args.ms === 'number' ? args.ms : 0;
      observed.progressCalls++;
      await ctx.progress(1, 2, 'halfway');
      await ctx.log('info', 'building');
      await new Promise((r) => setTimeout(r, ms));
      return { content: [{ type: 'text', text: `built in ${ms} ms` }], structuredContent: { ms } };
    },
  );
  server.tool('slow_poll', { task: { pollIntervalMs: 100 } }, async () => {
    await new Promise((r) => setTimeout(r, 350));
    return 'slow done';
  });
  server.tool('deploy', { task: 'required' }, () => 'deployed');
  server.tool('plain', {}, () => 'plain result');
  server.tool('ask', { task: 'optional' }, async (_args, ctx) => {
    const who = await ctx.elicit({ message: 'Your name?', requestedSchema: NAME_SCHEMA });
    const name = who.action === 'accept' ? String(who.content?.name) : 'nobody';
    const sampled = await ctx.sample({
      messages: [{ role: 'user', content: { type: 'text', text: `greet ${name}` } }],
      maxTokens: 10,
    });
    const roots = await ctx.listRoots();
    const text =
      sampled.content && !Array.isArray(sampled.content) && sampled.content.type === 'text'
        ? sampled.content.text
        : '';
    return `hello ${name}; ${text}; ${roots.length} roots`;
  });
  server.tool('explicit', { task: 'optional' }, (_args, ctx) => {
    const answer = ctx.mrtr.inputResponses.confirm as
      | { action?: string; content?: { name?: string } }
      | undefined;
    if (!answer) {
      return inputRequired(
        {
          confirm: {
            method: 'elicitation/create',
            params: { message: 'Sure?', requestedSchema: NAME_SCHEMA },
          },
        },
        { round: 1 },
      );
    }
    return `confirmed by ${answer.content?.name} after round ${(ctx.mrtr.state as { round: number }).round}`;
  });
  server.tool(
    'hold',
    { task: 'optional', inputSchema: { type: 'object', properties: { key: { type: 'string' } } } },
    async (args, ctx) => {
      const key = String(args.key);
      const g = observed.gates.get(key) ?? gate(observed, key);
      g.started = true;
      ctx.signal.addEventListener('abort', () => {
        g.aborted = true;
      });
      await currentTask(ctx)?.setStatusMessage(`holding ${key}`);
      // Ignores cancellation on purpose: a late completion must not overwrite "cancelled".
      await g.promise;
      g.finished = true;
      return `released ${key}`;
    },
  );
  server.tool('fail', { task: 'optional' }, () => {
    throw new JsonRpcError(4001, 'Quota exceeded', { retryAfterMs: 5 });
  });
  server.tool('soft_fail', { task: 'optional' }, () => ({
    content: [{ type: 'text', text: 'could not build' }],
    isError: true,
  }));
  server.tool('short_lived', { task: { ttlMs: 60 } }, async (_args, ctx) => {
    const g = observed.gates.get('short_lived') ?? gate(observed, 'short_lived');
    await new Promise<void>((resolve) =>
      ctx.signal.addEventListener('abort', () => {
        g.aborted = true;
        resolve();
      }),
    );
    return 'never seen';
  });
  return server;
}

export function newObserved(): Observed {
  return { gates: new Map(), progressCalls: 0, errors: [] };
}

/** Records both directions and, on the server side, stamps `authInfo` on every incoming message. */
export class Wire implements Transport {
  readonly sent: JsonRpcMessage[] = [];
  readonly received: JsonRpcMessage[] = [];
  readonly #inner: Transport;
  readonly #authInfo: unknown;

  constructor(inner: Transport, authInfo?: unknown) {
    this.#inner = inner;
    this.#authInfo = authInfo;
  }

  get sessionId(): string | undefined {
    return this.#inner.sessionId;
  }

  start(receiver: TransportReceiver): Promise<void> {
    return this.#inner.start({
      onmessage: (message, context) => {
        this.received.push(message);
        receiver.onmessage(
          message,
          this.#authInfo === undefined ? context : { ...context, authInfo: this.#authInfo },
        );
      },
      oninvalid: (parsed, context) => receiver.oninvalid(parsed, context),
      onerror: (error) => receiver.onerror(error),
      onclose: (error) => receiver.onclose(error),
    });
  }

  send(message: JsonRpcMessage | JsonRpcMessage[], options?: SendOptions): Promise<void> {
    for (const m of Array.isArray(message) ? message : [message]) this.sent.push(m);
    return this.#inner.send(message, options);
  }

  close(): Promise<void> {
    return this.#inner.close();
  }

  /** Requests this side sent, by method. */
  requests(method: string): JsonRpcRequest[] {
    return this.sent.filter((m): m is JsonRpcRequest => 'method' in m && 'id' in m && m.method === method);
  }

  /** Notifications this side received, by method. */
  notifications(method: string): JsonRpcNotification[] {
    return this.received.filter(
      (m): m is JsonRpcNotification => 'method' in m && !('id' in m) && m.method === method,
    );
  }

  /** Raw results received. */
  results(): JsonObject[] {
    return this.received.flatMap((m) => ('result' in m ? [m.result as JsonObject] : []));
  }
}

/** Connects a client to `server` over a serialised in-memory pair; `authInfo` is what the server sees. */
export async function connect(
  server: McpServer,
  options: ClientOptions & { authInfo?: unknown } = {},
): Promise<{ client: Client; wire: Wire }> {
  const { authInfo, ...clientOptions } = options;
  const [clientSide, serverSide] = createLinkedTransports({ serialize: true });
  await server.connect(new Wire(serverSide, authInfo));
  const wire = new Wire(clientSide);
  const client = new Client(
    { name: 'tasks-test-client', version: '0.0.1' },
    { era: 'stateless', onerror: () => undefined, ...clientOptions },
  );
  await client.connect(wire);
  return { client, wire };
}

/** Client handlers answering deterministically (elicitation: Ada; sampling: echo; roots: one). */
export function handlers(seen: { elicitations: number; samplings: number }): ClientOptions {
  return {
    elicitation: () => {
      seen.elicitations++;
      return { action: 'accept', content: { name: 'Ada' } };
    },
    sampling: (params) => {
      seen.samplings++;
      const first = params.messages[0]?.content;
      const text = first && !Array.isArray(first) && first.type === 'text' ? first.text : '';
      return { role: 'assistant', content: { type: 'text', text: `sampled ${text}` }, model: 'test' };
    },
    roots: [{ uri: 'file:///work', name: 'work' }],
  };
}

/** Polls `check` until it holds (bounded). */
export async function eventually(
  check: () => boolean | Promise<boolean>,
  what: string,
  ms = 3_000,
): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}
