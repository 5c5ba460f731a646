// The official SDK 1.x under test over Streamable HTTP, on plain node:http (no express), wired as the SDK's own
// examples do: stateless mode builds a new server and transport per request (a v1 server connects to one transport
// only); session modes keep one server and transport per session, routed by Mcp-Session-Id.
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { z } from 'zod';
import { announce, httpArgs, listen } from './http-common.js';

const { port, mode } = httpArgs();
const inputSchema = z.object({ text: z.string() });

function build(): McpServer {
  const server = new McpServer({ name: 'bench-official-v1', version: '1.0.0' });
  server.registerTool('echo', { description: 'Echoes its text argument.', inputSchema }, ({ text }) => ({
    content: [{ type: 'text', text }],
  }));
  return server;
}

function fail(res: ServerResponse, error: unknown): void {
  console.error(error);
  if (!res.headersSent) res.writeHead(500).end();
}

// v1 documents `sessionIdGenerator: undefined` for stateless mode; its types (under exactOptionalPropertyTypes) do not.
const STATELESS = {
  sessionIdGenerator: undefined,
  enableJsonResponse: true,
} as unknown as ConstructorParameters<typeof StreamableHTTPServerTransport>[0];

/** Stateless: a fresh server and transport for every POST, closed when the response ends. */
async function stateless(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const server = build();
  const transport = new StreamableHTTPServerTransport(STATELESS);
  res.once('close', () => {
    void transport.close();
    void server.close();
  });
  await server.connect(transport);
  await transport.handleRequest(req, res);
}

const sessions = new Map<string, StreamableHTTPServerTransport>();

/** Sessions: a request with a known Mcp-Session-Id goes to its transport; one without opens a session. */
async function stateful(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const id = req.headers['mcp-session-id'];
  if (typeof id === 'string') {
    const transport = sessions.get(id);
    if (!transport) {
      res.writeHead(404).end();
      return;
    }
    await transport.handleRequest(req, res);
    return;
  }
  const transport = new StreamableHTTPServerTransport({
    sessionIdGenerator: () => randomUUID(),
    enableJsonResponse: mode === 'json',
    onsessioninitialized: (sid) => {
      sessions.set(sid, transport);
    },
  });
  transport.onclose = () => {
    if (transport.sessionId !== undefined) sessions.delete(transport.sessionId);
  };
  await build().connect(transport);
  await transport.handleRequest(req, res);
}

const handle = mode === 'stateless' ? stateless : stateful;
const http = createServer((req, res) => {
  if (req.url !== '/mcp') {
    res.writeHead(404).end();
    return;
  }
  handle(req, res).catch((error: unknown) => fail(res, error));
});
await listen(http, port);
announce(http);
