// mcpkit under test over Streamable HTTP: the same `echo` tool as mcpkit-stdio.ts, served with `serve()` from
// 'mcpkit/node' on 127.0.0.1. Modes: stateless (sessions off, JSON replies), json (sessions, JSON replies), sse
// (sessions, SSE replies), default (serve() defaults: sessions, 'auto' replies; the same endpoint also answers the
// stateless 2026-07-28 revision, which the 'modern' workload sends).
import { McpServer } from 'mcpkit';
import { type ServeOptions, serve } from 'mcpkit/node';
import { z } from 'zod';
import { announce, httpArgs } from './http-common.js';

const { port, mode } = httpArgs();

const server = new McpServer({ name: 'bench-mcpkit', version: '1.0.0' });

server.tool(
  'echo',
  { description: 'Echoes its text argument.', inputSchema: z.object({ text: z.string() }) },
  ({ text }) => ({ content: [{ type: 'text', text }] }),
);

const options: ServeOptions =
  mode === 'stateless'
    ? { sessions: false, responseMode: 'json' }
    : mode === 'json'
      ? { responseMode: 'json' }
      : mode === 'sse'
        ? { responseMode: 'sse' }
        : {};
const running = await serve(server, { ...options, port, legacySse: false });
announce(running.httpServer);
