// The official SDK 2.x under test over HTTP. Its HTTP entries are web-standard fetch handlers, served here from
// node:http through the small adapter in http-common.ts (part of the measured cost). Modes: stateless (a fresh
// server and WebStandardStreamableHTTPServerTransport per request, sessionIdGenerator undefined, JSON replies: the
// v1 stateless idiom), modern (createMcpHandler with its defaults: 2026-07-28 per request, 2025 stateless fallback).
import { createServer } from 'node:http';
import {
  createMcpHandler,
  McpServer,
  WebStandardStreamableHTTPServerTransport,
} from '@modelcontextprotocol/server';
import { z } from 'zod';
import { announce, fetchListener, httpArgs, listen } from './http-common.js';

const { port, mode } = httpArgs();
const inputSchema = z.object({ text: z.string() });

function build(): McpServer {
  const server = new McpServer({ name: 'bench-official-v2', version: '1.0.0' });
  server.registerTool('echo', { description: 'Echoes its text argument.', inputSchema }, ({ text }) => ({
    content: [{ type: 'text', text }],
  }));
  return server;
}

async function stateless(request: Request): Promise<Response> {
  const server = build();
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: true,
  });
  await server.connect(transport);
  try {
    return await transport.handleRequest(request);
  } finally {
    // JSON replies are complete once returned.
    void transport.close();
    void server.close();
  }
}

let handle: (request: Request) => Promise<Response>;
if (mode === 'stateless') handle = stateless;
else if (mode === 'modern') handle = createMcpHandler(() => build()).fetch;
else throw new Error(`official v2 has no bench server for mode ${mode}`);

const http = createServer();
await listen(http, port);
const { port: actual } = http.address() as { port: number };
const listener = fetchListener(handle, `http://127.0.0.1:${actual}`);
http.on('request', (req, res) => {
  if (req.url !== '/mcp') {
    res.writeHead(404).end();
    return;
  }
  listener(req, res);
});
announce(http);
