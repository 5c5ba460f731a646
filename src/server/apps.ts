// The server's side of MCP Apps: a tool names its App in `_meta`, the App's HTML is a `ui://` resource with the
// extension's MIME type and its CSP and permissions in `_meta.ui`. The App's own tool calls are ordinary requests.
import { McpkitError } from '../jsonrpc/errors.js';
import {
  APP_MIME_TYPE,
  APP_RESOURCE_URI_KEY,
  type AppResourceMeta,
  type AppToolVisibility,
} from '../spec/apps.js';
import type { Meta } from '../spec/types.js';
import type { RegisteredHandle } from './definitions/registry.js';
import type { ResourceUpdate } from './definitions/resources.js';
import type { RequestContext } from './handler/context.js';
import type { McpServer } from './server.js';

/** What {@link registerAppResource} serves. */
export interface AppResourceConfig extends AppResourceMeta {
  name: string;
  title?: string;
  description?: string;
  /** The App's HTML (one self-contained document), or a function giving it per read. */
  html: string | ((ctx: RequestContext) => string | Promise<string>);
}

/**
 * The `_meta` of a tool whose result an App shows: `ui.resourceUri` (and the older flat key for older hosts), and
 * who may call the tool (`['app']` keeps a tool the App uses away from the model).
 */
export function appToolMeta(resourceUri: string, visibility?: AppToolVisibility[]): Meta {
  checkAppUri(resourceUri);
  const ui = visibility === undefined ? { resourceUri } : { resourceUri, visibility: [...visibility] };
  return { ui, [APP_RESOURCE_URI_KEY]: resourceUri };
}

/**
 * Registers an App's HTML as the `ui://` resource `uri`, served with the MIME type `text/html;profile=mcp-app` and
 * its CSP, permissions, domain and border preference in the content's (and the listing's) `_meta.ui`.
 */
export function registerAppResource(
  server: McpServer,
  uri: string,
  config: AppResourceConfig,
): RegisteredHandle<ResourceUpdate> {
  checkAppUri(uri);
  const { name, title, description, html, ...rest } = config;
  const ui: AppResourceMeta = {};
  if (rest.csp !== undefined) ui.csp = rest.csp;
  if (rest.permissions !== undefined) ui.permissions = rest.permissions;
  if (rest.domain !== undefined) ui.domain = rest.domain;
  if (rest.prefersBorder !== undefined) ui.prefersBorder = rest.prefersBorder;
  const _meta: Meta = { ui };
  return server.resource(
    uri,
    {
      name,
      mimeType: APP_MIME_TYPE,
      _meta,
      ...(title === undefined ? {} : { title }),
      ...(description === undefined ? {} : { description }),
    },
    async (_uri, ctx) => {
      const text = typeof html === 'string' ? html : await html(ctx);
      return { contents: [{ uri, mimeType: APP_MIME_TYPE, text, _meta }] };
    },
  );
}

function checkAppUri(uri: string): void {
  if (!uri.startsWith('ui://') || uri.length === 'ui://'.length)
    throw new McpkitError('INVALID_DEFINITION', `An App's resource URI starts with ui://, got ${uri}`);
}
