// The official SDK 2.x (@modelcontextprotocol/server) under test: the same `echo` tool over stdio.
import { McpServer } from '@modelcontextprotocol/server';
import { StdioServerTransport } from '@modelcontextprotocol/server/stdio';
import { z } from 'zod';

const server = new McpServer({ name: 'bench-official-v2', version: '1.0.0' });

server.registerTool(
  'echo',
  { description: 'Echoes its text argument.', inputSchema: z.object({ text: z.string() }) },
  ({ text }) => ({ content: [{ type: 'text', text }] }),
);

await server.connect(new StdioServerTransport());
