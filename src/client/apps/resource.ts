// An App's document out of a `resources/read` result: refused unless it carries the extension's MIME type.
import { McpkitError } from '../../jsonrpc/errors.js';
import { APP_MIME_TYPE, type AppResourceMeta } from '../../spec/apps.js';
import type { ReadResourceResult, Resource } from '../../spec/types.js';

/** An App's HTML and what its resource declares in `_meta.ui`. */
export interface AppDocument {
  uri: string;
  html: string;
  meta: AppResourceMeta;
}

/** The largest App document a host renders. */
export const MAX_APP_HTML_BYTES = 8 * 1024 * 1024;

/** True when `mimeType` is the App MIME type (case and spaces around `;` aside). */
export function isAppMimeType(mimeType: unknown): boolean {
  return typeof mimeType === 'string' && mimeType.toLowerCase().replace(/\s*;\s*/g, ';') === APP_MIME_TYPE;
}

/**
 * Takes the App document `uri` out of a read result: its content for that URI (or the only one) must be declared
 * `text/html;profile=mcp-app` (else INVALID_RESULT naming the type it had), text or base64; `_meta.ui` is the
 * content's, else the listing's (`listed`).
 */
export function appDocumentOf(uri: string, result: ReadResourceResult, listed?: Resource): AppDocument {
  if (!uri.startsWith('ui://'))
    throw new McpkitError('INVALID_RESULT', `An App's resource URI starts with ui://, got ${uri}`);
  const contents = Array.isArray(result.contents) ? result.contents : [];
  const content = contents.find((c) => c.uri === uri) ?? (contents.length === 1 ? contents[0] : undefined);
  if (!content) throw new McpkitError('INVALID_RESULT', `${uri} read without its content`);
  if (!isAppMimeType(content.mimeType))
    throw new McpkitError(
      'INVALID_RESULT',
      `${uri} is not an MCP App: its MIME type is ${JSON.stringify(content.mimeType ?? null)}, not "${APP_MIME_TYPE}"`,
    );
  const html = 'text' in content ? content.text : decodeBase64(content.blob);
  if (typeof html !== 'string' || html.length > MAX_APP_HTML_BYTES)
    throw new McpkitError(
      'INVALID_RESULT',
      `${uri}: the App's HTML is missing or over ${MAX_APP_HTML_BYTES} bytes`,
    );
  const meta = uiOf(content._meta) ?? uiOf(listed?._meta) ?? {};
  return { uri, html, meta };
}

function uiOf(meta: unknown): AppResourceMeta | undefined {
  if (typeof meta !== 'object' || meta === null) return undefined;
  const ui = (meta as { ui?: unknown }).ui;
  return typeof ui === 'object' && ui !== null && !Array.isArray(ui) ? (ui as AppResourceMeta) : undefined;
}

function decodeBase64(blob: unknown): string | undefined {
  if (typeof blob !== 'string' || blob.length > (MAX_APP_HTML_BYTES * 4) / 3 + 4) return undefined;
  const binary = atob(blob);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return new TextDecoder().decode(bytes);
}
