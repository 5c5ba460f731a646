import { ErrorCode, JsonRpcError, McpkitError } from '../jsonrpc/errors.js';
import type { JsonObject, JsonRpcNotification } from '../jsonrpc/types.js';
import type { RequestOptions } from '../protocol/outgoing.js';
import { type IncomingRequest, Peer } from '../protocol/peer.js';
import type {
  CallToolResult,
  ClientCapabilities,
  CompleteResult,
  CompletionReference,
  GetPromptResult,
  Implementation,
  InitializeResult,
  LoggingLevel,
  LoggingMessageParams,
  Prompt,
  ReadResourceResult,
  Resource,
  ResourceTemplate,
  Root,
  ServerCapabilities,
  Tool,
} from '../spec/types.js';
import { isStatefulRevision, LATEST_STATEFUL_REVISION, STATEFUL_REVISIONS } from '../spec/versions.js';
import type { Transport } from '../transport/transport.js';
import {
  answerElicitation,
  answerSampling,
  type ClientHandlers,
  type ClientRequestContext,
} from './handlers.js';
import { collectPages } from './paginate.js';
import { ToolCache } from './tool-cache.js';

/** Notification callbacks of a client. */
export interface ClientEvents {
  /** A `notifications/message` log entry from the server. */
  onlog?: (params: LoggingMessageParams) => void;
  /** The tool list changed; with `autoRefresh` the fresh list is passed. */
  onToolsChanged?: (tools: Tool[] | undefined) => void;
  /** The prompt list changed; with `autoRefresh` the fresh list is passed. */
  onPromptsChanged?: (prompts: Prompt[] | undefined) => void;
  /** The resource list changed; with `autoRefresh` the fresh list is passed. */
  onResourcesChanged?: (resources: Resource[] | undefined) => void;
  /** A subscribed resource changed. */
  onResourceUpdated?: (uri: string) => void;
  /** Any other notification. */
  onnotification?: (notification: JsonRpcNotification) => void;
  /** A problem that did not close the connection. */
  onerror?: (error: Error) => void;
  /** The connection closed (`error` when it ended unexpectedly). */
  onclose?: (error: Error | undefined) => void;
}

/** Options of a client. */
export interface ClientOptions extends ClientEvents, ClientHandlers {
  /** Capabilities to declare; when omitted they follow the handlers given. */
  capabilities?: ClientCapabilities;
  /** The revision to ask for. Default: the latest stateful revision. */
  protocolVersion?: string;
  /** Most pages a list call walks before failing with PAGE_LIMIT. Default 100. */
  pageLimit?: number;
  /** Re-list tools, prompts or resources when the server says they changed. Default true. */
  autoRefresh?: boolean;
  /** Fill elicitation schema defaults into accepted answers. Default true. */
  applyElicitationDefaults?: boolean;
  /** Roots to offer (answered to `roots/list` when no roots handler is given). */
  roots?: Root[];
}

type ServerGate = 'tools' | 'resources' | 'prompts' | 'logging' | 'completions';

/**
 * An MCP client: connects over any transport, negotiates the revision, and offers a typed call for
 * every server feature; answers sampling, elicitation and roots requests through its handlers.
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
  readonly #tools = new ToolCache();
  #roots: Root[];
  #peer: Peer | undefined;
  #init: InitializeResult | undefined;

  constructor(info: Implementation, options: ClientOptions = {}) {
    this.info = info;
    this.#options = options;
    this.#roots = options.roots ?? [];
    if (options.protocolVersion !== undefined && !isStatefulRevision(options.protocolVersion)) {
      throw new McpkitError(
        'UNSUPPORTED_PROTOCOL_VERSION',
        `Cannot ask for protocol revision ${JSON.stringify(options.protocolVersion)}: this client speaks ${STATEFUL_REVISIONS.join(', ')}`,
      );
    }
    this.#capabilities = options.capabilities ?? derivedCapabilities(options);
    const caps = this.#capabilities;
    const check = (given: unknown, cap: keyof ClientCapabilities, what: string) => {
      if (given !== undefined && caps[cap] === undefined) {
        throw new McpkitError(
          'CAPABILITY_MISSING',
          `A ${what} handler was given but the declared capabilities lack "${cap}"`,
        );
      }
    };
    check(options.sampling, 'sampling', 'sampling');
    check(options.elicitation, 'elicitation', 'elicitation');
    check(options.roots ?? options.rootsHandler, 'roots', 'roots');
  }

  /** The capabilities this client declares. */
  get capabilities(): ClientCapabilities {
    return this.#capabilities;
  }

  /** The server's `initialize` result (after connect). */
  get serverInfo(): Implementation | undefined {
    return this.#init?.serverInfo;
  }

  /** The capabilities the server declared (after connect). */
  get serverCapabilities(): ServerCapabilities | undefined {
    return this.#init?.capabilities;
  }

  /** The negotiated protocol revision (after connect). */
  get protocolVersion(): string | undefined {
    return this.#init?.protocolVersion;
  }

  /** The server's instructions for the model, if any. */
  get instructions(): string | undefined {
    return this.#init?.instructions;
  }

  /** Connects over `transport` and performs the `initialize` handshake. */
  async connect(transport: Transport, options?: RequestOptions): Promise<void> {
    if (this.#peer && !this.#peer.closed)
      throw new McpkitError('ALREADY_CONNECTED', 'This client is already connected');
    const peer = new Peer(
      transport,
      {
        request: (incoming) => this.#answer(incoming),
        notification: (n) => this.#notification(n),
        batchAllowed: () => false,
        batchRefusal: () => 'batches are not accepted by this client',
        error: (e) => this.#report(e),
        closed: (e) => this.#options.onclose?.(e),
      },
      { answerInvalid: false },
    );
    this.#peer = peer;
    await peer.start();
    const requested = this.#options.protocolVersion ?? LATEST_STATEFUL_REVISION;
    let result: InitializeResult;
    try {
      result = (await peer.request(
        'initialize',
        {
          protocolVersion: requested,
          capabilities: this.#capabilities,
          clientInfo: this.info,
        } as unknown as JsonObject,
        options,
      )) as unknown as InitializeResult;
    } catch (e) {
      await peer.close();
      throw e;
    }
    if (!isStatefulRevision(result.protocolVersion)) {
      await peer.close();
      throw new McpkitError(
        'UNSUPPORTED_PROTOCOL_VERSION',
        `The server chose protocol revision ${JSON.stringify(result.protocolVersion)}, which this client does not speak (it speaks ${STATEFUL_REVISIONS.join(', ')})`,
      );
    }
    this.#init = result;
    await peer.notify('notifications/initialized');
  }

  /** Closes the connection. */
  async close(): Promise<void> {
    await this.#peer?.close();
  }

  /** Sends any request (for methods without a typed call). */
  request(method: string, params?: JsonObject, options?: RequestOptions): Promise<JsonObject> {
    return this.#connected().request(method, params, options);
  }

  /** Sends any notification. */
  notify(method: string, params?: JsonObject): Promise<void> {
    return this.#connected().notify(method, params);
  }

  /** Checks the server is alive. */
  async ping(options?: RequestOptions): Promise<void> {
    await this.request('ping', undefined, options);
  }

  /** Lists every tool (walking all pages) and remembers their output schemas for `callTool`. */
  async listTools(options?: RequestOptions): Promise<Tool[]> {
    this.#gate('tools');
    const tools = await collectPages<Tool>(
      this.#connected(),
      'tools/list',
      'tools',
      this.#pageLimit(),
      options,
    );
    this.#tools.update(tools);
    return tools;
  }

  /** Calls a tool; `structuredContent` is checked against the tool's output schema when it is known. */
  async callTool(
    name: string,
    args?: Record<string, unknown>,
    options?: RequestOptions,
  ): Promise<CallToolResult> {
    this.#gate('tools');
    const params: JsonObject = args === undefined ? { name } : { name, arguments: args };
    const result = (await this.request('tools/call', params, options)) as unknown as CallToolResult;
    this.#tools.check(name, result);
    return result;
  }

  /** Lists every resource (all pages). */
  listResources(options?: RequestOptions): Promise<Resource[]> {
    this.#gate('resources');
    return collectPages<Resource>(
      this.#connected(),
      'resources/list',
      'resources',
      this.#pageLimit(),
      options,
    );
  }

  /** Lists every resource template (all pages). */
  listResourceTemplates(options?: RequestOptions): Promise<ResourceTemplate[]> {
    this.#gate('resources');
    return collectPages(
      this.#connected(),
      'resources/templates/list',
      'resourceTemplates',
      this.#pageLimit(),
      options,
    );
  }

  /** Reads a resource. */
  async readResource(uri: string, options?: RequestOptions): Promise<ReadResourceResult> {
    this.#gate('resources');
    return (await this.request('resources/read', { uri }, options)) as unknown as ReadResourceResult;
  }

  /** Subscribes to updates of a resource. */
  async subscribeResource(uri: string, options?: RequestOptions): Promise<void> {
    if (!this.#init?.capabilities.resources?.subscribe) this.#missing('resources.subscribe');
    await this.request('resources/subscribe', { uri }, options);
  }

  /** Ends a subscription. */
  async unsubscribeResource(uri: string, options?: RequestOptions): Promise<void> {
    if (!this.#init?.capabilities.resources?.subscribe) this.#missing('resources.subscribe');
    await this.request('resources/unsubscribe', { uri }, options);
  }

  /** Lists every prompt (all pages). */
  listPrompts(options?: RequestOptions): Promise<Prompt[]> {
    this.#gate('prompts');
    return collectPages<Prompt>(this.#connected(), 'prompts/list', 'prompts', this.#pageLimit(), options);
  }

  /** Gets a prompt with its arguments filled in. */
  async getPrompt(
    name: string,
    args?: Record<string, string>,
    options?: RequestOptions,
  ): Promise<GetPromptResult> {
    this.#gate('prompts');
    const params: JsonObject = args === undefined ? { name } : { name, arguments: args };
    return (await this.request('prompts/get', params, options)) as unknown as GetPromptResult;
  }

  /** Asks for completions of a prompt argument or template variable. */
  async complete(
    ref: CompletionReference,
    argument: { name: string; value: string },
    context?: Record<string, string>,
    options?: RequestOptions,
  ): Promise<CompleteResult['completion']> {
    // 2024-11-05 had no completions capability; later revisions gate it.
    if (this.protocolVersion !== '2024-11-05') this.#gate('completions');
    const params: JsonObject = { ref, argument };
    if (context !== undefined) params.context = { arguments: context };
    const result = (await this.request('completion/complete', params, options)) as unknown as CompleteResult;
    return result.completion;
  }

  /** Sets the server's logging threshold for this session. */
  async setLoggingLevel(level: LoggingLevel, options?: RequestOptions): Promise<void> {
    this.#gate('logging');
    await this.request('logging/setLevel', { level }, options);
  }

  /** Replaces the roots offered to the server and tells it they changed. */
  async setRoots(roots: Root[]): Promise<void> {
    if (!this.#capabilities.roots) this.#missing('roots', 'client');
    this.#roots = roots;
    if (this.#peer && !this.#peer.closed && this.#capabilities.roots?.listChanged) {
      await this.notify('notifications/roots/list_changed');
    }
  }

  #connected(): Peer {
    if (!this.#peer || this.#peer.closed)
      throw new McpkitError('NOT_CONNECTED', 'The client is not connected');
    return this.#peer;
  }

  #pageLimit(): number {
    return this.#options.pageLimit ?? 100;
  }

  #gate(cap: ServerGate): void {
    const caps = this.#init?.capabilities;
    if (!caps) throw new McpkitError('NOT_CONNECTED', 'The client is not connected');
    if (caps[cap] === undefined) this.#missing(cap);
  }

  #missing(cap: string, side: 'server' | 'client' = 'server'): never {
    throw new McpkitError('CAPABILITY_MISSING', `The ${side} did not declare the "${cap}" capability`);
  }

  async #answer(incoming: IncomingRequest): Promise<JsonObject> {
    const { method, params = {} } = incoming.request;
    const ctx: ClientRequestContext = { signal: incoming.signal, requestId: incoming.request.id };
    const o = this.#options;
    const caps = this.#capabilities;
    if (method === 'ping') return {};
    if (method === 'sampling/createMessage' && o.sampling && caps.sampling)
      return answerSampling(o.sampling, caps, params, ctx);
    if (method === 'elicitation/create' && o.elicitation && caps.elicitation) {
      return answerElicitation(o.elicitation, caps, params, ctx, o.applyElicitationDefaults !== false);
    }
    if (method === 'roots/list' && caps.roots) {
      const roots = o.rootsHandler ? await o.rootsHandler(ctx) : this.#roots;
      return { roots } as unknown as JsonObject;
    }
    throw new JsonRpcError(ErrorCode.MethodNotFound, `Method not found: ${method}`);
  }

  #notification(n: JsonRpcNotification): void {
    const o = this.#options;
    const refresh = o.autoRefresh !== false;
    switch (n.method) {
      case 'notifications/message':
        o.onlog?.(n.params as unknown as LoggingMessageParams);
        return;
      case 'notifications/tools/list_changed':
        this.#refresh(refresh ? () => this.listTools() : undefined, o.onToolsChanged);
        return;
      case 'notifications/prompts/list_changed':
        this.#refresh(refresh ? () => this.listPrompts() : undefined, o.onPromptsChanged);
        return;
      case 'notifications/resources/list_changed':
        this.#refresh(refresh ? () => this.listResources() : undefined, o.onResourcesChanged);
        return;
      case 'notifications/resources/updated':
        if (typeof n.params?.uri === 'string') o.onResourceUpdated?.(n.params.uri);
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
      (e: unknown) => this.#report(e instanceof Error ? e : new Error(String(e))),
    );
  }

  #report(error: Error): void {
    if (this.#options.onerror) this.#options.onerror(error);
    else if (!(error instanceof McpkitError && error.code === 'INVALID_MESSAGE'))
      console.error(`mcpkit client: ${error.message}`);
  }
}

function derivedCapabilities(options: ClientOptions): ClientCapabilities {
  const caps: ClientCapabilities = {};
  if (options.sampling) caps.sampling = {};
  // URL mode opens browsers: a client opts into it by declaring capabilities explicitly.
  if (options.elicitation) caps.elicitation = { form: {} };
  if (options.roots || options.rootsHandler) caps.roots = { listChanged: true };
  return caps;
}
