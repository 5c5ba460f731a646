import { Client } from '../client/client.js';
import type { ClientOptions } from '../client/options.js';
import { errorMessage, McpkitError } from '../jsonrpc/errors.js';
import type { Transport } from '../protocol/transport.js';
import type { Implementation, LoggingMessageParams } from '../spec/types.js';
import type { HttpAuthorizer } from '../transport/http-client/auth-hook.js';
import { HttpClientTransport } from '../transport/http-client/fallback.js';
import { SseLegacyClientTransport } from '../transport/http-client/legacy-sse.js';
import { StdioClientTransport } from '../transport/stdio-client.js';
import type { ServerConfig } from './config/types.js';
import { serverEnvironment } from './environment.js';
import { decideSandbox, type SandboxDecision } from './sandbox/decide.js';
import { type SandboxEvent, ServerSandbox } from './sandbox/launch.js';
import type { SandboxSetting } from './sandbox/policy.js';
import { SandboxedStdioTransport } from './sandbox/sandboxed-transport.js';
import { type SandboxView, sandboxView } from './sandbox/view.js';

/** Where a server stands (`idle`: a lazy server not started yet, started when a search or a call needs it). */
export type ServerState = 'idle' | 'starting' | 'ready' | 'failed' | 'restarting' | 'disabled' | 'stopped';

/** A server's visible state. */
export interface ServerStatus {
  name: string;
  state: ServerState;
  /** Why it failed or is restarting. */
  reason?: string;
  /** The last of its stderr (stdio servers), when it failed or is restarting. */
  stderrTail?: string;
  /** Restarts since it was last stably up. */
  restarts: number;
  /** Whether it runs sandboxed and with what grants (stdio servers; after a start, what the host added too). */
  sandbox?: SandboxView;
  /** When the state was entered (ms since the epoch). */
  since: number;
}

/** How crashed stdio servers are restarted: exponential backoff with jitter, bounded. */
export interface RestartOptions {
  /** Restarts before the server counts as failed. Default 5. */
  maxRestarts?: number;
  /** The first delay, in ms; doubled each time. Default 500. */
  baseDelayMs?: number;
  /** The longest delay, in ms. Default 30 000. */
  maxDelayMs?: number;
  /** Up for this long (ms), a server's restart count starts again from zero. Default 60 000. */
  stableAfterMs?: number;
}

/** Which lists of a server changed. */
export type ListKind = 'tools' | 'prompts' | 'resources';

/** What a connection needs from the host. */
export interface ConnectionOptions {
  clientInfo: Implementation;
  /** The answers to the server's requests (sampling, elicitation, roots) and the capabilities they imply, per connection. */
  serverRequests: () => Pick<ClientOptions, 'sampling' | 'elicitation' | 'roots' | 'capabilities'>;
  connectTimeoutMs: number;
  restart: RestartOptions;
  /** Host variables to pass to spawned servers besides the allow-list (deny-listed ones only when named). */
  inheritEnv: readonly string[];
  /** The sandbox of stdio servers that set none. */
  sandbox?: SandboxSetting | undefined;
  /** What a server's sandbox tells: preparing, its start and grants, what it refused or stopped. */
  onsandbox?: ((event: SandboxEvent) => void) | undefined;
  /** A transport of the app's own for a server (an in-process server, a custom channel); undefined: from its config. */
  transportFor?: ((server: ServerConfig) => Transport | undefined) | undefined;
  /** Wraps each transport the client is given (tracing); undefined: the transport as it is. */
  wrapTransport?: ((server: string, transport: Transport) => Transport) | undefined;
  /** The authorizer of an HTTP server (an OAuth client: the transports' `auth` option). */
  authFor?: ((server: ServerConfig) => HttpAuthorizer | undefined) | undefined;
  onstatus: (status: ServerStatus) => void;
  /** The handshake is done: list what the server offers (the server counts as ready after it). */
  onready: (client: Client) => Promise<void>;
  onlistChanged: (kind: ListKind) => void;
  onlog?: ((params: LoggingMessageParams) => void) | undefined;
  onproblem: (message: string) => void;
  /** Started only when `ensure()` is called (the host's `lazy`, or the server's config). */
  lazy?: boolean;
  /** Random numbers in [0, 1) for the jitter (tests pin it). */
  random?: () => number;
}

/**
 * One server: its client, its state and its restarts. `start()` resolves once the server is ready, has failed
 * (after its bounded restarts) or is disabled; it never rejects and never waits longer than its own timeouts.
 */
export class ServerConnection {
  readonly config: ServerConfig;
  readonly #options: ConnectionOptions;
  #status: ServerStatus;
  #client: Client | undefined;
  #transport: Transport | undefined;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #readyAt = 0;
  #restarts = 0;
  readonly #auth: HttpAuthorizer | undefined;
  #stopped = false;
  #settled: Promise<void> = Promise.resolve();
  #settle: (() => void) | undefined;
  readonly #sandboxed: SandboxDecision;
  readonly #sandbox: ServerSandbox | undefined;

  constructor(config: ServerConfig, options: ConnectionOptions) {
    this.config = config;
    this.#options = options;
    this.#sandboxed = decideSandbox(config, options.sandbox);
    const t = config.transport;
    const policy = this.#sandboxed.policy;
    if (t.type === 'stdio' && policy) {
      const env = serverEnvironment(t.env, t.namedEnv, options.inheritEnv);
      this.#sandbox = new ServerSandbox(
        { command: t.command, args: t.args, env, cwd: t.cwd },
        policy,
        (event) => options.onsandbox?.(event),
      );
    }
    // One authorizer for the server's lifetime, so tokens survive reconnections.
    this.#auth = options.authFor?.(config);
    const sandbox = this.#sandboxView();
    this.#status = {
      name: config.name,
      state: config.disabled ? 'disabled' : this.lazy ? 'idle' : 'starting',
      restarts: 0,
      since: Date.now(),
      ...(sandbox ? { sandbox } : {}),
    };
  }

  get status(): ServerStatus {
    return this.#status;
  }

  /** Whether it starts only when needed (`ensure`), not with the host. */
  get lazy(): boolean {
    return this.config.lazy === true || this.#options.lazy === true;
  }

  /**
   * Starts an idle server and resolves when it is ready or failed; waits for one that is starting or restarting;
   * resolves at once otherwise. Concurrent callers share one start.
   */
  ensure(): Promise<void> {
    const state = this.#status.state;
    if (state === 'idle') return this.start();
    if (state === 'starting' || state === 'restarting') return this.#settled;
    return Promise.resolve();
  }

  /** The connected client while the server is ready. */
  get client(): Client | undefined {
    return this.#status.state === 'ready' ? this.#client : undefined;
  }

  /** Whether `client` is this connection's current one (not replaced by a restart, not stopped). */
  owns(client: Client): boolean {
    return !this.#stopped && this.#client === client;
  }

  /** The spawned process's id (stdio servers, while running; the sandbox's outermost process when sandboxed). */
  get pid(): number | undefined {
    const t = this.#transport;
    return t instanceof StdioClientTransport || t instanceof SandboxedStdioTransport ? t.pid : undefined;
  }

  /** Connects (unless disabled); resolves when the server is ready, failed or disabled. */
  start(): Promise<void> {
    if (this.config.disabled) {
      this.#set({ state: 'disabled' });
      return Promise.resolve();
    }
    this.#settled = new Promise<void>((resolve) => {
      this.#settle = resolve;
    });
    this.#set({ state: 'starting' });
    for (const note of this.#sandboxed.notes)
      this.#options.onsandbox?.({ name: 'start', outcome: 'ok', summary: note });
    const refused = this.#sandboxed.refused;
    if (refused) {
      this.#set({ state: 'failed', reason: refused.message });
      this.#settle?.();
      return this.#settled;
    }
    void this.#attempt();
    return this.#settled;
  }

  /** Disconnects for good (the process tree of a stdio server is stopped). */
  async stop(): Promise<void> {
    this.#stopped = true;
    clearTimeout(this.#timer);
    const client = this.#client;
    this.#client = undefined;
    await client?.close().catch((e: unknown) => this.#options.onproblem(errorMessage(e)));
    await this.#transport?.close().catch((e: unknown) => this.#options.onproblem(errorMessage(e)));
    this.#set({ state: 'stopped' });
    this.#settle?.();
  }

  async #attempt(): Promise<void> {
    let transport: Transport;
    try {
      transport = this.#transportFor();
    } catch (e) {
      this.#set({ state: 'failed', reason: errorMessage(e) });
      this.#settle?.();
      return;
    }
    this.#transport = transport;
    const client = new Client(this.#options.clientInfo, {
      ...this.#options.serverRequests(),
      autoRefresh: false,
      onToolsChanged: () => this.#options.onlistChanged('tools'),
      onPromptsChanged: () => this.#options.onlistChanged('prompts'),
      onResourcesChanged: () => this.#options.onlistChanged('resources'),
      onerror: (e) => this.#options.onproblem(e.message),
      onclose: (e) => this.#closed(client, e),
      ...(this.#options.onlog ? { onlog: this.#options.onlog } : {}),
    });
    this.#client = client;
    const ms = this.config.connectTimeoutMs ?? this.#options.connectTimeoutMs;
    const abort = new AbortController();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        abort.abort();
        reject(new McpkitError('REQUEST_TIMEOUT', `not ready within ${ms} ms (no answer to initialize)`));
      }, ms);
    });
    try {
      const wrap = this.#options.wrapTransport;
      const given = wrap === undefined ? transport : wrap(this.config.name, transport);
      await Promise.race([client.connect(given, { signal: abort.signal, timeout: ms }), timeout]);
    } catch (e) {
      await client.close().catch(() => undefined);
      await transport.close().catch(() => undefined);
      if (this.#stopped || this.#client !== client) return;
      // A server that cannot be sandboxed here is not worth a restart: nothing will change.
      if (e instanceof McpkitError && e.code === 'SANDBOX_UNAVAILABLE') {
        this.#set({ state: 'failed', reason: e.message });
        this.#settle?.();
      } else this.#failure(errorMessage(e));
      return;
    } finally {
      clearTimeout(timer);
    }
    if (this.#stopped || this.#client !== client) {
      await client.close().catch(() => undefined);
      return;
    }
    await this.#options.onready(client);
    if (this.#stopped || this.#client !== client) return;
    this.#readyAt = Date.now();
    this.#set({ state: 'ready' });
    this.#settle?.();
  }

  #closed(client: Client, error: Error | undefined): void {
    if (this.#stopped || this.#client !== client) return;
    const stable = this.#options.restart.stableAfterMs ?? 60_000;
    if (Date.now() - this.#readyAt >= stable) this.#restarts = 0;
    this.#failure(error ? error.message : 'the connection closed');
  }

  /** A failed start or a crash: restart a stdio server with backoff while restarts remain, else fail. */
  #failure(reason: string): void {
    const r = this.#options.restart;
    const stderrTail = this.#stderrTail();
    const restarts = this.#restarts;
    if (this.config.transport.type === 'stdio' && restarts < (r.maxRestarts ?? 5)) {
      const base = Math.min(r.maxDelayMs ?? 30_000, (r.baseDelayMs ?? 500) * 2 ** restarts);
      // Full jitter on half the delay: spread out, never below half of it.
      const delay = base / 2 + (base / 2) * (this.#options.random ?? Math.random)();
      this.#restarts = restarts + 1;
      this.#set({ state: 'restarting', reason, ...(stderrTail ? { stderrTail } : {}) });
      this.#timer = setTimeout(() => void this.#attempt(), delay);
      return;
    }
    this.#set({ state: 'failed', reason, ...(stderrTail ? { stderrTail } : {}) });
    this.#settle?.();
  }

  #stderrTail(): string | undefined {
    const t = this.#transport;
    if (!(t instanceof StdioClientTransport) && !(t instanceof SandboxedStdioTransport)) return undefined;
    const tail = t.stderrTail.trim();
    return tail === '' ? undefined : tail.slice(-2000);
  }

  /** How the server is sandboxed (stdio servers): the current run's view once started. */
  #sandboxView(): SandboxView | undefined {
    const t = this.#transport;
    if (t instanceof SandboxedStdioTransport) return t.view;
    if (this.config.transport.type !== 'stdio') return undefined;
    // The app's own transport (an in-process server): nothing was spawned, nothing sandboxed.
    if (t !== undefined && !(t instanceof StdioClientTransport))
      return { sandboxed: false, summary: 'not sandboxed (the app gives its own transport)' };
    return this.#sandbox?.view ?? sandboxView(undefined);
  }

  #transportFor(): Transport {
    const custom = this.#options.transportFor?.(this.config);
    if (custom) {
      // The app's own channel starts no process to sandbox; a server configured sandboxed must not run without it.
      if (this.#sandboxed.own)
        throw new McpkitError(
          'CONFIG_INVALID',
          `"${this.config.name}" is configured sandboxed, but the app gives its own transport, which mcpkit cannot sandbox`,
        );
      return custom;
    }
    const t = this.config.transport;
    if (t.type === 'stdio') {
      const options = {
        command: t.command,
        args: t.args,
        env: serverEnvironment(t.env, t.namedEnv, this.#options.inheritEnv),
        ...(t.cwd === undefined ? {} : { cwd: t.cwd }),
      };
      return this.#sandbox
        ? new SandboxedStdioTransport(this.#sandbox, options)
        : new StdioClientTransport(options);
    }
    const auth = this.#auth;
    const common = { headers: t.headers, ...(auth ? { auth } : {}) };
    return t.type === 'sse'
      ? new SseLegacyClientTransport(t.url, common)
      : new HttpClientTransport(t.url, common);
  }

  #set(change: Partial<ServerStatus> & { state: ServerState }): void {
    const sandbox = this.#sandboxView();
    this.#status = {
      name: this.config.name,
      restarts: this.#restarts,
      ...change,
      ...(sandbox ? { sandbox } : {}),
      since: Date.now(),
    };
    this.#options.onstatus(this.#status);
  }
}
