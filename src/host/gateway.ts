import { AsyncLocalStorage } from 'node:async_hooks';
import { Mirror } from '../compose/mirror.js';
import { ErrorCode, errorMessage, JsonRpcError } from '../jsonrpc/errors.js';
import type { JsonObject } from '../jsonrpc/types.js';
import type { RequestOptions } from '../protocol/outgoing.js';
import type { IncomingRequest } from '../protocol/peer.js';
import { ServerSession } from '../server/dispatch/session.js';
import { principalOf } from '../server/handler/auth.js';
import type { RequestContext, SessionInfo } from '../server/handler/context.js';
import type { Middleware } from '../server/handler/middleware.js';
import { McpServer } from '../server/server.js';
import { appVisibilityOf, rendersApps } from '../spec/apps.js';
import type {
  CallToolResult,
  GetPromptResult,
  Implementation,
  ReadResourceResult,
  Tool,
} from '../spec/types.js';
import type { ActivityLog } from './activity-log.js';
import { shorten } from './activity-log.js';
import { type ApprovalCallback, type ApprovalDecision, SessionApprovals } from './approval.js';
import type { Registry } from './registry.js';
import type { HostCallOptions } from './routing.js';
import type { ToolSearch } from './search/facade.js';
import { type HostSkills, LOAD_SKILL_TOOL, type SkillApprovalCallback } from './skills.js';

/** Options of {@link gatewayServer} (the host's gateway: `hostGateway`, `Host.toServer`). */
export interface GatewayOptions {
  /** The gateway server's name and version. */
  info?: Implementation;
  /** Instructions for the connecting client's model. */
  instructions?: string;
  /**
   * How long "allow for this session" lasts for a client of the stateless revision (which has no session), in ms:
   * kept per verified principal and client, never beyond the principal's token. Default 3 600 000 (an hour).
   */
  statelessApprovalTtlMs?: number;
  /**
   * Serve exactly two tools, `search_tools` and `call_tool` (the host's tool search), instead of every qualified tool:
   * a client with many servers behind the gateway sees two tools, and every call still goes through approval.
   */
  toolSearch?: boolean;
  /**
   * Added to the remedy a refusal names when a call needs approval and the connecting client cannot ask its user (no
   * elicitation): another way the app offers to allow it (`mcpkit gateway`: its `--default-approval` flag).
   */
  approvalRemedy?: string;
}

const DECISIONS: Record<string, ApprovalDecision> = {
  'Allow once': 'allow-once',
  'Allow for this session': 'allow-session',
  Deny: 'deny',
};

/** The most principals whose stateless approvals are kept at once (the oldest go first). */
const MAX_PRINCIPALS = 1000;

/** A scope that remembers nothing: a client the gateway cannot tell apart from others. */
const FORGETFUL = new SessionApprovals({ remembers: false });

/**
 * The gateway's server: it knows the connection each request came on (a stateless client on a connection of its
 * own, stdio or in memory, is one client for as long as it lasts), and is told when a session ends, so what was
 * allowed in it ends too.
 */
class GatewayServer extends McpServer {
  onended: ((session: SessionInfo) => void) | undefined;
  readonly connection = new AsyncLocalStorage<ServerSession>();

  /** @internal */
  override dispatch(session: ServerSession, incoming: IncomingRequest): Promise<JsonObject> | JsonObject {
    if (session.transient) return super.dispatch(session, incoming);
    return this.connection.run(session, () => super.dispatch(session, incoming));
  }

  /** @internal */
  override sessionEnded(session: SessionInfo): void {
    super.sessionEnded(session);
    this.onended?.(session);
  }
}

/**
 * Where each connecting client's "allow for this session" is kept: its connection's own scope (a stateful session, or
 * a stateless client's stdio or in-memory connection), forgotten when it ends; for a stateless request on no
 * connection of its own (a Streamable HTTP POST), or a session made for one request, the verified principal's and
 * client's, with an expiry; such a request without a verified principal gets none (for this session counts as once).
 */
class ClientScopes {
  readonly #sessions = new Map<SessionInfo, SessionApprovals>();
  readonly #principals = new Map<string, SessionApprovals>();
  readonly #ttlMs: number;

  constructor(ttlMs: number) {
    this.#ttlMs = ttlMs;
  }

  of(ctx: RequestContext, connection: ServerSession | undefined): SessionApprovals {
    const session = ctx.session instanceof ServerSession && !ctx.session.transient ? ctx.session : connection;
    if (session !== undefined) {
      let scope = this.#sessions.get(session);
      if (!scope) {
        scope = new SessionApprovals();
        this.#sessions.set(session, scope);
      }
      return scope;
    }
    const principal = principalOf(ctx.authInfo);
    if (principal === undefined) return FORGETFUL;
    const key = `${principal}\u0000${ctx.session.clientInfo?.name ?? ''}`;
    const known = this.#principals.get(key);
    const now = Date.now();
    if (known && !known.expired(now)) return known;
    this.#principals.delete(key);
    const tokenEnds = ctx.authInfo?.expiresAt === undefined ? Infinity : ctx.authInfo.expiresAt * 1000;
    const scope = new SessionApprovals({ expiresAt: Math.min(now + this.#ttlMs, tokenEnds) });
    this.#principals.set(key, scope);
    if (this.#principals.size > MAX_PRINCIPALS) {
      const oldest = this.#principals.keys().next().value as string;
      this.#principals.delete(oldest);
    }
    return scope;
  }

  ended(session: SessionInfo): void {
    this.#sessions.get(session)?.clear();
    this.#sessions.delete(session);
  }
}

/** What the gateway needs of its host (a `Host`: see {@link hostGateway} in `host-gateway.ts`). */
export interface GatewaySource {
  readonly log: Pick<ActivityLog, 'record'>;
  readonly registry: Pick<Registry, 'tools' | 'tool' | 'prompts' | 'resources' | 'templates'>;
  callTool(name: string, args: Record<string, unknown>, options: HostCallOptions): Promise<CallToolResult>;
  getPrompt(name: string, args: Record<string, string>, options: RequestOptions): Promise<GetPromptResult>;
  readResource(uri: string, options: RequestOptions): Promise<ReadResourceResult>;
  on(event: 'registry', listener: () => void): () => void;
  /** The host's tool search, served in place of every tool with `toolSearch`. */
  readonly toolSearch: Pick<ToolSearch, 'tools' | 'call'>;
  /** The host's skills, offered as `load_skill` (the tool `host.chat()` gives its model), approved by the client. */
  readonly skills?: Pick<HostSkills, 'tool' | 'load'>;
}

/** The gateway of `host`: see {@link hostGateway}. */
export function gatewayServer(host: GatewaySource, options: GatewayOptions = {}): McpServer {
  const server = new GatewayServer(options.info ?? { name: 'mcpkit-host-gateway', version: '0.1.0' }, {
    // Declared up front: a session's capabilities are fixed at initialize, and the registry fills in later.
    capabilities: {
      tools: { listChanged: true },
      prompts: { listChanged: true },
      resources: { listChanged: true },
    },
    ...(options.instructions === undefined ? {} : { instructions: options.instructions }),
  });
  const scopes = new ClientScopes(options.statelessApprovalTtlMs ?? 3_600_000);
  server.onended = (session) => scopes.ended(session);
  const mirror = new Mirror(server, (what, e) =>
    host.log.record({
      kind: 'server',
      outcome: 'warning',
      summary: shorten(`gateway: ${what}: ${errorMessage(e)}`),
    }),
  );
  /** The options of a call from `ctx`: approval asked of its client, "for this session" kept in its scope. */
  const callOptions = (ctx: RequestContext) => {
    const approvals = scopes.of(ctx, server.connection.getStore());
    return {
      signal: ctx.signal,
      approve: askThroughClient(ctx, approvals.remembers, options.approvalRemedy),
      approvals,
    };
  };
  const search = host.toolSearch;
  if (options.toolSearch !== true) server.use(appOnlyTools(host.registry));
  const sync = () => {
    mirror.tools(
      options.toolSearch === true
        ? search.tools.map((t) => ({
            name: t.name,
            definition: t,
            call: (args: unknown, ctx: RequestContext) =>
              search.call(t.name, args as Record<string, unknown>, callOptions(ctx)) as never,
          }))
        : [
            ...host.registry.tools().map((t) => ({
              name: t.name,
              definition: t.definition,
              call: (args: unknown, ctx: RequestContext) =>
                host.callTool(t.name, args as Record<string, unknown>, callOptions(ctx)) as never,
            })),
            ...loadSkill(host),
          ],
    );
    mirror.prompts(
      host.registry.prompts().map((p) => ({
        name: p.name,
        definition: p.definition,
        get: (values: Record<string, string>, ctx: RequestContext) =>
          host.getPrompt(p.name, values, { signal: ctx.signal }),
      })),
    );
    const read = (target: string, ctx: RequestContext) => host.readResource(target, { signal: ctx.signal });
    mirror.resources(host.registry.resources().map((r) => ({ definition: r.resource, read })));
    // Two servers with the same template: the first (in server name order) owns reads, as in the registry.
    mirror.templates(
      host.registry.templates().map((t) => ({
        definition: t.template,
        read: (target: string, _variables: unknown, ctx: RequestContext) => read(target, ctx),
      })),
    );
  };
  sync();
  host.on('registry', sync);
  return server;
}

/**
 * `load_skill`, as `host.chat()` offers it to its model, while any server lists a skill (and no server's tool has that
 * name): a skill not approved in this very manifest is put to the connecting client's person, and loads only if they
 * allow it (pinned then, as in the host); a client that cannot ask loads only skills approved before.
 */
function loadSkill(host: GatewaySource) {
  const definition = host.skills?.tool();
  if (!host.skills || !definition || host.registry.tool(LOAD_SKILL_TOOL)) return [];
  const skills = host.skills;
  return [
    {
      name: LOAD_SKILL_TOOL,
      definition,
      call: (args: unknown, ctx: RequestContext) =>
        skills.load(args as Record<string, unknown>, askSkillThroughClient(ctx)) as never,
    },
  ];
}

/** The approval of a skill asked of the connecting client, or nobody's (no approval) when it cannot elicit. */
function askSkillThroughClient(ctx: RequestContext): SkillApprovalCallback | undefined {
  if (ctx.session.clientCapabilities.elicitation === undefined) return undefined;
  return async (request) => {
    const files = request.files.map((f) => f.uri.slice(f.uri.lastIndexOf('/') + 1)).join(', ');
    const changed = request.changed;
    const what =
      changed === undefined
        ? ''
        : ` It changed since it was approved (added: ${changed.added.join(', ') || 'none'}; removed: ${changed.removed.join(', ') || 'none'}; modified: ${changed.modified.join(', ') || 'none'}${changed.frontmatter ? '; its frontmatter' : ''}).`;
    const result = await ctx.elicit({
      message: `Load the skill ${request.name} (server ${request.server}: ${shorten(request.description)}; files: ${shorten(files)}) into the conversation?${what}`,
      requestedSchema: {
        type: 'object',
        properties: { decision: { type: 'string', title: 'Decision', enum: ['Allow', 'Deny'] } },
        required: ['decision'],
      },
    });
    return result.action === 'accept' && result.content?.decision === 'Allow';
  };
}

/**
 * An App's own tools (`_meta.ui.visibility` without `model`) kept from clients that do not render Apps: such a client
 * would hand them to its model, so they are left out of its lists and its calls of them refused as unknown. A client
 * declaring the extension gets them with their `_meta.ui`, and its host keeps them from its model (ext-apps
 * 2026-01-26, Visibility).
 */
function appOnlyTools(registry: Pick<Registry, 'tool'>): Middleware {
  const appOnly = (tool: Pick<Tool, '_meta'>) => !appVisibilityOf(tool).includes('model');
  return async (request, next) => {
    if (rendersApps(request.ctx.session.clientCapabilities)) return next();
    if (request.method === 'tools/call') {
      const name = request.params.name;
      const tool = typeof name === 'string' ? registry.tool(name) : undefined;
      if (tool && appOnly(tool.tool))
        throw new JsonRpcError(ErrorCode.InvalidParams, `Unknown tool: ${name as string}`);
      return next();
    }
    const result = await next();
    if (request.method !== 'tools/list' || !Array.isArray(result.tools)) return result;
    const tools = result.tools as Tool[];
    return tools.some(appOnly) ? { ...result, tools: tools.filter((t) => !appOnly(t)) } : result;
  };
}

/**
 * The approval of a gateway call: an elicitation to the connecting client (with what changed, for a tool whose
 * definition is no longer the one approved), or, when it cannot ask, a denial that is nobody's (`asked: false`) naming
 * how the person can allow the tool. "Allow for this session" is offered only where it is remembered.
 */
function askThroughClient(
  ctx: RequestContext,
  remembers: boolean,
  remedy: string | undefined,
): ApprovalCallback {
  return async (request) => {
    const changed = request.change;
    if (ctx.session.clientCapabilities.elicitation === undefined)
      return {
        decision: 'deny',
        asked: false,
        reason:
          changed === undefined
            ? allowItHow(request.server, request.tool, remedy)
            : `changed: ${changed.fields.join(', ')}`,
      };
    const run = `to run with ${shorten(JSON.stringify(request.arguments ?? {}))}`;
    const message =
      changed === undefined
        ? `Allow the tool ${request.qualifiedName} (server ${request.server}) ${run}?`
        : `The tool ${request.qualifiedName} (server ${request.server}) changed since it was approved (${changed.fields.join(', ')}):\n${changed.diff}\nAllow its new definition, and the call ${run}?`;
    const choices = Object.keys(DECISIONS).filter((d) => remembers || DECISIONS[d] !== 'allow-session');
    const result = await ctx.elicit({
      message,
      requestedSchema: {
        type: 'object',
        properties: { decision: { type: 'string', title: 'Decision', enum: choices } },
        required: ['decision'],
      },
    });
    const choice = result.action === 'accept' ? result.content?.decision : undefined;
    // "For this session" where it is not remembered counts as once (the gate sees to it).
    const decision =
      typeof choice === 'string' && Object.hasOwn(DECISIONS, choice) ? DECISIONS[choice] : undefined;
    return decision === undefined
      ? { decision: 'deny', reason: `the user answered ${result.action}` }
      : { decision };
  };
}

/**
 * How the person can let a tool run for clients that cannot ask: their own config's approval for the server or the
 * tool (an mcpkit.json entry without command or url changes another file's server), or the host's default; never a
 * project file's.
 */
function allowItHow(server: string, tool: string, remedy: string | undefined): string {
  const entry = JSON.stringify({ [server]: { approval: { tools: { [tool]: 'allow' } } } });
  return `to allow it, in your own mcpkit.json: "servers": ${entry} (or "default": "allow" for every tool of the server), or "host": {"defaultApproval": "allow"}; a project file cannot allow tools${remedy === undefined ? '' : `; ${remedy}`}; or connect with a client that supports elicitation`;
}
