import { ErrorCode, JsonRpcError, McpkitError } from '../jsonrpc/errors.js';
import type { JsonObject } from '../jsonrpc/types.js';
import type { RequestOptions } from '../protocol/outgoing.js';
import type { Peer } from '../protocol/peer.js';
import { CACHEABLE_METHODS, INPUT_METHODS, META } from '../spec/modern.js';
import type { ClientCapabilities, Implementation, Root } from '../spec/types.js';
import { type ClientHandlers, fulfilInputRequests } from './handlers.js';
import { tuckPlumbing } from './plumbing.js';
import type { ResponseCache } from './response-cache.js';
import { declaresTasksExtension } from './tasks.js';

/** Default most `input_required` rounds one call goes through. */
export const DEFAULT_MAX_ROUNDS = 10;

/** What the stateless caller needs from its client. */
export interface StatelessSetup {
  peer: Peer;
  protocolVersion: string;
  capabilities: ClientCapabilities;
  info: Implementation;
  handlers: ClientHandlers;
  roots: () => Root[];
  applyDefaults: boolean;
  logLevel: () => string | undefined;
  maxRounds: number;
  cache: ResponseCache | undefined;
  /** Credential partition for `private` cache entries. */
  partition: () => string;
  /** Extra headers per call (the `Mcp-Param-*` mirrors of tool arguments). */
  headersFor: (method: string, params: JsonObject) => Record<string, string> | undefined;
  /** Re-lists tools after a header mismatch (-32020), so the mirrors can be rebuilt before one retry. */
  refreshTools: () => Promise<unknown>;
}

/**
 * Sends requests of the stateless revision: adds the `_meta` envelope, runs the multi round-trip loop
 * through the client's sampling, elicitation and roots handlers, and serves and fills the response cache.
 */
export class StatelessCaller {
  readonly #s: StatelessSetup;

  constructor(setup: StatelessSetup) {
    this.#s = setup;
  }

  /** The `_meta` envelope of every request. */
  envelope(): JsonObject {
    const s = this.#s;
    const meta: JsonObject = {
      [META.protocolVersion]: s.protocolVersion,
      [META.clientCapabilities]: s.capabilities,
      [META.clientInfo]: s.info,
    };
    const level = s.logLevel();
    if (level !== undefined) meta[META.logLevel] = level;
    return meta;
  }

  /** Sends one request (with retries for `input_required`) and returns its complete result. */
  async call(method: string, params: JsonObject | undefined, options?: RequestOptions): Promise<JsonObject> {
    const s = this.#s;
    const base = params ?? {};
    const cacheable = CACHEABLE_METHODS.has(method) && s.cache !== undefined;
    const key = cacheable ? JSON.stringify(base) : '';
    if (cacheable) {
      const hit = s.cache?.get(method, key, s.partition());
      if (hit) return hit;
    }
    let current: JsonObject = base;
    for (let round = 0; ; round++) {
      const meta = { ...(current._meta as JsonObject | undefined), ...this.envelope() };
      const result = await this.#send(method, { ...current, _meta: meta }, options);
      const type = result.resultType ?? 'complete';
      // A task handle (tasks extension) is valid only for tools/call, and only when the client declared it.
      if (type === 'task' && method === 'tools/call' && declaresTasksExtension(s.capabilities)) return result;
      if (type === 'complete') {
        const tucked = tuckPlumbing(method, result);
        if (cacheable && round === 0) s.cache?.put(method, key, s.partition(), tucked);
        return tucked;
      }
      if (type !== 'input_required' || !INPUT_METHODS.has(method)) {
        throw new McpkitError(
          'INVALID_RESULT',
          `${method} returned an unknown resultType ${JSON.stringify(type)}`,
        );
      }
      if (round >= s.maxRounds) {
        throw new McpkitError('INVALID_RESULT', `${method} still needed input after ${s.maxRounds} rounds`);
      }
      const inputResponses = await this.#fulfil(result.inputRequests, options?.signal);
      // Retry: same params, the answers, and the server's state echoed byte for byte (never invented).
      current = { ...base, inputResponses };
      if (result.requestState !== undefined) current.requestState = result.requestState;
    }
  }

  /** Sends once; a -32020 on tools/call means stale `x-mcp-header` knowledge: re-list tools and retry once. */
  async #send(method: string, params: JsonObject, options: RequestOptions | undefined): Promise<JsonObject> {
    const s = this.#s;
    const headers = s.headersFor(method, params);
    try {
      return await s.peer.request(method, params, options, headers ? { headers } : undefined);
    } catch (e) {
      if (!(e instanceof JsonRpcError && e.code === ErrorCode.HeaderMismatch && method === 'tools/call'))
        throw e;
      await s.refreshTools();
      const fresh = s.headersFor(method, params);
      return s.peer.request(method, params, options, fresh ? { headers: fresh } : undefined);
    }
  }

  #fulfil(requests: unknown, signal: AbortSignal | undefined): Promise<JsonObject> {
    return fulfilInputRequests(requests, this.#s, signal);
  }
}
