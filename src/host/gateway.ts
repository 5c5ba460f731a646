import { errorMessage } from '../jsonrpc/errors.js';
import type { RequestContext } from '../server/context.js';
import type { PromptArgumentConfig } from '../server/prompts.js';
import type { RegisteredHandle } from '../server/registry.js';
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
  const tools = new Map<string, { handle: RegisteredHandle<unknown>; key: string }>();
  const prompts = new Map<string, { handle: RegisteredHandle<unknown>; key: string }>();
  const resources = new Map<string, { handle: RegisteredHandle<unknown>; key: string }>();
  const templates = new Map<string, { handle: RegisteredHandle<unknown>; key: string }>();
  const problem = (what: string, e: unknown) =>
    host.log.record({
      kind: 'server',
      outcome: 'warning',
      summary: shorten(`gateway: ${what}: ${errorMessage(e)}`),
    });

  const sync = () => {
    const liveTools = new Set<string>();
    for (const t of host.registry.tools()) {
      liveTools.add(t.name);
      const key = JSON.stringify(t.definition);
      const known = tools.get(t.name);
      if (known?.key === key) continue;
      known?.handle.remove();
      tools.delete(t.name);
      const d = t.definition;
      const offer = (withOutput: boolean) =>
        server.tool(
          t.name,
          {
            ...(d.title === undefined ? {} : { title: d.title }),
            ...(d.description === undefined ? {} : { description: d.description }),
            inputSchema: d.inputSchema,
            ...(withOutput && d.outputSchema !== undefined ? { outputSchema: d.outputSchema } : {}),
            ...(d.annotations === undefined ? {} : { annotations: d.annotations }),
          },
          (args: Record<string, unknown>, ctx: RequestContext) =>
            host.callTool(t.name, args, { signal: ctx.signal, approve: askThroughClient(ctx) }),
        );
      try {
        let handle: RegisteredHandle<unknown>;
        try {
          handle = offer(true);
        } catch (e) {
          // The server's output schema is not one mcpkit can declare: the tool is still offered, without it.
          if (d.outputSchema === undefined) throw e;
          problem(`tool ${t.name} offered without its outputSchema`, e);
          handle = offer(true);
        }
        tools.set(t.name, { handle, key });
      } catch (e) {
        problem(`tool ${t.name} not offered`, e);
      }
    }
    for (const [name, known] of tools) {
      if (liveTools.has(name)) continue;
      known.handle.remove();
      tools.delete(name);
    }

    const livePrompts = new Set<string>();
    for (const p of host.registry.prompts()) {
      livePrompts.add(p.name);
      const key = JSON.stringify(p.definition);
      const known = prompts.get(p.name);
      if (known?.key === key) continue;
      known?.handle.remove();
      prompts.delete(p.name);
      const args: Record<string, PromptArgumentConfig> = {};
      for (const a of p.definition.arguments ?? [])
        args[a.name] = {
          ...(a.description === undefined ? {} : { description: a.description }),
          ...(a.required === undefined ? {} : { required: a.required }),
        };
      try {
        const handle = server.prompt(
          p.name,
          {
            ...(p.definition.description === undefined ? {} : { description: p.definition.description }),
            arguments: args,
          },
          (values, ctx) => host.getPrompt(p.name, values, { signal: ctx.signal }),
        );
        prompts.set(p.name, { handle, key });
      } catch (e) {
        problem(`prompt ${p.name} not offered`, e);
      }
    }
    for (const [name, known] of prompts) {
      if (livePrompts.has(name)) continue;
      known.handle.remove();
      prompts.delete(name);
    }

    const liveResources = new Set<string>();
    for (const r of host.registry.resources()) {
      const uri = r.resource.uri;
      liveResources.add(uri);
      const key = JSON.stringify(r.resource);
      const known = resources.get(uri);
      if (known?.key === key) continue;
      known?.handle.remove();
      resources.delete(uri);
      const res = r.resource;
      try {
        const handle = server.resource(
          uri,
          {
            name: res.name,
            ...(res.description === undefined ? {} : { description: res.description }),
            ...(res.mimeType === undefined ? {} : { mimeType: res.mimeType }),
          },
          (target, ctx) => host.readResource(target, { signal: ctx.signal }),
        );
        resources.set(uri, { handle, key });
      } catch (e) {
        problem(`resource ${uri} not offered`, e);
      }
    }
    for (const [uri, known] of resources) {
      if (liveResources.has(uri)) continue;
      known.handle.remove();
      resources.delete(uri);
    }

    const liveTemplates = new Set<string>();
    for (const t of host.registry.templates()) {
      const uriTemplate = t.template.uriTemplate;
      // Two servers with the same template: the first (in server name order) owns reads, as in the registry.
      if (liveTemplates.has(uriTemplate)) continue;
      liveTemplates.add(uriTemplate);
      const key = JSON.stringify(t.template);
      const known = templates.get(uriTemplate);
      if (known?.key === key) continue;
      known?.handle.remove();
      templates.delete(uriTemplate);
      const tpl = t.template;
      try {
        const handle = server.resourceTemplate(
          uriTemplate,
          {
            name: tpl.name,
            ...(tpl.description === undefined ? {} : { description: tpl.description }),
            ...(tpl.mimeType === undefined ? {} : { mimeType: tpl.mimeType }),
          },
          (target, _variables, ctx) => host.readResource(target, { signal: ctx.signal }),
        );
        templates.set(uriTemplate, { handle, key });
      } catch (e) {
        problem(`resource template ${uriTemplate} not offered`, e);
      }
    }
    for (const [uriTemplate, known] of templates) {
      if (liveTemplates.has(uriTemplate)) continue;
      known.handle.remove();
      templates.delete(uriTemplate);
    }
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
