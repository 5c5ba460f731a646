import { McpServer } from 'mcpkit';
import { StdioServerTransport } from 'mcpkit/stdio';
import { z } from 'zod';

const server = new McpServer({ name: 'weather', version: '1.0.0' });

// Input and output schemas: zod (or arktype, valibot via @valibot/to-json-schema, or plain JSON Schema).
// Types flow into the handler.
server.tool(
  'forecast',
  {
    description: 'Forecast for a city',
    inputSchema: z.object({ city: z.string(), days: z.number().int().min(1).max(7).default(1) }),
    outputSchema: z.object({ city: z.string(), highs: z.array(z.number()) }),
  },
  async ({ city, days }, ctx) => {
    await ctx.log('info', `forecasting ${city}`);
    const highs = Array.from({ length: days }, (_, i) => 20 + i);
    await ctx.progress(1, 1);
    return { structuredContent: { city, highs } }; // mirrored into a text block automatically
  },
);

server.resource(
  'weather://stations',
  { name: 'stations', mimeType: 'text/plain' },
  () => 'Oslo\nLima\nPerth',
);

server.prompt(
  'plan-trip',
  { description: 'Plan a trip', arguments: { city: { required: true, complete: () => ['Oslo', 'Lima'] } } },
  ({ city }) => `Plan three days in ${city}.`,
);

await server.connect(new StdioServerTransport());
