import { errorMessage, McpkitError } from '../../jsonrpc/errors.js';
import type { JsonObject } from '../../jsonrpc/types.js';
import { toToolSchema } from '../../schema/index.js';
import { mapAppResourceUri } from '../../spec/apps.js';
import type { InputRequiredReturn } from '../../spec/input-required.js';
import type { SkillEntry } from '../../spec/skills.js';
import type { Resource, ResourceContents } from '../../spec/types.js';
import { UriTemplate } from '../../spec/uri-template.js';
import type { NamedKind } from '../definitions/access.js';
import type { PromptDef, PromptUpdate } from '../definitions/prompts.js';
import type { Entry, RegisteredHandle, Registry } from '../definitions/registry.js';
import type { ResourceDef, ResourceUpdate, TemplateDef, TemplateUpdate } from '../definitions/resources.js';
import {
  checkToolTransforms,
  type ToolTransforms,
  withoutArguments,
} from '../definitions/tool-transforms.js';
import {
  callTool,
  checkToolName,
  type ToolDef,
  type ToolHandler,
  type ToolUpdate,
} from '../definitions/tools.js';
import type { ListKind } from '../dispatch/listen.js';
import type { Scoped } from '../handler/auth.js';
import type { ReadReturn } from '../handler/content.js';
import type { RequestContext, SessionInfo } from '../handler/context.js';
import type { AskHook, GuardRunner, Middleware } from '../handler/middleware.js';
import type { SkillSource } from '../skills/catalog.js';
import type { AccessSource, ComposedAccess } from './access.js';
import { around, namedAs, originalUri } from './around.js';
import { checkMountNaming, type MountNaming, mountNaming } from './names.js';

/** Options of `McpServer.mount`. */
export interface MountOptions {
  /** Joins the prefix and a tool's or prompt's name. Default "_" (`weather_forecast`). */
  separator?: string;
  /**
   * Resource URIs and templates: 'prefix' (default) inserts the prefix after the scheme
   * (`file:///a.txt` becomes `file://weather//a.txt`, `notes://{id}` becomes `notes://weather/{id}`); 'keep'
   * offers them unchanged (a URI both servers offer is then a clash).
   */
  uris?: 'prefix' | 'keep';
  /** Renames, hides, redescribes tools or fixes their arguments (keyed by the mounted server's tool names). */
  tools?: ToolTransforms;
}

/** A server mounted in another; `unmount()` takes everything it offered away again. */
export interface Mounted {
  readonly prefix: string;
  unmount(): void;
}

/** What a mount needs of the servers on either side (`McpServer` in practice). */
export interface Mountable {
  readonly tools: Registry<ToolDef, ToolUpdate>;
  readonly prompts: Registry<PromptDef, PromptUpdate>;
  readonly resources: Registry<ResourceDef, ResourceUpdate>;
  readonly templates: Registry<TemplateDef, TemplateUpdate>;
}

/** The parent's side: registering a kind (capabilities, tasks), passing resource updates on, warnings. */
export interface MountHost extends Mountable {
  /** The parent's access rules, which learn the mounted entries' own. */
  readonly access: ComposedAccess;
  noteMounted(kind: ListKind, completes: boolean, task: boolean): void;
  notifyResourceUpdated(uri: string): void;
  /** Reports a child entry that could not be brought into the parent (the mount goes on with the others). */
  warn(message: string): void;
  /** Offers the child's skills through the parent. */
  addSkillSource(source: SkillSource): () => void;
}

/** The child's side: its middleware and access rules (as they are at each request), its resource updates. */
export interface MountSource extends Mountable {
  readonly middleware: readonly Middleware[];
  /** Its guards (rate limits, audit, …), which run before its middleware. */
  readonly guards: () => GuardRunner | undefined;
  readonly access: AccessSource;
  /** Its hook around the requests its handlers make of their client (its audit, its limits on them). */
  readonly asks: () => AskHook | undefined;
  watchResourceUpdates(listener: (uri: string) => void): () => void;
  /** A session of the server it is mounted in ended: what that session held through it is let go. */
  sessionEnded(session: SessionInfo): void;
  /** The skills it offers, if any (SEP-2640). */
  readonly skills: SkillSource | undefined;
}

interface Known<D> {
  source: D;
  key: string;
  handle: RegisteredHandle<unknown>;
  /** Takes the entry's access rules (its own server's) away from the parent's. */
  unguard: () => void;
}

/** The mirror of one registry of the child in the parent's registry of the same kind. */
class MountedKind<D extends Scoped, U> {
  readonly #known = new Map<string, Known<D>>();
  /** Child entries the parent refused, by key, with the definition refused (reported once, tried on each sync). */
  readonly #refused = new Map<string, D>();
  readonly #from: Registry<D, U>;
  readonly #to: Registry<D, U>;
  /** The parent's key and definition for a child entry; undefined when it is hidden. Throws on a bad name. */
  readonly #map: (key: string, def: D) => { key: string; def: D } | undefined;
  readonly #note: (def: D) => void;
  readonly #what: string;
  readonly #warn: (message: string) => void;
  /** Gives the parent's access rules the child's for an entry added (parent key, child key). */
  readonly #guard: (key: string, childKey: string) => () => void;

  constructor(
    from: Registry<D, U>,
    to: Registry<D, U>,
    what: string,
    map: (key: string, def: D) => { key: string; def: D } | undefined,
    note: (def: D) => void,
    warn: (message: string) => void,
    guard: (key: string, childKey: string) => () => void,
  ) {
    this.#from = from;
    this.#to = to;
    this.#what = what;
    this.#map = map;
    this.#note = note;
    this.#warn = warn;
    this.#guard = guard;
  }

  /** Every parent key this kind would add now; throws on a clash with the parent or a bad name. */
  plan(taken: Set<string>, where: string): void {
    for (const e of this.#from.all()) {
      const mapped = this.#map(e.key, e.def);
      if (mapped) {
        this.#claim(mapped.key, mapped.def, taken, where);
        this.#note(e.def);
      }
    }
  }

  /** Refuses a child entry about to be added whose parent key is taken. */
  adding(key: string, def: D, where: string): void {
    const mapped = this.#map(key, def);
    if (mapped) this.#claim(mapped.key, mapped.def, new Set(), where);
    this.#note(def);
  }

  /**
   * Refuses a parent key that is taken, in the parent or (through the parent's observers) in the servers the
   * parent is itself mounted in, so a refused registration or mount adds nothing anywhere up the chain.
   */
  #claim(key: string, def: D, taken: Set<string>, where: string): void {
    if (taken.has(key) || this.#to.has(key)) {
      throw new McpkitError(
        'INVALID_DEFINITION',
        `${where}: the ${this.#what} ${JSON.stringify(key)} is already offered by the server it is mounted in`,
      );
    }
    this.#to.check(key, def);
    taken.add(key);
  }

  /**
   * Brings the parent in step with the child (called on every change of the child's registry). An entry the
   * parent refuses is reported and left out; the others are still brought in step (this never throws into the
   * child's registry, which has already committed its change).
   */
  sync(): void {
    const seen = new Set<string>();
    for (const e of this.#from.all()) {
      seen.add(e.key);
      try {
        this.#syncEntry(e);
        if (this.#refused.size > 0) this.#refused.delete(e.key);
      } catch (error) {
        if (this.#refused.get(e.key) === e.def) continue;
        this.#refused.set(e.key, e.def);
        this.#warn(
          `the ${this.#what} ${JSON.stringify(e.key)} of a mounted server could not be offered: ${errorMessage(error)}`,
        );
      }
    }
    for (const key of [...this.#known.keys()]) if (!seen.has(key)) this.#drop(key);
    for (const key of [...this.#refused.keys()]) if (!seen.has(key)) this.#refused.delete(key);
  }

  #syncEntry(e: Entry<D>): void {
    let known = this.#known.get(e.key);
    if (known?.source !== e.def) {
      const mapped = this.#map(e.key, e.def);
      if (!mapped) {
        this.#drop(e.key);
        return;
      }
      this.#note(e.def);
      if (known && known.key === mapped.key) {
        this.#to.replace(mapped.key, mapped.def);
        known.source = e.def;
      } else {
        this.#drop(e.key);
        const handle = this.#to.add(mapped.key, mapped.def);
        known = { source: e.def, key: mapped.key, handle, unguard: this.#guard(mapped.key, e.key) };
        this.#known.set(e.key, known);
      }
    }
    if (known.handle.enabled !== e.enabled) {
      if (e.enabled) known.handle.enable();
      else known.handle.disable();
    }
  }

  #drop(key: string): void {
    const known = this.#known.get(key);
    if (!known) return;
    this.#known.delete(key);
    known.unguard();
    known.handle.remove();
  }

  /** Removes everything this kind added to the parent. */
  clear(): void {
    this.#refused.clear();
    for (const key of [...this.#known.keys()]) this.#drop(key);
  }
}

/**
 * Mounts `child` in `parent` under `prefix`: every tool, prompt, resource and template of the child is offered by
 * the parent (names prefixed, URIs as `options.uris` says) and kept in step with it, so the child's list changes
 * reach the parent's clients. A name the parent already offers is an error here, and so is a later registration
 * on either side that would clash. The child's handlers run with the parent's request context, behind the parent's
 * middleware and then the child's own (which sees the child's names, as if it were called directly); the child's
 * access rules still hide its entries from the parent's lists and refuse their use.
 */
export function mount(
  parent: MountHost,
  prefix: string,
  child: MountSource,
  options: MountOptions = {},
): Mounted {
  const separator = options.separator ?? '_';
  checkMountNaming(prefix, separator);
  const where = `Mounting "${prefix}"`;
  const naming = mountNaming(prefix, separator, options.uris ?? 'prefix');
  const transforms = options.tools ?? {};
  const inputs = new Map<string, JsonObject | undefined>();
  for (const e of child.tools.all()) inputs.set(e.key, e.def.input?.jsonSchema);
  checkToolTransforms(transforms, inputs, where);
  const warn = (message: string) => parent.warn(`${where}: ${message}`);
  const guard =
    (kind: NamedKind, uri?: (uri: string) => string) =>
    (key: string, childKey: string): (() => void) =>
      parent.access.add(kind, key, {
        source: child.access,
        name: childKey,
        ...(uri === undefined ? {} : { uri }),
      });

  const kinds = [
    new MountedKind<ToolDef, ToolUpdate>(
      child.tools,
      parent.tools,
      'tool',
      (key, def) => {
        const mapped = mountTool(def, key, naming, transforms, where);
        return (
          mapped && {
            key: mapped.key,
            def: { ...mapped.def, around: around(child, def.around, namedAs(key)) },
          }
        );
      },
      (def) => parent.noteMounted('tools', false, def.config.task !== undefined),
      warn,
      guard('tool'),
    ),
    new MountedKind<PromptDef, PromptUpdate>(
      child.prompts,
      parent.prompts,
      'prompt',
      (key, def) => {
        const name = naming.name(key);
        return { key: name, def: { ...def, name, around: around(child, def.around, namedAs(key)) } };
      },
      () => parent.noteMounted('prompts', true, false),
      warn,
      guard('prompt'),
    ),
    new MountedKind<ResourceDef, ResourceUpdate>(
      child.resources,
      parent.resources,
      'resource',
      (key, def) => {
        const mapped = mountResource(def, key, naming);
        const rename = (_method: string, params: JsonObject) => ({ ...params, uri: key });
        const watch = { source: child, uri: () => key, inner: def.watch };
        return { key: mapped.key, def: { ...mapped.def, around: around(child, def.around, rename), watch } };
      },
      () => parent.noteMounted('resources', false, false),
      warn,
      guard('resource'),
    ),
    new MountedKind<TemplateDef, TemplateUpdate>(
      child.templates,
      parent.templates,
      'resource template',
      (key, def) => {
        const mapped = mountTemplate(def, key, naming);
        const original = originalUri(naming);
        const rename = (method: string, params: JsonObject) =>
          method === 'completion/complete'
            ? { ...params, ref: { ...(params.ref as JsonObject), uri: key } }
            : { ...params, uri: typeof params.uri === 'string' ? original(params.uri) : params.uri };
        const watch = { source: child, uri: original, inner: def.watch };
        return { key: mapped.key, def: { ...mapped.def, around: around(child, def.around, rename), watch } };
      },
      () => parent.noteMounted('resources', true, false),
      warn,
      guard('template', naming.rewritesUris ? originalUri(naming) : undefined),
    ),
  ] as const;
  const [tools, prompts, resources, templates] = kinds;
  // All or nothing: every name is checked before anything is added.
  const taken = new Set<string>();
  for (const kind of kinds) kind.plan(taken, where);
  for (const kind of kinds) kind.sync();

  const stops = [
    child.tools.observe({
      adding: (key, def) => tools.adding(key, def, where),
      changed: () => tools.sync(),
    }),
    child.prompts.observe({
      adding: (key, def) => prompts.adding(key, def, where),
      changed: () => prompts.sync(),
    }),
    child.resources.observe({
      adding: (key, def) => resources.adding(key, def, where),
      changed: () => resources.sync(),
    }),
    child.templates.observe({
      adding: (key, def) => templates.adding(key, def, where),
      changed: () => templates.sync(),
    }),
    child.watchResourceUpdates((uri) => {
      let mapped: string;
      try {
        mapped = naming.uri(uri);
      } catch {
        return; // A URI that cannot be prefixed was never offered by the parent: no subscriber can know it.
      }
      parent.notifyResourceUpdated(mapped);
    }),
  ];
  const skills = child.skills;
  if (skills) stops.push(parent.addSkillSource(mountedSkills(skills, naming)));
  let mounted = true;
  return {
    prefix,
    unmount: () => {
      if (!mounted) return;
      mounted = false;
      for (const stop of stops) stop();
      for (const kind of kinds) kind.clear();
    },
  };
}

/** A mounted server's skills as the parent offers them: every URI of theirs under the parent's (digests unchanged). */
function mountedSkills(skills: SkillSource, naming: MountNaming): SkillSource {
  if (!naming.rewritesUris) return skills;
  const entry = (e: SkillEntry): SkillEntry => ({
    ...e,
    uri: naming.uri(e.uri),
    resources:
      e.resources === 'dynamic' ? 'dynamic' : e.resources.map((r) => ({ ...r, uri: naming.uri(r.uri) })),
  });
  // A URI the mount did not make is not the child's.
  const own = (uri: string) => (naming.original(uri) === uri ? undefined : naming.original(uri));
  return {
    list: async (ctx) => (await skills.list(ctx)).map(entry),
    get: async (uri, ctx) => {
      const original = own(uri);
      const found = original === undefined ? undefined : await skills.get(original, ctx);
      return found && entry(found);
    },
    directory: async (uri, ctx) => {
      const original = own(uri);
      const children = original === undefined ? undefined : await skills.directory(original, ctx);
      return children?.map((r) => ({ ...r, uri: naming.uri(r.uri) }));
    },
  };
}

function mountTool(
  def: ToolDef,
  key: string,
  naming: MountNaming,
  transforms: ToolTransforms,
  where: string,
): { key: string; def: ToolDef } | undefined {
  const t = Object.hasOwn(transforms, key) ? transforms[key] : undefined;
  if (t?.hidden) return undefined;
  const name = naming.name(t?.name ?? key);
  checkToolName(name, `${where}: `);
  // An App's resource is mounted under the parent's URI: the tool names it so, or a host reads a URI nobody serves.
  const meta = def.config._meta;
  const appMeta =
    meta !== undefined && naming.rewritesUris ? mapAppResourceUri(meta, (u) => safeUri(naming, u)) : meta;
  const base =
    appMeta === meta || appMeta === undefined ? def : { ...def, config: { ...def.config, _meta: appMeta } };
  if (t === undefined) return { key: name, def: name === def.name && base === def ? def : { ...base, name } };
  const config = { ...base.config };
  if (t.title !== undefined) config.title = t.title;
  if (t.description !== undefined) config.description = t.description;
  const fixed = t.fixed;
  if (fixed === undefined || def.input === undefined) return { key: name, def: { ...base, name, config } };
  const input = toToolSchema(withoutArguments(def.input.jsonSchema, Object.keys(fixed)), 'input');
  // The fixed values join the client's arguments; the tool's own schema then checks (and parses) them all.
  const handler: ToolHandler<unknown, unknown> = (args, ctx) =>
    callTool(def, { ...(args as JsonObject), ...fixed }, ctx) as never;
  return { key: name, def: { name, config, input, output: def.output, handler } };
}

type Returned = ReadReturn | InputRequiredReturn;

/** A read's result with the mounted server's URI replaced by the parent's, wherever a content names it. */
function renamed(value: Returned, from: string, to: string): Returned {
  if (typeof value !== 'object' || value instanceof Uint8Array) return value;
  const rename = (contents: ResourceContents[]) =>
    contents.map((c) => (c.uri === from ? { ...c, uri: to } : c));
  if (Array.isArray(value)) return rename(value);
  const contents = (value as { contents?: unknown }).contents;
  return Array.isArray(contents) ? { ...value, contents: rename(contents as ResourceContents[]) } : value;
}

function then<T, R>(value: T | Promise<T>, f: (v: T) => R): R | Promise<R> {
  return value instanceof Promise ? value.then(f) : f(value);
}

function mountResource(
  def: ResourceDef,
  key: string,
  naming: MountNaming,
): { key: string; def: ResourceDef } {
  const uri = naming.uri(key);
  if (!naming.rewritesUris) return { key: uri, def };
  if (!URL.canParse(uri))
    throw new McpkitError('INVALID_DEFINITION', `Prefixing the resource ${key} gives the invalid URI ${uri}`);
  const original = def.uri;
  const handler = def.handler;
  return {
    key: uri,
    def: {
      ...def,
      uri,
      handler: (_uri, ctx) => then(handler(original, ctx), (v) => renamed(v, original, uri)),
    },
  };
}

function mountTemplate(
  def: TemplateDef,
  key: string,
  naming: MountNaming,
): { key: string; def: TemplateDef } {
  if (!naming.rewritesUris) return { key, def };
  const text = naming.uri(key);
  const template = new UriTemplate(text);
  const handler = def.handler;
  const list = def.config.list;
  const config = { ...def.config };
  if (list)
    config.list = (ctx: RequestContext) =>
      then(list(ctx), (resources: Resource[]) =>
        resources.map((r) => ({ ...r, uri: safeUri(naming, r.uri) })),
      );
  return {
    key: text,
    def: {
      template,
      config,
      handler: (uri, variables, ctx) => {
        const original = naming.original(uri);
        return then(handler(original, variables, ctx), (v) => renamed(v, original, uri));
      },
    },
  };
}

function safeUri(naming: MountNaming, uri: string): string {
  try {
    return naming.uri(uri);
  } catch {
    return uri;
  }
}
