import { decodeBase64urlText, encodeBase64urlText } from '../../framing/base64url.js';
import { ErrorCode, JsonRpcError } from '../../jsonrpc/errors.js';
import type { JsonObject } from '../../jsonrpc/types.js';

// Cursors are opaque to clients: a prefix and the offset, base64url-encoded.
const PREFIX = 'mcpkit:';

/** Encodes a page offset as an opaque cursor. */
export function encodeCursor(offset: number): string {
  return encodeBase64urlText(PREFIX + offset);
}

/** Decodes a cursor to a page offset; an unreadable cursor is a -32602 error. */
export function decodeCursor(cursor: unknown): number {
  if (cursor === undefined) return 0;
  if (typeof cursor === 'string' && cursor.length <= 64) {
    const text = decodeBase64urlText(cursor);
    if (text?.startsWith(PREFIX)) {
      const offset = Number(text.slice(PREFIX.length));
      if (Number.isSafeInteger(offset) && offset > 0) return offset;
    }
  }
  throw new JsonRpcError(ErrorCode.InvalidParams, 'Invalid cursor');
}

/** The page of `items` starting at `offset`: `{ [listKey]: items, nextCursor? }`. */
export function slicePage(
  items: readonly unknown[],
  offset: number,
  size: number,
  listKey: string,
): JsonObject {
  const slice = items.slice(offset, offset + size);
  return offset + size < items.length
    ? { [listKey]: slice, nextCursor: encodeCursor(offset + size) }
    : { [listKey]: slice };
}

/** The page at `cursor` of a list built per call (any offset a cursor names; past the end is -32602). */
export function pageAt(
  items: readonly unknown[],
  cursor: unknown,
  size: number,
  listKey: string,
): JsonObject {
  const offset = decodeCursor(cursor);
  if (offset > 0 && offset >= items.length) throw new JsonRpcError(ErrorCode.InvalidParams, 'Invalid cursor');
  return slicePage(items, offset, size, listKey);
}
