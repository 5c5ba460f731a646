// OFFICIAL SDK 1.x servers over node:http on 127.0.0.1, as peers for our HTTP client transports:
// a stateful Streamable HTTP endpoint (SSE or JSON replies, optional resumability) and a 2024-11-05
// HTTP+SSE endpoint. Every request is recorded so tests can check what went over the wire.
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { SSEServerTransport } from '@modelcontextprotocol/sdk/server/sse.js';
import {
  type EventStore,
  StreamableHTTPServerTransport,
} from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';

/** One request as the server saw it. */
export interface Logged {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  body: any;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The tools every official test server offers. */
function officialServer(): McpServer {
  const server = new McpServer(
    { name: 'official-http-server', version: '1.0.0' },
    { capabilities: { logging: {}, tools: { listChanged: true } } },
  );
  server.registerTool('echo', { description: 'Echoes.', inputSchema: { text: z.string() } }, ({ text }) => ({
    content: [{ type: 'text', text: `echo: ${text}` }],
  }));
  server.registerTool(
    'chatty',
    { description: 'Logs and reports progress, then answers.' },
    async (extra) => {
      await extra.sendNotification({
        method: 'notifications/message',
        params: { level: 'info', data: 'working' },
      });
      const token = extra._meta?.progressToken;
      if (token !== undefined) {
        await extra.sendNotification({
          method: 'notifications/progress',
          params: { progressToken: token, progress: 1, total: 2 },
        });
        await extra.sendNotification({
          method: 'notifications/progress',
          params: { progressToken: token, progress: 2, total: 2 },
        });
      }
      return { content: [{ type: 'text', text: 'done' }] };
    },
  );
  server.registerTool('ask', { description: 'Elicits a name from the user.' }, async (extra) => {
    const answer = await server.server.elicitInput(
      {
        message: 'Name?',
        requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
      },
      { relatedRequestId: extra.requestId },
    );
    return { content: [{ type: 'text', text: `hello ${String(answer.content?.name)}` }] };
  });
  server.registerTool(
    'poll',
    { description: 'Closes its SSE stream mid-call (SSE polling), then answers.' },
    async (extra) => {
      await extra.sendNotification({
        method: 'notifications/message',
        params: { level: 'info', data: 'before' },
      });
      await sleep(30);
      extra.closeSSEStream?.();
      await sleep(50);
      await extra.sendNotification({
        method: 'notifications/message',
        params: { level: 'info', data: 'during' },
      });
      await sleep(50);
      return { content: [{ type: 'text', text: extra.closeSSEStream ? 'polled' : 'no polling' }] };
    },
  );
  server.registerTool('change', { description: 'Announces a tool list change (GET stream).' }, async () => {
    server.sendToolListChanged();
    return { content: [{ type: 'text', text: 'changed' }] };
  });
  return server;
}

/** A small ordered event store (the SDK example's store orders events by a random suffix within one ms). */
export class OrderedEventStore implements EventStore {
  readonly #events: { id: string; stream: string; message: JSONRPCMessage }[] = [];
  #n = 0;

  async storeEvent(stream: string, message: JSONRPCMessage): Promise<string> {
    const id = `${stream}_${++this.#n}`;
    this.#events.push({ id, stream, message });
    return id;
  }

  async getStreamIdForEventId(id: string): Promise<string | undefined> {
    return this.#events.find((e) => e.id === id)?.stream;
  }

  async replayEventsAfter(
    lastEventId: string,
    { send }: { send: (id: string, message: JSONRPCMessage) => Promise<void> },
  ): Promise<string> {
    const at = this.#events.findIndex((e) => e.id === lastEventId);
    const stream = this.#events[at]?.stream ?? '';
    for (const e of this.#events.slice(at + 1)) {
      // Priming events are stored as `{}`; they carry nothing to replay.
      if (e.stream === stream && Object.keys(e.message).length > 0) await send(e.id, e.message);
    }
    return stream;
  }
}

/** What a running official test server offers to a test. */
export interface OfficialHttpServer {
  url: string;
  log: Logged[];
  /** Streamable HTTP: the live server transports by session id. */
  sessions: Map<string, StreamableHTTPServerTransport>;
  close(): Promise<void>;
}

async function listen(
  handler: (req: http.IncomingMessage, res: http.ServerResponse, body: any) => Promise<void>,
  log: Logged[],
  path: string,
): Promise<{ url: string; server: http.Server }> {
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const body = text ? JSON.parse(text) : undefined;
      log.push({ method: req.method ?? '', path: req.url ?? '', headers: req.headers, body });
      handler(req, res, body).catch((e: unknown) => {
        if (!res.headersSent) res.writeHead(500);
        res.end(String(e));
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}${path}`, server };
}

function stop(server: http.Server): Promise<void> {
  server.closeAllConnections();
  return new Promise((resolve) => server.close(() => resolve()));
}

/** Options of the official Streamable HTTP test server. */
export interface StreamableOptions {
  enableJsonResponse?: boolean;
  eventStore?: EventStore;
  retryInterval?: number;
}

/** The official StreamableHTTPServerTransport, stateful, at `/mcp`: one transport and McpServer per session. */
export async function officialStreamable(options: StreamableOptions = {}): Promise<OfficialHttpServer> {
  const log: Logged[] = [];
  const sessions = new Map<string, StreamableHTTPServerTransport>();
  const { url, server } = await listen(
    async (req, res, body) => {
      const sid = req.headers['mcp-session-id'];
      const known = typeof sid === 'string' ? sessions.get(sid) : undefined;
      if (known) return known.handleRequest(req, res, body);
      if (sid === undefined && req.method === 'POST' && isInitializeRequest(body)) {
        const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
          sessionIdGenerator: () => randomUUID(),
          onsessioninitialized: (id) => {
            sessions.set(id, transport);
          },
          ...options,
        });
        transport.onclose = () => {
          if (transport.sessionId) sessions.delete(transport.sessionId);
        };
        await officialServer().connect(transport);
        return transport.handleRequest(req, res, body);
      }
      const status = sid === undefined ? 400 : 404;
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32001, message: 'Session not found' } }),
      );
    },
    log,
    '/mcp',
  );
  return {
    url,
    log,
    sessions,
    async close() {
      for (const t of sessions.values()) await t.close();
      await stop(server);
    },
  };
}

/** The official 2024-11-05 SSEServerTransport: GET `/mcp` opens the stream, POSTs go to `/messages`. */
export async function officialLegacy(): Promise<OfficialHttpServer> {
  const log: Logged[] = [];
  const transports = new Map<string, SSEServerTransport>();
  const { url, server } = await listen(
    async (req, res, body) => {
      const path = new URL(req.url ?? '/', 'http://x');
      if (req.method === 'GET' && path.pathname === '/mcp') {
        const transport = new SSEServerTransport('/messages', res);
        transports.set(transport.sessionId, transport);
        transport.onclose = () => transports.delete(transport.sessionId);
        await officialServer().connect(transport);
        return;
      }
      if (req.method === 'POST' && path.pathname === '/messages') {
        const transport = transports.get(path.searchParams.get('sessionId') ?? '');
        if (transport) return transport.handlePostMessage(req, res, body);
        res.writeHead(404).end('unknown session');
        return;
      }
      // What a legacy-only deployment answers to a Streamable HTTP POST.
      res.writeHead(405, { allow: 'GET' }).end();
    },
    log,
    '/mcp',
  );
  return {
    url,
    log,
    sessions: new Map(),
    async close() {
      for (const t of transports.values()) await t.close();
      await stop(server);
    },
  };
}
