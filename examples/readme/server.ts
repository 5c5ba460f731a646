import { McpServer } from 'mcpkit';
import { StdioServerTransport } from 'mcpkit/stdio';
import { z } from 'zod';

const server = new McpServer({ name: 'weather', version: '1.0.0' });
const stations = ['Oslo', 'Lima', 'Perth'];

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
    // A thrown error becomes a result with isError: true and the message, which the model can read.
    if (!stations.includes(city)) throw new Error(`No station in ${city}`);
    await ctx.log('info', `forecasting ${city}`); // to clients with a log handler
    const highs: number[] = [];
    for (let day = 1; day <= days; day++) {
      highs.push(19 + day);
      await ctx.progress(day, days); // to callers that asked for progress
    }
    return { structuredContent: { city, highs } }; // mirrored into a text block automatically
  },
);

server.resource('weather://stations', { name: 'stations', mimeType: 'text/plain' }, () =>
  stations.join('\n'),
);

server.prompt(
  'plan-trip',
  {
    description: 'Plan a trip',
    arguments: { city: { required: true, complete: (value) => stations.filter((s) => s.startsWith(value)) } },
  },
  ({ city }) => `Plan three days in ${city}.`,
);

await server.connect(new StdioServerTransport());
