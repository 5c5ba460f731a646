// The tools of the interoperability fixture contract (test/fixtures/README.md): the same names, arguments
// and answers as test/fixtures/official-stdio-server.ts, so the official SDK's client fixture can run against us.
import { z } from 'zod';
import type { McpServer } from '../../src/index.js';
import { samplingText } from './tools.js';

const WHO_ARE_YOU = {
  type: 'object',
  properties: {
    name: { type: 'string', title: 'Name', default: 'anon' },
    age: { type: 'integer', title: 'Age', minimum: 0 },
  },
  required: ['age'],
};

/** Registers echo, add, ask_sampling, ask_elicitation, progress and log. */
export function registerFixtureTools(server: McpServer): void {
  server.tool(
    'echo',
    { description: 'Echoes its text argument.', inputSchema: z.object({ text: z.string() }) },
    ({ text }) => `echo: ${text}`,
  );

  server.tool(
    'add',
    {
      description: 'Adds two numbers.',
      inputSchema: z.object({ a: z.number(), b: z.number() }),
      outputSchema: z.object({ sum: z.number() }),
    },
    // With no `content`, the server adds the JSON text of structuredContent for older clients.
    ({ a, b }) => ({ structuredContent: { sum: a + b } }),
  );

  server.tool(
    'ask_sampling',
    {
      description: 'Asks the client to sample a reply to the prompt.',
      inputSchema: z.object({ prompt: z.string() }),
    },
    async ({ prompt }, ctx) =>
      samplingText(
        await ctx.sample({
          messages: [{ role: 'user', content: { type: 'text', text: prompt } }],
          maxTokens: 100,
        }),
      ),
  );

  server.tool(
    'ask_elicitation',
    { description: 'Asks the user for a name and an age through form elicitation.' },
    async (_args, ctx) =>
      JSON.stringify(await ctx.elicit({ message: 'Who are you?', requestedSchema: WHO_ARE_YOU })),
  );

  server.tool(
    'progress',
    {
      description: 'Sends three progress notifications when the request carries a progress token.',
    },
    async (_args, ctx) => {
      if (ctx.meta?.progressToken === undefined) return 'progress: no token';
      for (let step = 1; step <= 3; step++) await ctx.progress(step, 3, `step ${step}`);
      return 'progress: sent 3';
    },
  );

  server.tool('log', { description: 'Sends one logging message at level info.' }, async (_args, ctx) => {
    await ctx.log('info', 'hello from the log tool', 'fixture');
    return 'log: sent info';
  });
}
