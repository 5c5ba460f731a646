import { McpkitError, toError } from '../jsonrpc/errors.js';
import type { JsonObject, JsonRpcMessage, JsonRpcNotification } from '../jsonrpc/types.js';
import type { IncomingRequest } from '../protocol/peer.js';
import type { Transport } from '../protocol/transport.js';
import type { SchemaArg } from '../schema/index.js';
import { LOG_LEVELS } from '../spec/log-levels.js';
import { type CacheHint, META } from '../spec/modern.js';
import type { RevisionPolicy } from '../spec/revision.js';
import { SKILLS_EXTENSION } from '../spec/skills.js';
import type { CompletionReference, Implementation, ServerCapabilities } from '../spec/types.js';
import { STATEFUL_REVISIONS } from '../spec/versions.js';
import { Broadcaster, type ChangeRelay, type ServerChange } from './broadcast.js';
import type { Access } from './definitions/access.js';
import { cacheHintOf } from './definitions/cache-hints.js';
import { completerFor } from './definitions/completers.js';
import type { Completer } from './definitions/completion.js';
import {
  definePrompt,
  describePrompt,
  type PromptConfig,
  type PromptDef,
  type PromptHandler,
  type PromptUpdate,
  updatePrompt,
} from './definitions/prompts.js';
import { type RegisteredHandle, Registry } from './definitions/registry.js';
import {
  defineResource,
  defineTemplate,
  describeResource,
  describeTemplate,
  listResources,
  type ResourceConfig,
  type ResourceDef,
  type ResourceHandler,
  type ResourceTemplateConfig,
  type ResourceTemplateHandler,
  type ResourceUpdate,
  type TemplateDef,
  type TemplateUpdate,
  updateResource,
  updateTemplate,
} from './definitions/resources.js';
import {
  defineTool,
  describeTool,
  type ToolConfig,
  type ToolDef,
  type ToolHandler,
  type ToolUpdate,
  updateTool,
} from './definitions/tools.js';
import { DeclaredCapabilities, declares } from './dispatch/capabilities.js';
import { type ListKind, Subscriptions } from './dispatch/listen.js';
import { type CapabilityGate, type MethodHandler, SERVER_METHODS } from './dispatch/methods.js';
import { RequestStateCodec } from './dispatch/request-state.js';
import { detachedSession, type ServerSession } from './dispatch/session.js';
import { type Notifier, ObservedNotifier } from './dispatch/setup.js';
import { dispatchRequest, dispatchTransient } from './dispatch/stateful.js';
import { dispatchModern } from './dispatch/stateless.js';
import { buildGuards, type Guards, hasGuards } from './guard/guards.js';
import type { Scoped } from './handler/auth.js';
import type { RequestContext, SessionInfo } from './handler/context.js';
import type {
  AskHook,
  GuardRunner,
  HttpRefusal,
  Middleware,
  NotificationHook,
  RefusalHook,
  RequestHook,
  SentNotificationHook,
} from './handler/middleware.js';
import type { Mounted, MountOptions } from './mount/mount.js';
import { Mounts } from './mount/mounts.js';
import type { ServerOptions } from './options.js';
import { scopesNeeded } from './scopes-needed.js';
import { SessionSet } from './session-set.js';
import { SkillCatalog, type SkillHandle, type SkillSource } from './skills/catalog.js';
import type { SkillDefinition } from './skills/define.js';
import { TaskManager } from './tasks/manager.js';

export type { CacheableMethod } from './definitions/cache-hints.js';
export type { ServerOptions } from './options.js';

/**
 * A server definition: tools, resources, templates and prompts registered once and shared by every
 * session. `connect(transport)` serves one client; many may be connected at once.
 *
 * This class is the facade over the rooms of `server/`: both eras' dispatch and `initialize` live in `dispatch/`
 * (`stateful.ts`, `stateless.ts`, behind the one `DispatchHost` this class is), capabilities in
 * `dispatch/capabilities.ts`, change notifications in `broadcast.ts` and the connected sessions in `session-set.ts`.
 *
 * @example
 * const server = new McpServer({ name: 'demo', version: '1.0.0' });
 * server.tool('echo', { inputSchema: z.object({ text: z.string() }) }, ({ text }) => text);
 * await server.connect(new StdioServerTransport());
 */
export class McpServer {
  // No `implements ModernHost, StatefulHost, SessionHost`: the members they need are internal and stripped from
  // the published types (stripInternal), where the clause would not hold; each use of `this` as a host is checked.
  readonly info: Implementation;
  readonly tools: Registry<ToolDef, ToolUpdate>;
  readonly prompts: Registry<PromptDef, PromptUpdate>;
  readonly resources: Registry<ResourceDef, ResourceUpdate>;
  readonly templates: Registry<TemplateDef, TemplateUpdate>;
  readonly #options: ServerOptions;
  /** The session argument of requests answered without one (`dispatchAlone`); made on first use. */
  #detached: ServerSession | undefined;
  readonly #pageSize: number;
  /** The default log level's index (`LOG_LEVELS`), of sessions and of requests without one. */
  readonly #logLevel: number;
  readonly #sessions = new SessionSet();
  /** Who is told of sessions closing (tracing), and when each session opened (only while someone listens). */
  readonly #sessionWatchers: ((session: ServerSession, durationMs: number) => void)[] = [];
  readonly #opened = new WeakMap<ServerSession, number>();
  /** The app's hooks around the requests handlers make of their client (tracing), outermost first. */
  readonly #askHooks: AskHook[] = [];
  readonly #middleware: Middleware[] = [];
  #requestHook: RequestHook | undefined;
  #notificationHook: NotificationHook | undefined;
  #sentHook: SentNotificationHook | undefined;
  #refusalHook: RefusalHook | undefined;
  readonly #capabilities: DeclaredCapabilities;
  readonly #broadcast: Broadcaster;
  #stateCodec: RequestStateCodec | undefined;
  #tasks: TaskManager | undefined;
  #taskTools = false;
  /** The skills published (SEP-2640), made on the first `skill()`. */
  #skills: SkillCatalog | undefined;
  /** The servers mounted in this one, their access rules, and the mounts of this one elsewhere. */
  readonly #mounts: Mounts;
  /** The guards of the options (rate limits, access, audit, …), when any is given. */
  #guards: Guards | undefined;
  /** Whether the result cache is in the chain (once a tool marked `cache` is registered). */
  #caching = false;
  /** Whether the options' names were checked against what is registered (once, at start). */
  #checked = false;
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
    this.#pageSize = pageSize;
    this.#logLevel = LOG_LEVELS.indexOf(options.defaultLogLevel ?? 'info');
    this.#broadcast = new Broadcaster(
      this.#sessions.all,
      this.subscriptions,
      () => this.capabilities,
      (e, session) => this.error(toError(e), session),
    );
    const registry = <D extends Scoped, U>(
      kind: ListKind,
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
        onchange: () => this.#broadcast.listChanged(kind),
      });
    this.tools = registry('tools', 'tool', 'tools', describeTool, updateTool);
    this.prompts = registry('prompts', 'prompt', 'prompts', describePrompt, updatePrompt);
    this.resources = registry('resources', 'resource', 'resources', describeResource, updateResource);
    this.templates = registry(
      'resources',
      'resource template',
      'resourceTemplates',
      describeTemplate,
      updateTemplate,
    );
    this.#capabilities = new DeclaredCapabilities(options.capabilities, this.templates);
    if (hasGuards(options)) {
      this.#guards = buildGuards(options, this.tools, (e) => this.error(e, undefined));
    }
    this.#mounts = new Mounts(this.#guards?.access);
  }

  /** Registers a tool; the handle enables, disables, updates or removes it. */
  tool<I extends SchemaArg | undefined = undefined, O extends SchemaArg | undefined = undefined>(
    name: string,
    config: ToolConfig<I, O>,
    handler: ToolHandler<I, O>,
  ): RegisteredHandle<ToolUpdate> {
    this.#use('tools');
    if (config.task !== undefined) this.#taskTools = true;
    if (config.cache !== undefined) this.#cacheResults();
    return this.tools.add(name, defineTool(name, config, handler as ToolHandler<unknown, unknown>));
  }

  /** Registers a fixed resource. */
  resource(uri: string, config: ResourceConfig, handler: ResourceHandler): RegisteredHandle<ResourceUpdate> {
    this.#use('resources');
    return this.resources.add(uri, defineResource(uri, config, handler));
  }

  /**
   * Publishes a skill (the Skills extension, SEP-2640): its files become resources (`skill://<path>/<file>`) and
   * the server answers `skills/list`, `skills/get` and `resources/directory/read`, declaring
   * `io.modelcontextprotocol/skills` (under `extensions`, and `experimental` for sessions before 2026-07-28).
   *
   * @example
   * server.skill({ files: { 'SKILL.md': '---\nname: greet\ndescription: How to greet\n---\nSay hello.' } });
   */
  skill(def: SkillDefinition): SkillHandle {
    return this.#catalog().add(def);
  }

  /** @internal The skills this server offers (its own and its sources'), if it offers any. */
  get skills(): SkillSource | undefined {
    return this.#skills;
  }

  /**
   * @internal Offers the skills of another server through this one (a mounted server's, a proxied one's), declaring
   * the extension; until the function returned is called.
   */
  addSkillSource(source: SkillSource): () => void {
    return this.#catalog().addSource(source);
  }

  #catalog(): SkillCatalog {
    if (!this.#skills) {
      this.#skills = new SkillCatalog(
        (uri, config, handler) => this.resource(uri, config, handler),
        this.#pageSize,
      );
      this.#capabilities.extend(SKILLS_EXTENSION, { directoryRead: true });
    }
    return this.#skills;
  }

  /** Registers a resource template (RFC 6570), with optional completion of its variables. */
  resourceTemplate<V extends string = string>(
    uriTemplate: string,
    config: ResourceTemplateConfig<V>,
    handler: ResourceTemplateHandler<V>,
  ): RegisteredHandle<TemplateUpdate> {
    this.#use('resources', true);
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
    this.#use('prompts', true);
    return this.prompts.add(name, definePrompt(name, config as PromptConfig, handler as PromptHandler));
  }

  /**
   * Notes a registration of `kind`. Sessions keep the capabilities they were given at initialize, so a kind that
   * first appears now is never offered to the sessions already open: say so (declare `capabilities` up front).
   */
  #use(kind: ListKind, completes = false): void {
    const added = this.#capabilities.use(kind, completes);
    if (added.length === 0) return;
    let open = 0;
    for (const session of this.#sessions.all) if (session.initialized) open++;
    if (open === 0) return;
    const message =
      `${added.map((c) => `"${c}"`).join(' and ')} registered after ${open} session(s) initialized: those ` +
      'sessions were not offered it and will not see it; declare `capabilities` in the server options up front';
    this.#warn(message);
  }

  /** A warning through `onwarning`, or on stderr when none is given. */
  #warn(message: string): void {
    if (this.#options.onwarning) this.#options.onwarning(message);
    else console.warn(`mcpkit server: ${message}`);
  }

  /**
   * Offers everything `server` registers (tools, prompts, resources, templates) as this server's own, named
   * `<prefix>_<name>` (see {@link MountOptions} for the separator, resource URIs and tool transforms), kept in step
   * with it: its list changes and resource updates reach this server's clients. A name this server already offers
   * is an error now, and so is a later registration on either side that would clash. Its handlers run with this
   * server's request context, behind this server's middleware and then its own (which sees its own names); its
   * access rules still hide its entries from this server's lists and refuse their use.
   *
   * @example
   * const app = new McpServer({ name: 'app', version: '1.0.0' });
   * app.mount('weather', weatherServer); // weather_forecast, weather://weather/stations, ...
   */
  mount(prefix: string, server: McpServer, options?: MountOptions): Mounted {
    return this.#mounts.add(this.#mountHost(), prefix, server.#mounts, server.#mountSource(), options);
  }

  #mountHost() {
    return {
      tools: this.tools,
      prompts: this.prompts,
      resources: this.resources,
      templates: this.templates,
      noteMounted: (kind: ListKind, completes: boolean, task: boolean) => {
        this.#use(kind, completes);
        if (task) this.#taskTools = true;
      },
      notifyResourceUpdated: (uri: string) => this.notifyResourceUpdated(uri),
      warn: (message: string) => this.#warn(message),
      addSkillSource: (source: SkillSource) => this.addSkillSource(source),
    };
  }

  #mountSource() {
    return {
      tools: this.tools,
      prompts: this.prompts,
      resources: this.resources,
      templates: this.templates,
      middleware: this.#middleware,
      guards: () => this.#guards?.run,
      asks: () => this.asks,
      access: () => this.access,
      sessionEnded: (session: SessionInfo) => this.sessionEnded(session),
      skills: this.#skills,
    };
  }

  /** Puts the result cache in front of tool calls, where the guards' order has it (before the author's middleware). */
  #cacheResults(): void {
    if (this.#caching) return;
    this.#caching = true;
    this.#guards ??= buildGuards({}, this.tools, (e) => this.error(e, undefined));
    this.#guards.enableCache();
  }

  /**
   * Checks the names the guard options give (tools of `rateLimit.tools`, `timeouts.tools`, `concurrency.perTool`,
   * the tools, prompts and templates of `access` rules) against what is registered, once: `connect()` and the HTTP
   * endpoints call it when they start. A name that matches nothing is an `INVALID_DEFINITION` error.
   */
  checkOptions(): void {
    if (this.#checked || this.#guards === undefined) return;
    this.#guards.check({
      has: (kind, name) =>
        kind === 'tool'
          ? this.tools.has(name)
          : kind === 'prompt'
            ? this.prompts.has(name)
            : kind === 'template'
              ? this.templates.has(name)
              : this.resources.has(name),
    });
    this.#checked = true;
  }

  /**
   * Calls `watcher` with each session connected from now on as it closes, and how long it was open (ms): what
   * `mcpkit/otel` records as `mcp.server.session.duration`. Returns a function that stops it.
   */
  watchSessions(watcher: (session: ServerSession, durationMs: number) => void): () => void {
    this.#sessionWatchers.push(watcher);
    return () => {
      const i = this.#sessionWatchers.indexOf(watcher);
      if (i >= 0) this.#sessionWatchers.splice(i, 1);
    };
  }

  /**
   * Adds a hook around every request a handler makes of its client (`elicitation/create`, `sampling/createMessage`,
   * `roots/list`), outside the server's own guards: `mcpkit/otel` traces them and puts the trace context in their
   * `_meta`. The hook calls `send` once and returns what it returns.
   */
  aroundAsks(hook: AskHook): this {
    this.#askHooks.push(hook);
    return this;
  }

  /**
   * Sets the one hook around every request the server is given, in front of everything else (what `mcpkit/otel`
   * traces, requests refused before the middleware included), the one that sees every client notification, the one
   * that sees every notification the server sends (`sent`), and the one that sees every HTTP request its Streamable
   * HTTP endpoints refuse before any message reaches it (`refused`: an Origin or Host not allowed, a body that is not
   * JSON, the auth gate's 401 and 403). Setting them again replaces all four; none set costs one `undefined` check per message.
   */
  observe(hooks: {
    readonly requests?: RequestHook;
    readonly notifications?: NotificationHook;
    readonly sent?: SentNotificationHook;
    readonly refused?: RefusalHook;
  }): this {
    this.#requestHook = hooks.requests;
    this.#notificationHook = hooks.notifications;
    this.#sentHook = hooks.sent;
    this.#refusalHook = hooks.refused;
    return this;
  }

  /** @internal The hook around the notifications the server sends, when one is set. */
  get sentHook(): SentNotificationHook | undefined {
    return this.#sentHook;
  }

  /** @internal Tells the `refused` hook, when one is set, of an HTTP request refused before dispatch. */
  refusedHttp(refusal: () => HttpRefusal): void {
    const hook = this.#refusalHook;
    if (hook !== undefined) hook(refusal());
  }

  /** Adds middleware that runs around every incoming request, in the order added. */
  use(middleware: Middleware): this {
    this.#middleware.push(middleware);
    return this;
  }

  /** The capabilities this server declares right now. */
  get capabilities(): ServerCapabilities {
    return this.#capabilities.current();
  }

  /** Sessions currently connected. */
  get sessions(): ReadonlySet<ServerSession> {
    return this.#sessions.all;
  }

  /** Serves one client over `transport`; resolves once the transport has started. */
  connect(transport: Transport): Promise<ServerSession> {
    try {
      this.checkOptions();
    } catch (e) {
      return Promise.reject(e);
    }
    if (this.#sessionWatchers.length === 0)
      return this.#sessions.connect(transport, this, this.#options.defaultLogLevel ?? 'info');
    const at = performance.now();
    return this.#sessions
      .connect(transport, this, this.#options.defaultLogLevel ?? 'info')
      .then((session) => {
        this.#opened.set(session, at);
        return session;
      });
  }

  /** Tells every session subscribed to `uri` (or to a parent ending in "/") that the resource changed. */
  notifyResourceUpdated(uri: string): void {
    this.#broadcast.resourceUpdated(uri);
    this.#mounts.resourceUpdated(uri);
  }

  /**
   * @internal Joins this server's change notifications to other instances of a cluster (a clustered HTTP endpoint
   * calls it once); returns what announces another instance's change here.
   */
  relayChanges(relay: ChangeRelay | undefined): (change: ServerChange) => void {
    this.#broadcast.relay = relay;
    return (change) => this.#broadcast.applyRemote(change);
  }

  /** Closes every session (open `subscriptions/listen` streams first get their final result). */
  async close(): Promise<void> {
    this.subscriptions.closeAll();
    await this.#tasks?.close();
    await this.#sessions.closeAll();
    await this.#guards?.close();
  }

  /**
   * @internal The OAuth scopes a request needs by what it names (a tool, prompt, resource or template registered
   * with `requiredScopes`): the HTTP endpoints' gate answers 403 `insufficient_scope` before dispatch without them.
   */
  scopesNeeded(message: JsonRpcMessage): readonly string[] {
    return scopesNeeded(this, message);
  }

  /** @internal Answers one request of a session, in the era the request itself selects. */
  dispatch(session: ServerSession, incoming: IncomingRequest): Promise<JsonObject> | JsonObject {
    const hook = this.#requestHook;
    if (hook === undefined) return dispatchRequest(this, session, incoming);
    const version = session.protocolVersion || envelopeVersion(incoming.request.params);
    return hook(incoming, session.id, version, () => dispatchRequest(this, session, incoming));
  }

  /**
   * @internal Answers a request that has no connection of its own (a Streamable HTTP POST answered without a
   * session), in either era, with no session, Peer or transport made for it; its notifications go to `notifier`. A
   * 2026-07-28 request's handlers get one detached session shared by such requests (that revision has no method that
   * keeps state on it); an earlier revision's (`policy`: its header's) a `TransientSession` of its own, as if
   * initialized, whose end is passed on like a session's.
   */
  dispatchAlone(
    incoming: IncomingRequest,
    notifier: Notifier,
    policy?: RevisionPolicy,
  ): Promise<JsonObject> | JsonObject {
    const hook = this.#requestHook;
    const sent = this.#sentHook;
    if (hook === undefined && sent === undefined) {
      // As before any hook existed: no extra call on the path of a server that is not observed.
      if (policy === undefined) return dispatchModern(this, this.#detachedSession(), incoming, notifier);
      return dispatchTransient(this, incoming, notifier, policy, this.#logLevel);
    }
    const observed = sent === undefined ? notifier : new ObservedNotifier(notifier, sent);
    if (hook === undefined) return this.#dispatchAlone(incoming, observed, policy);
    const version = policy?.version ?? envelopeVersion(incoming.request.params);
    return hook(incoming, undefined, version, () => this.#dispatchAlone(incoming, observed, policy));
  }

  #dispatchAlone(
    incoming: IncomingRequest,
    notifier: Notifier,
    policy: RevisionPolicy | undefined,
  ): Promise<JsonObject> | JsonObject {
    if (policy === undefined) return dispatchModern(this, this.#detachedSession(), incoming, notifier);
    return dispatchTransient(this, incoming, notifier, policy, this.#logLevel);
  }

  /** @internal A client notification that came without a session (a Streamable HTTP POST without one). */
  notificationAlone(notification: JsonRpcNotification): void {
    this.notification(this.#detachedSession(), notification);
  }

  /** The one session of the requests that have none (made on first use). */
  #detachedSession(): ServerSession {
    this.#detached ??= detachedSession(this, this.#options.defaultLogLevel ?? 'info');
    return this.#detached;
  }

  /** @internal The implementation of a protocol method. */
  method(name: string): { gate?: CapabilityGate; run: MethodHandler } | undefined {
    return SERVER_METHODS.get(name) ?? this.#skills?.method(name);
  }

  /** @internal Whether the capability a method needs is declared. */
  declared(gate: CapabilityGate): boolean {
    return declares(this.capabilities, gate);
  }

  /** @internal The access rules: the option `access`, and those of the servers mounted in this one. */
  get access(): Access | undefined {
    return this.#mounts.access ?? this.#guards?.access;
  }

  /** @internal The hook around requests handlers make of their client (audit, rate limits). */
  get asks(): AskHook | undefined {
    const guard = this.#guards?.asks;
    const own = this.#askHooks;
    if (own.length === 0) return guard;
    return (method, params, ctx, send) => {
      let inner = guard === undefined ? send : () => guard(method, params, ctx, send);
      for (let i = own.length - 1; i >= 0; i--) {
        const hook = own[i] as AskHook;
        const next = inner;
        inner = () => hook(method, params, ctx, next);
      }
      return inner();
    };
  }

  /** @internal The middleware chain (the author's; the guards run in front of it). */
  get middleware(): readonly Middleware[] {
    return this.#middleware;
  }

  /** @internal The guards in front of the middleware, when any is on. */
  get guards(): GuardRunner | undefined {
    return this.#guards?.run;
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
    return cacheHintOf(method, params, this.resources, this.templates, this.#options.cacheHints);
  }

  /** @internal Handles a client notification. */
  notification(session: ServerSession, notification: JsonRpcNotification): void {
    this.#notificationHook?.(
      notification,
      session.id,
      session.protocolVersion || envelopeVersion(notification.params),
    );
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
    const at = this.#opened.get(session);
    if (at !== undefined)
      for (const watcher of this.#sessionWatchers) {
        try {
          watcher(session, performance.now() - at);
        } catch (e) {
          this.error(e instanceof Error ? e : new Error(String(e)), session);
        }
      }
    this.sessionEnded(session);
  }

  /**
   * @internal A session that may hold something through this server ended: one of its own, or one of a server it
   * is mounted in (each mount passes it on down). Here: passed on to the servers mounted in this one.
   */
  sessionEnded(session: SessionInfo): void {
    this.#mounts.sessionEnded(session);
  }

  /** @internal */
  listResources(cursor: unknown, ctx: RequestContext): Promise<JsonObject> {
    return listResources(this.resources, this.templates, cursor, ctx, this.#pageSize, this.access);
  }

  /** @internal */
  completerFor(ref: CompletionReference | undefined, argument: string): Completer | undefined {
    return completerFor(this.prompts, this.templates, ref, argument);
  }

  #taskManager(): TaskManager {
    const option = this.#options.tasks;
    const report = (e: unknown) => this.error(toError(e), undefined);
    return new TaskManager(
      typeof option === 'object' ? option : {},
      (task) => this.subscriptions.taskUpdated(task, report),
      report,
      { tool: (name) => this.tools.get(name)?.def, session: () => this.#detachedSession() },
    );
  }
}

/** The revision a 2026-07-28 message's `_meta` envelope names, if any. */
function envelopeVersion(params: JsonObject | undefined): string | undefined {
  const version = (params?._meta as JsonObject | undefined)?.[META.protocolVersion];
  return typeof version === 'string' ? version : undefined;
}

/** Every stateful revision this server can negotiate. */
export const SUPPORTED_REVISIONS = STATEFUL_REVISIONS;
