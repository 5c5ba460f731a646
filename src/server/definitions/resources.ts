import { McpkitError } from '../../jsonrpc/errors.js';
import type { JsonObject } from '../../jsonrpc/types.js';
import { type InputRequiredReturn, isInputRequired } from '../../spec/input-required.js';
import type { CacheHint } from '../../spec/modern.js';
import type { Annotations, Icon, Meta, Resource } from '../../spec/types.js';
import { UriTemplate } from '../../spec/uri-template.js';
import { type ReadReturn, toReadResult } from '../handler/content.js';
import type { RequestContext } from '../handler/context.js';
import type { Around } from '../handler/middleware.js';
import type { Access } from './access.js';
import type { Completer } from './completion.js';
import { pageAt } from './pagination.js';
import type { Registry } from './registry.js';
import type { Watch } from './watch.js';

/** Display data of a resource. */
export interface ResourceConfig {
  name: string;
  title?: string;
  description?: string;
  mimeType?: string;
  size?: number;
  annotations?: Annotations;
  icons?: Icon[];
  _meta?: Meta;
  /** Cache hint of this resource's stateless `resources/read` results. */
  cache?: CacheHint;
  /**
   * OAuth scopes a caller needs to use this: an authenticated request without them is refused (over HTTP, 403
   * \`insufficient_scope\` naming them, so the client steps up) and does not see it listed. Requests that were not
   * authenticated (no \`auth\` on the endpoint, stdio) are not checked.
   */
  requiredScopes?: readonly string[];
}

/** Reads a fixed resource. */
export type ResourceHandler = (
  uri: string,
  ctx: RequestContext,
) => ReadReturn | InputRequiredReturn | Promise<ReadReturn | InputRequiredReturn>;

/** A registered fixed resource. */
export interface ResourceDef {
  uri: string;
  config: ResourceConfig;
  handler: ResourceHandler;
  /** Set on a resource a mount added: its own server's middleware around its reads. */
  around?: Around;
  /** @internal Set on a resource a mount added: the way its subscriptions reach its own server's middleware. */
  watch?: Watch;
}

/** Changes accepted by a resource handle's `update`. */
export type ResourceUpdate = Partial<ResourceConfig> & { handler?: ResourceHandler };

/** Display data, completion and listing of a resource template. */
export interface ResourceTemplateConfig<V extends string = string> extends Omit<ResourceConfig, 'size'> {
  /** Suggests values for each variable in `completion/complete`. */
  complete?: Partial<Record<V, Completer>>;
  /** Lists concrete resources of this template in `resources/list`. */
  list?: (ctx: RequestContext) => Resource[] | Promise<Resource[]>;
}

/** Reads a resource whose URI matched a template. */
export type ResourceTemplateHandler<V extends string = string> = (
  uri: string,
  variables: Record<V, string | string[]>,
  ctx: RequestContext,
) => ReadReturn | InputRequiredReturn | Promise<ReadReturn | InputRequiredReturn>;

/** A registered resource template, parsed once. */
export interface TemplateDef {
  template: UriTemplate;
  config: ResourceTemplateConfig;
  handler: ResourceTemplateHandler;
  /** Set on a template a mount added: its own server's middleware around its reads and completions. */
  around?: Around;
  /** @internal Set on a template a mount added: the way subscriptions to its URIs reach its own server's middleware. */
  watch?: Watch;
}

/** Changes accepted by a template handle's `update`. */
export type TemplateUpdate = Partial<ResourceTemplateConfig> & { handler?: ResourceTemplateHandler };

/** Checks a fixed resource definition. */
export function defineResource(uri: string, config: ResourceConfig, handler: ResourceHandler): ResourceDef {
  if (!URL.canParse(uri))
    throw new McpkitError('INVALID_DEFINITION', `Invalid resource URI ${JSON.stringify(uri)}`);
  if (!config.name) throw new McpkitError('INVALID_DEFINITION', `Resource ${uri} needs a name`);
  return { uri, config, handler };
}

/** Parses and checks a resource template definition. */
export function defineTemplate(
  uriTemplate: string,
  config: ResourceTemplateConfig,
  handler: ResourceTemplateHandler,
): TemplateDef {
  if (!config.name)
    throw new McpkitError('INVALID_DEFINITION', `Resource template ${uriTemplate} needs a name`);
  const template = new UriTemplate(uriTemplate);
  for (const variable of Object.keys(config.complete ?? {})) {
    if (!template.variableNames.includes(variable)) {
      throw new McpkitError(
        'INVALID_DEFINITION',
        `Template ${uriTemplate} has no variable "${variable}" to complete`,
      );
    }
  }
  return { template, config, handler };
}

function display(config: Omit<ResourceConfig, 'name'> & { name: string }): JsonObject {
  const out: JsonObject = { name: config.name };
  for (const key of ['title', 'description', 'mimeType', 'size', 'annotations', 'icons', '_meta'] as const) {
    if (config[key] !== undefined) out[key] = config[key];
  }
  return out;
}

/** A fixed resource with `changes` applied (checked again). */
export function updateResource(def: ResourceDef, changes: ResourceUpdate): ResourceDef {
  const { handler, ...config } = changes;
  return defineResource(def.uri, { ...def.config, ...config }, handler ?? def.handler);
}

/** A template with `changes` applied (checked again). */
export function updateTemplate(def: TemplateDef, changes: TemplateUpdate): TemplateDef {
  const { handler, ...config } = changes;
  return defineTemplate(def.template.toString(), { ...def.config, ...config }, handler ?? def.handler);
}

/** The resource as listed by `resources/list`. */
export function describeResource(def: ResourceDef): JsonObject {
  return { uri: def.uri, ...display(def.config) };
}

/** The template as listed by `resources/templates/list`. */
export function describeTemplate(def: TemplateDef): JsonObject {
  const { complete: _c, list: _l, ...shown } = def.config;
  return { uriTemplate: def.template.toString(), ...display(shown) };
}

/** Reads a fixed resource. */
export async function readResource(def: ResourceDef, ctx: RequestContext): Promise<JsonObject> {
  const value = await def.handler(def.uri, ctx);
  if (isInputRequired(value)) return value;
  return toReadResult(def.uri, def.config.mimeType, value);
}

/** Reads a templated resource whose variables were matched. */
export async function readTemplated(
  def: TemplateDef,
  uri: string,
  variables: Record<string, string | string[]>,
  ctx: RequestContext,
): Promise<JsonObject> {
  const value = await def.handler(uri, variables, ctx);
  if (isInputRequired(value)) return value;
  return toReadResult(uri, def.config.mimeType, value);
}

/**
 * One page of `resources/list`: the fixed resources (a cached page) or, when enabled templates list
 * their resources, those after the fixed ones, gathered per call (a handle's update may add or remove
 * a list callback).
 */
export async function listResources(
  resources: Registry<ResourceDef, ResourceUpdate>,
  templates: Registry<TemplateDef, TemplateUpdate>,
  cursor: unknown,
  ctx: RequestContext,
  pageSize: number,
  access?: Access,
): Promise<JsonObject> {
  const granted = ctx.authInfo?.scopes;
  const auth = ctx.authInfo;
  const resourceView = access?.view('resource', auth);
  const templateView = access?.view('template', auth);
  const listing = [...templates.enabled()].filter(
    (t) => t.def.config.list !== undefined && templates.allows(t, granted, templateView),
  );
  if (listing.length === 0) return resources.page(cursor, granted, resourceView);
  const all: unknown[] = [...resources.enabled()]
    .filter((e) => resources.allows(e, granted, resourceView))
    .map((e) => describeResource(e.def));
  for (const t of listing) {
    const list = t.def.config.list;
    if (!list) continue;
    const listed = (await list(ctx)) as Resource[];
    if (access === undefined) all.push(...listed);
    else for (const r of listed) if (access.allows('resource', r.uri, auth, t.key)) all.push(r);
  }
  return pageAt(all, cursor, pageSize, 'resources');
}

/** The entry serving `uri`, as `resources/read` finds it: the resource of that URI, else the first template matching it. */
export function servedBy(
  resources: Registry<ResourceDef, ResourceUpdate>,
  templates: Registry<TemplateDef, TemplateUpdate>,
  uri: string,
): { def: ResourceDef | TemplateDef; template: string | undefined } | undefined {
  const fixed = resources.get(uri);
  if (fixed) return { def: fixed.def, template: undefined };
  for (const entry of templates.enabled())
    if (entry.def.template.match(uri)) return { def: entry.def, template: entry.key };
  return undefined;
}
