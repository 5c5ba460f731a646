import { ErrorCode, JsonRpcError } from '../../jsonrpc/errors.js';
import type { JsonObject } from '../../jsonrpc/types.js';
import { LOG_LEVELS } from '../../spec/log-levels.js';
import type { RevisionPolicy } from '../../spec/revision.js';
import type { CompletionReference } from '../../spec/types.js';
import { complete } from '../definitions/completion.js';
import { getPrompt } from '../definitions/prompts.js';
import { readResource, readTemplated, servedBy } from '../definitions/resources.js';
import type { ServerDefinition } from '../definitions/server-definition.js';
import { callTool } from '../definitions/tools.js';
import { watched } from '../definitions/watch.js';
import { grants, type Scoped, scopesOf } from '../handler/auth.js';
import type { RequestContext } from '../handler/context.js';
import type { DispatchSession } from './setup.js';

/** One protocol method's implementation. */
export type MethodHandler = (
  def: ServerDefinition,
  params: JsonObject,
  ctx: RequestContext,
  session: DispatchSession,
  policy: RevisionPolicy,
) => Promise<JsonObject> | JsonObject;

/** The server capability a method needs, or undefined when it is always available. */
export type CapabilityGate =
  | 'tools'
  | 'resources'
  | 'prompts'
  | 'logging'
  | 'completions'
  | 'resources.subscribe';

const EMPTY: JsonObject = Object.freeze({}) as JsonObject;

/** The granted scopes of an authenticated request (undefined when it was not authenticated: nothing is hidden). */
function granted(ctx: RequestContext): readonly string[] | undefined {
  return ctx.authInfo?.scopes;
}

/**
 * Refuses a use of `def` by an authenticated caller without its required scopes. Over HTTP the endpoint's gate
 * answers 403 before dispatch (`McpServer.scopesNeeded`); this holds for every other way in.
 */
export function requireScopes(def: Scoped, ctx: RequestContext, what: string): void {
  const auth = ctx.authInfo;
  if (auth === undefined) return;
  const needed = scopesOf(def);
  if (needed.length === 0 || grants(auth.scopes, needed)) return;
  throw new JsonRpcError(
    ErrorCode.InvalidRequest,
    `Forbidden: ${what} needs the scopes ${needed.join(' ')}`,
    {
      requiredScopes: [...needed],
    },
  );
}

function str(params: JsonObject, key: string): string {
  const v = params[key];
  if (typeof v !== 'string')
    throw new JsonRpcError(ErrorCode.InvalidParams, `Invalid params: "${key}" must be a string`);
  return v;
}

/** The server-side methods of the stateful era, with the capability each needs. */
export const SERVER_METHODS: ReadonlyMap<string, { gate?: CapabilityGate; run: MethodHandler }> = new Map<
  string,
  { gate?: CapabilityGate; run: MethodHandler }
>([
  ['ping', { run: () => EMPTY }],
  [
    'tools/list',
    {
      gate: 'tools',
      run: (d, p, ctx) => d.tools.page(p.cursor, granted(ctx), d.access?.view('tool', ctx.authInfo)),
    },
  ],
  [
    'tools/call',
    {
      gate: 'tools',
      run: (d, p, ctx) => {
        const name = str(p, 'name');
        const tool = d.tools.get(name);
        if (!tool) throw new JsonRpcError(ErrorCode.InvalidParams, `Unknown tool: ${name}`);
        requireScopes(tool.def, ctx, `the tool ${name}`);
        d.access?.check('tool', name, ctx.authInfo);
        const def = tool.def;
        return def.around
          ? def.around('tools/call', p, ctx, () => callTool(def, p.arguments, ctx))
          : callTool(def, p.arguments, ctx);
      },
    },
  ],
  [
    'prompts/list',
    {
      gate: 'prompts',
      run: (d, p, ctx) => d.prompts.page(p.cursor, granted(ctx), d.access?.view('prompt', ctx.authInfo)),
    },
  ],
  [
    'prompts/get',
    {
      gate: 'prompts',
      run: (d, p, ctx) => {
        const name = str(p, 'name');
        const prompt = d.prompts.get(name);
        if (!prompt) throw new JsonRpcError(ErrorCode.InvalidParams, `Unknown prompt: ${name}`);
        requireScopes(prompt.def, ctx, `the prompt ${name}`);
        d.access?.check('prompt', name, ctx.authInfo);
        const def = prompt.def;
        return def.around
          ? def.around('prompts/get', p, ctx, () => getPrompt(def, p.arguments, ctx))
          : getPrompt(def, p.arguments, ctx);
      },
    },
  ],
  ['resources/list', { gate: 'resources', run: (d, p, ctx) => d.listResources(p.cursor, ctx) }],
  [
    'resources/templates/list',
    {
      gate: 'resources',
      run: (d, p, ctx) => d.templates.page(p.cursor, granted(ctx), d.access?.view('template', ctx.authInfo)),
    },
  ],
  [
    'resources/read',
    {
      gate: 'resources',
      run: (d, p, ctx, _session, policy) => {
        const uri = str(p, 'uri');
        const fixed = d.resources.get(uri);
        if (fixed) {
          requireScopes(fixed.def, ctx, `the resource ${uri}`);
          d.access?.check('resource', uri, ctx.authInfo);
          const def = fixed.def;
          return def.around
            ? def.around('resources/read', p, ctx, () => readResource(def, ctx))
            : readResource(def, ctx);
        }
        for (const entry of d.templates.enabled()) {
          const variables = entry.def.template.match(uri);
          if (variables) {
            requireScopes(entry.def, ctx, `the resource ${uri}`);
            d.access?.check('resource', uri, ctx.authInfo, entry.key);
            const def = entry.def;
            return def.around
              ? def.around('resources/read', p, ctx, () => readTemplated(def, uri, variables, ctx))
              : readTemplated(def, uri, variables, ctx);
          }
        }
        throw policy.resourceNotFound(uri);
      },
    },
  ],
  [
    'resources/subscribe',
    {
      gate: 'resources.subscribe',
      run: (d, p, ctx, session) => {
        const uri = str(p, 'uri');
        const served = servedBy(d.resources, d.templates, uri);
        // Refused when the access rules deny the URI (through the template that serves it, if any).
        d.access?.check('resource', uri, ctx.authInfo, served?.template);
        const subscribe = () => {
          session.subscribe(uri);
          return EMPTY;
        };
        const watch = served?.def.watch;
        // A mounted resource: its own server's middleware sees the subscription (a proxy holds it behind).
        return watch ? watched('resources/subscribe', [{ uri, watch }], p, ctx, subscribe) : subscribe();
      },
    },
  ],
  [
    'resources/unsubscribe',
    {
      gate: 'resources.subscribe',
      run: (d, p, ctx, session) => {
        const uri = str(p, 'uri');
        const unsubscribe = () => {
          session.subscriptions?.delete(uri);
          return EMPTY;
        };
        const watch = servedBy(d.resources, d.templates, uri)?.def.watch;
        return watch
          ? watched('resources/unsubscribe', [{ uri, watch }], p, ctx, unsubscribe)
          : unsubscribe();
      },
    },
  ],
  [
    'logging/setLevel',
    {
      gate: 'logging',
      run: (_d, p, _ctx, session) => {
        const level = LOG_LEVELS.indexOf(p.level as never);
        if (level < 0) {
          throw new JsonRpcError(
            ErrorCode.InvalidParams,
            `Invalid log level: use one of ${LOG_LEVELS.join(', ')}`,
          );
        }
        session.logLevel = level;
        return EMPTY;
      },
    },
  ],
  [
    'completion/complete',
    {
      gate: 'completions',
      run: (d, p, ctx) => {
        const ref = p.ref as CompletionReference | undefined;
        const argument = p.argument as { name?: unknown; value?: unknown } | undefined;
        if (typeof argument?.name !== 'string' || typeof argument.value !== 'string') {
          throw new JsonRpcError(
            ErrorCode.InvalidParams,
            'Invalid params: "argument" needs a string name and value',
          );
        }
        const context = {
          arguments: ((p.context as JsonObject | undefined)?.arguments ?? {}) as Record<string, string>,
        };
        const named =
          ref?.type === 'ref/prompt'
            ? d.prompts.get(ref.name)?.def
            : ref?.type === 'ref/resource'
              ? d.templates.get(ref.uri)?.def
              : undefined;
        if (named) requireScopes(named, ctx, 'completing its arguments');
        if (d.access && ref?.type === 'ref/prompt') d.access.check('prompt', ref.name, ctx.authInfo);
        if (d.access && ref?.type === 'ref/resource') d.access.check('template', ref.uri, ctx.authInfo);
        const completer = d.completerFor(ref, argument.name);
        const value = argument.value;
        const around = named?.around;
        return around
          ? around('completion/complete', p, ctx, () => complete(completer, value, context, ctx))
          : complete(completer, value, context, ctx);
      },
    },
  ],
]);
