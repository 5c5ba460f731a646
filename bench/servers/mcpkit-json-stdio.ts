// mcpkit with the `echo` tool's input described by a plain JSON Schema instead of zod: the same server without the
// zod import, to show mcpkit's own cold start (zod is optional for mcpkit, required by the official SDKs).
import { McpServer } from 'mcpkit';
import { StdioServerTransport } from 'mcpkit/stdio';

const server = new McpServer({ name: 'bench-mcpkit-json', version: '1.0.0' });

server.tool(
  'echo',
  {
    description: 'Echoes its text argument.',
    inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
  },
  (args) => ({ content: [{ type: 'text', text: String(args.text) }] }),
);

await server.connect(new StdioServerTransport());
