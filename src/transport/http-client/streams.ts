import type { RequestId } from '../../jsonrpc/types.js';

/** One SSE stream of a Streamable HTTP client: the reply to a POST (and its resumptions), or the GET stream. */
export interface Stream {
  readonly kind: 'request' | 'standalone';
  /** Request ids whose responses this stream still owes. */
  readonly pending: Set<RequestId>;
  /** The one request a POST's stream was opened for: what it carries besides the response relates to it. */
  readonly related: RequestId | undefined;
  /** The id of the last event received: the cursor sent as `Last-Event-ID` on resumption. */
  lastEventId: string | undefined;
  /** The server's last `retry` field on this stream, in ms. */
  retry: number | undefined;
  /** Consecutive reconnection attempts that failed to connect (network errors, retriable statuses). */
  failures: number;
  /** Consecutive connections that ended without a single event: they slow reconnection down, never end it. */
  quiet: number;
  done: boolean;
  /** True once a connection of this stream was accepted and read (a 404 before that ends it for good). */
  opened: boolean;
  /** The pending reconnection, if one is scheduled. */
  timer: ReturnType<typeof setTimeout> | undefined;
  /** Stops reading the current connection, while one is being read. */
  cancel: (() => void) | undefined;
}

/**
 * The live streams of a transport and which one owes the response to each outstanding request.
 * Bounded by the requests in flight: a stream leaves once it owes nothing or is ended.
 */
export class StreamBook {
  readonly #streams = new Set<Stream>();
  readonly #owner = new Map<RequestId, Stream>();

  /** Registers the stream that will carry the responses to `ids` (undefined when there are none). */
  forRequests(ids: RequestId[]): Stream | undefined {
    if (ids.length === 0) return undefined;
    const stream = this.#add('request', ids, ids.length === 1 ? ids[0] : undefined);
    for (const id of ids) this.#owner.set(id, stream);
    return stream;
  }

  /** Registers a standalone GET stream. */
  standalone(): Stream {
    return this.#add('standalone', [], undefined);
  }

  /** Ends a stream: no more reading, no pending reconnection, no requests owed. */
  finish(stream: Stream): void {
    stream.done = true;
    if (stream.timer !== undefined) clearTimeout(stream.timer);
    stream.timer = undefined;
    stream.cancel?.();
    this.#streams.delete(stream);
    for (const id of stream.pending) if (this.#owner.get(id) === stream) this.#owner.delete(id);
    stream.pending.clear();
  }

  /** A request got its response or was given up on; its stream ends once it owes nothing more. */
  settled(id: RequestId): void {
    const stream = this.#owner.get(id);
    if (stream === undefined) return;
    this.#owner.delete(id);
    stream.pending.delete(id);
    if (stream.pending.size === 0) this.finish(stream);
  }

  /** Ends every stream. */
  finishAll(): void {
    for (const stream of [...this.#streams]) this.finish(stream);
  }

  #add(kind: Stream['kind'], ids: RequestId[], related: RequestId | undefined): Stream {
    const stream: Stream = {
      kind,
      pending: new Set(ids),
      related,
      lastEventId: undefined,
      retry: undefined,
      failures: 0,
      quiet: 0,
      done: false,
      opened: false,
      timer: undefined,
      cancel: undefined,
    };
    this.#streams.add(stream);
    return stream;
  }
}

/** A human name for a stream, for error texts. */
export function streamName(stream: Stream): string {
  if (stream.kind === 'standalone') return 'standalone GET stream';
  return `response stream of request ${[...stream.pending].map((id) => JSON.stringify(id)).join(', ')}`;
}
