import { z } from 'zod';
import type { CreateMessageResult, ElicitResult, McpServer } from '../../src/index.js';
import { DEFAULTS_FORM, ENUMS_FORM, USER_FORM } from './elicitation-schemas.js';
import { PNG_BASE64, WAV_BASE64 } from './media.js';

/** Resolves after `ms` milliseconds; rejects early when `signal` aborts (the request was cancelled). */
export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

/** The text of a sampling answer (its content may be one block or several). */
export function samplingText(result: CreateMessageResult): string {
  const blocks = Array.isArray(result.content) ? result.content : [result.content];
  return blocks.map((b) => (b.type === 'text' ? b.text : `[${b.type}]`)).join('\n');
}

/** One line describing an elicitation answer. */
export function elicitationSummary(result: ElicitResult): string {
  return `action=${result.action}, content=${JSON.stringify(result.content ?? null)}`;
}

/** Registers the tools of the conformance suite (names and texts as its reference server has them). */
export function registerConformanceTools(server: McpServer): void {
  server.tool(
    'test_simple_text',
    { description: 'Returns a simple text' },
    () => 'This is a simple text response for testing.',
  );

  server.tool('test_image_content', { description: 'Returns a 1x1 PNG image' }, () => ({
    content: [{ type: 'image', data: PNG_BASE64, mimeType: 'image/png' }],
  }));

  server.tool('test_audio_content', { description: 'Returns a short WAV clip' }, () => ({
    content: [{ type: 'audio', data: WAV_BASE64, mimeType: 'audio/wav' }],
  }));

  server.tool('test_embedded_resource', { description: 'Returns an embedded resource' }, () => ({
    content: [
      {
        type: 'resource',
        resource: {
          uri: 'test://embedded-resource',
          mimeType: 'text/plain',
          text: 'This is an embedded resource content.',
        },
      },
    ],
  }));

  server.tool(
    'test_multiple_content_types',
    { description: 'Returns text, an image and an embedded resource' },
    () => ({
      content: [
        { type: 'text', text: 'Multiple content types test:' },
        { type: 'image', data: PNG_BASE64, mimeType: 'image/png' },
        {
          type: 'resource',
          resource: {
            uri: 'test://mixed-content-resource',
            mimeType: 'application/json',
            text: JSON.stringify({ test: 'data', value: 123 }),
          },
        },
      ],
    }),
  );

  server.tool(
    'test_tool_with_logging',
    { description: 'Sends three info log messages, about 50 ms apart' },
    async (_args, ctx) => {
      await ctx.log('info', 'Tool execution started');
      await sleep(50, ctx.signal);
      await ctx.log('info', 'Tool processing data');
      await sleep(50, ctx.signal);
      await ctx.log('info', 'Tool execution completed');
      return 'Tool with logging executed successfully';
    },
  );

  server.tool(
    'test_tool_with_progress',
    { description: 'Reports progress 0, 50 and 100 of 100, about 50 ms apart' },
    async (_args, ctx) => {
      await ctx.progress(0, 100, 'Starting');
      await sleep(50, ctx.signal);
      await ctx.progress(50, 100, 'Halfway');
      await sleep(50, ctx.signal);
      await ctx.progress(100, 100, 'Done');
      return 'Tool with progress executed successfully';
    },
  );

  server.tool('test_error_handling', { description: 'Always fails with a tool error' }, () => ({
    isError: true,
    content: [{ type: 'text', text: 'This tool intentionally returns an error for testing' }],
  }));

  server.tool(
    'test_sampling',
    {
      description: 'Asks the client to sample from a model and returns its answer',
      inputSchema: z.object({ prompt: z.string().describe('The prompt to send to the model') }),
    },
    async ({ prompt }, ctx) => {
      const result = await ctx.sample({
        messages: [{ role: 'user', content: { type: 'text', text: prompt } }],
        maxTokens: 100,
      });
      return `LLM response: ${samplingText(result)}`;
    },
  );

  server.tool(
    'test_elicitation',
    {
      description: 'Asks the user for a user name and e-mail address',
      inputSchema: z.object({ message: z.string().describe('The message to show the user') }),
    },
    async ({ message }, ctx) =>
      `User response: ${elicitationSummary(await ctx.elicit({ message, requestedSchema: USER_FORM }))}`,
  );

  server.tool(
    'test_elicitation_sep1034_defaults',
    { description: 'Elicits a form whose fields all have defaults (SEP-1034)' },
    async (_args, ctx) => {
      const result = await ctx.elicit({
        message: 'Please review your details',
        requestedSchema: DEFAULTS_FORM,
      });
      return `Elicitation completed: ${elicitationSummary(result)}`;
    },
  );

  server.tool(
    'test_elicitation_sep1330_enums',
    { description: 'Elicits a form with every enum shape (SEP-1330)' },
    async (_args, ctx) => {
      const result = await ctx.elicit({ message: 'Please pick some options', requestedSchema: ENUMS_FORM });
      return `Elicitation completed: ${elicitationSummary(result)}`;
    },
  );

  server.tool(
    'json_schema_2020_12_tool',
    {
      description: 'Takes a name and an address (JSON Schema 2020-12 with $defs and $ref)',
      inputSchema: {
        $schema: 'https://json-schema.org/draft/2020-12/schema',
        type: 'object',
        $defs: {
          address: { type: 'object', properties: { street: { type: 'string' }, city: { type: 'string' } } },
        },
        properties: { name: { type: 'string' }, address: { $ref: '#/$defs/address' } },
        additionalProperties: false,
      },
    },
    (args) => `Received: ${JSON.stringify(args)}`,
  );

  server.tool(
    'test_reconnection',
    {
      description: 'Answers after 100 ms (over HTTP it first closes its SSE stream)',
    },
    async (_args, ctx) => {
      // SSE polling: end the connection now; the client reconnects after the retry interval and resumes.
      ctx.closeStream();
      await sleep(100, ctx.signal);
      return 'Reconnection test completed';
    },
  );
}
