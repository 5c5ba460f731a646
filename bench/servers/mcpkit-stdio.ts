// mcpkit under test: the `echo` tool ({ text: string } -> one text block) over stdio, imported from the built
// package by its own name, as a user would.
import { McpServer } from 'mcpkit';
import { StdioServerTransport } from 'mcpkit/stdio';
import { z } from 'zod';

const server = new McpServer({ name: 'bench-mcpkit', version: '1.0.0' });

server.tool(
  'echo',
  { description: 'Echoes its text argument.', inputSchema: z.object({ text: z.string() }) },
  ({ text }) => ({ content: [{ type: 'text', text }] }),
);

await server.connect(new StdioServerTransport());
