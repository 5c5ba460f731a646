import { ErrorCode, JsonRpcError } from '../jsonrpc/errors.js';
import type { RequestId } from '../jsonrpc/types.js';
import type { RequestContext } from '../server/handler/context.js';
import { InputRequiredSignal } from '../spec/input-required.js';

/** Where a request of the server behind the proxy came from, as the proxy's client tells it. */
export interface AskedFrom {
  /** The signal the client gave its handler (in the stateless revision: the forwarded call's own). */
  readonly signal: AbortSignal;
  /** The proxy's request the transport relates it to, if any. */
  readonly relatedRequestId?: RequestId | undefined;
  /** That request's signal (a forwarded request's is the one {@link InFlight.run} gave it). */
  readonly relatedSignal?: AbortSignal | undefined;
}

interface Forwarded {
  readonly ctx: RequestContext;
  /** The signal of the forwarded request: aborted with the client's request, or when it needs input first. */
  readonly controller: AbortController;
  /** Set when the client's request must first be answered with `input_required` (stateless revision). */
  input: InputRequiredSignal | undefined;
}

/**
 * The requests a proxy is forwarding, so that what the server behind it asks on their behalf (sampling,
 * elicitation, roots) reaches the client whose request caused it. (Progress and log messages need none of this:
 * progress comes back by its token and logs by the request the transport relates them to, through the forwarded
 * request's own options.)
 *
 * Which request a server's request belongs to: with a stateless (2026-07-28) server behind the proxy it is exact
 * (the client answers `input_required` inside the forwarded call, whose signal is known); with a stateful one it is
 * exact where the transport relates the server's request to the forwarded one (Streamable HTTP: it came on that
 * request's response stream; in memory: the sender's relation), and one related to a request that is not being
 * forwarded is refused; where nothing relates it (stdio, legacy SSE, the standalone GET stream), it is the one
 * request in flight, and asking while several are in flight is refused rather than guessed.
 */
export class InFlight {
  readonly #bySignal = new Map<AbortSignal, Forwarded>();

  /** Runs `forward` for the client request of `ctx`, with the signal to give the forwarded request. */
  async run<T>(ctx: RequestContext, forward: (signal: AbortSignal) => Promise<T>): Promise<T> {
    const controller = new AbortController();
    const entry: Forwarded = { ctx, controller, input: undefined };
    const abort = () => controller.abort(ctx.signal.reason);
    if (ctx.signal.aborted) abort();
    else ctx.signal.addEventListener('abort', abort, { once: true });
    this.#bySignal.set(controller.signal, entry);
    try {
      return await forward(controller.signal);
    } catch (e) {
      // The client must answer first (input_required): that, not the cancelled forward, is the answer.
      if (entry.input) throw entry.input;
      throw e;
    } finally {
      this.#bySignal.delete(controller.signal);
      ctx.signal.removeEventListener('abort', abort);
    }
  }

  /** The number of requests being forwarded. */
  get size(): number {
    return this.#bySignal.size;
  }

  /**
   * Asks the client of the request a server request belongs to (`from`: the context the client library gave the
   * handler: its signal, the forwarded call's own in the stateless revision, and the request of the proxy's the
   * transport relates it to, if any). A stateless client that must be asked in a round of its own ends the
   * forwarded call: its request is answered with `input_required` and retried.
   */
  async ask<T>(from: AskedFrom, what: string, ask: (ctx: RequestContext) => Promise<T>): Promise<T> {
    const entry = this.#find(from);
    if (!entry) {
      const n = this.#bySignal.size;
      throw new JsonRpcError(
        ErrorCode.InternalError,
        from.relatedRequestId !== undefined
          ? `The proxy cannot forward ${what}: the server relates it to a request that is not one of its clients' in flight`
          : n === 0
            ? `The proxy cannot forward ${what}: no request of its clients is in flight`
            : `The proxy cannot forward ${what}: ${n} requests of its clients are in flight and the server does not say which one it belongs to`,
      );
    }
    try {
      return await ask(entry.ctx);
    } catch (e) {
      if (e instanceof InputRequiredSignal) {
        entry.input = e;
        entry.controller.abort(e);
      }
      throw e;
    }
  }

  #find(from: AskedFrom): Forwarded | undefined {
    const own = this.#bySignal.get(from.signal);
    if (own) return own;
    // Related by the transport: that request or none, never another one in flight.
    if (from.relatedRequestId !== undefined)
      return from.relatedSignal === undefined ? undefined : this.#bySignal.get(from.relatedSignal);
    return this.#only();
  }

  #only(): Forwarded | undefined {
    if (this.#bySignal.size !== 1) return undefined;
    for (const entry of this.#bySignal.values()) return entry;
    return undefined;
  }
}
