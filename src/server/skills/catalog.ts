import { ErrorCode, JsonRpcError, McpkitError } from '../../jsonrpc/errors.js';
import type { JsonObject } from '../../jsonrpc/types.js';
import {
  DIRECTORY_MIME_TYPE,
  type SkillEntry,
  type SkillResource,
  skillDigest,
  skillFileMimeType,
} from '../../spec/skills.js';
import type { Resource } from '../../spec/types.js';
import { pageAt } from '../definitions/pagination.js';
import type { RegisteredHandle } from '../definitions/registry.js';
import type { ResourceConfig, ResourceHandler, ResourceUpdate } from '../definitions/resources.js';
import type { CapabilityGate, MethodHandler } from '../dispatch/methods.js';
import type { RequestContext } from '../handler/context.js';
import { type DefinedSkill, defineSkill, type SkillDefinition } from './define.js';

/** A published skill: change it (its digests follow) or take it down; each sends `resources` list_changed. */
export interface SkillHandle {
  /** The URI of the skill's `SKILL.md` (what `skills/get` takes). */
  readonly uri: string;
  /** Replaces the skill's files (the path may not change). */
  update(def: SkillDefinition): void;
  /** Takes the skill and its files down. */
  remove(): void;
}

/** How the catalog registers a skill file as an ordinary resource of its server. */
export type AddResource = (
  uri: string,
  config: ResourceConfig,
  handler: ResourceHandler,
) => RegisteredHandle<ResourceUpdate>;

interface Published {
  skill: DefinedSkill;
  entry: Promise<SkillEntry> | undefined;
  handles: RegisteredHandle<ResourceUpdate>[];
}

/**
 * Skills a server offers that another publishes (a mounted server's, under the mount's URIs; the proxied server's):
 * answered after the server's own. `get` and `directory` answer undefined for a URI that is not theirs.
 */
export interface SkillSource {
  list(ctx: RequestContext): Promise<SkillEntry[]>;
  get(uri: string, ctx: RequestContext): Promise<SkillEntry | undefined>;
  directory(uri: string, ctx: RequestContext): Promise<Resource[] | undefined>;
}

const TEXTUAL = /^(text\/|application\/(json|yaml|xml|javascript))/;
const strict = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/**
 * The skills a server publishes (SEP-2640): each file an ordinary resource (so `resources/read`, list_changed,
 * guards and every transport and revision apply as to any resource), plus `skills/list`, `skills/get` and
 * `resources/directory/read`, answered from the files' bytes and their SHA-256 digests.
 */
export class SkillCatalog implements SkillSource {
  readonly #skills = new Map<string, Published>();
  readonly #sources: SkillSource[] = [];
  readonly #add: AddResource;
  readonly #pageSize: number;
  readonly #methods: ReadonlyMap<string, { gate: CapabilityGate; run: MethodHandler }>;

  constructor(add: AddResource, pageSize: number) {
    this.#add = add;
    this.#pageSize = pageSize;
    this.#methods = new Map<string, { gate: CapabilityGate; run: MethodHandler }>([
      ['skills/list', { gate: 'resources', run: (_d, p, ctx) => this.#list(p.cursor, ctx) }],
      ['skills/get', { gate: 'resources', run: (_d, p, ctx) => this.#get(p.uri, ctx) }],
      [
        'resources/directory/read',
        { gate: 'resources', run: (_d, p, ctx) => this.#directory(p.uri, p.cursor, ctx) },
      ],
    ]);
  }

  /** How many skills are published. */
  get size(): number {
    return this.#skills.size;
  }

  /** The extension's method of this name, if it is one. */
  method(name: string): { gate: CapabilityGate; run: MethodHandler } | undefined {
    return this.#methods.get(name);
  }

  /** Offers the skills of `source` after this server's own, until the function returned is called. */
  addSource(source: SkillSource): () => void {
    this.#sources.push(source);
    return () => {
      const at = this.#sources.indexOf(source);
      if (at >= 0) this.#sources.splice(at, 1);
    };
  }

  /** Every skill's entry: this server's own, then its sources'. */
  async list(ctx: RequestContext): Promise<SkillEntry[]> {
    const own = await Promise.all([...this.#skills.values()].map((p) => this.#entry(p)));
    for (const source of this.#sources) own.push(...(await source.list(ctx)));
    return own;
  }

  /** The entry of the skill whose `SKILL.md` is `uri`, if it is one of this server's or its sources'. */
  async get(uri: string, ctx: RequestContext): Promise<SkillEntry | undefined> {
    const p = this.#skills.get(uri);
    if (p) return this.#entry(p);
    for (const source of this.#sources) {
      const entry = await source.get(uri, ctx);
      if (entry) return entry;
    }
    return undefined;
  }

  /** The children of a skill's folder (or a folder inside one), if `uri` is one of this server's or its sources'. */
  async directory(uri: string, ctx: RequestContext): Promise<Resource[] | undefined> {
    const own = this.#children(uri);
    if (own) return own;
    for (const source of this.#sources) {
      const children = await source.directory(uri, ctx);
      if (children) return children;
    }
    return undefined;
  }

  /** Publishes a skill; a second skill at the same URI is an INVALID_DEFINITION. */
  add(def: SkillDefinition): SkillHandle {
    const skill = defineSkill(def);
    if (this.#skills.has(skill.uri))
      throw new McpkitError('INVALID_DEFINITION', `Skill: ${skill.uri} is already published`);
    const published: Published = { skill, entry: undefined, handles: this.#register(skill) };
    this.#skills.set(skill.uri, published);
    const uri = skill.uri;
    return {
      uri,
      update: (next) => {
        const current = this.#skills.get(uri);
        if (!current) throw new McpkitError('NOT_FOUND', `Skill: ${uri} was removed`);
        const changed = defineSkill(next);
        if (changed.uri !== uri)
          throw new McpkitError(
            'INVALID_DEFINITION',
            `Skill: an update may not move ${uri} to ${changed.uri}`,
          );
        for (const h of current.handles) h.remove();
        current.skill = changed;
        current.entry = undefined;
        current.handles = this.#register(changed);
      },
      remove: () => {
        const current = this.#skills.get(uri);
        if (!current) return;
        this.#skills.delete(uri);
        for (const h of current.handles) h.remove();
      },
    };
  }

  #register(skill: DefinedSkill): RegisteredHandle<ResourceUpdate>[] {
    const handles: RegisteredHandle<ResourceUpdate>[] = [];
    for (const [rel, bytes] of skill.files) {
      const mimeType = skillFileMimeType(rel);
      const config: ResourceConfig = {
        name: rel === 'SKILL.md' ? skill.frontmatter.name : rel,
        mimeType,
        size: bytes.byteLength,
      };
      if (rel === 'SKILL.md') config.description = skill.frontmatter.description;
      const text = TEXTUAL.test(mimeType) ? utf8(bytes) : undefined;
      // Text as text (the same bytes once encoded again), anything else as a blob: the digest covers raw bytes.
      const content = text ?? bytes;
      handles.push(this.#add(`${skill.root}/${rel}`, config, () => content));
    }
    return handles;
  }

  #entry(p: Published): Promise<SkillEntry> {
    p.entry ??= entryOf(p.skill);
    return p.entry;
  }

  async #list(cursor: unknown, ctx: RequestContext): Promise<JsonObject> {
    return pageAt(await this.list(ctx), cursor, this.#pageSize, 'skills');
  }

  async #get(uri: unknown, ctx: RequestContext): Promise<JsonObject> {
    if (typeof uri !== 'string')
      throw new JsonRpcError(ErrorCode.InvalidParams, 'Invalid params: "uri" must be a string');
    const entry = await this.get(uri, ctx);
    if (!entry)
      throw new JsonRpcError(ErrorCode.InvalidParams, `Not a skill of this server: ${uri}`, { uri });
    return { skill: entry };
  }

  async #directory(uri: unknown, cursor: unknown, ctx: RequestContext): Promise<JsonObject> {
    if (typeof uri !== 'string')
      throw new JsonRpcError(ErrorCode.InvalidParams, 'Invalid params: "uri" must be a string');
    const children = await this.directory(uri, ctx);
    if (!children)
      throw new JsonRpcError(ErrorCode.InvalidParams, `Not a directory of this server: ${uri}`, { uri });
    return pageAt(children, cursor, this.#pageSize, 'resources');
  }

  /** The children of `uri` among this server's own skills, sorted; undefined when it is not one of their folders. */
  #children(uri: string): Resource[] | undefined {
    const children = new Map<string, Resource>();
    for (const { skill } of this.#skills.values()) {
      const base =
        uri === skill.root
          ? ''
          : uri.startsWith(`${skill.root}/`)
            ? uri.slice(skill.root.length + 1)
            : undefined;
      if (base === undefined) continue;
      const prefix = base === '' ? '' : `${base}/`;
      for (const [rel, bytes] of skill.files) {
        if (!rel.startsWith(prefix) || rel === base) continue;
        const rest = rel.slice(prefix.length);
        const slash = rest.indexOf('/');
        const child = slash < 0 ? rest : rest.slice(0, slash);
        const childUri = `${uri}/${child}`;
        if (children.has(childUri)) continue;
        children.set(
          childUri,
          slash < 0
            ? { uri: childUri, name: child, mimeType: skillFileMimeType(child), size: bytes.byteLength }
            : { uri: childUri, name: child, mimeType: DIRECTORY_MIME_TYPE },
        );
      }
    }
    if (children.size === 0 && !this.#isDirectory(uri)) return undefined;
    return [...children.values()].sort((a, b) => (a.uri < b.uri ? -1 : a.uri > b.uri ? 1 : 0));
  }

  #isDirectory(uri: string): boolean {
    for (const { skill } of this.#skills.values()) if (skill.root === uri) return true;
    return false;
  }
}

function utf8(bytes: Uint8Array): string | undefined {
  try {
    return strict.decode(bytes);
  } catch {
    return undefined;
  }
}

async function entryOf(skill: DefinedSkill): Promise<SkillEntry> {
  const resources: SkillResource[] = [];
  for (const [rel, bytes] of skill.files) {
    const uri = rel === 'SKILL.md' ? skill.uri : `${skill.root}/${rel}`;
    resources.push({ uri, digest: await skillDigest(bytes), size: bytes.byteLength });
  }
  return { uri: skill.uri, frontmatter: skill.frontmatter, resources };
}
