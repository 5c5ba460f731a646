/**
 * The HTTP exchange the Streamable HTTP core works on: a minimal request and reply shape that both the
 * web-standard adapter (Request/Response) and the node:http adapter translate to and from cheaply.
 */

/** An incoming HTTP request, as the core sees it. */
export interface HttpRequestLike {
  /** Upper-case method. */
  readonly method: string;
  /** The path (no query). */
  readonly path: string;
  /** The query string parameters. */
  readonly query: URLSearchParams;
  /** A header value by lower-case name. */
  header(name: string): string | undefined;
  /** Reads the body as text, refusing more than `limit` bytes (resolves `undefined` when over). */
  text(limit: number): Promise<string | undefined>;
  /**
   * Reads the body as `text` does, calling `reading` back instead of making a promise (the node:http adapter has it;
   * the endpoints use `text` when it is absent).
   */
  readText?(limit: number, reading: BodyReading): void;
  /**
   * Transport-level authentication information: set by the endpoint's `auth` gate once the bearer token is
   * verified (an `AuthInfo`), or handed in by host middleware (`req.auth` on node:http, `toFetchHandler`'s argument).
   */
  authInfo?: unknown;
  /** The address of the connection's peer (the client, or the proxy in front of the server), when known. */
  readonly remoteAddress?: string | undefined;
  /** Aborted when the client goes away before the reply is complete. */
  readonly signal?: AbortSignal;
  /**
   * Calls `listener` once if the client goes away before the reply is complete: what `signal` says, without an
   * AbortController and an event listener per request (the node:http adapter has it; others are watched through
   * `signal`).
   */
  onGone?(listener: () => void): void;
}

/** Where `HttpRequestLike.readText` hands the body: `done` with its text (`undefined` past the limit), or `fail`. */
export interface BodyReading {
  done(text: string | undefined): void;
  fail(error: unknown): void;
}

/** Calls `listener` once if the client of `req` goes away before its reply is complete (see `onGone`). */
export function whenGone(req: Pick<HttpRequestLike, 'onGone' | 'signal'>, listener: () => void): void {
  if (req.onGone) req.onGone(listener);
  else req.signal?.addEventListener('abort', listener, { once: true });
}

/** The writable end of a server-sent-events response. */
export interface SseSink {
  /** Writes raw SSE text; returns false when the connection is closed or too far behind. */
  write(text: string): boolean;
  /** Ends the response. */
  close(): void;
  /** True once closed by either side. */
  readonly closed: boolean;
  /** Called once when the connection closes (by either side). */
  onclose: (() => void) | undefined;
}

/** A complete reply, or one that streams server-sent events. */
export type HttpReply =
  | { status: number; headers: Record<string, string>; body?: string }
  | { status: number; headers: Record<string, string>; sse: (sink: SseSink) => void };

/** Response headers of every SSE reply. */
export const SSE_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'content-type': 'text/event-stream',
  'cache-control': 'no-cache, no-transform',
  connection: 'keep-alive',
  'x-accel-buffering': 'no',
});
