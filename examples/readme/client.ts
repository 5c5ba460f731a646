import { Client } from 'mcpkit';
import { StdioClientTransport } from 'mcpkit/stdio';

const client = new Client(
  { name: 'my-host', version: '1.0.0' },
  {
    // Declaring a handler declares the capability.
    sampling: async () => ({ role: 'assistant', content: { type: 'text', text: 'Sunny.' }, model: 'stub' }),
    onlog: ({ level, data }) => console.error(`[${level}]`, data),
  },
);
await client.connect(new StdioClientTransport({ command: 'node', args: ['dist/examples/readme/server.js'] }));

console.log(
  client.protocolVersion,
  (await client.listTools()).map((t) => t.name),
);
const result = await client.callTool(
  'forecast',
  { city: 'Oslo', days: 2 },
  { onprogress: (p) => console.error(p) },
);
console.log(result.structuredContent); // validated against the tool's outputSchema
await client.close(); // ends stdin, then SIGTERM, then SIGKILL: the whole process tree
