import { ErrorCode, JsonRpcError, McpkitError } from '../jsonrpc/errors.js';
import type { JsonObject, JsonRpcNotification } from '../jsonrpc/types.js';
import { statefulCodec } from '../protocol/era-codec.js';
import type { IncomingRequest } from '../protocol/peer.js';
import { preloadJsonSchema, type SchemaArg } from '../schema/index.js';
import { type CacheHint, claimsModern } from '../spec/modern.js';
import type {
  CompletionReference,
  Implementation,
  InitializeResult,
  LoggingLevel,
  Resource,
  ServerCapabilities,
} from '../spec/types.js';
import { isStatefulRevision, LATEST_STATEFUL_REVISION, STATEFUL_REVISIONS } from '../spec/versions.js';
import type { Transport } from '../transport/transport.js';
import type { Completer } from './completion.js';
import type { RequestContext } from './context.js';
import { type CapabilityGate, type MethodHandler, SERVER_METHODS } from './methods.js';
import { type Middleware, runChain } from './middleware.js';
import { dispatchModern, type ModernHost, MRTR_METHODS } from './modern/dispatch.js';
import { Subscriptions } from './modern/listen.js';
import { fulfilInputLocally } from './modern/local-input.js';
import { RequestStateCodec } from './modern/request-state.js';
import { decodeCursor, encodeCursor } from './pagination.js';
import {
  definePrompt,
  describePrompt,
  type PromptConfig,
  type PromptDef,
  type PromptHandler,
  type PromptUpdate,
  updatePrompt,
} from './prompts.js';
import { type RegisteredHandle, Registry } from './registry.js';
import { createRequestContext, statefulSetup } from './request-context.js';
import {
  defineResource,
  defineTemplate,
  describeResource,
  describeTemplate,
  type ResourceConfig,
  type ResourceDef,
  type ResourceHandler,
  type ResourceTemplateConfig,
  type ResourceTemplateHandler,
  type ResourceUpdate,
  type TemplateDef,
  type TemplateUpdate,
} from './resources.js';
import { ServerSession, type SessionHost } from './session.js';
import { TaskManager, type TasksOptions } from './tasks/manager.js';
import {
  defineTool,
  describeTool,
  type ToolConfig,
  type ToolDef,
  type ToolHandler,
  type ToolUpdate,
  updateTool,
} from './tools.js';

/** Options of a server definition. */
export interface ServerOptions {
  /** Hint for the model, sent in the `initialize` result. */
  instructions?: string;
  /**
   * Capabilities to declare. When given, registering a feature it does not declare is an error;
   * when omitted, they follow what is registered (with `listChanged` and `subscribe` on).
   */
  capabilities?: ServerCapabilities;
  /** Entries per page of the list methods. Default 100. */
  pageSize?: number;
  /** Log threshold of a session before the client sets one. Default 'info'. */
  defaultLogLevel?: LoggingLevel;
  /** Receives problems that did not stop a session (bad input, handler failures). Default: stderr. */
  onerror?: (error: Error, session: ServerSession | undefined) => void;
  /** Called when a client says its roots changed. */
  onRootsListChanged?: (session: ServerSession) => void;
  /**
   * Key (at least 32 bytes) that signs the `requestState` of stateless multi round-trip requests.
   * Give every instance behind a load balancer the same key. Default: random per process.
   */
  requestStateKey?: Uint8Array | string;
  /** How long a `requestState` stays valid, in ms. Default 10 minutes. */
  requestStateTtlMs?: number;
  /** Cache hints of stateless results, per method. Default `{ ttlMs: 0, cacheScope: 'private' }`. */
  cacheHints?: Partial<Record<CacheableMethod, CacheHint>>;
  /** Most concurrent `subscriptions/listen` streams. Default 1024. */
  maxSubscriptions?: number;
  /**
   * The tasks extension (`io.modelcontextprotocol/tasks`, stateless revision only): `true` or settings
   * (store, ttlMs, pollIntervalMs). Default: on once a tool with a `task` option is registered; `false`
   * turns it off (such tools then run as ordinary calls).
   */
  tasks?: boolean | TasksOptions;
}

/** Methods whose stateless results carry cache hints. */
export type CacheableMethod =
  | 'server/discover'
  | 'tools/list'
  | 'prompts/list'
  | 'resources/list'
  | 'resources/templates/list'
  | 'resources/read';

const DEFAULT_CACHE_HINT: CacheHint = Object.freeze({ ttlMs: 0, cacheScope: 'private' });

type Kind = 'tools' | 'resources' | 'prompts';

/**
 * A server definition: tools, resources, templates and prompts registered once and shared by every
 * session. `connect(transport)` serves one client; many may be connected at once.
 *
 * @example
 * const server = new McpServer({ name: 'demo', version: '1.0.0' });
 * server.tool('echo', { inputSchema: z.object({ text: z.string() }) }, ({ text }) => text);
 * await server.connect(new StdioServerTransport());
 */
export class McpServer implements ModernHost, SessionHost {
  readonly info: Implementation;
  readonly tools: Registry<ToolDef, ToolUpdate>;
  readonly prompts: Registry<PromptDef, PromptUpdate>;
  readonly resources: Registry<ResourceDef, ResourceUpdate>;
  readonly templates: Registry<TemplateDef, TemplateUpdate>;
  readonly #options: ServerOptions;
  readonly #sessions = new Set<ServerSession>();
  readonly #middleware: Middleware[] = [];
  readonly #used = new Set<Kind>();
  readonly #dirty = new Set<Kind>();
  #stateCodec: RequestStateCodec | undefined;
  #tasks: TaskManager | undefined;
  #taskTools = false;
  /** @internal Open `subscriptions/listen` streams. */
  readonly subscriptions: Subscriptions;

  constructor(info: Implementation, options: ServerOptions = {}) {
    this.info = info;
    this.#options = options;
    this.subscriptions = new Subscriptions(options.maxSubscriptions);
    if (options.tasks) this.#tasks = this.#taskManager();
    const pageSize = options.pageSize ?? 100;
    if (!Number.isInteger(pageSize) || pageSize < 1)
      throw new McpkitError('INVALID_DEFINITION', 'pageSize must be a positive integer');
    const registry = <D, U>(
      kind: Kind,
      what: string,
      listKey: string,
      describe: (d: D) => JsonObject,
      apply: (d: D, u: U) => D,
    ) =>
      new Registry<D, U>({
        kind: what,
        listKey,
        pageSize,
        describe,
        apply,
        onchange: () => this.#changed(kind),
      });
    this.tools = registry('tools', 'tool', 'tools', describeTool, updateTool);
    this.prompts = registry('prompts', 'prompt', 'prompts', describePrompt, updatePrompt);
    this.resources = registry<ResourceDef, ResourceUpdate>(
      'resources',
      'resource',
      'resources',
      describeResource,
      (d, u) => {
        const { handler, ...config } = u;
        return defineResource(d.uri, { ...d.config, ...config }, handler ?? d.handler);
      },
    );
    this.templates = registry<TemplateDef, TemplateUpdate>(
      'resources',
      'resource template',
      'resourceTemplates',
      describeTemplate,
      (d, u) => {
        const { handler, ...config } = u;
        return defineTemplate(d.template.toString(), { ...d.config, ...config }, handler ?? d.handler);
      },
    );
  }

  /** Registers a tool; the handle enables, disables, updates or removes it. */
  tool<I extends SchemaArg | undefined = undefined, O extends SchemaArg | undefined = undefined>(
    name: string,
    config: ToolConfig<I, O>,
    handler: ToolHandler<I, O>,
  ): RegisteredHandle<ToolUpdate> {
    this.#require('tools');
    if (config.task !== undefined) this.#taskTools = true;
    return this.tools.add(name, defineTool(name, config, handler as ToolHandler<unknown, unknown>));
  }

  /** Registers a fixed resource. */
  resource(uri: string, config: ResourceConfig, handler: ResourceHandler): RegisteredHandle<ResourceUpdate> {
    this.#require('resources');
    return this.resources.add(uri, defineResource(uri, config, handler));
  }

  /** Registers a resource template (RFC 6570), with optional completion of its variables. */
  resourceTemplate<V extends string = string>(
    uriTemplate: string,
    config: ResourceTemplateConfig<V>,
    handler: ResourceTemplateHandler<V>,
  ): RegisteredHandle<TemplateUpdate> {
    this.#require('resources');
    const def = defineTemplate(
      uriTemplate,
      config as ResourceTemplateConfig,
      handler as ResourceTemplateHandler,
    );
    return this.templates.add(uriTemplate, def);
  }

  /** Registers a prompt, with optional completion of its arguments. */
  prompt<A extends string = string>(
    name: string,
    config: PromptConfig<A>,
    handler: PromptHandler<A>,
  ): RegisteredHandle<PromptUpdate> {
    this.#require('prompts');
    return this.prompts.add(name, definePrompt(name, config as PromptConfig, handler as PromptHandler));
  }

  /** Adds middleware that runs around every incoming request, in the order added. */
  use(middleware: Middleware): this {
    this.#middleware.push(middleware);
    return this;
  }

  /** The capabilities this server declares right now. */
  get capabilities(): ServerCapabilities {
    if (this.#options.capabilities) return this.#options.capabilities;
    const caps: ServerCapabilities = { logging: {} };
    if (this.#used.has('tools')) caps.tools = { listChanged: true };
    if (this.#used.has('resources')) caps.resources = { subscribe: true, listChanged: true };
    if (this.#used.has('prompts')) caps.prompts = { listChanged: true };
    if (this.#used.has('prompts') || this.templates.size > 0) caps.completions = {};
    return caps;
  }

  /** Sessions currently connected. */
  get sessions(): ReadonlySet<ServerSession> {
    return this.#sessions;
  }

  /** Serves one client over `transport`; resolves once the transport has started. */
  async connect(transport: Transport): Promise<ServerSession> {
    const session = new ServerSession(transport, this, this.#options.defaultLogLevel ?? 'info');
    this.#sessions.add(session);
    try {
      await session.peer.start();
    } catch (e) {
      this.#sessions.delete(session);
      throw e;
    }
    return session;
  }

  /** Tells every session subscribed to `uri` (or to a parent ending in "/") that the resource changed. */
  notifyResourceUpdated(uri: string): void {
    this.subscriptions.resourceUpdated(uri, (e) =>
      this.error(e instanceof Error ? e : new Error(String(e)), undefined),
    );
    for (const session of this.#sessions) {
      if (!session.initialized || session.subscriptions === undefined) continue;
      for (const sub of session.subscriptions) {
        if (sub === uri || (sub.endsWith('/') && uri.startsWith(sub))) {
          session
            .notify('notifications/resources/updated', { uri })
            .catch((e: unknown) => this.#report(e, session));
          break;
        }
      }
    }
  }

  /** Closes every session (open `subscriptions/listen` streams first get their final result). */
  async close(): Promise<void> {
    this.subscriptions.closeAll();
    await this.#tasks?.close();
    await Promise.all([...this.#sessions].map((s) => s.close()));
  }

  /** @internal Answers one request of a session, in the era the request itself selects. */
  dispatch(session: ServerSession, incoming: IncomingRequest): Promise<JsonObject> | JsonObject {
    const { method, params = {} } = incoming.request;
    if (claimsModern(params)) return dispatchModern(this, session, incoming);
    if (method === 'initialize') return this.#initialize(session, params);
    if (!session.initialized && method !== 'ping') {
      throw new JsonRpcError(
        ErrorCode.InvalidRequest,
        `Server not initialized: send initialize before ${method}`,
      );
    }
    const entry = this.method(method);
    if (!entry || (entry.gate && !this.declared(entry.gate))) {
      throw new JsonRpcError(ErrorCode.MethodNotFound, `Method not found: ${method}`);
    }
    const setup = statefulSetup(session);
    const ctx = createRequestContext(incoming, setup);
    const run = MRTR_METHODS.has(method)
      ? () => fulfilInputLocally(entry.run, this, params, ctx, incoming, setup)
      : () => entry.run(this, params, ctx, session, statefulCodec);
    // The context notices the end of the request through `incoming.finished`: no extra promise per call.
    return runChain(this.#middleware, { method, params, ctx }, run);
  }

  /** @internal The implementation of a protocol method. */
  method(name: string): { gate?: CapabilityGate; run: MethodHandler } | undefined {
    return SERVER_METHODS.get(name);
  }

  /** @internal The middleware chain. */
  get middleware(): readonly Middleware[] {
    return this.#middleware;
  }

  /** @internal The server's instructions. */
  get instructions(): string | undefined {
    return this.#options.instructions;
  }

  /** @internal The codec sealing requestState. */
  get stateCodec(): RequestStateCodec {
    this.#stateCodec ??= new RequestStateCodec(
      this.#options.requestStateKey,
      this.#options.requestStateTtlMs,
    );
    return this.#stateCodec;
  }

  /** @internal The tasks extension, when enabled (explicitly, or by a tool with a `task` option). */
  get tasks(): TaskManager | undefined {
    if (!this.#tasks && this.#taskTools && this.#options.tasks === undefined)
      this.#tasks = this.#taskManager();
    return this.#tasks;
  }

  /** @internal The cache hint of a cacheable stateless result. */
  cacheHint(method: string, params: JsonObject): CacheHint {
    if (method === 'resources/read' && typeof params.uri === 'string') {
      const own = this.resources.get(params.uri)?.def.config.cache;
      if (own) return own;
      for (const t of this.templates.enabled()) {
        if (t.def.config.cache && t.def.template.match(params.uri)) return t.def.config.cache;
      }
    }
    return this.#options.cacheHints?.[method as CacheableMethod] ?? DEFAULT_CACHE_HINT;
  }

  /** @internal Handles a client notification. */
  notification(session: ServerSession, notification: JsonRpcNotification): void {
    if (notification.method === 'notifications/initialized') session.ready = true;
    else if (notification.method === 'notifications/roots/list_changed')
      this.#options.onRootsListChanged?.(session);
  }

  /** @internal Reports a session problem. */
  error(error: Error, session: ServerSession | undefined): void {
    if (this.#options.onerror) this.#options.onerror(error, session);
    else if (!(error instanceof McpkitError && error.code === 'INVALID_MESSAGE'))
      console.error(`mcpkit server: ${error.message}`);
  }

  /** @internal Forgets a closed session. */
  closed(session: ServerSession): void {
    this.#sessions.delete(session);
  }

  /** @internal */
  async listResources(cursor: unknown, ctx: RequestContext): Promise<JsonObject> {
    // Templates that list their resources (checked per call: a handle's update may add or remove a list callback).
    const listing = [...this.templates.enabled()].filter((t) => t.def.config.list !== undefined);
    if (listing.length === 0) return this.resources.page(cursor);
    const all: unknown[] = [...this.resources.enabled()].map((e) => describeResource(e.def));
    for (const t of listing) {
      const list = t.def.config.list;
      if (list) all.push(...((await list(ctx)) as Resource[]));
    }
    const size = this.#options.pageSize ?? 100;
    const offset = decodeCursor(cursor);
    if (offset > 0 && offset >= all.length) throw new JsonRpcError(ErrorCode.InvalidParams, 'Invalid cursor');
    const page: JsonObject = { resources: all.slice(offset, offset + size) };
    if (offset + size < all.length) page.nextCursor = encodeCursor(offset + size);
    return page;
  }

  /** @internal */
  completerFor(ref: CompletionReference | undefined, argument: string): Completer | undefined {
    if (ref?.type === 'ref/prompt') {
      const prompt = this.prompts.get(ref.name);
      if (!prompt) throw new JsonRpcError(ErrorCode.InvalidParams, `Unknown prompt: ${ref.name}`);
      return prompt.def.config.arguments?.[argument]?.complete;
    }
    if (ref?.type === 'ref/resource') {
      const template = this.templates.get(ref.uri);
      if (!template) throw new JsonRpcError(ErrorCode.InvalidParams, `Unknown resource template: ${ref.uri}`);
      return template.def.config.complete?.[argument];
    }
    throw new JsonRpcError(
      ErrorCode.InvalidParams,
      'Invalid params: "ref" must be a ref/prompt or ref/resource',
    );
  }

  #initialize(session: ServerSession, params: JsonObject): JsonObject {
    if (session.initialized)
      throw new JsonRpcError(ErrorCode.InvalidRequest, 'The session is already initialized');
    const requested = params.protocolVersion;
    if (typeof requested !== 'string') {
      throw new JsonRpcError(ErrorCode.InvalidParams, 'Invalid params: "protocolVersion" must be a string');
    }
    const version = isStatefulRevision(requested) ? requested : LATEST_STATEFUL_REVISION;
    const caps = params.capabilities;
    session.protocolVersion = version;
    session.clientCapabilities = typeof caps === 'object' && caps !== null ? (caps as JsonObject) : {};
    session.clientInfo = params.clientInfo as Implementation | undefined;
    session.initialized = true;
    session.serverCapabilities = this.capabilities;
    warmUpValidation();
    const result: InitializeResult = {
      protocolVersion: version,
      capabilities: session.serverCapabilities,
      serverInfo: this.info,
    };
    if (this.#options.instructions !== undefined) result.instructions = this.#options.instructions;
    return result;
  }

  /** @internal Whether the capability a method needs is declared. */
  declared(gate: CapabilityGate): boolean {
    const caps = this.capabilities;
    if (gate === 'resources.subscribe') return caps.resources?.subscribe === true;
    return caps[gate] !== undefined;
  }

  #taskManager(): TaskManager {
    const option = this.#options.tasks;
    const report = (e: unknown) => this.error(e instanceof Error ? e : new Error(String(e)), undefined);
    return new TaskManager(
      typeof option === 'object' ? option : {},
      (task) => this.subscriptions.taskUpdated(task, report),
      report,
    );
  }

  #require(kind: Kind): void {
    this.#used.add(kind);
    const declared = this.#options.capabilities;
    if (declared && declared[kind] === undefined) {
      throw new McpkitError(
        'INVALID_DEFINITION',
        `Cannot register ${kind}: the server's declared capabilities do not include "${kind}"`,
      );
    }
  }

  #changed(kind: Kind): void {
    if (this.#dirty.size === 0) queueMicrotask(() => this.#flush());
    this.#dirty.add(kind);
  }

  // Changes made in one tick are announced once per kind.
  #flush(): void {
    const kinds = [...this.#dirty];
    this.#dirty.clear();
    const report = (e: unknown) => this.error(e instanceof Error ? e : new Error(String(e)), undefined);
    const listed = (caps: ServerCapabilities, kind: Kind) =>
      (caps[kind] as { listChanged?: boolean } | undefined)?.listChanged;
    for (const kind of kinds) {
      if (listed(this.capabilities, kind)) this.subscriptions.listChanged(kind, report);
      for (const session of this.#sessions) {
        // Only sessions that were told at initialize that this list can change hear about it.
        if (!session.initialized || !listed(session.serverCapabilities, kind)) continue;
        session.notify(`notifications/${kind}/list_changed`).catch((e: unknown) => this.#report(e, session));
      }
    }
  }

  #report(e: unknown, session: ServerSession): void {
    this.error(e instanceof Error ? e : new Error(String(e)), session);
  }
}

let warmed = false;

/** Loads the JSON Schema validator in the background once a client is in, so no call waits for it. */
function warmUpValidation(): void {
  if (warmed) return;
  warmed = true;
  // After the initialize reply is written: loading must not delay the handshake itself.
  const timer = setTimeout(() => {
    preloadJsonSchema().catch((e: unknown) =>
      console.error(`mcpkit: could not load the JSON Schema validator: ${String(e)}`),
    );
  }, 0);
  (timer as { unref?: () => void }).unref?.();
}

/** Every stateful revision this server can negotiate. */
export const SUPPORTED_REVISIONS = STATEFUL_REVISIONS;
