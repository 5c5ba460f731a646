import type { IncomingMessage, ServerResponse } from 'node:http';
import { ErrorCode, toError } from '../../../jsonrpc/errors.js';
import { httpError } from '../core/errors.js';
import type { BodyReading, HttpReply, HttpRequestLike, SseSink } from '../core/http.js';
import { type ExchangeHandler, MAX_SSE_BACKLOG_BYTES } from './web.js';

/** A node:http request handler that also fits Express/Connect-style middleware (`next` for other paths). */
export type NodeListener = (
  req: IncomingMessage,
  res: ServerResponse,
  next?: (error?: unknown) => void,
) => void;

/** Routes of a node listener: which path answers which endpoint. */
export type NodeRoutes = Record<string, ExchangeHandler>;

/** Options of {@link createNodeListener}. */
export interface NodeListenerOptions {
  /** Receives errors of the listener itself (a reply that could not be written). */
  onerror?: (error: Error) => void;
}

/**
 * Serves core endpoints from node:http without building web Request/Response objects (the fast path).
 * A request for an unrouted path goes to `next` when given, else gets 404.
 */
export function createNodeListener(routes: NodeRoutes, options: NodeListenerOptions = {}): NodeListener {
  // The extra paths of each endpoint (OAuth Protected Resource Metadata), once; explicit routes win.
  const table: NodeRoutes = {};
  for (const handler of Object.values(routes))
    for (const extra of handler.extraPaths ?? []) table[extra] ??= handler;
  Object.assign(table, routes);
  return (req, res, next) => {
    const url = req.url ?? '/';
    const q = url.indexOf('?');
    const path = q < 0 ? url : url.slice(0, q);
    const handler = table[path];
    if (!handler) {
      if (next) next();
      else writeReply(res, httpError(404, `Not Found: ${path}`));
      return;
    }
    handler.handle(toRequestLike(req, res, path, q < 0 ? '' : url.slice(q + 1))).then(
      (reply) => writeReply(res, reply),
      (e: unknown) => {
        options.onerror?.(toError(e));
        if (!res.headersSent) writeReply(res, httpError(500, 'Internal error', ErrorCode.InternalError));
        else res.destroy();
      },
    );
  };
}

function toRequestLike(
  req: IncomingMessage,
  res: ServerResponse,
  path: string,
  query: string,
): HttpRequestLike {
  return new NodeRequest(req, res, path, query);
}

/**
 * A node:http request in the core's shape. A class (the signal getter on its prototype), not a literal
 * with a getter: V8 keeps those in dictionary mode, which made finished requests survive garbage collection.
 */
class NodeRequest implements HttpRequestLike {
  readonly method: string;
  readonly path: string;
  authInfo: unknown;
  readonly #req: IncomingMessage;
  readonly #res: ServerResponse;
  readonly #query: string;
  #gone: AbortController | undefined;

  constructor(req: IncomingMessage, res: ServerResponse, path: string, query: string) {
    this.#req = req;
    this.#res = res;
    this.method = (req.method ?? 'GET').toUpperCase();
    this.path = path;
    this.#query = query;
    this.authInfo = (req as { auth?: unknown }).auth;
  }

  get remoteAddress(): string | undefined {
    return this.#req.socket?.remoteAddress;
  }

  get query(): URLSearchParams {
    return new URLSearchParams(this.#query);
  }

  /** Created on first use: only requests that can be cancelled by a disconnect pay for it. */
  get signal(): AbortSignal {
    if (!this.#gone) {
      const controller = new AbortController();
      this.#gone = controller;
      const res = this.#res;
      if (res.destroyed && !res.writableFinished) controller.abort();
      else res.once('close', () => res.writableFinished || controller.abort());
    }
    return this.#gone.signal;
  }

  onGone(listener: () => void): void {
    const res = this.#res;
    if (res.destroyed) {
      if (!res.writableFinished) listener();
      return;
    }
    res.on('close', () => res.writableFinished || listener());
  }

  header(name: string): string | undefined {
    const v = this.#req.headers[name];
    return Array.isArray(v) ? v.join(', ') : v;
  }

  text(limit: number): Promise<string | undefined> {
    return new Promise((resolve, reject) => this.readText(limit, { done: resolve, fail: reject }));
  }

  /** Body-parsing middleware may have consumed the stream already: use what it parsed. */
  readText(limit: number, reading: BodyReading): void {
    const req = this.#req as BodyStream;
    const preParsed = (req as { body?: unknown }).body;
    if (preParsed !== undefined) {
      reading.done(JSON.stringify(preParsed));
      return;
    }
    req[BODY] = new BodyRead(reading, limit);
    req.on('data', onBodyData);
    req.on('end', onBodyEnd);
    req.on('error', onBodyError);
  }
}

/** The body of a request being read: its chunks so far (most bodies are one). */
class BodyRead {
  first: Buffer | undefined = undefined;
  rest: Buffer[] | undefined = undefined;
  total = 0;

  constructor(
    readonly reading: BodyReading,
    readonly limit: number,
  ) {}
}

const BODY = Symbol('mcpkit.body');
/** A request whose body is being read: the listeners below are shared by all (no closures per request). */
type BodyStream = IncomingMessage & { [BODY]?: BodyRead | undefined };

function onBodyData(this: BodyStream, chunk: Buffer): void {
  const read = this[BODY];
  if (read === undefined) return;
  read.total += chunk.length;
  if (read.total > read.limit) {
    // The rest flows on unread; node closes the connection once the 413 is out.
    this[BODY] = undefined;
    read.reading.done(undefined);
    return;
  }
  if (read.first === undefined) read.first = chunk;
  else if (read.rest === undefined) read.rest = [chunk];
  else read.rest.push(chunk);
}

function onBodyEnd(this: BodyStream): void {
  const read = this[BODY];
  if (read === undefined) return;
  this[BODY] = undefined;
  const { first, rest } = read;
  const text =
    first === undefined
      ? ''
      : rest === undefined
        ? first.toString('utf8')
        : Buffer.concat([first, ...rest]).toString('utf8');
  read.reading.done(text);
}

function onBodyError(this: BodyStream, error: Error): void {
  const read = this[BODY];
  if (read === undefined) return;
  this[BODY] = undefined;
  read.reading.fail(error);
}

function writeReply(res: ServerResponse, reply: HttpReply): void {
  if (!('sse' in reply)) {
    const body = reply.body;
    if (body === undefined) {
      res.writeHead(reply.status, reply.headers).end();
      return;
    }
    writeWhole(res, reply.status, reply.headers, body);
    return;
  }
  // What the stream has ready when it is attached is collected first: a stream that ends there (one response, most
  // replies) goes out whole, as one write, with no listener, timer or chunked framing.
  const sink = new NodeSseSink(res);
  reply.sse(sink);
  sink.begin(reply.status, reply.headers);
}

/** A reply whose whole body is known: head and body in one write, with its length. */
function writeWhole(
  res: ServerResponse,
  status: number,
  replyHeaders: Record<string, string>,
  body: string,
): void {
  // Copied with Object.assign: on V8 11 a spread followed by a new key (`{ ...h, k }`) costs about a microsecond.
  const headers: Record<string, string | number> = Object.assign({}, replyHeaders);
  headers['content-length'] = Buffer.byteLength(body);
  // An over-limit or late body was not read to the end: node closes the connection once the reply is out.
  if (status === 413 || status === 408) headers.connection = 'close';
  res.writeHead(status, headers).end(body);
}

/** Headers that matter only to a stream that goes on (no proxy buffering or transforming it, a kept connection). */
const STREAMING_HEADERS: ReadonlySet<string> = new Set(['cache-control', 'connection', 'x-accel-buffering']);

/** The headers of a whole SSE reply, by the frozen headers of its stream (a session's, shared by its replies). */
const wholeHeadersOf = new WeakMap<Record<string, string>, Record<string, string>>();

/**
 * The headers of an SSE reply whose stream ended before its head went out: a JSON reply's, with its content type.
 * Each header costs node:http a validation and a lower-casing per reply; these three say nothing about a body sent
 * whole with its length (node:http adds its own `Connection: keep-alive`, as for a JSON reply). Made once for frozen
 * headers (a session's replies share them, and they cannot change), else per reply.
 */
function wholeSseHeaders(headers: Record<string, string>): Record<string, string> {
  let whole = wholeHeadersOf.get(headers);
  if (whole !== undefined) return whole;
  whole = {};
  for (const name in headers) if (!STREAMING_HEADERS.has(name)) whole[name] = headers[name] as string;
  if (Object.isFrozen(headers)) wholeHeadersOf.set(headers, whole);
  return whole;
}

/**
 * The connection of an SSE reply. Until `begin` it collects what the core writes; then a stream that has ended is
 * written whole, and one that goes on is written as it comes (a client that never reads is cut off past
 * `MAX_SSE_BACKLOG_BYTES` instead of buffered without bound; it can resume). A class: no closures per reply.
 */
class NodeSseSink implements SseSink {
  closed = false;
  onclose: (() => void) | undefined = undefined;
  readonly #res: ServerResponse;
  /** What was written before `begin` (undefined once begun). */
  #early: string | undefined = '';

  constructor(res: ServerResponse) {
    this.#res = res;
  }

  write(text: string): boolean {
    if (this.closed) return false;
    if (this.#early !== undefined) {
      this.#early += text;
      return true;
    }
    return this.#send(text);
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    if (this.#early === undefined) this.#res.end();
    this.onclose?.();
  }

  /** The head goes out: with the whole stream when it has ended already, else with what it has so far. */
  begin(status: number, headers: Record<string, string>): void {
    const res = this.#res;
    const early = this.#early as string;
    this.#early = undefined;
    if (this.closed) {
      writeWhole(res, status, wholeSseHeaders(headers), early);
      return;
    }
    res.writeHead(status, headers);
    // The head, what is ready now and whatever follows within this turn of the event loop leave together in one
    // write instead of one system call each. The socket is corked, not the response: Node 24 buffers a corked chunked
    // response itself and, when it ends still corked, sends the terminating chunk before the buffered ones. `end()`
    // uncorks the socket fully on its own.
    const socket = res.socket;
    if (socket) {
      socket.cork();
      setImmediate(uncorkLater, res, socket);
    }
    res.once('close', () => {
      if (this.closed) return;
      this.closed = true;
      this.onclose?.();
    });
    if (early.length > 0) this.#send(early);
  }

  #send(text: string): boolean {
    const res = this.#res;
    res.write(text);
    if (res.writableLength > MAX_SSE_BACKLOG_BYTES) {
      res.destroy();
      return false;
    }
    return true;
  }
}

function uncorkLater(res: ServerResponse, socket: NonNullable<ServerResponse['socket']>): void {
  if (!res.writableEnded && !socket.destroyed && socket.writableCorked > 0) socket.uncork();
}
