import type { JsonRpcMessage, RequestId } from '../../../jsonrpc/types.js';
import type { HttpReply, SseSink } from '../core/http.js';

/**
 * One formatted SSE event waiting for a connection, with its id (its sequence is read from it only where a replay
 * must be de-duplicated, which a fresh stream never needs).
 */
export interface QueuedEvent {
  id: string | undefined;
  text: string;
}

/** One logical stream of a session: the answer to a POST, or the standalone GET stream. */
export class OutStream {
  /**
   * How many requests of the POST still wait for their responses (which they are: `SessionStreams.requestsOf`; the
   * session's `byRequest` knows each request's stream, so the stream keeps no table of its own).
   */
  pending = 0;
  /** Events waiting while a connection is being attached (undefined when none is). */
  backlog: QueuedEvent[] | undefined;
  /** The connection currently carrying the stream, if any. */
  sink: SseSink | undefined;
  /** Resolves the POST's HTTP reply once `replied()` has promised it (see `settle`). */
  reply: ((reply: HttpReply) => void) | undefined;
  /** True from the POST's delivery until its HTTP reply is decided (a GET's or a resumed stream's never is). */
  undecided = false;
  /** The reply decided while the POST's messages were being delivered, before anything waited for it. */
  decided: HttpReply | undefined;
  /** The first response collected while the answer may still be plain JSON (most POSTs have only this one). */
  first: JsonRpcMessage | undefined;
  /**
   * The responses collected after the first (a batch). `Array.of()`, not `[]`: an array literal has an allocation site
   * V8 may pretenure (see `RequestSetup` in server/dispatch/setup.ts), and this array, allocated old, kept every
   * request's response and result alive through scavenges (0.3 MB promoted per scavenge on the guards bench server;
   * 8 KB without). An array made by `Array.of` has no allocation site; it is made only for a second response, since
   * `Array.of` sets the length through the generic property path (about 600 instructions per POST when every stream
   * made one).
   */
  rest: JsonRpcMessage[] | undefined;
  sse = false;
  closeRequested = false;
  keepAlive: ReturnType<typeof setInterval> | undefined;
  /** Orders writes behind an asynchronous event store. */
  tail: Promise<void> | undefined;
  seq = 0;
  /** The store recorded the stream's end with its last event (`EventStore.appendLast`). */
  endRecorded = false;
  /** Cluster: stops following the shared store (set while the stream's events come from there). */
  unfollow: (() => void) | undefined;
  /** Cluster: a stream another instance writes, resumed here (its requests, and those answered so far). */
  remote: { requests: RequestId[]; answered: Set<RequestId>; ended: boolean; lost: boolean } | undefined;
  /** Cluster: checks that the instance writing a remote stream is alive. */
  watch: ReturnType<typeof setInterval> | undefined;
  #id: string | undefined;
  readonly #prefix: string;

  /** `n`: the number of a POST stream, whose id (`prefix` and `n`) is made when first read (a JSON reply never does). */
  constructor(
    prefix: string,
    readonly batch: boolean,
    readonly n = -1,
  ) {
    this.#id = n < 0 ? prefix : undefined;
    this.#prefix = prefix;
  }

  /** The stream's id: the prefix of its event ids, what a client resumes it by. */
  get id(): string {
    this.#id ??= `${this.#prefix}${this.n}`;
    return this.#id;
  }

  /** The POST's HTTP reply is decided (once): to whoever waits for it, or kept for `replied()`. */
  settle(reply: HttpReply): void {
    if (!this.undecided) return;
    this.undecided = false;
    const resolve = this.reply;
    this.reply = undefined;
    if (resolve) resolve(reply);
    else this.decided = reply;
  }

  /** The POST's HTTP reply: itself when already decided (no promise is made), else a promise of it. */
  replied(): HttpReply | Promise<HttpReply> {
    const decided = this.decided;
    if (decided !== undefined) {
      this.decided = undefined;
      return decided;
    }
    return new Promise<HttpReply>((resolve) => {
      this.reply = resolve;
    });
  }

  /** Collects a response while the answer may still be plain JSON. */
  collect(message: JsonRpcMessage): void {
    if (this.first === undefined) this.first = message;
    else if (this.rest === undefined) this.rest = Array.of(message);
    else this.rest.push(message);
  }

  /** The collected responses, in order, handed over once (to a JSON reply, or to the stream turned SSE). */
  takeCollected(): JsonRpcMessage[] {
    const first = this.first;
    const rest = this.rest;
    this.first = undefined;
    this.rest = undefined;
    if (first === undefined) return [];
    if (rest === undefined) return [first];
    rest.unshift(first);
    return rest;
  }

  /** True while a connection is attached or being attached. */
  get connected(): boolean {
    return this.sink !== undefined || this.backlog !== undefined;
  }

  /** Writes an event to the connection, or keeps it while one is being attached (a full connection is dropped). */
  write(event: QueuedEvent): void {
    if (this.sink) {
      if (!this.sink.write(event.text)) this.detach(false);
    } else this.backlog?.push(event);
  }

  /** Lets go of the connection (closing it when `close`), its timers and its following of a shared store. */
  detach(close: boolean): void {
    if (this.keepAlive !== undefined) clearInterval(this.keepAlive);
    this.keepAlive = undefined;
    if (this.watch !== undefined) clearInterval(this.watch);
    this.watch = undefined;
    this.unfollow?.();
    this.unfollow = undefined;
    const sink = this.sink;
    this.sink = undefined;
    if (close && sink && !sink.closed) sink.close();
  }
}

/** The sequence number of an event id (`<stream>.<seq>`), or undefined. */
export function seqOf(id: string | undefined): number | undefined {
  if (id === undefined) return undefined;
  const n = Number(id.slice(id.lastIndexOf('.') + 1));
  return Number.isSafeInteger(n) ? n : undefined;
}
