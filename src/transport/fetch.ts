import { McpkitError } from '../jsonrpc/errors.js';

/**
 * What the HTTP client transports and the OAuth client (`auth/client/`) both need of `fetch`, below both: the
 * function they call, and a body read within a bound.
 */

/** The `fetch` an HTTP client transport calls; the global `fetch` fits, and so does any wrapper of it. */
export type FetchLike = (url: URL, init: RequestInit) => Promise<Response>;

/** Reads a whole body as text, refusing bodies longer than `maxChars`. */
export async function readText(body: ReadableStream<Uint8Array> | null, maxChars: number): Promise<string> {
  if (body === null) return '';
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let text = '';
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return text + decoder.decode();
      text += decoder.decode(value, { stream: true });
      if (text.length > maxChars) {
        throw new McpkitError('MESSAGE_TOO_LARGE', `A response body exceeded ${maxChars} characters`);
      }
    }
  } finally {
    // Stops a body that is abandoned early (too large); a no-op once it ended.
    void reader.cancel().catch(() => undefined);
  }
}
