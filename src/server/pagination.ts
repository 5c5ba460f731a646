import { ErrorCode, JsonRpcError } from '../jsonrpc/errors.js';

// Cursors are opaque to clients: a prefix and the offset, base64url-encoded.
const PREFIX = 'mcpkit:';

/** Encodes a page offset as an opaque cursor. */
export function encodeCursor(offset: number): string {
  return btoa(PREFIX + offset)
    .replaceAll('+', '-')
    .replaceAll('/', '_')
    .replaceAll('=', '');
}

/** Decodes a cursor to a page offset; an unreadable cursor is a -32602 error. */
export function decodeCursor(cursor: unknown): number {
  if (cursor === undefined) return 0;
  if (typeof cursor === 'string' && cursor.length <= 64) {
    let text = '';
    try {
      text = atob(cursor.replaceAll('-', '+').replaceAll('_', '/'));
    } catch {
      // Not base64: fall through to the invalid-cursor error below.
    }
    if (text.startsWith(PREFIX)) {
      const offset = Number(text.slice(PREFIX.length));
      if (Number.isSafeInteger(offset) && offset > 0) return offset;
    }
  }
  throw new JsonRpcError(ErrorCode.InvalidParams, 'Invalid cursor');
}
