import { McpkitError } from '../../jsonrpc/errors.js';
import type { JsonObject } from '../../jsonrpc/types.js';
import { checkToolName } from './tools.js';

/**
 * How one tool is offered through a mount or a proxy: under another name, with another title or description,
 * hidden, or with arguments fixed to a value (removed from the input schema the client sees, injected into every
 * call).
 */
export interface ToolTransform {
  /** The name the tool is offered under (before a mount's prefix). */
  name?: string;
  title?: string;
  description?: string;
  /** Not offered at all. */
  hidden?: boolean;
  /** Arguments fixed to these values: gone from the offered input schema, always sent with these values. */
  fixed?: Readonly<Record<string, unknown>>;
}

/** Tool transforms keyed by the tool's own name. */
export type ToolTransforms = Readonly<Record<string, ToolTransform>>;

const KEYS = new Set(['name', 'title', 'description', 'hidden', 'fixed']);

function invalid(where: string, message: string): McpkitError {
  return new McpkitError('INVALID_DEFINITION', `${where}: ${message}`);
}

/**
 * Checks `transforms` against the tools they apply to (`tools`: each tool's name and input schema): an unknown
 * tool, an unknown or required-but-unfixable argument, a bad field, or two tools offered under one name is an
 * error naming it. `where` starts each message (e.g. `Mounting "weather"`).
 */
export function checkToolTransforms(
  transforms: ToolTransforms,
  tools: ReadonlyMap<string, JsonObject | undefined>,
  where: string,
): void {
  if (typeof transforms !== 'object' || transforms === null || Array.isArray(transforms))
    throw invalid(where, 'tool transforms must be an object keyed by tool name');
  for (const [tool, t] of Object.entries(transforms)) {
    if (!tools.has(tool)) {
      const known = [...tools.keys()].slice(0, 20).join(', ');
      throw invalid(where, `a tool transform names the unknown tool "${tool}" (tools: ${known || 'none'})`);
    }
    if (typeof t !== 'object' || t === null || Array.isArray(t))
      throw invalid(where, `the transform of tool "${tool}" must be an object`);
    for (const key of Object.keys(t))
      if (!KEYS.has(key))
        throw invalid(where, `the transform of tool "${tool}" has an unknown field "${key}"`);
    for (const key of ['name', 'title', 'description'] as const) {
      const v = t[key];
      if (v !== undefined && (typeof v !== 'string' || v === ''))
        throw invalid(where, `the transform of tool "${tool}": "${key}" must be a non-empty string`);
    }
    if (t.name !== undefined) checkToolName(t.name, `${where}: the transform of tool "${tool}": `);
    if (t.hidden !== undefined && typeof t.hidden !== 'boolean')
      throw invalid(where, `the transform of tool "${tool}": "hidden" must be a boolean`);
    if (t.fixed !== undefined) checkFixed(tool, t.fixed, tools.get(tool), where);
  }
  const offered = new Map<string, string>();
  for (const tool of tools.keys()) {
    const t = Object.hasOwn(transforms, tool) ? transforms[tool] : undefined;
    if (t?.hidden) continue;
    const name = t?.name ?? tool;
    const other = offered.get(name);
    if (other !== undefined)
      throw invalid(where, `the tools "${other}" and "${tool}" would both be offered as "${name}"`);
    offered.set(name, tool);
  }
}

function checkFixed(tool: string, fixed: unknown, schema: JsonObject | undefined, where: string): void {
  if (typeof fixed !== 'object' || fixed === null || Array.isArray(fixed))
    throw invalid(where, `the transform of tool "${tool}": "fixed" must be an object of argument values`);
  const properties = schema?.properties;
  for (const arg of Object.keys(fixed)) {
    if (typeof properties !== 'object' || properties === null || !Object.hasOwn(properties, arg))
      throw invalid(where, `the transform of tool "${tool}" fixes the unknown argument "${arg}"`);
  }
}

/** The input schema without the `fixed` arguments (in `properties` and `required`); the original is left alone. */
export function withoutArguments(schema: JsonObject, fixed: readonly string[]): JsonObject {
  const properties = { ...(schema.properties as JsonObject | undefined) };
  for (const arg of fixed) delete properties[arg];
  const out: JsonObject = { ...schema, properties };
  if (Array.isArray(schema.required)) {
    const required = schema.required.filter((r) => typeof r !== 'string' || !fixed.includes(r));
    if (required.length > 0) out.required = required;
    else delete out.required;
  }
  return out;
}
