import type { HttpReply, HttpRequestLike, SseSink } from '../core/http.js';
import { type FetchCardOptions, fetchCardRoute } from './server-card.js';

/** Most bytes an SSE response may have queued for a client that does not read before it is cut off. */
export const MAX_SSE_BACKLOG_BYTES = 8 * 1024 * 1024;

/** Something that answers HTTP exchanges (a Streamable HTTP or legacy SSE endpoint). */
export interface ExchangeHandler {
  handle(req: HttpRequestLike): Promise<HttpReply>;
  /**
   * Other paths this handler answers besides the one it is mounted at (the OAuth Protected Resource Metadata of an
   * endpoint with `auth`): `createNodeListener` and `serve()` route them to it.
   */
  readonly extraPaths?: readonly string[];
}

/**
 * Wraps a web-standard Request as the core's request shape. A Request carries no client address: hosts that know it
 * hand it in (Deno: `info.remoteAddr.hostname`, Bun: `server.requestIP(request)?.address`).
 */
export function fromRequest(request: Request, authInfo?: unknown, remoteAddress?: string): HttpRequestLike {
  const url = new URL(request.url);
  return {
    method: request.method.toUpperCase(),
    path: url.pathname,
    query: url.searchParams,
    header: (name) => request.headers.get(name) ?? undefined,
    text: (limit) => readLimited(request, limit),
    authInfo,
    remoteAddress,
    signal: request.signal,
  };
}

async function readLimited(request: Request, limit: number): Promise<string | undefined> {
  if (!request.body) return '';
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > limit) {
      await reader.cancel();
      return undefined;
    }
    chunks.push(value);
  }
  const all = new Uint8Array(total);
  let offset = 0;
  for (const c of chunks) {
    all.set(c, offset);
    offset += c.byteLength;
  }
  return new TextDecoder().decode(all);
}

class StreamSink implements SseSink {
  closed = false;
  onclose: (() => void) | undefined;
  readonly #controller: ReadableStreamDefaultController<Uint8Array>;
  readonly #encoder = new TextEncoder();

  constructor(controller: ReadableStreamDefaultController<Uint8Array>) {
    this.#controller = controller;
  }

  write(text: string): boolean {
    if (this.closed) return false;
    this.#controller.enqueue(this.#encoder.encode(text));
    if ((this.#controller.desiredSize ?? 0) < -MAX_SSE_BACKLOG_BYTES) {
      // The client stopped reading: drop it rather than buffer without bound (it can resume).
      this.close();
      return false;
    }
    return true;
  }

  close(): void {
    if (this.closed) return;
    this.#controller.close();
    this.gone();
  }

  /** The stream ended (closed here, or cancelled by the client). */
  gone(): void {
    if (this.closed) return;
    this.closed = true;
    this.onclose?.();
  }
}

/** Turns a core reply into a web-standard Response (SSE replies stream through a ReadableStream). */
export function toResponse(reply: HttpReply): Response {
  if (!('sse' in reply))
    return new Response(reply.body ?? null, { status: reply.status, headers: reply.headers });
  let sink: StreamSink | undefined;
  const body = new ReadableStream<Uint8Array>(
    {
      start(controller) {
        sink = new StreamSink(controller);
        reply.sse(sink);
      },
      cancel() {
        sink?.gone();
      },
    },
    { highWaterMark: 1, size: (chunk) => chunk.byteLength },
  );
  return new Response(body, { status: reply.status, headers: reply.headers });
}

/**
 * A web-standard fetch handler `(Request) => Promise<Response>` for any fetch-style host. `authInfo`: what host
 * middleware verified; `remoteAddress`: the client's address when the host knows it (the rate limiter's key for
 * a request without a session or token).
 *
 * @example
 * const fetchHandler = toFetchHandler(handler, { card: { server } });
 * Deno.serve((request, info) => fetchHandler(request, undefined, info.remoteAddr.hostname));
 */
export function toFetchHandler(
  handler: ExchangeHandler,
  options: FetchHandlerOptions = {},
): (request: Request, authInfo?: unknown, remoteAddress?: string) => Promise<Response> {
  if (options.card === undefined)
    return async (request, authInfo, remoteAddress) =>
      toResponse(await handler.handle(fromRequest(request, authInfo, remoteAddress)));
  const card = fetchCardRoute(options.card);
  return async (request, authInfo, remoteAddress) => {
    const req = fromRequest(request, authInfo, remoteAddress);
    const cards = card(req, new URL(request.url).origin);
    return toResponse(await (cards ?? handler).handle(req));
  };
}

/** Options of {@link toFetchHandler}. */
export interface FetchHandlerOptions {
  /**
   * The server card (SEP-2127) at `<path>/server-card` and the AI Catalog at `/.well-known/ai-catalog.json`, as
   * `serve()` answers them (public, CORS `*`, ETag), for the server given here; absent: every request goes to the
   * handler.
   */
  card?: FetchCardOptions;
}
