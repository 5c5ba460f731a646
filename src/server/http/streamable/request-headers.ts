import { ErrorCode, JsonRpcError } from '../../../jsonrpc/errors.js';
import type { JsonObject, JsonRpcRequest } from '../../../jsonrpc/types.js';
import { META } from '../../../spec/modern.js';
import { type ParamHeader, readParamHeaders, valueAtPath } from '../../../spec/tool-headers.js';
import { decodeHeaderValue, nameOf } from '../../../transport/http-headers.js';
import type { HttpRequestLike } from '../core/http.js';

export { decodeHeaderValue, encodeHeaderValue, nameOf } from '../../../transport/http-headers.js';

/**
 * The `x-mcp-header` annotations of a registered tool's input schema, read once per schema (registration has
 * already refused invalid ones, by the same rule).
 */
export function paramHeaders(inputSchema: object | undefined): readonly ParamHeader[] {
  if (!inputSchema) return EMPTY;
  let cached = cache.get(inputSchema);
  if (cached) return cached;
  const read = readParamHeaders(inputSchema);
  cached = read.ok ? read.headers : EMPTY;
  cache.set(inputSchema, cached);
  return cached;
}

const EMPTY: readonly ParamHeader[] = [];
const cache = new WeakMap<object, readonly ParamHeader[]>();

function mismatch(message: string): JsonRpcError {
  return new JsonRpcError(ErrorCode.HeaderMismatch, `Header mismatch: ${message}`);
}

/**
 * Checks the standard headers of a stateless request against its body: `MCP-Protocol-Version`,
 * `Mcp-Method`, `Mcp-Name` and the `Mcp-Param-*` headers of `x-mcp-header` parameters (-32020 on any
 * mismatch, missing header or malformed value).
 */
export function checkModernHeaders(
  req: HttpRequestLike,
  request: JsonRpcRequest,
  params: readonly ParamHeader[],
): void {
  const meta = request.params?._meta as JsonObject | undefined;
  const version = req.header('mcp-protocol-version');
  if (version === undefined) throw mismatch('MCP-Protocol-Version is required');
  if (version !== meta?.[META.protocolVersion]) throw mismatch('MCP-Protocol-Version does not match _meta');
  const method = req.header('mcp-method');
  if (method === undefined) throw mismatch('Mcp-Method is required');
  if (decodeHeaderValue(method) !== request.method) throw mismatch('Mcp-Method does not match the body');
  const name = nameOf(request);
  if (name !== undefined) {
    const header = req.header('mcp-name');
    if (header === undefined) throw mismatch('Mcp-Name is required');
    if (decodeHeaderValue(header) !== name) throw mismatch('Mcp-Name does not match the body');
  }
  if (params.length === 0) return;
  const args = request.params?.arguments;
  for (const { header: suffix, path } of params) {
    const value = valueAtPath(args, path);
    const header = req.header(`mcp-param-${suffix.toLowerCase()}`);
    if (value === undefined || value === null) continue;
    if (header === undefined) throw mismatch(`Mcp-Param-${suffix} is required`);
    const decoded = decodeHeaderValue(header);
    if (decoded === undefined) throw mismatch(`Mcp-Param-${suffix} is malformed`);
    const same =
      typeof value === 'number'
        ? Number(decoded) === value && decoded.trim() !== ''
        : decoded === String(value);
    if (!same) throw mismatch(`Mcp-Param-${suffix} does not match the argument "${path.join('.')}"`);
  }
}

/** The HTTP status of a stateless error response. */
export function statusOfError(code: number): number {
  if (code === ErrorCode.MethodNotFound) return 404;
  // The whole HTTP request is refused: a rate limit or a concurrency cap (with Retry-After when known).
  if (code === ErrorCode.RateLimited) return 429;
  if (
    code === ErrorCode.InvalidParams ||
    code === ErrorCode.HeaderMismatch ||
    code === ErrorCode.MissingClientCapability ||
    code === ErrorCode.UnsupportedProtocolVersion ||
    code === ErrorCode.InvalidRequest ||
    code === ErrorCode.ParseError
  ) {
    return 400;
  }
  return 200;
}
