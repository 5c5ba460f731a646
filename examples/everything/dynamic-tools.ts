// Tools that show what a handler can do beyond answering: change the tool list, announce resource updates,
// ask for the client's roots, and send the user to a URL.
import { z } from 'zod';
import type { McpServer } from '../../src/index.js';
import type { ResourceControls } from './resources.js';

/** Registers dynamic_tool (disabled at first), toggle_feature, update_watched, roots and url_elicitation. */
export function registerDynamicTools(server: McpServer, resources: ResourceControls): void {
  const dynamic = server.tool(
    'dynamic_tool',
    { description: 'Exists only while toggle_feature has switched it on' },
    () => 'dynamic_tool is enabled and answering',
  );
  dynamic.disable();

  server.tool(
    'toggle_feature',
    {
      description: 'Enables or disables dynamic_tool; clients see notifications/tools/list_changed',
      inputSchema: {
        type: 'object',
        properties: { enabled: { type: 'boolean', description: 'The state to set; omitted flips it' } },
        additionalProperties: false,
      },
    },
    ({ enabled }) => {
      const on = typeof enabled === 'boolean' ? enabled : !dynamic.enabled;
      if (on) dynamic.enable();
      else dynamic.disable();
      return `dynamic_tool is now ${on ? 'enabled' : 'disabled'}`;
    },
  );

  server.tool(
    'update_watched',
    { description: 'Changes test://watched-resource and notifies its subscribers' },
    () => `test://watched-resource is now at revision ${resources.touchWatched()}`,
  );

  server.tool('roots', { description: "Lists the client's roots (roots/list)" }, async (_args, ctx) => {
    const roots = await ctx.listRoots();
    if (roots.length === 0) return 'The client offers no roots';
    return roots.map((r) => (r.name === undefined ? r.uri : `${r.name}: ${r.uri}`)).join('\n');
  });

  server.tool(
    'url_elicitation',
    {
      description: 'Asks the user to complete a step in the browser (URL-mode elicitation)',
      inputSchema: z.object({
        url: z.url().default('https://example.com/connect').describe('Where to send the user'),
      }),
    },
    async ({ url }, ctx) => {
      const result = await ctx.elicit({
        mode: 'url',
        message: 'Please connect your account in the browser',
        url,
      });
      return `URL elicitation: action=${result.action}`;
    },
  );
}
