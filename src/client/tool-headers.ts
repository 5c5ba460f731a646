import type { Tool } from '../spec/types.js';

const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

/**
 * Reads the `x-mcp-header` annotations of a tool's input schema (property → header suffix).
 * Returns undefined when an annotation is invalid: such a tool must be dropped by HTTP clients.
 */
export function toolParamHeaders(tool: Tool): Map<string, string> | undefined {
  const out = new Map<string, string>();
  const seen = new Set<string>();
  const props = tool.inputSchema?.properties as Record<string, { [k: string]: unknown }> | undefined;
  for (const [name, schema] of Object.entries(props ?? {})) {
    const header = schema?.['x-mcp-header'];
    if (header === undefined) continue;
    if (typeof header !== 'string' || !TOKEN.test(header)) return undefined;
    const key = header.toLowerCase();
    if (seen.has(key)) return undefined;
    seen.add(key);
    const type = schema.type;
    if (type !== 'string' && type !== 'integer' && type !== 'boolean') return undefined;
    out.set(name, header);
  }
  return out;
}

/** The header value of one argument, or undefined when it is absent or null (then no header is sent). */
export function paramValue(value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (typeof value === 'number') return Number.isSafeInteger(value) ? String(value) : undefined;
  return typeof value === 'string' ? value : undefined;
}
