import type { Client } from '../client/client.js';
import { errorMessage, McpkitError } from '../jsonrpc/errors.js';
import type { RequestOptions } from '../protocol/outgoing.js';
import type { Transport } from '../protocol/transport.js';
import type { McpServer } from '../server/server.js';
import type {
  CallToolResult,
  GetPromptResult,
  Implementation,
  Prompt,
  ReadResourceResult,
  Root,
  Tool,
} from '../spec/types.js';
import type { HttpAuthorizer } from '../transport/http-client/auth-hook.js';
import {
  type ActivityEntry,
  ActivityLog,
  type ActivityLogOptions,
  shorten,
  summarizeResult,
} from './activity-log.js';
import { type ApprovalCallback, ApprovalGate, approvalMode, deniedResult } from './approval.js';
import { type LoadConfigOptions, loadConfig } from './config/load.js';
import type { ApprovalMode, LoadedConfig, ServerConfig } from './config/types.js';
import { type ListKind, type RestartOptions, ServerConnection, type ServerStatus } from './connection.js';
import { type GatewayOptions, hostGateway } from './gateway.js';
import { type HostOAuthOptions, oauthAuthorizers } from './oauth.js';
import { listServer, RefreshScheduler } from './refresh.js';
import { Registry } from './registry.js';
import {
  type HostElicitation,
  type HostSampling,
  type SamplingReview,
  type ServerRequestOptions,
  serverRequestHandlers,
} from './server-requests.js';

/** Options of a {@link Host}. */
export interface HostOptions {
  /** How the host's clients introduce themselves. */
  clientInfo?: Implementation;
  /** Between server and tool in qualified names (overrides the config's). Default `__`. */
  separator?: string;
  /** The approval mode of tools no policy names (overrides the config's). Default `ask`. */
  defaultApproval?: ApprovalMode;
  /** Asks the person about a tool call whose mode is `ask`; without it such calls are denied. */
  approve?: ApprovalCallback;
  /** The activity log, or its options. */
  log?: ActivityLog | ActivityLogOptions;
  /** How long each server may take to become ready, in ms (a server's config may say otherwise). Default 30 000. */
  connectTimeoutMs?: number;
  /** Default timeout of each request, in ms (a server's config may say otherwise). Default 60 000. */
  requestTimeoutMs?: number;
  /** Restarts of crashed stdio servers. */
  restart?: RestartOptions;
  /** How long list changes are gathered before one refresh, in ms. Default 100. */
  refreshDebounceMs?: number;
  /** Host variables spawned servers also get (loader variables such as LD_PRELOAD only when a config names them). */
  inheritEnv?: string[];
  /** OAuth for HTTP servers: an `OAuthClient` per server, tokens in one file (see {@link HostOAuthOptions}). */
  oauth?: HostOAuthOptions;
  /**
   * A transport of the app's own for a server, called for each (re)connection: an in-process server over
   * `createLinkedTransports()`, a custom channel. Undefined: the transport its config describes.
   */
  transportFor?: (server: ServerConfig) => Transport | undefined;
  /** The authorizer of an HTTP server, for any other scheme (wins over `oauth`; undefined: none). */
  authFor?: (server: ServerConfig) => HttpAuthorizer | undefined;
  /** The host's model, answering servers' sampling requests (none: servers are told sampling is unsupported). */
  sampling?: HostSampling;
  /** The person sees each sampling request and answer and may edit or decline them. */
  reviewSampling?: SamplingReview;
  /** The app's form (and URL) prompts for servers' elicitations. */
  elicitation?: HostElicitation;
  /** The workspace folders offered to servers as roots. */
  roots?: Root[];
  /** Random numbers in [0, 1) for restart jitter. */
  random?: () => number;
}

/** Options of one {@link Host.callTool}: a request's options, and who approves this call when it must be asked. */
export interface HostCallOptions extends RequestOptions {
  /** Asks about this call instead of the host's `approve` callback (the gateway asks its connecting client). */
  approve?: ApprovalCallback;
}

/** What a registry change was. */
export interface RegistryChange {
  server: string;
  /** The lists that changed; `all` when the server came or went. */
  kinds: ListKind[] | 'all';
}

/** The events of a host. */
export interface HostEvents {
  state: (status: ServerStatus) => void;
  registry: (change: RegistryChange) => void;
  activity: (entry: ActivityEntry) => void;
}

const DEFAULT_SEPARATOR = '__';

/**
 * One application driving many MCP servers: connects to all of them in parallel (each with its own timeout, a
 * crashed stdio server restarted with backoff), keeps one registry of their tools, prompts and resources under
 * names valid for model APIs, routes calls to the owning server through the approval policy, and records every
 * step in the activity log.
 *
 * @example
 * const host = await Host.load(['.cursor/mcp.json'], {}, { approve: async (r) => (await ask(r)) ? 'allow-once' : 'deny' });
 * await host.start();
 * const result = await host.callTool('filesystem__read_file', { path: '/tmp/x' });
 */
export class Host {
  readonly log: ActivityLog;
  readonly #options: HostOptions;
  readonly #connections = new Map<string, ServerConnection>();
  readonly #registry: Registry;
  readonly #gate: ApprovalGate;
  readonly #listeners: { [K in keyof HostEvents]: Set<HostEvents[K]> } = {
    state: new Set(),
    registry: new Set(),
    activity: new Set(),
  };
  readonly #refresh: RefreshScheduler;
  readonly #requestTimeoutMs: number;
  readonly #serverRequests: ServerRequestOptions;
  #roots: Root[];
  readonly #authFor: ((server: ServerConfig) => HttpAuthorizer | undefined) | undefined;

  /** Reads config files (see {@link loadConfig}) and makes a host of their servers. */
  static async load(
    files: string | readonly string[],
    load: LoadConfigOptions = {},
    options: HostOptions = {},
  ): Promise<Host> {
    return new Host(await loadConfig(files, load), options);
  }

  constructor(config: LoadedConfig | readonly ServerConfig[], options: HostOptions = {}) {
    const loaded: LoadedConfig = isLoaded(config)
      ? config
      : { servers: [...config], settings: {}, files: [] };
    this.#options = options;
    this.#requestTimeoutMs = options.requestTimeoutMs ?? 60_000;
    this.#roots = options.roots ?? [];
    this.#serverRequests = {
      sampling: options.sampling,
      reviewSampling: options.reviewSampling,
      elicitation: options.elicitation,
      roots: () => this.#roots,
    };
    this.#authFor = options.authFor ?? (options.oauth ? oauthAuthorizers(options.oauth) : undefined);
    this.log = options.log instanceof ActivityLog ? options.log : new ActivityLog(options.log);
    this.log.subscribe((entry) => this.#emit('activity', entry));
    const separator = options.separator ?? loaded.settings.separator ?? DEFAULT_SEPARATOR;
    if (!/^[a-zA-Z0-9_-]{1,8}$/.test(separator))
      throw new McpkitError(
        'CONFIG_INVALID',
        `The separator must be 1 to 8 of a-z A-Z 0-9 _ -, got ${JSON.stringify(separator)}`,
      );
    const hostDefault = options.defaultApproval ?? loaded.settings.defaultApproval ?? 'ask';
    this.#registry = new Registry(
      separator,
      (server, tool) => approvalMode(server, tool.name, tool.annotations, hostDefault),
      (server, message) =>
        this.log.record({ kind: 'server', server, outcome: 'warning', summary: shorten(message) }),
    );
    this.#gate = new ApprovalGate(options.approve);
    this.#refresh = new RefreshScheduler(options.refreshDebounceMs ?? 100, async (server, kinds) => {
      const connection = this.#connections.get(server);
      const client = connection?.client;
      if (connection && client) await this.#list(connection.config, client, kinds, kinds);
    });
    for (const server of loaded.servers) {
      if (this.#connections.has(server.name))
        throw new McpkitError('CONFIG_INVALID', `Two servers are named "${server.name}"`);
      this.#connections.set(server.name, this.#connect(server));
    }
  }

  /** Starts every server in parallel; resolves when each is ready, failed or disabled (never rejects). */
  async start(): Promise<ServerStatus[]> {
    await Promise.all([...this.#connections.values()].map((c) => c.start()));
    return this.servers;
  }

  /** Stops every server (stdio process trees included) and writes out the log. */
  async close(): Promise<void> {
    this.#refresh.cancel();
    await Promise.all([...this.#connections.values()].map((c) => c.stop()));
    await this.log.flush();
  }

  /** Every server's state. */
  get servers(): ServerStatus[] {
    return [...this.#connections.values()].map((c) => c.status);
  }

  /** One server's state. */
  server(name: string): ServerStatus | undefined {
    return this.#connections.get(name)?.status;
  }

  /** The process id of a running stdio server. */
  pidOf(name: string): number | undefined {
    return this.#connections.get(name)?.pid;
  }

  /** The client of a ready server (for what the host does not wrap). */
  clientOf(name: string): Client | undefined {
    return this.#connections.get(name)?.client;
  }

  /** The registry: qualified tools, prompts, resources and templates of every ready server. */
  get registry(): Registry {
    return this.#registry;
  }

  /** The tools as the model sees them (qualified names). */
  tools(): Tool[] {
    return this.#registry.tools().map((t) => t.definition);
  }

  /** The prompts under their qualified names. */
  prompts(): Prompt[] {
    return this.#registry.prompts().map((p) => p.definition);
  }

  /**
   * The registry served as one MCP server (see {@link hostGateway}): qualified tools, prompts and resources, with the
   * approval policy and the activity log applied; `ask` becomes an elicitation to the connecting client.
   */
  toServer(options?: GatewayOptions): McpServer {
    return hostGateway(this, options);
  }

  /** Replaces the roots (workspace folders) and announces the change to every ready server. */
  async setRoots(roots: Root[]): Promise<void> {
    this.#roots = roots;
    await Promise.all(
      [...this.#connections.values()].map((c) =>
        c.client?.setRoots(roots).catch((e: unknown) =>
          this.log.record({
            kind: 'server',
            server: c.config.name,
            outcome: 'warning',
            summary: shorten(`announcing roots failed: ${errorMessage(e)}`),
          }),
        ),
      ),
    );
  }

  /** Listens to `state`, `registry` or `activity`; returns the function that stops it. */
  on<K extends keyof HostEvents>(event: K, listener: HostEvents[K]): () => void {
    const set = this.#listeners[event] as Set<HostEvents[K]>;
    set.add(listener);
    return () => set.delete(listener);
  }

  /**
   * Calls a tool by its qualified name: through the approval policy to its server. Never throws for what the model
   * should hear about: an unknown tool, a server that is not ready, a denial or a failed call are tool results with
   * `isError` saying so. (What passes through is the gateway's input-required signal when it asks a stateless
   * client for approval: its server turns that into an `input_required` round.)
   */
  async callTool(
    name: string,
    args?: Record<string, unknown>,
    options?: HostCallOptions,
  ): Promise<CallToolResult> {
    const started = performance.now();
    const entry = this.#registry.tool(name);
    if (!entry) {
      this.log.record({ kind: 'tool', name, arguments: args, outcome: 'error', summary: 'unknown tool' });
      return errorResult(`There is no tool named ${name}.`);
    }
    const { server } = entry;
    let approval = 'policy';
    if (entry.mode !== 'allow') {
      const config = this.#connections.get(server)?.config as ServerConfig;
      const outcome = await this.#gate.decide(entry.mode, options?.approve, {
        server,
        tool: entry.tool.name,
        qualifiedName: name,
        annotations: entry.tool.annotations,
        arguments: args,
        trusted: config.trusted,
      });
      this.log.record({
        kind: 'approval',
        server,
        name,
        arguments: args,
        outcome: outcome.allowed ? 'allowed' : 'denied',
        approval: outcome.by,
        ...(outcome.allowed || outcome.reason === undefined ? {} : { summary: shorten(outcome.reason) }),
      });
      if (!outcome.allowed) {
        const result = deniedResult(name, outcome);
        this.log.record({
          kind: 'tool',
          server,
          name,
          arguments: args,
          outcome: 'denied',
          approval: outcome.by,
        });
        return result;
      }
      approval = outcome.by;
    }
    const client = this.#connections.get(server)?.client;
    if (!client) {
      const state = this.#connections.get(server)?.status.state ?? 'gone';
      this.log.record({
        kind: 'tool',
        server,
        name,
        arguments: args,
        outcome: 'error',
        summary: `server ${state}`,
      });
      return errorResult(`The server of ${name} is not available (${state}).`);
    }
    let result: CallToolResult;
    let outcome = 'ok';
    try {
      const { approve: _approve, ...request } = options ?? {};
      result = await client.callTool(entry.tool.name, args, this.#requestOptions(server, request));
      if (result.isError === true) outcome = 'error';
    } catch (e) {
      outcome = 'error';
      result = errorResult(`The call to ${name} failed: ${errorMessage(e)}`);
    }
    this.log.record({
      kind: 'tool',
      server,
      name,
      arguments: args,
      outcome,
      approval,
      durationMs: performance.now() - started,
      summary: summarizeResult(result),
    });
    return result;
  }

  /** Reads a resource from the server that owns its URI (or whose template matches it). */
  async readResource(uri: string, options?: RequestOptions): Promise<ReadResourceResult> {
    const started = performance.now();
    const server = this.#registry.ownerOf(uri);
    const client = server === undefined ? undefined : this.#connections.get(server)?.client;
    if (server === undefined || !client) {
      this.log.record({
        kind: 'resource',
        name: uri,
        outcome: 'error',
        summary: 'no ready server offers it',
      });
      throw new McpkitError('NOT_FOUND', `No ready server offers the resource ${uri}`);
    }
    try {
      const result = await client.readResource(uri, this.#requestOptions(server, options));
      const sizes = result.contents.map((c) => ('text' in c ? `${c.text.length} chars` : 'blob'));
      this.log.record({
        kind: 'resource',
        server,
        name: uri,
        outcome: 'ok',
        durationMs: performance.now() - started,
        summary: sizes.join(', '),
      });
      return result;
    } catch (e) {
      this.log.record({
        kind: 'resource',
        server,
        name: uri,
        outcome: 'error',
        durationMs: performance.now() - started,
        summary: shorten(errorMessage(e)),
      });
      throw e;
    }
  }

  /** Gets a prompt by its qualified name from its server. */
  async getPrompt(
    name: string,
    args?: Record<string, string>,
    options?: RequestOptions,
  ): Promise<GetPromptResult> {
    const started = performance.now();
    const entry = this.#registry.prompt(name);
    const client = entry === undefined ? undefined : this.#connections.get(entry.server)?.client;
    if (!entry || !client) {
      this.log.record({
        kind: 'prompt',
        name,
        arguments: args,
        outcome: 'error',
        summary: 'no ready server offers it',
      });
      throw new McpkitError('NOT_FOUND', `No ready server offers the prompt ${name}`);
    }
    const base = { kind: 'prompt' as const, server: entry.server, name, arguments: args };
    try {
      const result = await client.getPrompt(
        entry.prompt.name,
        args,
        this.#requestOptions(entry.server, options),
      );
      this.log.record({
        ...base,
        outcome: 'ok',
        durationMs: performance.now() - started,
        summary: `${result.messages.length} messages`,
      });
      return result;
    } catch (e) {
      this.log.record({
        ...base,
        outcome: 'error',
        durationMs: performance.now() - started,
        summary: shorten(errorMessage(e)),
      });
      throw e;
    }
  }

  #requestOptions(server: string, options: RequestOptions | undefined): RequestOptions {
    if (options?.timeout !== undefined) return options;
    const timeout = this.#connections.get(server)?.config.requestTimeoutMs ?? this.#requestTimeoutMs;
    return { ...options, timeout };
  }

  #connect(config: ServerConfig): ServerConnection {
    const o = this.#options;
    return new ServerConnection(config, {
      clientInfo: o.clientInfo ?? { name: 'mcpkit-host', version: '0.1.0' },
      serverRequests: () => serverRequestHandlers(config.name, this.#serverRequests, this.log),
      connectTimeoutMs: o.connectTimeoutMs ?? 30_000,
      restart: o.restart ?? {},
      inheritEnv: o.inheritEnv ?? [],
      authFor: this.#authFor,
      transportFor: o.transportFor,
      ...(o.random ? { random: o.random } : {}),
      onstatus: (status) => this.#status(status),
      onready: (client) => this.#list(config, client, ['tools', 'prompts', 'resources'], 'all'),
      onlistChanged: (kind) => this.#refresh.changed(config.name, kind),
      onproblem: (message) =>
        this.log.record({
          kind: 'server',
          server: config.name,
          outcome: 'warning',
          summary: shorten(message),
        }),
    });
  }

  #status(status: ServerStatus): void {
    const summary = [status.reason, status.stderrTail && `stderr: ${status.stderrTail}`]
      .filter(Boolean)
      .join('; ');
    this.log.record({
      kind: 'server',
      server: status.name,
      name: status.state,
      outcome: status.state,
      ...(summary === '' ? {} : { summary: shorten(summary) }),
    });
    if (status.state !== 'ready' && this.#registry.remove(status.name))
      this.#emit('registry', { server: status.name, kinds: 'all' });
    this.#emit('state', status);
  }

  /** Lists what `client`'s server offers of `kinds` and puts it in the registry. */
  async #list(
    config: ServerConfig,
    client: Client,
    kinds: ListKind[],
    change: ListKind[] | 'all',
  ): Promise<void> {
    const lists = await listServer(client, kinds, this.#requestOptions(config.name, undefined), (what, e) =>
      this.log.record({
        kind: 'server',
        server: config.name,
        outcome: 'warning',
        summary: shorten(`listing ${what} failed: ${errorMessage(e)}`),
      }),
    );
    // The server may have gone while listing: a stale list must not come back into the registry.
    if (!this.#connections.get(config.name)?.owns(client)) return;
    this.#registry.set(config, lists);
    const count = (items: unknown[] | undefined) => (items === undefined ? '-' : String(items.length));
    this.log.record({
      kind: 'server',
      server: config.name,
      name: 'listed',
      outcome: 'ok',
      summary: `${count(lists.tools)} tools, ${count(lists.prompts)} prompts, ${count(lists.resources)} resources`,
    });
    this.#emit('registry', { server: config.name, kinds: change });
  }

  #emit<K extends keyof HostEvents>(event: K, ...args: Parameters<HostEvents[K]>): void {
    for (const listener of this.#listeners[event]) {
      try {
        (listener as (...a: Parameters<HostEvents[K]>) => void)(...args);
      } catch (e) {
        // An activity listener that throws is not logged as activity (that would call it again).
        if (event !== 'activity')
          this.log.record({
            kind: 'server',
            outcome: 'warning',
            summary: shorten(`a ${event} listener threw: ${errorMessage(e)}`),
          });
      }
    }
  }
}

function isLoaded(config: LoadedConfig | readonly ServerConfig[]): config is LoadedConfig {
  return !Array.isArray(config);
}

function errorResult(text: string): CallToolResult {
  return { content: [{ type: 'text', text }], isError: true };
}
