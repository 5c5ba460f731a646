// The MCP Apps extension (io.modelcontextprotocol/ui, ext-apps specification 2026-01-26): a tool names a `ui://`
// resource holding an HTML App; a host renders it in a sandboxed frame and speaks JSON-RPC with it over postMessage.
import type { ClientCapabilities, Meta, Tool } from './types.js';

/** The extension's identifier, as a client lists it under `capabilities.extensions`. */
export const APPS_EXTENSION = 'io.modelcontextprotocol/ui';

/** The MIME type of an App's HTML resource; a host refuses to render a resource without it. */
export const APP_MIME_TYPE = 'text/html;profile=mcp-app';

/** The older flat `_meta` key of a tool's App resource URI, written beside `_meta.ui.resourceUri` for old hosts. */
export const APP_RESOURCE_URI_KEY = 'ui/resourceUri';

/** The revision of the App ⇄ host protocol this implementation speaks. */
export const APPS_PROTOCOL_VERSION = '2026-01-26';

/** Who may call a tool: the model, the App (from its own server only), or both (the default). */
export type AppToolVisibility = 'model' | 'app';

/** A tool's `_meta.ui`: its App resource and who may call it. */
export interface AppToolMeta {
  resourceUri?: string;
  visibility?: AppToolVisibility[];
}

/** The origins an App may reach, each list mapped to CSP directives by the host; empty or absent means none. */
export interface AppCsp {
  /** `connect-src`: fetch, XHR, WebSocket. */
  connectDomains?: string[];
  /** `script-src`, `style-src`, `img-src`, `font-src`, `media-src`. */
  resourceDomains?: string[];
  /** `frame-src`: nested frames. */
  frameDomains?: string[];
  /** `base-uri`. */
  baseUriDomains?: string[];
}

/** Browser features an App asks for (Permission Policy of its frame); a host may grant fewer. */
export interface AppPermissions {
  camera?: Record<string, never>;
  microphone?: Record<string, never>;
  geolocation?: Record<string, never>;
  clipboardWrite?: Record<string, never>;
}

/** An App resource's `_meta.ui`: its CSP, permissions, a dedicated origin and a border preference. */
export interface AppResourceMeta {
  csp?: AppCsp;
  permissions?: AppPermissions;
  domain?: string;
  prefersBorder?: boolean;
}

/** The `ui://` URI of the App a tool declares (`_meta.ui.resourceUri`, else the older flat key), if any. */
export function appResourceUriOf(tool: { _meta?: Meta }): string | undefined {
  const meta = tool._meta;
  if (meta === undefined) return undefined;
  const ui = meta.ui;
  const nested =
    typeof ui === 'object' && ui !== null ? (ui as { resourceUri?: unknown }).resourceUri : undefined;
  const uri = typeof nested === 'string' ? nested : meta[APP_RESOURCE_URI_KEY];
  return typeof uri === 'string' && uri.startsWith('ui://') ? uri : undefined;
}

/** Who may call `tool`: its declared visibility, else both the model and the App. */
export function appVisibilityOf(tool: Pick<Tool, '_meta'>): AppToolVisibility[] {
  const ui = tool._meta?.ui;
  const visibility =
    typeof ui === 'object' && ui !== null ? (ui as { visibility?: unknown }).visibility : undefined;
  if (!Array.isArray(visibility)) return ['model', 'app'];
  return visibility.filter((v): v is AppToolVisibility => v === 'model' || v === 'app');
}

/** The capability a host that renders Apps declares (`capabilities.extensions`), with the App MIME type. */
export function appsClientCapability(): { extensions: Record<string, { mimeTypes: string[] }> } {
  return { extensions: { [APPS_EXTENSION]: { mimeTypes: [APP_MIME_TYPE] } } };
}

/** Whether a client declared that it renders Apps (the extension with the App MIME type among its `mimeTypes`). */
export function rendersApps(capabilities: ClientCapabilities): boolean {
  const extensions = capabilities.extensions;
  if (typeof extensions !== 'object' || extensions === null) return false;
  const apps = (extensions as Record<string, unknown>)[APPS_EXTENSION];
  const types =
    typeof apps === 'object' && apps !== null ? (apps as { mimeTypes?: unknown }).mimeTypes : undefined;
  return Array.isArray(types) && types.includes(APP_MIME_TYPE);
}

/**
 * `meta` with the App resource URIs it names (`ui.resourceUri` and the older flat key) passed through `map`, as a
 * server mounted under a prefix renames its resources; `meta` itself when it names none.
 */
export function mapAppResourceUri(meta: Meta, map: (uri: string) => string): Meta {
  const ui = meta.ui;
  const nested =
    typeof ui === 'object' && ui !== null ? (ui as { resourceUri?: unknown }).resourceUri : undefined;
  const flat = meta[APP_RESOURCE_URI_KEY];
  const names = (uri: unknown): uri is string => typeof uri === 'string' && uri.startsWith('ui://');
  if (!names(nested) && !names(flat)) return meta;
  const out: Meta = { ...meta };
  if (names(nested)) out.ui = { ...(ui as object), resourceUri: map(nested) };
  if (names(flat)) out[APP_RESOURCE_URI_KEY] = map(flat);
  return out;
}
