// What every HTTP bench server shares: its argv (`<port> <mode>`), the ready line, the memory report on SIGUSR2,
// and (for the official v2 SDK, whose HTTP entries are fetch handlers) a small node:http -> fetch adapter.
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** How a server answers: see bench/workloads/http.ts for what each mode means per implementation. */
export type HttpMode =
  | 'stateless'
  | 'json'
  | 'sse'
  | 'default'
  | 'modern'
  | 'stateless-auth'
  | 'stateless-guards'
  | 'stateless-otel';

const MODES: readonly HttpMode[] = [
  'stateless',
  'json',
  'sse',
  'default',
  'modern',
  'stateless-auth',
  'stateless-guards',
  'stateless-otel',
];

/** The port (0 = any free one) and the mode from argv. */
export function httpArgs(): { port: number; mode: HttpMode } {
  const port = Number(process.argv[2] ?? '0');
  const mode = (process.argv[3] ?? 'default') as HttpMode;
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`bad port ${process.argv[2]}`);
  if (!MODES.includes(mode)) throw new Error(`bad mode ${mode}; one of ${MODES.join(', ')}`);
  return { port, mode };
}

/**
 * Prints the one ready line the load generator waits for (`listening <port>`), and answers SIGUSR2 with
 * `memory <json>`: process.memoryUsage() after two forced collections (the server runs with --expose-gc).
 */
export function announce(server: Server): void {
  const { port } = server.address() as AddressInfo;
  process.on('SIGUSR2', () => {
    const gc = (globalThis as { gc?: () => void }).gc;
    gc?.();
    gc?.();
    process.stdout.write(`memory ${JSON.stringify({ ...process.memoryUsage(), gc: gc !== undefined })}\n`);
  });
  // Exit normally on SIGTERM, so that --cpu-prof writes its profile.
  process.once('SIGTERM', () => process.exit(0));
  process.stdout.write(`listening ${port}\n`);
}

/** Listens on 127.0.0.1:port. */
export function listen(server: Server, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
}

/** Reads a request body completely. */
export function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

/**
 * Serves a fetch handler `(Request) => Promise<Response>` from node:http: the request body is read whole, a web
 * Request is built, and the Response's status, headers and body stream are copied back. Its cost is part of what
 * the benchmark measures for the official v2 SDK (the SDK's own node adapter lives in a package not installed here).
 */
export function fetchListener(
  handle: (request: Request) => Promise<Response>,
  origin: string,
): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    void serveFetch(handle, origin, req, res).catch((error: unknown) => {
      console.error('adapter error', error);
      if (!res.headersSent) res.writeHead(500).end();
      else res.destroy();
    });
  };
}

async function serveFetch(
  handle: (request: Request) => Promise<Response>,
  origin: string,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  const method = req.method ?? 'GET';
  const headers = new Headers();
  const raw = req.rawHeaders;
  for (let i = 0; i < raw.length; i += 2) headers.append(raw[i]!, raw[i + 1]!);
  const body = method === 'POST' ? await readBody(req) : undefined;
  const controller = new AbortController();
  res.once('close', () => {
    if (!res.writableFinished) controller.abort();
  });
  const init: RequestInit = { method, headers, signal: controller.signal };
  if (body !== undefined) init.body = body;
  const response = await handle(new Request(origin + (req.url ?? '/'), init));
  const out: Record<string, string> = {};
  response.headers.forEach((value, key) => {
    out[key] = value;
  });
  if (response.body === null) {
    res.writeHead(response.status, out).end();
    return;
  }
  if (!out['content-type']?.startsWith('text/event-stream')) {
    // A complete body (JSON): sent in one write with its length, as node:http servers do.
    const bytes = Buffer.from(await response.arrayBuffer());
    out['content-length'] = String(bytes.length);
    res.writeHead(response.status, out).end(bytes);
    return;
  }
  res.writeHead(response.status, out);
  const reader = response.body.getReader();
  res.once('close', () => void reader.cancel().catch(() => {}));
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    if (!res.write(value) && !res.destroyed) await new Promise((resolve) => res.once('drain', resolve));
  }
  res.end();
}
