/**
 * The `Mcp-Param-*` header value of one argument, or undefined when it is absent or null (then no header is
 * sent). Which arguments are mirrored is the rule of `spec/tool-headers.ts`, the one the server checks too.
 */
export function paramValue(value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (typeof value === 'number') return Number.isSafeInteger(value) ? String(value) : undefined;
  return typeof value === 'string' ? value : undefined;
}
