// Helpers of the official-SDK-v2 interop tests: a minimal node:http → fetch bridge (the v2 SDK's Node adapter is
// not installed) so `createMcpHandler(...).fetch` can listen on 127.0.0.1 with streaming SSE and disconnects
// turned into request aborts, and the v2 fixture server served that way. Not a test file itself.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { createMcpHandler, type McpHttpHandler } from '@modelcontextprotocol/server';
import { createV2Server } from './fixtures/v2-server.js';

/** The v2 fixture server over stdio (compiled). */
export const V2_STDIO_MAIN = fileURLToPath(new URL('./fixtures/v2-stdio-main.js', import.meta.url));

/** A fetch-shaped handler listening on 127.0.0.1. */
export interface FetchServer {
  url: string;
  /** Every request's method and JSON-RPC method (when the body had one), in order. */
  seen: { http: string; rpc: string | undefined; status: number }[];
  close(): Promise<void>;
}

/** Serves `handle` on 127.0.0.1 at `/mcp`, streaming response bodies; a client disconnect aborts the Request. */
export async function serveFetch(handle: (request: Request) => Promise<Response>): Promise<FetchServer> {
  const seen: FetchServer['seen'] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      void respond(req, res, Buffer.concat(chunks));
    });
  });
  let origin = '';
  async function respond(req: http.IncomingMessage, res: http.ServerResponse, body: Buffer): Promise<void> {
    const controller = new AbortController();
    res.on('close', () => {
      if (!res.writableFinished) controller.abort();
    });
    const headers = new Headers();
    for (const [name, value] of Object.entries(req.headers)) {
      if (typeof value === 'string') headers.set(name, value);
      else if (Array.isArray(value)) for (const v of value) headers.append(name, v);
    }
    const hasBody = req.method !== 'GET' && req.method !== 'HEAD' && body.length > 0;
    let rpc: string | undefined;
    if (hasBody) {
      try {
        const parsed = JSON.parse(body.toString('utf8')) as { method?: unknown };
        rpc = typeof parsed.method === 'string' ? parsed.method : undefined;
      } catch {
        rpc = undefined;
      }
    }
    const entry = { http: req.method ?? '', rpc, status: 0 };
    seen.push(entry);
    try {
      const request = new Request(`${origin}${req.url ?? '/'}`, {
        method: req.method ?? 'GET',
        headers,
        ...(hasBody ? { body } : {}),
        signal: controller.signal,
      });
      const response = await handle(request);
      entry.status = response.status;
      const out: Record<string, string> = {};
      response.headers.forEach((value, name) => {
        out[name] = value;
      });
      res.writeHead(response.status, out);
      if (response.body === null) {
        res.end();
        return;
      }
      const reader = response.body.getReader();
      res.on('close', () => {
        reader.cancel().catch(() => undefined);
      });
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        res.write(value);
      }
      res.end();
    } catch (error) {
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' });
      res.end(String(error));
    }
  }
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: `${origin}/mcp`,
    seen,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** The v2 fixture behind `createMcpHandler` (default `legacy: 'stateless'`), served over HTTP. */
export async function serveV2Http(): Promise<FetchServer & { handler: McpHttpHandler }> {
  let handler: McpHttpHandler | undefined;
  handler = createMcpHandler(
    () =>
      createV2Server({
        toolsChanged: () => handler?.notify.toolsChanged(),
        resourceUpdated: (uri) => handler?.notify.resourceUpdated(uri),
      }),
    { onerror: () => undefined },
  );
  const running = await serveFetch((request) => (handler as McpHttpHandler).fetch(request));
  return {
    ...running,
    handler,
    async close() {
      await handler?.close();
      await running.close();
    },
  };
}
