import type { JsonObject } from '../jsonrpc/types.js';
import { type ToolTransforms, withoutArguments } from '../server/definitions/tool-transforms.js';
import type { RequestContext } from '../server/handler/context.js';
import type { Tool } from '../spec/types.js';
import type { MirroredTool } from './mirror.js';

/** Calls a tool by its own name on the server behind. */
export type ForwardCall = (
  name: string,
  args: Record<string, unknown>,
  ctx: RequestContext,
) => Promise<unknown>;

/**
 * The tools of another server as offered after `transforms` (renamed, hidden, redescribed, arguments fixed): each
 * definition shaped once per list, each call forwarded under the tool's own name with the fixed arguments added.
 */
export function shapeTools(
  tools: readonly Tool[],
  transforms: ToolTransforms,
  forward: ForwardCall,
): MirroredTool[] {
  const out: MirroredTool[] = [];
  for (const tool of tools) {
    const own = tool.name;
    const t = Object.hasOwn(transforms, own) ? transforms[own] : undefined;
    if (t?.hidden) continue;
    if (t === undefined) {
      out.push({
        name: own,
        definition: tool,
        call: (args, ctx) => forward(own, args as JsonObject, ctx) as never,
      });
      continue;
    }
    const definition: Tool = { ...tool };
    if (t.title !== undefined) definition.title = t.title;
    if (t.description !== undefined) definition.description = t.description;
    const fixed = t.fixed;
    if (fixed !== undefined)
      definition.inputSchema = withoutArguments(
        tool.inputSchema as JsonObject,
        Object.keys(fixed),
      ) as Tool['inputSchema'];
    out.push({
      name: t.name ?? own,
      definition,
      call: (args, ctx) =>
        forward(
          own,
          fixed === undefined ? (args as JsonObject) : { ...(args as JsonObject), ...fixed },
          ctx,
        ) as never,
    });
  }
  return out;
}
