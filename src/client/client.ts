import { McpkitError, toError } from '../jsonrpc/errors.js';
import type { JsonObject, JsonRpcNotification, RequestId } from '../jsonrpc/types.js';
import type { RequestOptions } from '../protocol/outgoing.js';
import { Peer } from '../protocol/peer.js';
import type { Transport } from '../protocol/transport.js';
import { preloadJsonSchema } from '../schema/index.js';
import {
  callToolResult,
  checkResult,
  completeResult,
  getPromptResult,
  loggingMessageParams,
  readResourceResult,
} from '../spec/checks.js';
import { isModernRevision, type SubscriptionFilter } from '../spec/modern.js';
import { POLICIES, type RevisionPolicy } from '../spec/revision.js';
import { conforms } from '../spec/shape.js';
import { SKILLS_EXTENSION, type SkillEntry, type SkillsCapability } from '../spec/skills.js';
import type {
  CallToolResult,
  ClientCapabilities,
  CompleteResult,
  CompletionReference,
  GetPromptResult,
  Implementation,
  LoggingLevel,
  Prompt,
  ReadResourceResult,
  Resource,
  ResourceTemplate,
  Root,
  ServerCapabilities,
  Tool,
} from '../spec/types.js';
import { isStatefulRevision, LATEST_STATEFUL_REVISION } from '../spec/versions.js';
import { answerServerRequest } from './handlers.js';
import {
  DEFAULT_STATEFUL_VERSION,
  type EraChoice,
  type Negotiated,
  type NegotiationSetup,
  negotiate,
} from './negotiate.js';
import {
  type CallToolOptions,
  type ClientOptions,
  checkedCapabilities,
  type ToolCallStart,
} from './options.js';
import { collectPages } from './paginate.js';
import { ResponseCache } from './response-cache.js';
import {
  checkDirectoryPage,
  checkSkillGet,
  checkSkillsPage,
  listedFile,
  type SkillFile,
  skillsCapability,
  verifySkillFile,
} from './skills.js';
import { DEFAULT_MAX_ROUNDS, StatelessCaller } from './stateless.js';
import { ClientSubscriptions, type ListenOptions, type Subscription } from './subscriptions.js';
import {
  type DetailedTask,
  declaresTasksExtension,
  type InputResponses,
  isTaskResult,
  TaskClient,
  taskOf,
  type WaitForTaskOptions,
} from './tasks.js';
import { ToolCache } from './tool-cache.js';

export type { CallToolOptions, ClientEvents, ClientOptions, ToolCallStart } from './options.js';

type ServerGate = 'tools' | 'resources' | 'prompts' | 'logging' | 'completions';

/**
 * An MCP client: connects over any transport, settles the protocol era and revision (probing for the
 * stateless 2026-07-28 revision, falling back to `initialize`), and offers a typed call for every
 * server feature; answers sampling, elicitation and roots through its handlers in both eras.
 *
 * @example
 * const client = new Client({ name: 'my-host', version: '1.0.0' });
 * await client.connect(new StdioClientTransport({ command: 'node', args: ['server.js'] }));
 * const tools = await client.listTools();
 */
export class Client {
  readonly info: Implementation;
  readonly #options: ClientOptions;
  readonly #capabilities: ClientCapabilities;
  #tools = new ToolCache();
  readonly #cache: ResponseCache | undefined;
  readonly #subscriptions: ClientSubscriptions;
  #roots: Root[];
  #peer: Peer | undefined;
  #server: Negotiated | undefined;
  #stateless: StatelessCaller | undefined;
  #logLevel: LoggingLevel | undefined;
  #watch: { sub: Subscription; uris: Set<string> } | undefined;
  #listChanges: Subscription | undefined;
  #tasks: TaskClient | undefined;
  /** True while connect() settles the era: a connection lost meanwhile is reported by connect(), not onclose. */
  #connecting = false;

  constructor(info: Implementation, options: ClientOptions = {}) {
    this.info = info;
    this.#options = options;
    this.#roots = options.roots ?? [];
    this.#capabilities = checkedCapabilities(options);
    this.#cache = options.cache === false ? undefined : new ResponseCache();
    this.#subscriptions = new ClientSubscriptions(
      () => this.#peer,
      () => this.#stateless?.envelope() ?? {},
      (e) => this.#report(toError(e)),
    );
  }

  /** The capabilities this client declares. */
  get capabilities(): ClientCapabilities {
    return this.#capabilities;
  }

  /** The server's name and version (after connect). */
  get serverInfo(): Implementation | undefined {
    return this.#server?.serverInfo;
  }

  /** The capabilities the server declared (after connect). */
  get serverCapabilities(): ServerCapabilities | undefined {
    return this.#server?.capabilities;
  }

  /** The negotiated protocol revision (after connect). */
  get protocolVersion(): string | undefined {
    return this.#server?.protocolVersion;
  }

  /** The era in use: 'stateful' (initialize, sessions) or 'stateless' (2026-07-28), after connect. */
  get era(): 'stateful' | 'stateless' | undefined {
    return this.#server?.era;
  }

  /** The settled revision's policy (the newest stateful one until connect settles it). */
  get #policy(): RevisionPolicy {
    return this.#server?.policy ?? POLICIES[LATEST_STATEFUL_REVISION];
  }

  /** The server's instructions for the model, if any. */
  get instructions(): string | undefined {
    return this.#server?.instructions;
  }

  /**
   * Connects over `transport` and settles the era: a `server/discover` probe, then `initialize` if the
   * server is not stateless. Pass `{ prior: client.era }` from an earlier connection to the same server to
   * start with the remembered era (re-probed if the server turns out to have changed), or `{ era }` to pin.
   */
  async connect(
    transport: Transport,
    options?: RequestOptions & { era?: EraChoice; prior?: 'stateful' | 'stateless' | undefined },
  ): Promise<void> {
    if (this.#peer && !this.#peer.closed)
      throw new McpkitError('ALREADY_CONNECTED', 'This client is already connected');
    // What was learnt from a previous connection (cached results, output schemas) may belong to another server.
    this.#cache?.invalidate();
    this.#tools = new ToolCache();
    this.#server = undefined;
    this.#stateless = undefined;
    const peer = await this.#open(transport);
    const pinned = this.#options.protocolVersion;
    const era: EraChoice =
      options?.era ??
      (pinned === undefined
        ? (this.#options.era ?? 'auto')
        : isModernRevision(pinned)
          ? 'stateless'
          : 'stateful');
    const setup: NegotiationSetup = {
      peer,
      era,
      statefulVersion: pinned !== undefined && isStatefulRevision(pinned) ? pinned : DEFAULT_STATEFUL_VERSION,
      capabilities: this.#capabilities,
      info: this.info,
      probeTimeoutMs: this.#options.probeTimeoutMs ?? 3000,
      prior: options?.prior,
      options,
    };
    const reopen = transport.reopen?.bind(transport);
    if (reopen) setup.reopen = () => this.#open(reopen());
    this.#connecting = true;
    try {
      this.#server = await negotiate(setup);
    } catch (e) {
      await this.#peer?.close();
      throw e;
    } finally {
      this.#connecting = false;
    }
    const current = this.#connected();
    this.#stateless =
      this.#server.era === 'stateless'
        ? this.#statelessCaller(current, this.#server.protocolVersion)
        : undefined;
    if (this.#stateless) this.#listenForChanges();
    else this.#listChanges = undefined;
  }

  /** Starts a Peer over `transport` and makes it the client's connection. */
  async #open(transport: Transport): Promise<Peer> {
    const peer: Peer = new Peer(
      transport,
      {
        request: (incoming) =>
          answerServerRequest(incoming, this.#options, this.#capabilities, this.#roots, this.#policy, (id) =>
            peer.outgoingOptions(id),
          ),
        notification: (n, context) => this.#notification(n, peer, context?.relatedRequestId),
        // 2025-03-26 is the one revision with JSON-RPC batches, which both sides must accept.
        batchAllowed: () => this.#server?.policy.batching === true,
        batchRefusal: () =>
          `batches are not part of protocol revision ${this.#server?.protocolVersion ?? '(none yet)'}`,
        error: (e) => this.#report(e),
        // A connection lost while connecting is reported by connect() itself (or replaced: see negotiate's reopen).
        closed: (e) => {
          if (this.#peer === peer && !this.#connecting) this.#options.onclose?.(e);
        },
      },
      { answerInvalid: false },
    );
    try {
      await peer.start();
    } catch (e) {
      // A transport that never started leaves the client free to connect again.
      await peer.close().catch((closeError: unknown) => this.#report(toError(closeError)));
      throw e;
    }
    this.#peer = peer;
    return peer;
  }

  /** Closes the connection (open listen streams end first). */
  async close(): Promise<void> {
    this.#subscriptions.closeAll();
    await this.#peer?.close();
  }

  /** Sends any request (for methods without a typed call); stateless requests get their envelope. */
  async request(method: string, params?: JsonObject, options?: RequestOptions): Promise<JsonObject> {
    const peer = this.#connected();
    return this.#stateless
      ? this.#stateless.call(method, params, options)
      : peer.request(method, params, options);
  }

  /** Sends any notification. */
  async notify(method: string, params?: JsonObject): Promise<void> {
    await this.#connected().notify(method, params);
  }

  /** Checks the server is alive (`ping`; `server/discover` in the stateless era, which has no ping). */
  async ping(options?: RequestOptions): Promise<void> {
    const peer = this.#connected();
    if (this.#stateless)
      await peer.request('server/discover', { _meta: this.#stateless.envelope() }, options);
    else await peer.request('ping', undefined, options);
  }

  /** Lists every tool (walking all pages) and remembers their output schemas for `callTool`. */
  async listTools(options?: RequestOptions): Promise<Tool[]> {
    this.#gate('tools');
    const tools = await this.#pages<Tool>('tools/list', 'tools', options);
    // The JSON Schema validator is loaded once a listed tool has an output schema to check, so the first checked
    // result does not wait for it, and not before: its loading blocks this thread for some 100 ms (more on a
    // loaded machine), late-reading whatever streams in meanwhile (a resumption's `retry` then starts late).
    if (tools.some((tool) => tool.outputSchema !== undefined))
      void preloadJsonSchema().catch((e: unknown) => this.#report(toError(e)));
    return this.#tools.update(tools, this.#stateless !== undefined, (e) => this.#report(e));
  }

  /**
   * Calls a tool; `structuredContent` is checked against the tool's output schema when it is known.
   * When the client declares the tasks extension (`capabilities.extensions['io.modelcontextprotocol/tasks']`)
   * the server may answer with a task: the call then waits for it (polling `tasks/get`, answering its
   * input requests through the handlers) and resolves with the final result; aborting cancels the task.
   */
  async callTool(
    name: string,
    args?: Record<string, unknown>,
    options?: CallToolOptions,
  ): Promise<CallToolResult> {
    this.#gate('tools');
    const { onInputRequired, onTaskUpdate, defaultPollIntervalMs, ...request } = options ?? {};
    const params: JsonObject = args === undefined ? { name } : { name, arguments: args };
    const first = await this.request('tools/call', params, request);
    let result: CallToolResult;
    if (!isTaskResult(first)) result = checkResult(callToolResult, first, 'tools/call', 'server');
    else {
      const wait: WaitForTaskOptions = { cancelOnAbandon: true };
      if (request.signal) wait.signal = request.signal;
      if (request.timeout !== undefined) wait.timeout = request.timeout;
      if (onInputRequired) wait.onInputRequired = onInputRequired;
      if (onTaskUpdate) wait.onUpdate = onTaskUpdate;
      if (defaultPollIntervalMs !== undefined) wait.defaultPollIntervalMs = defaultPollIntervalMs;
      result = await this.#taskClient().wait(taskOf(first), wait);
    }
    await this.#tools.check(name, result);
    return result;
  }

  /**
   * Calls a tool without waiting for a task: resolves with `{ result }` when the server answered at once,
   * or `{ task }` when it made the call a task (only with the tasks extension declared). Follow the task
   * with `waitForTask`, or `getTask` / `updateTask` / `cancelTask`; its id outlives the connection.
   *
   * @example
   * const started = await client.callToolAsTask('build', { target: 'web' });
   * const result = started.task ? await client.waitForTask(started.task.taskId) : started.result;
   */
  async callToolAsTask(
    name: string,
    args?: Record<string, unknown>,
    options?: RequestOptions,
  ): Promise<ToolCallStart> {
    this.#gate('tools');
    const params: JsonObject = args === undefined ? { name } : { name, arguments: args };
    const first = await this.request('tools/call', params, options);
    if (isTaskResult(first)) return { task: taskOf(first) };
    const result = checkResult(callToolResult, first, 'tools/call', 'server');
    await this.#tools.check(name, result);
    return { result };
  }

  /** The current state of a task (`tasks/get`): status, and its input requests, result or error. */
  async getTask(taskId: string, options?: RequestOptions): Promise<DetailedTask> {
    return this.#taskClient().get(taskId, options);
  }

  /** Answers a task's input requests (`tasks/update`); keys that are not outstanding are ignored. */
  async updateTask(taskId: string, inputResponses: InputResponses, options?: RequestOptions): Promise<void> {
    return this.#taskClient().update(taskId, inputResponses, options);
  }

  /** Asks the server to cancel a task (`tasks/cancel`); cancellation is cooperative. */
  async cancelTask(taskId: string, options?: RequestOptions): Promise<void> {
    return this.#taskClient().cancel(taskId, options);
  }

  /**
   * Waits for a task to end, polling `tasks/get` at the server's `pollIntervalMs`. Input requests are
   * answered once each through `onInputRequired` or the client's elicitation, sampling and roots
   * handlers (`tasks/update`). Resolves with the CallToolResult (isError ones included); rejects with
   * the task's JsonRpcError when it failed, or McpkitError REQUEST_CANCELLED when it was cancelled.
   *
   * @example
   * const result = await client.waitForTask(taskId, { onUpdate: (t) => console.log(t.status) });
   */
  async waitForTask(task: string | DetailedTask, options?: WaitForTaskOptions): Promise<CallToolResult> {
    return this.#taskClient().wait(task, options);
  }

  /** Lists every resource (all pages). */
  async listResources(options?: RequestOptions): Promise<Resource[]> {
    this.#gate('resources');
    return this.#pages<Resource>('resources/list', 'resources', options);
  }

  /** Lists every resource template (all pages). */
  async listResourceTemplates(options?: RequestOptions): Promise<ResourceTemplate[]> {
    this.#gate('resources');
    return this.#pages<ResourceTemplate>('resources/templates/list', 'resourceTemplates', options);
  }

  /** Reads a resource. */
  async readResource(uri: string, options?: RequestOptions): Promise<ReadResourceResult> {
    this.#gate('resources');
    const result = await this.request('resources/read', { uri }, options);
    return checkResult(readResourceResult, result, 'resources/read', 'server');
  }

  /** Lists every skill the server publishes (`skills/list`, all pages), each entry checked. */
  async listSkills(options?: RequestOptions): Promise<SkillEntry[]> {
    this.#skillsGate();
    const pages = await this.#pages<unknown>('skills/list', 'skills', options);
    return checkSkillsPage({ skills: pages as JsonObject[] }).skills;
  }

  /** The entry of one skill by the URI of its `SKILL.md` (`skills/get`), listed or not. */
  async getSkill(uri: string, options?: RequestOptions): Promise<SkillEntry> {
    this.#skillsGate();
    return checkSkillGet(await this.request('skills/get', { uri }, options), uri);
  }

  /**
   * Reads one file of a skill (`resources/read`) and checks it against the skill's entry: listed, the listed size
   * and SHA-256 digest, a `SKILL.md`'s frontmatter as the entry's; McpkitError SKILL_INTEGRITY otherwise.
   */
  async readSkillFile(
    entry: SkillEntry,
    uri: string = entry.uri,
    options?: RequestOptions,
  ): Promise<SkillFile> {
    listedFile(entry, uri);
    return verifySkillFile(entry, uri, await this.readResource(uri, options));
  }

  /** The direct children of a directory resource (`resources/directory/read`, all pages). */
  async readDirectory(uri: string, options?: RequestOptions): Promise<Resource[]> {
    if (this.#skillsGate().directoryRead !== true) this.#missing(`${SKILLS_EXTENSION} directoryRead`);
    const resources: Resource[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < (this.#options.pageLimit ?? 100); page++) {
      const params: JsonObject = cursor === undefined ? { uri } : { uri, cursor };
      const result = checkDirectoryPage(await this.request('resources/directory/read', params, options));
      resources.push(...result.resources);
      if (result.nextCursor === undefined || result.nextCursor === '') return resources;
      cursor = result.nextCursor;
    }
    throw new McpkitError('PAGE_LIMIT', 'resources/directory/read returned more pages than pageLimit');
  }

  /** Subscribes to updates of a resource (`resources/subscribe`, or a listen stream when stateless). */
  async subscribeResource(uri: string, options?: RequestOptions): Promise<void> {
    if (!this.#server?.capabilities.resources?.subscribe) this.#missing('resources.subscribe');
    if (this.#stateless) return this.#watchResources((uris) => uris.add(uri));
    await this.request('resources/subscribe', { uri }, options);
  }

  /** Ends a resource subscription. */
  async unsubscribeResource(uri: string, options?: RequestOptions): Promise<void> {
    if (!this.#server?.capabilities.resources?.subscribe) this.#missing('resources.subscribe');
    if (this.#stateless) return this.#watchResources((uris) => uris.delete(uri));
    await this.request('resources/unsubscribe', { uri }, options);
  }

  /** Lists every prompt (all pages). */
  async listPrompts(options?: RequestOptions): Promise<Prompt[]> {
    this.#gate('prompts');
    return this.#pages<Prompt>('prompts/list', 'prompts', options);
  }

  /** Gets a prompt with its arguments filled in. */
  async getPrompt(
    name: string,
    args?: Record<string, string>,
    options?: RequestOptions,
  ): Promise<GetPromptResult> {
    this.#gate('prompts');
    const params: JsonObject = args === undefined ? { name } : { name, arguments: args };
    const result = await this.request('prompts/get', params, options);
    return checkResult(getPromptResult, result, 'prompts/get', 'server');
  }

  /** Asks for completions of a prompt argument or template variable. */
  async complete(
    ref: CompletionReference,
    argument: { name: string; value: string },
    context?: Record<string, string>,
    options?: RequestOptions,
  ): Promise<CompleteResult['completion']> {
    // 2024-11-05 had no completions capability; later revisions gate it.
    if (this.#policy.completionsCapability) this.#gate('completions');
    const params: JsonObject = { ref, argument };
    if (context !== undefined) params.context = { arguments: context };
    const result = await this.request('completion/complete', params, options);
    return checkResult(completeResult, result, 'completion/complete', 'server').completion;
  }

  /** Sets the logging threshold: `logging/setLevel` (stateful) or the `logLevel` sent with every request (stateless). */
  async setLoggingLevel(level: LoggingLevel, options?: RequestOptions): Promise<void> {
    this.#gate('logging');
    this.#logLevel = level;
    if (!this.#stateless) await this.#connected().request('logging/setLevel', { level }, options);
  }

  /** Replaces the roots offered to the server and tells it they changed (stateful era). */
  async setRoots(roots: Root[]): Promise<void> {
    if (!this.#capabilities.roots) this.#missing('roots', 'client');
    this.#roots = roots;
    if (this.#peer && !this.#peer.closed && !this.#stateless && this.#capabilities.roots?.listChanged) {
      await this.notify('notifications/roots/list_changed');
    }
  }

  /**
   * Stateless era: the listen stream the client opened at connect for its list-change callbacks (`onToolsChanged`,
   * `onPromptsChanged`, `onResourcesChanged`, those the server can notify); undefined when it opened none. Its
   * `honoured` settles once the server acknowledged it: list changes from then on reach the callbacks.
   */
  get listChanges(): Subscription | undefined {
    return this.#listChanges;
  }

  /**
   * Opens a `subscriptions/listen` stream (stateless era): list changes and resource updates arrive
   * through the usual callbacks. In the stateful era these notifications arrive without subscribing.
   */
  listen(filter: SubscriptionFilter, options?: ListenOptions): Subscription {
    this.#connected();
    if (!this.#stateless)
      throw new McpkitError('NOT_CONNECTED', 'listen() needs a server of the stateless revision');
    return this.#subscriptions.open(filter, options);
  }

  #taskClient(): TaskClient {
    this.#connected();
    if (!this.#stateless)
      throw new McpkitError('NOT_CONNECTED', 'Tasks need a server of the stateless revision 2026-07-28');
    if (!declaresTasksExtension(this.#capabilities))
      this.#missing('extensions.io.modelcontextprotocol/tasks', 'client');
    const o = this.#options;
    this.#tasks ??= new TaskClient({
      request: (method, params, options) => this.request(method, params, options),
      capabilities: this.#capabilities,
      handlers: o,
      roots: () => this.#roots,
      applyDefaults: o.applyElicitationDefaults !== false,
    });
    return this.#tasks;
  }

  #statelessCaller(peer: Peer, protocolVersion: string): StatelessCaller {
    const o = this.#options;
    return new StatelessCaller({
      peer,
      protocolVersion,
      capabilities: this.#capabilities,
      info: this.info,
      handlers: o,
      roots: () => this.#roots,
      applyDefaults: o.applyElicitationDefaults !== false,
      // A client with a log handler gets the server's entries at 'info' and above until setLoggingLevel() says
      // otherwise, as a stateful session does by default: the stateless revision sends none unless asked.
      logLevel: () =>
        this.#logLevel ?? (o.onlog !== undefined && this.#server?.capabilities.logging ? 'info' : undefined),
      maxRounds: o.maxInputRounds ?? DEFAULT_MAX_ROUNDS,
      cache: this.#cache,
      partition: o.cachePartition ?? (() => ''),
      refreshTools: () => this.listTools(),
      headersFor: (method, params) =>
        method === 'tools/call' && typeof params.name === 'string'
          ? this.#tools.headers(params.name, params.arguments as Record<string, unknown> | undefined)
          : undefined,
    });
  }

  /** Stateless era: one listen stream for the list-change callbacks given in the options. */
  #listenForChanges(): void {
    const o = this.#options;
    const caps = this.#server?.capabilities;
    const filter: SubscriptionFilter = {};
    if (o.onToolsChanged && caps?.tools?.listChanged) filter.toolsListChanged = true;
    if (o.onPromptsChanged && caps?.prompts?.listChanged) filter.promptsListChanged = true;
    if (o.onResourcesChanged && caps?.resources?.listChanged) filter.resourcesListChanged = true;
    this.#listChanges = Object.keys(filter).length > 0 ? this.#subscriptions.open(filter) : undefined;
  }

  async #watchResources(change: (uris: Set<string>) => void): Promise<void> {
    const uris = new Set(this.#watch?.uris);
    change(uris);
    this.#watch?.sub.close();
    this.#watch = undefined;
    if (uris.size === 0) return;
    const sub = this.#subscriptions.open({ resourceSubscriptions: [...uris] });
    this.#watch = { sub, uris };
    await sub.honoured;
  }

  async #pages<T>(method: string, key: string, options: RequestOptions | undefined): Promise<T[]> {
    return collectPages<T>(
      (params) => this.request(method, params, options),
      method,
      key,
      this.#options.pageLimit ?? 100,
    );
  }

  #connected(): Peer {
    if (!this.#peer || this.#peer.closed)
      throw new McpkitError('NOT_CONNECTED', 'The client is not connected');
    return this.#peer;
  }

  #gate(cap: ServerGate): void {
    const caps = this.#server?.capabilities;
    if (!caps || !this.#peer || this.#peer.closed)
      throw new McpkitError('NOT_CONNECTED', 'The client is not connected');
    if (caps[cap] === undefined) this.#missing(cap);
  }

  #skillsGate(): SkillsCapability {
    this.#gate('resources');
    return skillsCapability(this.#server?.capabilities) ?? this.#missing(SKILLS_EXTENSION);
  }

  #missing(cap: string, side: 'server' | 'client' = 'server'): never {
    throw new McpkitError('CAPABILITY_MISSING', `The ${side} did not declare the "${cap}" capability`);
  }

  /** `related`: the request of ours the server related it to, where the transport tells (see `RequestOptions.onlog`). */
  #notification(n: JsonRpcNotification, peer: Peer, related: RequestId | undefined): void {
    if (this.#subscriptions.route(n)) return;
    const o = this.#options;
    const refresh = o.autoRefresh !== false;
    switch (n.method) {
      case 'notifications/message': {
        const own = related === undefined ? undefined : peer.outgoingOptions(related)?.onlog;
        if (!own && !o.onlog) return;
        if (!conforms(loggingMessageParams, n.params))
          this.#report(
            new McpkitError('INVALID_MESSAGE', 'The server sent a malformed notifications/message'),
          );
        else if (own) own(n.params);
        else o.onlog?.(n.params, related);
        return;
      }
      case 'notifications/tools/list_changed':
        this.#cache?.invalidate('tools/list');
        this.#refresh(refresh ? () => this.listTools() : undefined, o.onToolsChanged);
        return;
      case 'notifications/prompts/list_changed':
        this.#cache?.invalidate('prompts/list');
        this.#refresh(refresh ? () => this.listPrompts() : undefined, o.onPromptsChanged);
        return;
      case 'notifications/resources/list_changed':
        this.#cache?.invalidate('resources/list');
        this.#cache?.invalidate('resources/templates/list');
        this.#refresh(refresh ? () => this.listResources() : undefined, o.onResourcesChanged);
        return;
      case 'notifications/resources/updated':
        if (typeof n.params?.uri === 'string') {
          this.#cache?.invalidate('resources/read', JSON.stringify({ uri: n.params.uri }));
          o.onResourceUpdated?.(n.params.uri);
        }
        return;
      default:
        o.onnotification?.(n);
    }
  }

  #refresh<T>(
    list: (() => Promise<T[]>) | undefined,
    callback: ((items: T[] | undefined) => void) | undefined,
  ): void {
    if (!list) {
      callback?.(undefined);
      return;
    }
    list().then(
      (items) => callback?.(items),
      (e: unknown) => this.#report(toError(e)),
    );
  }

  #report(error: Error): void {
    if (this.#options.onerror) this.#options.onerror(error);
    else if (!(error instanceof McpkitError && error.code === 'INVALID_MESSAGE'))
      console.error(`mcpkit client: ${error.message}`);
  }
}
