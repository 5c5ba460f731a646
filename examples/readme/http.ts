import { Client, HttpClientTransport, McpServer } from 'mcpkit';
import { serve } from 'mcpkit/node';

const server = new McpServer({ name: 'greeter', version: '1.0.0' });
server.tool('greet', { description: 'Greets the user by name' }, async (_args, ctx) => {
  // A stateful session sends a real elicitation request; a 2026-07-28 client gets input_required and retries.
  const answer = await ctx.elicit({
    message: 'What is your name?',
    requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
  });
  return answer.action === 'accept' ? `Hello, ${String(answer.content?.name)}!` : 'Hello, stranger!';
});

// One endpoint for both protocol eras (and the legacy HTTP+SSE transport at /sse), on 127.0.0.1.
const running = await serve(server, { port: 0 });

// The client probes for 2026-07-28 and falls back to initialize (then to HTTP+SSE) by itself.
const client = new Client(
  { name: 'my-host', version: '1.0.0' },
  { elicitation: async () => ({ action: 'accept', content: { name: 'Ada' } }) },
);
await client.connect(new HttpClientTransport(running.url));
console.log(client.era, client.protocolVersion); // 'stateless' '2026-07-28'
console.log((await client.callTool('greet')).content); // [{ type: 'text', text: 'Hello, Ada!' }]
await client.close();
await running.close();
