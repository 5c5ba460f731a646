// One server using every content type and every field any revision defines, for the per-revision fitting tests.
import { McpServer } from '../../src/index.js';

const ICONS = [{ src: 'https://example.com/icon.png', mimeType: 'image/png', sizes: ['48x48'] }];
const ANNOTATIONS = { audience: ['user' as const], priority: 0.5, lastModified: '2025-01-01T00:00:00Z' };
/** A one-byte WAV-ish payload; its content does not matter. */
export const AUDIO = {
  type: 'audio' as const,
  data: 'UklGRg==',
  mimeType: 'audio/wav',
  annotations: ANNOTATIONS,
};
export const LINK = {
  type: 'resource_link' as const,
  uri: 'test://linked',
  name: 'linked',
  title: 'Linked file',
  description: 'a linked resource',
  mimeType: 'text/plain',
  icons: ICONS,
};
const EMBEDDED = {
  type: 'resource' as const,
  resource: { uri: 'test://embedded', mimeType: 'text/plain', text: 'embedded', _meta: { k: 1 } },
  annotations: ANNOTATIONS,
  _meta: { k: 1 },
};
const IMAGE = { type: 'image' as const, data: 'iVBORw0KGgo=', mimeType: 'image/png', _meta: { k: 1 } };

/** The server; `connect` it to as many clients as needed. */
export function everythingServer(): McpServer {
  const server = new McpServer(
    {
      name: 'everything',
      version: '1.0.0',
      title: 'Everything',
      description: 'Every field of every revision',
      websiteUrl: 'https://example.com',
      icons: ICONS,
    },
    { instructions: 'Use every tool.' },
  );
  server.tool(
    'everything',
    {
      title: 'Everything tool',
      description: 'Returns every content type',
      annotations: { title: 'Everything', readOnlyHint: true, openWorldHint: false },
      icons: ICONS,
      _meta: { 'example.com/k': 1 },
      outputSchema: { type: 'object', properties: { n: { type: 'number' } }, required: ['n'] },
    },
    () => ({
      content: [
        { type: 'text', text: 'hello', annotations: ANNOTATIONS, _meta: { k: 1 } },
        IMAGE,
        AUDIO,
        LINK,
        EMBEDDED,
      ],
      structuredContent: { n: 1 },
    }),
  );
  server.tool(
    'plain',
    { description: 'A plain tool', inputSchema: { type: 'object', properties: { x: { type: 'string' } } } },
    () => 'plain',
  );
  server.tool('progress', { description: 'Reports progress and logs' }, async (_args, ctx) => {
    await ctx.progress(1, 2, 'half way');
    await ctx.log('info', 'logged');
    return 'done';
  });
  server.tool('sample', { description: 'Samples with audio' }, async (_args, ctx) => {
    const sampled = await ctx.sample({
      messages: [
        { role: 'user', content: { type: 'text', text: 'listen' } },
        { role: 'user', content: { type: 'audio', data: 'UklGRg==', mimeType: 'audio/wav' } },
      ],
      maxTokens: 10,
    });
    const block = Array.isArray(sampled.content) ? sampled.content[0] : sampled.content;
    return block?.type === 'text' ? block.text : 'not text';
  });
  server.resource(
    'test://r',
    {
      name: 'r',
      title: 'Resource R',
      description: 'a resource',
      mimeType: 'text/plain',
      size: 4,
      annotations: ANNOTATIONS,
      icons: ICONS,
      _meta: { k: 1 },
    },
    () => 'text',
  );
  server.resourceTemplate(
    'test://t/{id}',
    {
      name: 't',
      title: 'Template T',
      mimeType: 'text/plain',
      annotations: ANNOTATIONS,
      icons: ICONS,
      _meta: { k: 1 },
      complete: { id: () => ['a', 'b'] },
    },
    (uri) => ({ contents: [{ uri, mimeType: 'text/plain', text: 'templated', _meta: { k: 1 } }] }),
  );
  server.prompt(
    'p',
    {
      title: 'Prompt P',
      description: 'a prompt',
      icons: ICONS,
      _meta: { k: 1 },
      arguments: { name: { title: 'Name', description: 'who', required: true, complete: () => ['Ada'] } },
    },
    ({ name }) => ({
      description: 'every block',
      messages: [
        { role: 'user', content: { type: 'text', text: `Hello ${name}` } },
        { role: 'user', content: AUDIO },
        { role: 'assistant', content: LINK },
        { role: 'user', content: EMBEDDED },
        { role: 'user', content: IMAGE },
      ],
    }),
  );
  return server;
}
