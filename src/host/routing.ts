import { errorMessage, McpkitError } from '../jsonrpc/errors.js';
import type { RequestOptions } from '../protocol/outgoing.js';
import type { CallToolResult, GetPromptResult, ReadResourceResult } from '../spec/types.js';
import { type ActivityLog, shorten, summarizeResult } from './activity-log.js';
import {
  type ApprovalCallback,
  type ApprovalGate,
  type ApprovalOutcome,
  deniedResult,
  type SessionApprovals,
} from './approval.js';
import type { ServerConnection } from './connection.js';
import type { ToolChange } from './definition-diff.js';
import type { HostInstrumentation } from './instrument.js';
import type { HostTool, Registry } from './registry.js';
import type { ToolPins } from './tool-pins.js';

/** Options of one {@link Host.callTool}: a request's options, and who approves this call when it must be asked. */
export interface HostCallOptions extends RequestOptions {
  /** Asks about this call instead of the host's `approve` callback (the gateway asks its connecting client). */
  approve?: ApprovalCallback;
  /**
   * Where "allow for this session" is remembered for this call (the gateway gives each connecting client its own);
   * default: the host's own session.
   */
  approvals?: SessionApprovals;
}

/**
 * The host's calls: a qualified name or URI to its server through the registry, tool calls through the approval
 * gate, each step in the activity log. One map lookup and one gate check per call on the hot path.
 */
export class Router {
  readonly #registry: Registry;
  readonly #connections: ReadonlyMap<string, ServerConnection>;
  readonly #gate: ApprovalGate;
  readonly #pins: ToolPins | undefined;
  readonly #log: ActivityLog;
  readonly #requestTimeoutMs: number;
  readonly #instrument: HostInstrumentation | undefined;

  constructor(
    registry: Registry,
    connections: ReadonlyMap<string, ServerConnection>,
    gate: ApprovalGate,
    pins: ToolPins | undefined,
    log: ActivityLog,
    requestTimeoutMs: number,
    instrument?: HostInstrumentation,
  ) {
    this.#instrument = instrument;
    this.#registry = registry;
    this.#connections = connections;
    this.#gate = gate;
    this.#pins = pins;
    this.#log = log;
    this.#requestTimeoutMs = requestTimeoutMs;
  }

  /**
   * See {@link Host.callTool}. `check` looks at the tool as its running server lists it before anything is asked or
   * run (the tool search's argument check): a result from it is the call's answer.
   */
  callTool(
    name: string,
    args: Record<string, unknown> | undefined,
    options: HostCallOptions | undefined,
    check?: (tool: HostTool) => CallToolResult | undefined | Promise<CallToolResult | undefined>,
  ): Promise<CallToolResult> {
    const around = this.#instrument?.call;
    const known = around === undefined ? undefined : this.#registry.tool(name);
    if (around === undefined || known === undefined) return this.#callTool(name, args, options, check);
    return around.call(this.#instrument, { server: known.server, tool: known.tool.name, name }, () =>
      this.#callTool(name, args, options, check),
    );
  }

  async #callTool(
    name: string,
    args: Record<string, unknown> | undefined,
    options: HostCallOptions | undefined,
    check?: (tool: HostTool) => CallToolResult | undefined | Promise<CallToolResult | undefined>,
  ): Promise<CallToolResult> {
    const started = performance.now();
    const log = this.#log;
    if (!this.#registry.tool(name)) {
      log.record({ kind: 'tool', name, arguments: args, outcome: 'error', summary: 'unknown tool' });
      return errorResult(`There is no tool named ${name}.`);
    }
    const entry = await this.live(name);
    if (typeof entry === 'string') {
      log.record({ kind: 'tool', name, arguments: args, outcome: 'error', summary: shorten(entry) });
      return errorResult(entry);
    }
    const { server } = entry;
    const connection = this.#connections.get(server);
    const refused = await check?.(entry);
    if (refused !== undefined) {
      log.record({
        kind: 'tool',
        server,
        name,
        arguments: args,
        outcome: 'error',
        summary: summarizeResult(refused),
      });
      return refused;
    }
    // A tool that changed since it was pinned is asked about again (or refused): its old approval does not hold.
    const change = this.#pins?.changeOf(entry);
    let approval = 'policy';
    if (entry.mode !== 'allow' || change !== undefined) {
      const decided = await this.#approve(entry, name, args, connection, change, options);
      if (typeof decided !== 'string') return decided;
      approval = decided;
    }
    const client = connection?.client;
    if (!client) {
      const state = connection?.status.state ?? 'gone';
      log.record({
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
      const { approve: _approve, approvals: _approvals, ...request } = options ?? {};
      result = await client.callTool(entry.tool.name, args, this.requestOptions(server, request));
      if (result.isError === true) outcome = 'error';
    } catch (e) {
      outcome = 'error';
      result = errorResult(`The call to ${name} failed: ${errorMessage(e)}`);
    }
    log.record({
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

  /**
   * The approval of a call that needs one: how it was allowed (`once`, `session`, …), or the denial the model gets.
   * What the person approves is pinned (a changed definition replaces the old pin).
   */
  async #approve(
    entry: HostTool,
    name: string,
    args: Record<string, unknown> | undefined,
    connection: ServerConnection | undefined,
    change: ToolChange | undefined,
    options: HostCallOptions | undefined,
  ): Promise<string | CallToolResult> {
    const { server } = entry;
    const log = this.#log;
    const refused =
      change !== undefined && entry.mode !== 'deny' && connection?.config.toolChanges === 'refuse';
    const mode = change === undefined || entry.mode === 'deny' ? entry.mode : 'ask';
    const decide = () =>
      this.#gate.decide(
        mode,
        {
          server,
          tool: entry.tool.name,
          qualifiedName: name,
          annotations: entry.tool.annotations,
          arguments: args,
          trusted: connection?.config.trusted ?? false,
          ...(change === undefined ? {} : { change }),
        },
        entry.digest,
        options?.approve,
        options?.approvals,
      );
    const around = this.#instrument;
    const outcome: ApprovalOutcome = refused
      ? { allowed: false, by: 'tool-changed' }
      : around?.approval === undefined
        ? await decide()
        : await around.approval({ server, tool: entry.tool.name, name, mode }, decide);
    log.record({
      kind: 'approval',
      server,
      name,
      arguments: args,
      outcome: outcome.allowed ? 'allowed' : 'denied',
      approval: outcome.by,
      ...(outcome.allowed || outcome.reason === undefined ? {} : { summary: shorten(outcome.reason) }),
    });
    if (!outcome.allowed) {
      log.record({ kind: 'tool', server, name, arguments: args, outcome: 'denied', approval: outcome.by });
      return deniedResult(name, outcome, change !== undefined);
    }
    const pins = this.#pins;
    if (pins && outcome.by !== 'policy') {
      pins.pin(entry);
      if (change !== undefined)
        log.record({
          kind: 'tool-change',
          server,
          name,
          outcome: 'approved',
          summary: `the new definition is pinned (${change.fields.join(', ')} changed)`,
        });
    }
    return outcome.by;
  }

  /**
   * The tool `name` as its running server lists it: a tool known from the tool-list cache starts its lazy server (or
   * waits for one starting), bounded by the server's own connect timeout, and is looked up again in the list the
   * server gives then. What the model should hear instead when there is no such tool (or no server to run it).
   */
  async live(name: string): Promise<HostTool | string> {
    const entry = this.#registry.tool(name);
    if (!entry) return `There is no tool named ${name}.`;
    if (entry.cached !== true) return entry;
    const connection = this.#connections.get(entry.server);
    await connection?.ensure();
    const now = this.#registry.tool(name);
    if (now && now.cached !== true) return now;
    const status = connection?.status;
    if (status && status.state !== 'ready')
      return `The server of ${name} is not available (${status.state}${status.reason ? `: ${status.reason}` : ''}).`;
    return `There is no tool named ${name} any more: its server ${entry.server} no longer lists ${entry.tool.name}.`;
  }

  /** See {@link Host.readResource}. */
  async readResource(uri: string, options?: RequestOptions): Promise<ReadResourceResult> {
    const started = performance.now();
    let server: string | undefined;
    try {
      server = this.#registry.ownerOf(uri);
    } catch (e) {
      this.#log.record({ kind: 'resource', name: uri, outcome: 'error', summary: shorten(errorMessage(e)) });
      throw e;
    }
    const client = server === undefined ? undefined : this.#connections.get(server)?.client;
    if (server === undefined || !client) {
      this.#log.record({
        kind: 'resource',
        name: uri,
        outcome: 'error',
        summary: 'no ready server offers it',
      });
      throw new McpkitError('NOT_FOUND', `No ready server offers the resource ${uri}`);
    }
    const base = { kind: 'resource' as const, server, name: uri };
    try {
      const result = await client.readResource(uri, this.requestOptions(server, options));
      const sizes = result.contents.map((c) => ('text' in c ? `${c.text.length} chars` : 'blob'));
      this.#log.record({
        ...base,
        outcome: 'ok',
        durationMs: performance.now() - started,
        summary: sizes.join(', '),
      });
      return result;
    } catch (e) {
      this.#log.record({
        ...base,
        outcome: 'error',
        durationMs: performance.now() - started,
        summary: shorten(errorMessage(e)),
      });
      throw e;
    }
  }

  /** See {@link Host.getPrompt}. */
  async getPrompt(
    name: string,
    args: Record<string, string> | undefined,
    options?: RequestOptions,
  ): Promise<GetPromptResult> {
    const started = performance.now();
    const entry = this.#registry.prompt(name);
    const client = entry === undefined ? undefined : this.#connections.get(entry.server)?.client;
    if (!entry || !client) {
      this.#log.record({
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
        this.requestOptions(entry.server, options),
      );
      this.#log.record({
        ...base,
        outcome: 'ok',
        durationMs: performance.now() - started,
        summary: `${result.messages.length} messages`,
      });
      return result;
    } catch (e) {
      this.#log.record({
        ...base,
        outcome: 'error',
        durationMs: performance.now() - started,
        summary: shorten(errorMessage(e)),
      });
      throw e;
    }
  }

  /** A request's options with the server's timeout when the caller gave none. */
  requestOptions(server: string, options: RequestOptions | undefined): RequestOptions {
    if (options?.timeout !== undefined) return options;
    const timeout = this.#connections.get(server)?.config.requestTimeoutMs ?? this.#requestTimeoutMs;
    return { ...options, timeout };
  }
}

function errorResult(text: string): CallToolResult {
  return { content: [{ type: 'text', text }], isError: true };
}
