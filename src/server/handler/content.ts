import type { ReadResourceResult, ResourceContents } from '../../spec/types.js';

/** What a resource handler may return: a full result, a list of contents, text, or bytes. */
export type ReadReturn = ReadResourceResult | ResourceContents[] | string | Uint8Array;

/** Normalises a resource handler's return value into a `resources/read` result. */
export function toReadResult(
  uri: string,
  mimeType: string | undefined,
  value: ReadReturn,
): ReadResourceResult {
  if (typeof value === 'string') return { contents: [withMime({ uri, text: value }, mimeType)] };
  if (value instanceof Uint8Array) return { contents: [withMime({ uri, blob: toBase64(value) }, mimeType)] };
  if (Array.isArray(value)) return { contents: value };
  return value;
}

function withMime<T extends ResourceContents>(contents: T, mimeType: string | undefined): T {
  return mimeType === undefined ? contents : { ...contents, mimeType };
}

/** Base64-encodes bytes without `node:` modules (chunked, so large inputs stay linear). */
export function toBase64(bytes: Uint8Array): string {
  const parts: string[] = [];
  for (let i = 0; i < bytes.length; i += 0x8000) {
    parts.push(String.fromCharCode(...bytes.subarray(i, i + 0x8000)));
  }
  return btoa(parts.join(''));
}
