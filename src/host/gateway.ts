import { Mirror } from '../compose/mirror.js';
import { errorMessage } from '../jsonrpc/errors.js';
import type { RequestContext } from '../server/context.js';
import { McpServer } from '../server/server.js';
import type { Implementation } from '../spec/types.js';
import { shorten } from './activity-log.js';
import type { ApprovalCallback, ApprovalDecision } from './approval.js';
import type { Host } from './host.js';

/** Options of {@link hostGateway}. */
export interface GatewayOptions {
  /** The gateway server's name and version. */
  info?: Implementation;
  /** Instructions for the connecting client's model. */
  instructions?: string;
}

const DECISIONS: Record<string, ApprovalDecision> = {
  'Allow once': 'allow-once',
  'Allow for this session': 'allow-session',
  Deny: 'deny',
};

/**
 * The host's registry served as one MCP server: the qualified tools and prompts, the resources and resource
 * templates of every ready server,
 * kept in step with the registry (list changes reach the connected clients). Tool calls go through the host, so
 * the approval policy and the activity log apply; a call whose mode is `ask` becomes an elicitation to the
 * connecting client when it supports elicitation (the person behind it decides), and a denial otherwise.
 *
 * @example
 * const gateway = hostGateway(host);
 * await serve(gateway, { port: 3000 }); // one endpoint, every server of the host
 */
export function hostGateway(host: Host, options: GatewayOptions = {}): McpServer {
  const server = new McpServer(options.info ?? { name: 'mcpkit-host-gateway', version: '0.1.0' }, {
    // Declared up front: a session's capabilities are fixed at initialize, and the registry fills in later.
    capabilities: {
      tools: { listChanged: true },
      prompts: { listChanged: true },
      resources: { listChanged: true },
    },
    ...(options.instructions === undefined ? {} : { instructions: options.instructions }),
  });
  const mirror = new Mirror(server, (what, e) =>
    host.log.record({
      kind: 'server',
      outcome: 'warning',
      summary: shorten(`gateway: ${what}: ${errorMessage(e)}`),
    }),
  );
  const sync = () => {
    mirror.tools(
      host.registry.tools().map((t) => ({
        name: t.name,
        definition: t.definition,
        call: (args: unknown, ctx: RequestContext) =>
          host.callTool(t.name, args as Record<string, unknown>, {
            signal: ctx.signal,
            approve: askThroughClient(ctx),
          }) as never,
      })),
    );
    mirror.prompts(
      host.registry.prompts().map((p) => ({
        name: p.name,
        definition: p.definition,
        get: (values: Record<string, string>, ctx: RequestContext) =>
          host.getPrompt(p.name, values, { signal: ctx.signal }),
      })),
    );
    const read = (target: string, ctx: RequestContext) => host.readResource(target, { signal: ctx.signal });
    mirror.resources(host.registry.resources().map((r) => ({ definition: r.resource, read })));
    // Two servers with the same template: the first (in server name order) owns reads, as in the registry.
    mirror.templates(
      host.registry.templates().map((t) => ({
        definition: t.template,
        read: (target: string, _variables: unknown, ctx: RequestContext) => read(target, ctx),
      })),
    );
  };
  sync();
  host.on('registry', sync);
  return server;
}

/** The approval of a gateway call: an elicitation to the connecting client, or a denial when it cannot ask. */
function askThroughClient(ctx: RequestContext): ApprovalCallback {
  return async (request) => {
    if (ctx.session.clientCapabilities.elicitation === undefined)
      return { decision: 'deny', reason: 'the connecting client cannot ask its user (no elicitation)' };
    const result = await ctx.elicit({
      message: `Allow the tool ${request.qualifiedName} (server ${request.server}) to run with ${shorten(JSON.stringify(request.arguments ?? {}))}?`,
      requestedSchema: {
        type: 'object',
        properties: { decision: { type: 'string', title: 'Decision', enum: Object.keys(DECISIONS) } },
        required: ['decision'],
      },
    });
    const choice = result.action === 'accept' ? result.content?.decision : undefined;
    const decision = typeof choice === 'string' ? DECISIONS[choice] : undefined;
    return decision === undefined
      ? { decision: 'deny', reason: `the user answered ${result.action}` }
      : { decision };
  };
}
