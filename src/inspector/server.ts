import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { errorMessage, JsonRpcError, McpkitError } from '../jsonrpc/errors.js';
import { APP_FRAME_PATH } from './apps.js';
import { type Asset, loadAssets } from './assets.js';
import { BadInput, objectOf } from './bad-input.js';
import { Guard, newToken, type Refusal } from './guard.js';
import { OPERATIONS } from './operations.js';
import {
  type ConnectionState,
  type InspectorEvent,
  InspectorSession,
  type SessionOptions,
} from './session.js';
import { CALLBACK_PATH, type SignInAnswer, START_PATH } from './sign-in.js';

/** Options of {@link startInspector}. */
export interface InspectorOptions extends SessionOptions {
  /** The port on 127.0.0.1; 0 (the default) picks a free one. */
  port?: number;
}

/** A running inspector. */
export interface RunningInspector {
  /** The URL to open: it carries the token, which the page then keeps in an HttpOnly cookie. */
  readonly url: string;
  /** `http://127.0.0.1:<port>`. */
  readonly origin: string;
  readonly port: number;
  readonly session: InspectorSession;
  /** Settles when the target given in the options is connected (or failed); the state otherwise. */
  readonly connected: Promise<ConnectionState>;
  /** Ends the page streams, the connection and the web server. */
  close(): Promise<void>;
}

/** Largest request body the page may send. */
const MAX_BODY_BYTES = 4 * 1024 * 1024;
/** Bytes queued for a page's event stream before it is ended (the page reconnects and gets a fresh snapshot). */
const MAX_QUEUED_BYTES = 8 * 1024 * 1024;
const HEARTBEAT_MS = 15_000;

const SECURITY_HEADERS = {
  'Content-Security-Policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; media-src 'self' data:; " +
    "connect-src 'self'; frame-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  'X-Content-Type-Options': 'nosniff',
  'X-Frame-Options': 'DENY',
  'Referrer-Policy': 'no-referrer',
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Resource-Policy': 'same-origin',
};

/**
 * Starts the web inspector: a small HTTP server on 127.0.0.1 serving the page's static bundle, its event stream
 * (SSE) and its actions (POST /api/<name>), all behind a random token. The server side holds the mcpkit `Client`;
 * the page never sees the target's headers or tokens. A target in the options is connected at once.
 *
 * @example
 * const inspector = await startInspector({ target: { kind: 'stdio', command: 'node', args: ['server.js'] } });
 * console.error(`Inspector: ${inspector.url}`);
 */
export async function startInspector(options: InspectorOptions = {}): Promise<RunningInspector> {
  const assets = loadAssets();
  const { port: wanted = 0, ...sessionOptions } = options;
  const token = newToken();
  const streams = new Set<ServerResponse>();
  let guard: Guard | undefined;
  let session: InspectorSession | undefined;
  const server = createServer((req, res) => {
    if (!guard || !session) return void res.writeHead(503).end();
    handle(req, res, guard, session, assets, streams).catch((e: unknown) => {
      if (!res.headersSent) json(res, 500, { ok: false, error: { message: errorMessage(e) } });
      else res.end();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(wanted, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  guard = new Guard(token, port);
  const origin = `http://127.0.0.1:${port}`;
  const ours = new InspectorSession(sessionOptions, { origin, port });
  session = ours;
  const connected = options.target ? ours.connect() : Promise.resolve(ours.state);
  return {
    url: `${origin}/?token=${token}`,
    origin,
    port,
    session: ours,
    connected,
    async close() {
      for (const stream of streams) stream.end();
      await ours.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

async function handle(
  req: IncomingMessage,
  res: ServerResponse,
  guard: Guard,
  session: InspectorSession,
  assets: Map<string, Asset>,
  streams: Set<ServerResponse>,
): Promise<void> {
  const url = new URL(req.url ?? '/', 'http://127.0.0.1');
  // The authorization server's redirect: another site sends the browser here, so neither the Origin nor the token's
  // SameSite=Strict cookie can be asked for; the sign-in's state and its binding cookie are (see SignIns).
  if (url.pathname === CALLBACK_PATH) {
    const misplaced = guard.checkHost(req);
    if (misplaced) return refuse(res, misplaced);
    if (req.method !== 'GET') return refuse(res, { status: 405, reason: 'Method not allowed' });
    return signInAnswer(res, session.signIns.callback(url, req.headers.cookie));
  }
  const refusal = guard.checkPlace(req);
  if (refusal) return refuse(res, refusal);
  if (req.method === 'GET' && url.pathname === '/' && url.searchParams.has('token')) {
    if (!guard.matches(url.searchParams.get('token')))
      return refuse(res, { status: 401, reason: 'Wrong token' });
    // The token moves into an HttpOnly cookie and out of the address bar (and the page's reach).
    res.writeHead(303, {
      ...SECURITY_HEADERS,
      Location: '/',
      'Set-Cookie': guard.cookie(),
      'Cache-Control': 'no-store',
    });
    return void res.end();
  }
  if (!guard.authenticated(req))
    return refuse(res, {
      status: 401,
      reason: 'Open the URL that mcpkit inspect printed (it carries the token)',
    });
  if (req.method === 'GET' && url.pathname.startsWith(START_PATH))
    return signInAnswer(res, session.signIns.start(url.pathname.slice(START_PATH.length)));
  if (req.method === 'GET' || req.method === 'HEAD') {
    if (url.pathname === '/events') return events(res, session, streams);
    if (url.pathname.startsWith(APP_FRAME_PATH)) return appFrame(res, session, url.pathname);
    const file = assets.get(url.pathname);
    if (!file) return refuse(res, { status: 404, reason: 'Not found' });
    if (req.headers['if-none-match'] === file.etag) return void res.writeHead(304, { ETag: file.etag }).end();
    res.writeHead(200, {
      ...SECURITY_HEADERS,
      'Content-Type': file.type,
      'Content-Length': file.body.length,
      ETag: file.etag,
      // The bundle asked for by its hash never changes; the page itself is checked each time (a 304 when unchanged).
      'Cache-Control':
        url.searchParams.get('v') === file.version ? 'private, max-age=31536000, immutable' : 'no-cache',
    });
    return void res.end(req.method === 'HEAD' ? undefined : file.body);
  }
  if (req.method === 'POST' && url.pathname.startsWith('/api/')) return action(req, res, url, session);
  return refuse(res, { status: 405, reason: 'Method not allowed' });
}

/**
 * An App's document for its frame: the CSP its resource declares (with `sandbox allow-scripts`: an opaque origin,
 * so no cookie, no API and no page of the inspector reach it, even opened on its own), embeddable by the page only.
 */
function appFrame(res: ServerResponse, session: InspectorSession, path: string): void {
  const frame = session.apps.frame(path.slice(APP_FRAME_PATH.length));
  if (!frame)
    return void refuse(res, { status: 404, reason: 'No such App (closed, or too many opened since)' });
  res.writeHead(200, {
    'Content-Security-Policy': frame.policy,
    'Content-Type': 'text/html; charset=utf-8',
    'Content-Length': Buffer.byteLength(frame.html),
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'no-referrer',
    'Cache-Control': 'no-store',
  });
  res.end(frame.html);
}

/** The page's event stream: a snapshot first, then every event. */
function events(res: ServerResponse, session: InspectorSession, streams: Set<ServerResponse>) {
  res.writeHead(200, {
    ...SECURITY_HEADERS,
    'Content-Type': 'text/event-stream',
    'Cache-Control': 'no-store',
    'X-Accel-Buffering': 'no',
  });
  res.write(`event: snapshot\ndata: ${JSON.stringify(session.snapshot())}\n\n`);
  const send = (event: InspectorEvent) => {
    // Ended (too far behind, or closed): nothing more is written; 'close' unsubscribes.
    if (res.writableEnded) return;
    if (res.writableLength > MAX_QUEUED_BYTES) return void res.end();
    res.write(`data: ${JSON.stringify(event)}\n\n`);
  };
  const unsubscribe = session.subscribe(send);
  const heartbeat = setInterval(() => {
    if (!res.writableEnded) res.write(': ping\n\n');
  }, HEARTBEAT_MS);
  streams.add(res);
  const done = () => {
    clearInterval(heartbeat);
    unsubscribe();
    streams.delete(res);
  };
  res.once('close', done);
}

/** One action of the page: a JSON body in, `{ ok, result }` or `{ ok: false, error }` out. */
async function action(req: IncomingMessage, res: ServerResponse, url: URL, session: InspectorSession) {
  const operation = OPERATIONS.get(url.pathname.slice('/api/'.length));
  if (!operation) return refuse(res, { status: 404, reason: 'No such action' });
  if (!/^application\/json\b/.test(req.headers['content-type'] ?? ''))
    return json(res, 415, { ok: false, error: { message: 'Send application/json' } });
  let body: Record<string, unknown>;
  try {
    const text = await readBody(req);
    body = objectOf(text === '' ? {} : JSON.parse(text));
  } catch (e) {
    return json(res, 400, { ok: false, error: { message: `Malformed request: ${errorMessage(e)}` } });
  }
  try {
    json(res, 200, { ok: true, result: (await operation(session, body)) ?? null });
  } catch (e) {
    json(res, e instanceof BadInput ? 400 : 200, { ok: false, error: describeError(e) });
  }
}

function describeError(e: unknown): { message: string; code?: string | number; data?: unknown } {
  if (e instanceof JsonRpcError)
    return e.data === undefined
      ? { message: e.message, code: e.code }
      : { message: e.message, code: e.code, data: e.data };
  if (e instanceof McpkitError) return { message: e.message, code: e.code };
  return { message: errorMessage(e) };
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        reject(new Error(`the body is over ${MAX_BODY_BYTES} bytes`));
        req.destroy();
        return;
      }
      chunks.push(chunk);
    });
    req.once('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.once('error', reject);
  });
}

function json(res: ServerResponse, status: number, value: unknown): void {
  const body = JSON.stringify(value);
  res.writeHead(status, {
    ...SECURITY_HEADERS,
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': Buffer.byteLength(body),
    'Cache-Control': 'no-store',
  });
  res.end(body);
}

/** A sign-in's start (a redirect to the authorization server), its end (a short page), or a refusal. */
function signInAnswer(res: ServerResponse, answer: SignInAnswer): void {
  if (answer.kind === 'refused') return void refuse(res, answer.refusal);
  if (answer.kind === 'redirect') {
    res.writeHead(303, {
      ...SECURITY_HEADERS,
      Location: answer.location,
      'Set-Cookie': answer.cookie,
      'Cache-Control': 'no-store',
    });
    return void res.end();
  }
  const body = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>mcpkit inspector: sign-in</title></head><body><p data-sign-in-done>${answer.message}</p><p><a href="/">Back to the inspector</a></p></body></html>`;
  res.writeHead(200, {
    ...SECURITY_HEADERS,
    'Content-Type': 'text/html; charset=utf-8',
    'Content-Length': Buffer.byteLength(body),
    'Cache-Control': 'no-store',
  });
  res.end(body);
}

function refuse(res: ServerResponse, refusal: Refusal | { status: 400 | 404 | 405; reason: string }): void {
  res.writeHead(refusal.status, {
    ...SECURITY_HEADERS,
    'Content-Type': 'text/plain; charset=utf-8',
    'Cache-Control': 'no-store',
  });
  res.end(`${refusal.reason}\n`);
}
