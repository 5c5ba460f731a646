// The `Mcp-*` header encoding of protocol revision 2026-07-28, shared by the HTTP server and client.
import type { JsonRpcRequest } from '../jsonrpc/types.js';

const SENTINEL = /^=\?base64\?([A-Za-z0-9+/]*={0,2})\?=$/;

/** Decodes a header value that may use the `=?base64?…?=` form (undefined when malformed). */
export function decodeHeaderValue(value: string): string | undefined {
  // Most values are plain: the encoded form starts with '=', so no regular expression runs for the rest.
  const m = value.charCodeAt(0) === 0x3d ? SENTINEL.exec(value) : null;
  if (!m) return hasControlCharacter(value) ? undefined : value;
  try {
    const bin = atob(m[1] ?? '');
    const bytes = Uint8Array.from(bin, (c) => c.charCodeAt(0));
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    // Not valid Base64 or not UTF-8: a malformed header.
    return undefined;
  }
}

function hasControlCharacter(value: string): boolean {
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    if (c < 0x20 || c === 0x7f) return true;
  }
  return false;
}

/**
 * Encodes a value for an `Mcp-*` header, using the Base64 form where plain ASCII will not do
 * (non-ASCII, control characters, surrounding spaces, or a plain value that looks like the sentinel).
 *
 * @example
 * encodeHeaderValue('get_weather'); // 'get_weather'
 * encodeHeaderValue('météo'); // '=?base64?bcOpdMOpbw==?='
 */
export function encodeHeaderValue(value: string): string {
  if (/^[\x20-\x7e]*$/.test(value) && !SENTINEL.test(value) && value.trim() === value) return value;
  const bytes = new TextEncoder().encode(value);
  let bin = '';
  for (const b of bytes) bin += String.fromCharCode(b);
  return `=?base64?${btoa(bin)}?=`;
}

/**
 * The `Mcp-Name` a request must carry, if its method has one: `params.name` (tools/call, prompts/get),
 * `params.uri` (resources/read) or `params.taskId` (tasks/get, tasks/update, tasks/cancel). Not encoded.
 */
export function nameOf(request: Pick<JsonRpcRequest, 'method' | 'params'>): string | undefined {
  const p = request.params ?? {};
  switch (request.method) {
    case 'tools/call':
    case 'prompts/get':
      return typeof p.name === 'string' ? p.name : undefined;
    case 'resources/read':
      return typeof p.uri === 'string' ? p.uri : undefined;
    case 'tasks/get':
    case 'tasks/update':
    case 'tasks/cancel':
      return typeof p.taskId === 'string' ? p.taskId : undefined;
    default:
      return undefined;
  }
}
