import { errorMessage, JsonRpcError, McpkitError } from '../jsonrpc/errors.js';
import type { JsonObject, JsonRpcResponse, RequestId } from '../jsonrpc/types.js';
import type { LoggingMessageParams, ProgressParams } from '../spec/types.js';
import { RestartableTimer } from './timer.js';

/** Options for one outgoing request. */
export interface RequestOptions {
  /** Cancels the request: the peer is sent `notifications/cancelled` and the call rejects. */
  signal?: AbortSignal;
  /** Milliseconds without a response (or progress) before the request fails; `Infinity` for none. Default 60 000. */
  timeout?: number;
  /** Whether a progress notification restarts the timeout. Default true. */
  resetTimeoutOnProgress?: boolean;
  /** Hard ceiling in milliseconds from the start, whatever progress arrives. Default: none. */
  maxTotalTimeout?: number;
  /** Receives progress notifications; asking for them attaches a progress token. */
  onprogress?: (progress: ProgressParams) => void;
  /**
   * Receives the log messages (`notifications/message`) the server relates to this request, where the transport
   * can tell (see `MessageContext.relatedRequestId`): those go here instead of the client's `onlog`.
   */
  onlog?: (params: LoggingMessageParams) => void;
}

/** Default per-request timeout: 60 seconds. */
export const DEFAULT_REQUEST_TIMEOUT_MS = 60_000;

interface Pending {
  method: string;
  resolve(result: JsonObject): void;
  reject(error: Error): void;
  timer: RestartableTimer;
  startedAt: number;
  /**
   * Whether the armed timer is the total ceiling rather than the idle timeout. Recorded when the timer is armed:
   * timers run on the event loop's cached clock, so re-deriving it from `Date.now()` when the timer fires can read
   * a few milliseconds short of the ceiling and name the wrong limit.
   */
  atCeiling: boolean;
  options: RequestOptions | undefined;
  onabort: (() => void) | undefined;
}

/**
 * Correlates outgoing requests with their responses: ids, timeouts that progress restarts,
 * cancellation by signal, and failure of everything pending when the connection closes.
 */
export class OutgoingRequests {
  #nextId = 0;
  readonly #pending = new Map<RequestId, Pending>();
  /** Ids given up on recently (timeout/cancel): a late response to them is expected, not an error. */
  #abandoned: Set<RequestId> | undefined;
  readonly #cancel: (id: RequestId, reason: string) => void;

  constructor(cancel: (id: RequestId, reason: string) => void) {
    this.#cancel = cancel;
  }

  /** Number of requests awaiting a response. */
  get size(): number {
    return this.#pending.size;
  }

  /** Allocates an id and registers the request; returns the id and the promise of its result. */
  begin(method: string, options: RequestOptions | undefined): { id: number; promise: Promise<JsonObject> } {
    const id = ++this.#nextId;
    const signal = options?.signal;
    if (signal?.aborted) {
      return { id, promise: Promise.reject(cancelledError(signal)) };
    }
    let pending!: Pending;
    const promise = new Promise<JsonObject>((resolve, reject) => {
      const timeout = options?.timeout ?? DEFAULT_REQUEST_TIMEOUT_MS;
      const max = options?.maxTotalTimeout ?? Number.POSITIVE_INFINITY;
      pending = {
        method,
        resolve,
        reject,
        // Armed for whichever limit comes first: the idle timeout or the total ceiling.
        timer: new RestartableTimer(Math.min(timeout, max), () => this.#giveUp(id, this.#timeoutError(id))),
        startedAt: Date.now(),
        atCeiling: max <= timeout,
        options,
        onabort: undefined,
      };
    });
    if (signal) {
      pending.onabort = () => this.#giveUp(id, cancelledError(signal));
      signal.addEventListener('abort', pending.onabort, { once: true });
    }
    this.#pending.set(id, pending);
    return { id, promise };
  }

  /** Fails a request that could not be sent. */
  failSend(id: RequestId, error: Error): void {
    const p = this.#take(id);
    p?.reject(error);
  }

  /** Settles the request a response belongs to; returns false when no request was waiting for it. */
  settle(response: JsonRpcResponse): boolean {
    const id = response.id;
    if (id === null) return false;
    const p = this.#take(id);
    if (!p) return this.#abandoned?.has(id) ?? false;
    if ('error' in response) p.reject(JsonRpcError.from(response.error));
    else p.resolve(response.result);
    return true;
  }

  /** The options of a request still awaiting its response. */
  options(id: RequestId): RequestOptions | undefined {
    return this.#pending.get(id)?.options;
  }

  /** Delivers a progress notification to the request that owns the token; false when none does. */
  progress(params: ProgressParams): boolean {
    const p = this.#pending.get(params.progressToken);
    if (!p?.options?.onprogress) return false;
    const { maxTotalTimeout, resetTimeoutOnProgress, timeout = DEFAULT_REQUEST_TIMEOUT_MS } = p.options;
    const elapsed = Date.now() - p.startedAt;
    if (maxTotalTimeout !== undefined && elapsed >= maxTotalTimeout) {
      this.#giveUp(params.progressToken, this.#timeoutError(params.progressToken));
      return true;
    }
    if (resetTimeoutOnProgress !== false) {
      const remaining = maxTotalTimeout === undefined ? Number.POSITIVE_INFINITY : maxTotalTimeout - elapsed;
      p.atCeiling = remaining <= timeout;
      p.timer.restart(Math.min(timeout, remaining));
    }
    p.options.onprogress(params);
    return true;
  }

  #timeoutError(id: RequestId): McpkitError {
    const p = this.#pending.get(id);
    const max = p?.options?.maxTotalTimeout;
    if (p && max !== undefined && (p.atCeiling || Date.now() - p.startedAt >= max)) {
      return new McpkitError('REQUEST_TIMEOUT', `Request exceeded the maximum total timeout of ${max} ms`);
    }
    const timeout = p?.options?.timeout ?? DEFAULT_REQUEST_TIMEOUT_MS;
    return new McpkitError('REQUEST_TIMEOUT', `Request timed out after ${timeout} ms`);
  }

  /** Fails every pending request (the connection closed). */
  failAll(error: Error): void {
    for (const id of [...this.#pending.keys()]) this.#take(id)?.reject(error);
  }

  #giveUp(id: RequestId, error: Error): void {
    const p = this.#take(id);
    if (!p) return;
    this.#remember(id);
    // The spec forbids cancelling initialize; the caller gives up on it silently.
    if (p.method !== 'initialize') this.#cancel(id, error.message);
    p.reject(error);
  }

  #take(id: RequestId): Pending | undefined {
    const p = this.#pending.get(id);
    if (!p) return undefined;
    this.#pending.delete(id);
    p.timer.clear();
    if (p.onabort) p.options?.signal?.removeEventListener('abort', p.onabort);
    return p;
  }

  #remember(id: RequestId): void {
    this.#abandoned ??= new Set();
    const abandoned = this.#abandoned;
    abandoned.add(id);
    // Bounded: keep only the most recent 1024 abandoned ids.
    if (abandoned.size > 1024) {
      const oldest = abandoned.values().next().value;
      if (oldest !== undefined) abandoned.delete(oldest);
    }
  }
}

function cancelledError(signal: AbortSignal): Error {
  const reason: unknown = signal.reason;
  const detail = reason === undefined ? '' : errorMessage(reason);
  return new McpkitError('REQUEST_CANCELLED', detail ? `Request cancelled: ${detail}` : 'Request cancelled', {
    cause: reason,
  });
}
