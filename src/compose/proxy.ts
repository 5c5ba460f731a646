import { Client } from '../client/client.js';
import type { EraChoice } from '../client/negotiate.js';
import { skillsCapability } from '../client/skills.js';
import { ErrorCode, errorMessage, JsonRpcError, McpkitError, toError } from '../jsonrpc/errors.js';
import type { JsonObject, RequestId } from '../jsonrpc/types.js';
import type { RequestOptions } from '../protocol/outgoing.js';
import type { Transport } from '../protocol/transport.js';
import { checkToolTransforms, type ToolTransforms } from '../server/definitions/tool-transforms.js';
import type { RequestContext, SessionInfo } from '../server/handler/context.js';
import type { ServerOptions } from '../server/server.js';
import { McpServer } from '../server/server.js';
import type { SkillSource } from '../server/skills/catalog.js';
import { LOG_LEVELS } from '../spec/log-levels.js';
import type { Implementation, LoggingMessageParams, ServerCapabilities } from '../spec/types.js';
import type { HttpAuthorizer } from '../transport/http-client/auth-hook.js';
import { HttpClientTransport } from '../transport/http-client/fallback.js';
import { InFlight } from './in-flight.js';
import { Mirror } from './mirror.js';
import { shapeTools } from './shape-tools.js';
import { DEFAULT_MAX_UPSTREAM_SUBSCRIPTIONS, UpstreamSubscriptions } from './upstream-subscriptions.js';

/** Options of {@link createProxy}. */
export interface ProxyOptions {
  /** The proxy's own name and version. Default: the server's, with "-proxy" added to the name. */
  info?: Implementation;
  /** How the proxy introduces itself to the server behind it. */
  clientInfo?: Implementation;
  /** Authorization for a URL target, e.g. `mcpkit/auth`'s `OAuthClient` (ignored for a transport). */
  auth?: HttpAuthorizer;
  /** Which era to speak to the server behind (default: negotiate). */
  era?: EraChoice;
  /** Renames, hides, redescribes the server's tools or fixes their arguments; checked against its tools at start. */
  tools?: ToolTransforms;
  /** Options of the proxy's server (instructions default to the server's; capabilities follow the server's). */
  server?: Omit<ServerOptions, 'capabilities'>;
  /**
   * Most resources the proxy keeps subscribed on the server behind it at once, for all its clients together
   * (each subscribed once however many clients want it, and unsubscribed when the last lets it go). A subscription
   * to one more is refused with an error. Default 1000.
   */
  maxSubscriptions?: number;
  /** Time limit of each forwarded request in ms (progress restarts it). Default 60 000. */
  timeout?: number;
  /** Problems that stop nothing (a list that failed to refresh, a definition that could not be offered). */
  onerror?: (error: Error) => void;
}

/** The lists a proxy mirrors (resources include the templates). */
export type ProxiedList = 'tools' | 'prompts' | 'resources';

/**
 * An `McpServer` that forwards to another MCP server reached by an mcpkit `Client` (stdio, Streamable HTTP, legacy
 * SSE, any transport): its tools, prompts, resources, templates and completions are offered as this server's and
 * kept in step with it (its list changes and resource updates reach this server's clients); calls carry progress
 * and cancellation through; what the server asks of its client (sampling, elicitation, roots) is asked of the
 * client whose request caused it (see `InFlight` for how that is told); its log messages go to the client
 * whose request they relate to, at that client's log level, or, when the server behind relates them to no request
 * (stdio, legacy SSE), to every stateful session at its level (`forwardLog`); resource subscriptions are held
 * there for this server's clients, counted, bounded and let go with the last of them. Being a plain `McpServer`,
 * it can be served over any transport, mounted, and given middleware. Made by {@link createProxy}.
 */
export class ProxyServer extends McpServer {
  /** The client connected to the server behind the proxy. */
  readonly backend: Client;
  readonly #inFlight: InFlight;
  readonly #mirror: Mirror;
  readonly #transforms: ToolTransforms;
  readonly #timeout: number | undefined;
  readonly #report: (error: Error) => void;
  readonly #refreshing = new Map<ProxiedList, Promise<void>>();
  readonly #again = new Set<ProxiedList>();
  /** The resource subscriptions held on the server behind for this server's clients (when it offers them). */
  readonly #subscriptions: UpstreamSubscriptions | undefined;

  /** Made by {@link createProxy}. */
  private constructor(backend: Client, inFlight: InFlight, options: ProxyOptions) {
    const caps = backend.serverCapabilities ?? {};
    const serverInfo = backend.serverInfo;
    const { onRootsListChanged, ...serverOptions } = options.server ?? {};
    const instructions = serverOptions.instructions ?? backend.instructions;
    super(
      options.info ?? {
        name: `${serverInfo?.name ?? 'server'}-proxy`,
        version: serverInfo?.version ?? '0.0.0',
      },
      {
        ...serverOptions,
        ...(instructions === undefined ? {} : { instructions }),
        capabilities: offered(caps),
        onRootsListChanged: (session) => {
          if (backend.era === 'stateful' && backend.capabilities.roots)
            backend
              .notify('notifications/roots/list_changed')
              .catch((e: unknown) => this.#report(toError(e)));
          onRootsListChanged?.(session);
        },
      },
    );
    this.backend = backend;
    this.#inFlight = inFlight;
    this.#transforms = options.tools ?? {};
    this.#timeout = options.timeout;
    this.#report = options.onerror ?? ((e) => console.error(`mcpkit proxy: ${e.message}`));
    this.#mirror = new Mirror(this, (what, e) =>
      this.#report(new McpkitError('INVALID_RESULT', `${what}: ${errorMessage(e)}`)),
    );
    const skills = skillsCapability(caps);
    if (skills) this.addSkillSource(this.#forwardedSkills(skills.directoryRead === true));
    if (caps.resources?.subscribe) {
      const max = options.maxSubscriptions ?? DEFAULT_MAX_UPSTREAM_SUBSCRIPTIONS;
      if (!Number.isInteger(max) || max < 1)
        throw new McpkitError('INVALID_DEFINITION', 'Proxy: maxSubscriptions must be a positive integer');
      this.#subscriptions = new UpstreamSubscriptions(backend, max, this.#report);
      this.use(this.#subscriptions.middleware());
    }
  }

  /** Lists what the server behind offers now and offers it (done at start and on its list changes). */
  async refresh(kinds: readonly ProxiedList[] = ['tools', 'prompts', 'resources']): Promise<void> {
    const caps = this.backend.serverCapabilities ?? {};
    await Promise.all(kinds.filter((k) => caps[k] !== undefined).map((k) => this.#list(k)));
  }

  /** @internal The server behind said a list changed: refreshed, one refresh per kind at a time. */
  changed(kind: ProxiedList): void {
    if (this.#refreshing.has(kind)) {
      this.#again.add(kind);
      return;
    }
    const run = async () => {
      do {
        this.#again.delete(kind);
        await this.#list(kind);
      } while (this.#again.has(kind));
    };
    this.#refreshing.set(
      kind,
      run()
        .catch((e: unknown) => this.#report(toError(e)))
        .finally(() => this.#refreshing.delete(kind)),
    );
  }

  /**
   * @internal A log message of the server behind that reached no forwarded request (those go to the client whose
   * request the server related them to: {@link ProxyServer}'s `onlog` of each forwarded request). Related to a
   * request that has ended: dropped, it was that one client's. Related to none (a stdio or legacy SSE server, or a
   * message of its own): to every stateful session whose log level it meets, as the proxy's own log message; never
   * guessed onto the one caller in flight. Clients of the stateless revision get only what relates to their
   * requests.
   */
  forwardLog(params: LoggingMessageParams, related: RequestId | undefined): void {
    if (related !== undefined) return;
    const level = LOG_LEVELS.indexOf(params.level);
    for (const session of this.sessions) {
      if (!session.initialized || session.transient || !session.serverCapabilities.logging) continue;
      if (level < session.logLevel) continue;
      session
        .notify('notifications/message', params as JsonObject)
        .catch((e: unknown) => this.#report(toError(e)));
    }
  }

  /** The number of resources the proxy holds subscribed on the server behind it for its clients. */
  get upstreamSubscriptions(): number {
    return this.#subscriptions?.size ?? 0;
  }

  /**
   * @internal A session ended, of this server or of one it is mounted in: the subscriptions it held are let go (the
   * last holder unsubscribes upstream).
   */
  override sessionEnded(session: SessionInfo): void {
    super.sessionEnded(session);
    this.#subscriptions?.release(session);
  }

  /** Closes every session of the proxy, then the connection to the server behind it. */
  override async close(): Promise<void> {
    await super.close();
    await this.backend.close();
  }

  async #list(kind: ProxiedList): Promise<void> {
    const b = this.backend;
    if (kind === 'tools') {
      const tools = await b.listTools(this.#options());
      this.#mirror.tools(
        shapeTools(tools, this.#transforms, (name, args, ctx) => this.#callTool(name, args, ctx)),
      );
      return;
    }
    if (kind === 'prompts') {
      const prompts = await b.listPrompts(this.#options());
      const completes = this.backend.serverCapabilities?.completions !== undefined;
      this.#mirror.prompts(
        prompts.map((p) => ({
          name: p.name,
          definition: p,
          get: (args: Record<string, string>, ctx: RequestContext) =>
            this.#inFlight.run(ctx, (signal) => b.getPrompt(p.name, args, this.#options(ctx, signal))),
          ...(completes
            ? {
                complete: (argument: string) =>
                  this.#completer({ type: 'ref/prompt', name: p.name }, argument),
              }
            : {}),
        })),
      );
      return;
    }
    const [resources, templates] = await Promise.all([
      b.listResources(this.#options()),
      b.listResourceTemplates(this.#options()),
    ]);
    const read = (uri: string, ctx: RequestContext) =>
      this.#inFlight.run(ctx, (signal) => b.readResource(uri, this.#options(ctx, signal)));
    this.#mirror.resources(resources.map((r) => ({ definition: r, read })));
    const completes = this.backend.serverCapabilities?.completions !== undefined;
    this.#mirror.templates(
      templates.map((t) => ({
        definition: t,
        read: (uri: string, _variables: unknown, ctx: RequestContext) => read(uri, ctx),
        ...(completes
          ? {
              complete: (variable: string) =>
                this.#completer({ type: 'ref/resource', uri: t.uriTemplate }, variable),
            }
          : {}),
      })),
    );
  }

  /**
   * The skills of the server behind, asked of it per request (entries and digests as it answers them, URIs unchanged:
   * the files are its resources, mirrored with the others); a URI it does not know is not one of its skills.
   */
  #forwardedSkills(directoryRead: boolean): SkillSource {
    const b = this.backend;
    const notOurs = (e: unknown) => {
      if (e instanceof JsonRpcError && e.code === ErrorCode.InvalidParams) return undefined;
      throw e;
    };
    return {
      list: (ctx) => this.#inFlight.run(ctx, (signal) => b.listSkills(this.#options(ctx, signal))),
      get: (uri, ctx) =>
        this.#inFlight.run(ctx, (signal) => b.getSkill(uri, this.#options(ctx, signal)).catch(notOurs)),
      directory: async (uri, ctx) =>
        directoryRead
          ? this.#inFlight.run(ctx, (signal) =>
              b.readDirectory(uri, this.#options(ctx, signal)).catch(notOurs),
            )
          : undefined,
    };
  }

  #callTool(name: string, args: Record<string, unknown>, ctx: RequestContext) {
    return this.#inFlight.run(ctx, (signal) => this.backend.callTool(name, args, this.#options(ctx, signal)));
  }

  #completer(
    ref: { type: 'ref/prompt'; name: string } | { type: 'ref/resource'; uri: string },
    argument: string,
  ) {
    return (value: string, context: { arguments: Record<string, string> }, ctx: RequestContext) =>
      this.#inFlight.run(ctx, (signal) =>
        this.backend.complete(ref, { name: argument, value }, context.arguments, this.#options(ctx, signal)),
      );
  }

  /** The options of a forwarded request: its signal, the time limit, and progress when the client asked for it. */
  #options(ctx?: RequestContext, signal?: AbortSignal): RequestOptions {
    const options: RequestOptions = {};
    if (signal) options.signal = signal;
    if (this.#timeout !== undefined) options.timeout = this.#timeout;
    if (!ctx) return options;
    if (ctx.meta?.progressToken !== undefined)
      options.onprogress = (p) => {
        ctx.progress(p.progress, p.total, p.message).catch((e: unknown) => this.#report(toError(e)));
      };
    // Log messages the server relates to this request go to its client only, at that client's level.
    options.onlog = (p) => {
      ctx.log(p.level, p.data, p.logger).catch((e: unknown) => this.#report(toError(e)));
    };
    return options;
  }

  /** @internal The body of {@link createProxy}. */
  static async open(target: string | URL | Transport, options: ProxyOptions): Promise<ProxyServer> {
    const inFlight = new InFlight();
    let proxy: ProxyServer | undefined;
    const elicitParams = (params: JsonObject) => {
      const { _meta: _m, ...rest } = params;
      return rest;
    };
    const backend = new Client(options.clientInfo ?? { name: 'mcpkit-proxy', version: '0.1.0' }, {
      ...(options.era === undefined ? {} : { era: options.era }),
      autoRefresh: false,
      capabilities: { sampling: {}, elicitation: { form: {}, url: {} }, roots: { listChanged: true } },
      sampling: (params, c) =>
        inFlight.ask(c, 'a sampling request', (ctx) =>
          ctx.sample(elicitParams(params as JsonObject) as never, { signal: c.signal }),
        ),
      elicitation: (params, c) =>
        inFlight.ask(c, 'an elicitation', (ctx) =>
          ctx.elicit(elicitParams(params as JsonObject) as never, { signal: c.signal }),
        ),
      rootsHandler: (c) => inFlight.ask(c, 'a roots request', (ctx) => ctx.listRoots({ signal: c.signal })),
      onlog: (params, related) => proxy?.forwardLog(params, related),
      onToolsChanged: () => proxy?.changed('tools'),
      onPromptsChanged: () => proxy?.changed('prompts'),
      onResourcesChanged: () => proxy?.changed('resources'),
      onResourceUpdated: (uri) => proxy?.notifyResourceUpdated(uri),
      onerror: (e) => (options.onerror ? options.onerror(e) : console.error(`mcpkit proxy: ${e.message}`)),
    });
    const transport =
      typeof target === 'string' || target instanceof URL
        ? new HttpClientTransport(target, options.auth === undefined ? {} : { auth: options.auth })
        : target;
    await backend.connect(transport);
    try {
      proxy = new ProxyServer(backend, inFlight, options);
      if (options.tools !== undefined) {
        const tools = backend.serverCapabilities?.tools ? await backend.listTools() : [];
        checkToolTransforms(
          options.tools,
          new Map(tools.map((t) => [t.name, t.inputSchema as JsonObject])),
          'Proxy',
        );
      }
      await proxy.refresh();
      if (backend.serverCapabilities?.logging) await backend.setLoggingLevel('debug');
      return proxy;
    } catch (e) {
      await backend.close();
      throw e;
    }
  }
}

/** The capabilities the proxy declares: those of the server behind it, with list changes on, and logging. */
function offered(caps: ServerCapabilities): ServerCapabilities {
  const out: ServerCapabilities = { logging: {} };
  if (caps.tools) out.tools = { listChanged: true };
  if (caps.prompts) out.prompts = { listChanged: true };
  if (caps.resources)
    out.resources = { listChanged: true, ...(caps.resources.subscribe ? { subscribe: true } : {}) };
  if (caps.completions) out.completions = {};
  return out;
}

/**
 * Connects to the server at `target` (a URL, or any client transport such as `StdioClientTransport`) and returns
 * the proxy in front of it, with its lists fetched and `options.tools` checked against them (a transform naming an
 * unknown tool or argument is an error here, and the connection is closed).
 *
 * @example
 * const proxy = await createProxy('https://mcp.example.com/mcp', {
 *   auth: new OAuthClient({ grant: { type: 'client_credentials', credentials } }),
 *   tools: { delete_everything: { hidden: true }, search: { fixed: { limit: 10 } } },
 * });
 * await serve(proxy, { port: 3000 }); // or proxy.connect(new StdioServerTransport()), or app.mount('remote', proxy)
 */
export function createProxy(
  target: string | URL | Transport,
  options: ProxyOptions = {},
): Promise<ProxyServer> {
  return ProxyServer.open(target, options);
}
