import type { Client } from '../client/client.js';
import { errorMessage, McpkitError } from '../jsonrpc/errors.js';
import type { RequestOptions } from '../protocol/outgoing.js';
import type { McpServer } from '../server/server.js';
import type {
  CallToolResult,
  GetPromptResult,
  Prompt,
  ReadResourceResult,
  Root,
  Tool,
} from '../spec/types.js';
import type { HttpAuthorizer } from '../transport/http-client/auth-hook.js';
import { ActivityLog, shorten } from './activity-log.js';
import { ApprovalGate, approvalMode } from './approval.js';
import { Chat, type ChatOptions } from './chat/chat.js';
import { type ConfigSource, type LoadConfigOptions, loadConfig } from './config/load.js';
import type { LoadedConfig, ServerConfig } from './config/types.js';
import { type ListKind, ServerConnection, type ServerStatus } from './connection.js';
import type { ToolChange } from './definition-diff.js';
import { type GatewayOptions, gatewayServer } from './gateway.js';
import { modelSampling } from './model/sampling.js';
import { createModel } from './model/spec.js';
import type { ModelAdapter } from './model/types.js';
import { oauthAuthorizers } from './oauth.js';
import type { HostEvents, HostOptions } from './options.js';
import { MemoryPinStore } from './pin-store.js';
import { listServer, RefreshScheduler } from './refresh.js';
import { type HostTool, offeredToModel, Registry } from './registry.js';
import { type HostCallOptions, Router } from './routing.js';
import { checkSandboxSetting, type SandboxSetting } from './sandbox/policy.js';
import { ToolSearch, type ToolSearchAnswer, type ToolSearchOptions } from './search/facade.js';
import { searchHostTools } from './search/host-search.js';
import { ToolIndex } from './search/tool-index.js';
import { type ServerRequestOptions, serverRequestHandlers } from './server-requests.js';
import { HostSkills, LOAD_SKILL_TOOL } from './skills.js';
import { KnownToolLists } from './tool-list-cache.js';
import { ToolPins } from './tool-pins.js';

export type { HostEvents, HostOptions, RegistryChange } from './options.js';
export type { HostCallOptions } from './routing.js';

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
  /** The skills of the host's servers (SEP-2640), approved per manifest and offered to the model as `load_skill`. */
  readonly skills: HostSkills;
  readonly #options: HostOptions;
  readonly #connections = new Map<string, ServerConnection>();
  readonly #registry: Registry;
  readonly #router: Router;
  readonly #pins: ToolPins | undefined;
  readonly #model: ModelAdapter | undefined;
  readonly #listeners: { [K in keyof HostEvents]: Set<HostEvents[K]> } = {
    state: new Set(),
    registry: new Set(),
    activity: new Set(),
  };
  readonly #refresh: RefreshScheduler;
  readonly #serverRequests: ServerRequestOptions;
  #roots: Root[];
  readonly #authFor: ((server: ServerConfig) => HttpAuthorizer | undefined) | undefined;
  readonly #index: ToolIndex;
  readonly #toolSearch: ToolSearch;
  readonly #lists: KnownToolLists | undefined;
  readonly #sandbox: SandboxSetting | undefined;

  /** Reads config files (see {@link loadConfig}) and makes a host of their servers. */
  static async load(
    files: string | ConfigSource | readonly (string | ConfigSource)[],
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
    this.#model = typeof options.model === 'string' ? createModel(options.model) : options.model;
    this.#roots = options.roots ?? [];
    this.#serverRequests = {
      sampling: options.sampling ?? (this.#model ? modelSampling(this.#model) : undefined),
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
    this.#sandbox = hostSandbox(options.sandbox ?? loaded.settings.sandbox);
    this.#registry = new Registry(
      separator,
      (server, tool) => approvalMode(server, tool.name, tool.annotations, hostDefault),
      (server, message) =>
        this.log.record({ kind: 'server', server, outcome: 'warning', summary: shorten(message) }),
    );
    const pinStore = options.toolPins === false ? undefined : (options.toolPins ?? new MemoryPinStore());
    this.#pins =
      pinStore &&
      new ToolPins(pinStore, (server, message) =>
        this.log.record({ kind: 'server', server, outcome: 'warning', summary: shorten(message) }),
      );
    this.skills = new HostSkills({
      servers: () => [...this.#connections.values()].map((c) => c.config),
      clientOf: (name) => this.clientOf(name),
      store: pinStore ?? new MemoryPinStore(),
      approve: options.approveSkill,
      warn: (server, message) =>
        this.log.record({ kind: 'server', server, outcome: 'warning', summary: shorten(message) }),
    });
    this.#router = new Router(
      this.#registry,
      this.#connections,
      new ApprovalGate(options.approve),
      this.#pins,
      this.log,
      options.requestTimeoutMs ?? 60_000,
      options.instrument,
    );
    this.#refresh = new RefreshScheduler(options.refreshDebounceMs ?? 100, async (server, kinds) => {
      const connection = this.#connections.get(server);
      const client = connection?.client;
      if (connection && client) await this.#list(connection.config, client, kinds, kinds);
    });
    this.#lists =
      options.toolListCache &&
      new KnownToolLists(options.toolListCache, (server, message) =>
        this.log.record({ kind: 'server', server, outcome: 'warning', summary: shorten(message) }),
      );
    this.#index = new ToolIndex(
      () =>
        this.#registry
          .tools()
          .filter(offeredToModel)
          .map((t) => ({ name: t.name, server: t.server, tool: t.tool })),
      options.toolSearch?.ranker,
    );
    this.on('registry', () => this.#index.changed());
    this.#toolSearch = new ToolSearch({
      log: this.log,
      searchTools: (query, o) => this.searchTools(query, o),
      callTool: (name, args, o, check) => this.#router.callTool(name, args, o, check),
      tool: (name) => {
        const tool = this.#registry.tool(name);
        return offeredToModel(tool) ? tool : undefined;
      },
    });
    for (const server of loaded.servers) {
      if (this.#connections.has(server.name))
        throw new McpkitError('CONFIG_INVALID', `Two servers are named "${server.name}"`);
      this.#connections.set(server.name, this.#connect(server));
    }
  }

  /**
   * Starts every server in parallel, except lazy ones (left `idle`, started when a search or a call needs them);
   * resolves when each started one is ready, failed or disabled (never rejects). The cached tool lists, when the host
   * has a {@link HostOptions.toolListCache}, are read first: those servers' tools are searchable at once.
   */
  async start(): Promise<ServerStatus[]> {
    const connections = [...this.#connections.values()];
    if (this.#lists) await Promise.all(connections.map((c) => this.#loadCached(c)));
    await Promise.all(connections.filter((c) => !c.lazy).map((c) => c.start()));
    await this.skills.refresh();
    return this.servers;
  }

  /** Stops every server (stdio process trees included) and writes out the log and the tool pins. */
  async close(): Promise<void> {
    this.#refresh.cancel();
    await Promise.all([...this.#connections.values()].map((c) => c.stop()));
    await this.#pins?.flush();
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

  /**
   * The tools that best match a request in natural language, best first (see {@link ToolSearchOptions}): the
   * registry's tools, those of servers not started yet known from the tool-list cache; a lazy server whose tools are
   * not known is started for it (waiting at most `toolSearch.startWaitMs` for it), and servers whose tools could not
   * be searched are named in the answer's notes.
   */
  searchTools(query: string, options: ToolSearchOptions = {}): Promise<ToolSearchAnswer> {
    const wait = this.#options.toolSearch?.startWaitMs ?? 10_000;
    return searchHostTools(query, options, this.#connections, this.#registry, this.#index, wait);
  }

  /**
   * Tool search as two tools, `search_tools` and `call_tool` (see {@link ToolSearch}): what a chat in `search` mode
   * and the gateway's `toolSearch` offer instead of every tool.
   */
  get toolSearch(): ToolSearch {
    return this.#toolSearch;
  }

  /**
   * How a tool (qualified name) differs from the definition pinned for it (first listed with `allow`, or last
   * approved): the person is asked again before it runs, shown this. Undefined when it is unchanged or not pinned.
   */
  toolChange(name: string): ToolChange | undefined {
    const tool = this.#registry.tool(name);
    return tool === undefined ? undefined : this.#pins?.changeOf(tool);
  }

  /** The prompts under their qualified names. */
  prompts(): Prompt[] {
    return this.#registry.prompts().map((p) => p.definition);
  }

  /**
   * The registry served as one MCP server (see `hostGateway`): qualified tools, prompts and resources, with the
   * approval policy and the activity log applied; `ask` becomes an elicitation to the connecting client.
   */
  toServer(options?: GatewayOptions): McpServer {
    return gatewayServer(this, options);
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
  callTool(name: string, args?: Record<string, unknown>, options?: HostCallOptions): Promise<CallToolResult> {
    return this.#router.callTool(name, args, options);
  }

  /** Reads a resource from the server that owns its URI (or whose template matches it). */
  readResource(uri: string, options?: RequestOptions): Promise<ReadResourceResult> {
    return this.#router.readResource(uri, options);
  }

  /** Gets a prompt by its qualified name from its server. */
  getPrompt(name: string, args?: Record<string, string>, options?: RequestOptions): Promise<GetPromptResult> {
    return this.#router.getPrompt(name, args, options);
  }

  /** The host's model (see {@link HostOptions.model}), if it has one. */
  get model(): ModelAdapter | undefined {
    return this.#model;
  }

  /**
   * A conversation between a model (the host's unless the options name one) and the host's servers: each turn the
   * model sees the registry's tools, its calls go through the approval policy to their servers and the results back
   * to it until it answers (see {@link Chat}).
   *
   * @example
   * const chat = host.chat({ model: 'anthropic:claude-sonnet-4-5', onevent: (e) => e.type === 'text' && write(e.text) });
   * const turn = await chat.send('What is in /tmp/notes.txt?');
   */
  chat(options: ChatOptions = {}): Chat {
    const model =
      typeof options.model === 'string' ? createModel(options.model) : (options.model ?? this.#model);
    if (!model)
      throw new McpkitError(
        'MODEL_CONFIG_INVALID',
        'A chat needs a model: give one to the host or to chat()',
      );
    const registry = this.#registry;
    return new Chat(
      {
        log: this.log,
        approve: this.#options.approve,
        tools: () => {
          const offered = registry.tools().filter(offeredToModel);
          const load = this.#loadSkillTool();
          return load ? [...offered, load] : offered;
        },
        tool: (name) => {
          if (name === LOAD_SKILL_TOOL) return this.#loadSkillTool() ?? registry.tool(name);
          const tool = registry.tool(name);
          return offeredToModel(tool) ? tool : undefined;
        },
        prompts: () => registry.prompts(),
        prompt: (name) => registry.prompt(name),
        callTool: (name, args, o) => {
          if (name === LOAD_SKILL_TOOL && this.skills.tool() && !registry.tool(name))
            return this.skills.load(args);
          const tool = registry.tool(name);
          // An App's own tool is not the model's, though a model may guess its name.
          if (tool && !offeredToModel(tool)) return Promise.resolve(notForModel(name));
          return this.#router.callTool(name, args, o);
        },
        toolSearch: this.#toolSearch,
        readResource: (uri, o) => this.#router.readResource(uri, o),
        getPrompt: (name, args, o) => this.#router.getPrompt(name, args, o),
        instrument: this.#options.instrument,
      },
      model,
      options,
    );
  }

  /** `load_skill` as a tool of the host's own (no server): present while any server lists a skill. */
  #loadSkillTool(): HostTool | undefined {
    const tool = this.skills.tool();
    if (!tool || this.#registry.tool(LOAD_SKILL_TOOL)) return undefined;
    return { name: LOAD_SKILL_TOOL, server: '', tool, definition: tool, mode: 'allow', digest: '' };
  }

  #connect(config: ServerConfig): ServerConnection {
    const o = this.#options;
    return new ServerConnection(config, {
      clientInfo: o.clientInfo ?? { name: 'mcpkit-host', version: '0.1.0' },
      serverRequests: () => serverRequestHandlers(config.name, this.#serverRequests, this.log),
      connectTimeoutMs: o.connectTimeoutMs ?? 30_000,
      restart: o.restart ?? {},
      inheritEnv: o.inheritEnv ?? [],
      sandbox: this.#sandbox,
      onsandbox: (event) =>
        this.log.record({
          kind: 'sandbox',
          server: config.name,
          name: event.name,
          outcome: event.outcome,
          summary: shorten(event.summary),
        }),
      authFor: this.#authFor,
      transportFor: o.transportFor,
      wrapTransport: o.instrument?.transport?.bind(o.instrument),
      ...(o.random ? { random: o.random } : {}),
      ...(o.lazy ? { lazy: true } : {}),
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
    // A cached list stays while its server is idle or starting: searches and calls use it meanwhile.
    const cached =
      this.#registry.listed(status.name) === 'cached' &&
      (status.state === 'idle' || status.state === 'starting');
    if (status.state !== 'ready' && !cached && this.#registry.remove(status.name))
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
    const lists = await listServer(
      client,
      kinds,
      this.#router.requestOptions(config.name, undefined),
      (what, e) =>
        this.log.record({
          kind: 'server',
          server: config.name,
          outcome: 'warning',
          summary: shorten(`listing ${what} failed: ${errorMessage(e)}`),
        }),
    );
    const pins = this.#pins;
    if (pins && lists.tools) await pins.load(config);
    // The server may have gone while listing: a stale list must not come back into the registry.
    if (!this.#connections.get(config.name)?.owns(client)) return;
    this.#registry.set(config, lists);
    if (pins && lists.tools) this.#reviewPins(pins, config);
    if (lists.tools) this.#lists?.save(config, lists.tools);
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

  /**
   * Puts a server's cached tool list in the registry (marked cached) while it has none: what pins say of it counts
   * as for any listing (an `allow` tool first seen is pinned; a definition other than the pinned one is a change).
   */
  async #loadCached(connection: ServerConnection): Promise<void> {
    const { config } = connection;
    if (!this.#lists || config.disabled) return;
    const tools = await this.#lists.read(config);
    if (tools === undefined || this.#registry.listed(config.name) !== undefined) return;
    const pins = this.#pins;
    if (pins) await pins.load(config);
    if (this.#registry.listed(config.name) !== undefined) return;
    this.#registry.set(config, { tools }, true);
    if (pins) this.#reviewPins(pins, config);
    this.log.record({
      kind: 'server',
      server: config.name,
      name: 'cached',
      outcome: 'ok',
      summary: `${tools.length} tools known from the tool-list cache`,
    });
    this.#emit('registry', { server: config.name, kinds: ['tools'] });
  }

  /** Pins what a server's new list shows for the first time, and logs the tools that changed since pinned. */
  #reviewPins(pins: ToolPins, config: ServerConfig): void {
    const tools = this.#registry.tools().filter((t) => t.server === config.name);
    for (const { tool, change, outcome } of pins.review(config, tools)) {
      const fields = change.fields.join(', ');
      this.log.record({
        kind: 'tool-change',
        server: config.name,
        name: tool.name,
        outcome,
        summary:
          outcome === 'accepted'
            ? `${fields} changed; pinned again (toolChanges: accept)`
            : outcome === 'refused'
              ? `${fields} changed since approved; refused (toolChanges: refuse)`
              : `${fields} changed since approved; the person is asked again before it runs`,
        diff: change.diff,
      });
    }
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

/** The model's call of a tool only an App may call, answered as a tool result. */
function notForModel(name: string): CallToolResult {
  return {
    content: [
      { type: 'text', text: `There is no tool named ${name} (it belongs to an App, not to the model).` },
    ],
    isError: true,
  };
}

/** The host-wide sandbox default, checked as a config file's is (an app's object may hold anything). */
function hostSandbox(setting: SandboxSetting | undefined): SandboxSetting | undefined {
  if (setting === undefined) return undefined;
  const checked = checkSandboxSetting(setting);
  if ('problems' in checked) {
    const p = checked.problems[0];
    throw new McpkitError(
      'CONFIG_INVALID',
      `The host's sandbox${p?.field ? `, ${p.field}` : ''}: ${p?.message ?? 'invalid'}`,
    );
  }
  return checked.setting;
}

function isLoaded(config: LoadedConfig | readonly ServerConfig[]): config is LoadedConfig {
  return !Array.isArray(config);
}
