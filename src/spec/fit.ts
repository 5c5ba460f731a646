import { isJsonObject } from '../jsonrpc/types.js';
import { fitElicitationParams } from './fit-elicitation.js';

/**
 * Turns what the server sends into what one revision defines (made here, one per revision in `revision.ts`); absent for a revision that needs no
 * fitting, so the newest revisions pay nothing.
 */
export interface Fitting {
  /** A result of `method`, fitted (the same object when nothing had to change). */
  result(method: string, result: { [key: string]: unknown }): { [key: string]: unknown };
  /**
   * The params of a notification or request the server sends, fitted. Throws McpkitError for what the revision has
   * no equivalent of (a multi-select elicitation field, URL-mode elicitation before 2025-11-25), before anything is
   * sent.
   */
  params(method: string, params: { [key: string]: unknown }): { [key: string]: unknown };
}

type Obj = { [key: string]: unknown };

/**
 * What an older stateful revision lacks, by the revision that brought it (from each revision's schema.json):
 * - 2025-03-26: audio content, tool annotations, the `completions` capability, a progress `message`;
 * - 2025-06-18: resource links, `structuredContent`, `outputSchema`, `title` (tools, resources, templates, prompts,
 *   prompt arguments, Implementation), `_meta` on list entries, content blocks and resource contents,
 *   `Annotations.lastModified`;
 * - 2025-11-25: `icons`, `Implementation.description`/`websiteUrl`, `Tool.execution`, the `tasks` capability,
 *   sampling `tools`/`toolChoice` and `SamplingMessage._meta`, elicitation modes and the richer form fields
 *   (`fit-elicitation.ts`).
 */
export interface FitRules {
  /** 2025-03-26 and later. */
  readonly v2025_03_26: boolean;
  /** 2025-06-18 and later. */
  readonly v2025_06_18: boolean;
  /** 2025-11-25 and later. */
  readonly v2025_11_25: boolean;
}

/** The content types before 2025-03-26 (no audio) and before 2025-06-18 (no resource links). */
const OLDEST_CONTENT = new Set(['text', 'image', 'resource']);

/**
 * Fits what a server sends to one older stateful revision: blocks with an older equivalent are converted, fields the
 * revision lacks are dropped. Objects are copied only where something changes; a frozen result (a cached, pre-encoded
 * list page) is fitted once and remembered.
 */
export class RevisionFitting implements Fitting {
  readonly #rules: FitRules;
  readonly #revision: string;
  readonly #pages = new WeakMap<object, Obj>();
  readonly #encode: (result: Obj) => Obj;

  /** `encode` pre-encodes a fitted cached page (so it is encoded once per change, per revision). */
  constructor(revision: string, rules: FitRules, encode: (result: Obj) => Obj) {
    this.#revision = revision;
    this.#rules = rules;
    this.#encode = encode;
  }

  result(method: string, result: Obj): Obj {
    if (!Object.isFrozen(result)) return this.#result(method, result);
    const cached = this.#pages.get(result);
    if (cached) return cached;
    const fitted = this.#result(method, result);
    // A cached page fitted to nothing new stays the same pre-encoded object.
    const out = fitted === result ? result : this.#encode(fitted);
    this.#pages.set(result, out);
    return out;
  }

  params(method: string, params: Obj): Obj {
    const r = this.#rules;
    switch (method) {
      case 'notifications/progress':
        return r.v2025_03_26 ? params : omit(params, ['message']);
      case 'sampling/createMessage': {
        let out = r.v2025_11_25 ? params : omit(params, ['tools', 'toolChoice']);
        const messages = out.messages;
        if (Array.isArray(messages)) {
          const fitted = this.#list(messages, (m) => this.#samplingMessage(m));
          if (fitted !== messages) out = { ...out, messages: fitted };
        }
        return out;
      }
      case 'elicitation/create':
        return r.v2025_11_25 ? params : fitElicitationParams(params, this.#revision);
      default:
        return params;
    }
  }

  #result(method: string, result: Obj): Obj {
    switch (method) {
      case 'initialize':
        return this.#initialize(result);
      case 'tools/list':
        return this.#field(result, 'tools', (t) => this.#tool(t));
      case 'tools/call':
        return this.#callResult(result);
      case 'prompts/list':
        return this.#field(result, 'prompts', (p) => this.#prompt(p));
      case 'prompts/get':
        return this.#field(result, 'messages', (m) => this.#message(m));
      case 'resources/list':
        return this.#field(result, 'resources', (r) => this.#entry(r));
      case 'resources/templates/list':
        return this.#field(result, 'resourceTemplates', (r) => this.#entry(r));
      case 'resources/read':
        return this.#rules.v2025_06_18 ? result : this.#field(result, 'contents', (c) => omit(c, META));
      default:
        return result;
    }
  }

  /** Capabilities are fitted by the policy when the session initializes (`RevisionPolicy.serverCapabilities`). */
  #initialize(result: Obj): Obj {
    const info = result.serverInfo;
    if (!isJsonObject(info)) return result;
    const fitted = this.#implementation(info);
    return fitted === info ? result : { ...result, serverInfo: fitted };
  }

  #implementation(info: Obj): Obj {
    const r = this.#rules;
    if (r.v2025_11_25) return info;
    return omit(info, r.v2025_06_18 ? IMPLEMENTATION_2025_11_25 : IMPLEMENTATION_2025_06_18);
  }

  #callResult(result: Obj): Obj {
    const out = this.#rules.v2025_06_18 ? result : omit(result, STRUCTURED);
    return this.#field(out, 'content', (block) => this.#content(block));
  }

  #tool(tool: Obj): Obj {
    const r = this.#rules;
    if (r.v2025_11_25) return tool;
    return omit(tool, r.v2025_06_18 ? TOOL_2025_11_25 : r.v2025_03_26 ? TOOL_2025_06_18 : TOOL_2025_03_26);
  }

  #prompt(prompt: Obj): Obj {
    let out = this.#entry(prompt);
    const args = out.arguments;
    if (!this.#rules.v2025_06_18 && Array.isArray(args)) {
      const fitted = this.#list(args, (a) => omit(a, TITLE));
      if (fitted !== args) out = { ...out, arguments: fitted };
    }
    return out;
  }

  /** A resource, template or prompt list entry (they share title, `_meta`, icons and annotations). */
  #entry(entry: Obj): Obj {
    const r = this.#rules;
    if (r.v2025_11_25) return entry;
    const out = omit(entry, r.v2025_06_18 ? ICONS : ENTRY_2025_06_18);
    return r.v2025_06_18 ? out : this.#annotated(out);
  }

  /** A prompt or sampling message whose `content` is one block. */
  #message(message: Obj): Obj {
    const content = message.content;
    if (!isJsonObject(content)) return message;
    const fitted = this.#content(content);
    return fitted === content ? message : { ...message, content: fitted };
  }

  /** A sampling message: one block or, from 2025-11-25, a list of blocks. */
  #samplingMessage(message: Obj): Obj {
    const out = this.#rules.v2025_11_25 ? message : omit(message, META);
    const content = out.content;
    if (!Array.isArray(content)) return this.#message(out);
    const fitted = this.#list(content, (c) => this.#content(c));
    return fitted === content ? out : { ...out, content: fitted };
  }

  /** One content block: converted when the revision lacks its type, stripped of fields the revision lacks. */
  #content(block: Obj): Obj {
    const r = this.#rules;
    const type = block.type;
    // Resource links came with 2025-06-18, their icons with 2025-11-25.
    if (r.v2025_06_18) return r.v2025_11_25 || type !== 'resource_link' ? block : omit(block, ICONS);
    if (type === 'resource_link') return linkAsText(block);
    if (type === 'audio' && !r.v2025_03_26) return audioAsText(block, this.#revision);
    let out = this.#annotated(omit(block, META));
    if (type === 'resource' && isJsonObject(out.resource)) {
      const resource = omit(out.resource, META);
      if (resource !== out.resource) out = { ...out, resource };
    }
    // An unknown block type is left as it is: handlers may send extension types on purpose.
    return OLDEST_CONTENT.has(String(type)) || type === 'audio' ? out : block;
  }

  /** Drops `Annotations.lastModified` (2025-06-18). */
  #annotated(obj: Obj): Obj {
    const annotations = obj.annotations;
    if (!isJsonObject(annotations) || !('lastModified' in annotations)) return obj;
    return { ...obj, annotations: omit(annotations, LAST_MODIFIED) };
  }

  #field(obj: Obj, key: string, fit: (item: Obj) => Obj): Obj {
    const value = obj[key];
    if (!Array.isArray(value)) return obj;
    const fitted = this.#list(value, fit);
    return fitted === value ? obj : { ...obj, [key]: fitted };
  }

  /** Fits each object in `items`; the same array when none changed. */
  #list(items: unknown[], fit: (item: Obj) => Obj): unknown[] {
    let out: unknown[] | undefined;
    for (let i = 0; i < items.length; i++) {
      const item = items[i];
      if (!isJsonObject(item)) continue;
      const fitted = fit(item);
      if (fitted !== item) {
        out ??= items.slice();
        out[i] = fitted;
      }
    }
    return out ?? items;
  }
}

const META = ['_meta'];
const TITLE = ['title'];
const ICONS = ['icons'];
const LAST_MODIFIED = ['lastModified'];
const STRUCTURED = ['structuredContent'];
const IMPLEMENTATION_2025_11_25 = ['description', 'icons', 'websiteUrl'];
const IMPLEMENTATION_2025_06_18 = ['title', ...IMPLEMENTATION_2025_11_25];
const TOOL_2025_11_25 = ['icons', 'execution'];
const TOOL_2025_06_18 = ['title', 'outputSchema', '_meta', ...TOOL_2025_11_25];
const TOOL_2025_03_26 = ['annotations', ...TOOL_2025_06_18];
const ENTRY_2025_06_18 = ['title', '_meta', 'icons'];

/** `obj` without `keys`; the same object when it has none of them. */
function omit(obj: Obj, keys: readonly string[]): Obj {
  let out: Obj | undefined;
  for (const key of keys) {
    if (!(key in obj)) continue;
    out ??= { ...obj };
    delete out[key];
  }
  return out ?? obj;
}

/** A resource link, for a revision without them: a text block naming the resource and its URI. */
function linkAsText(block: Obj): Obj {
  const uri = String(block.uri);
  const name = typeof block.title === 'string' ? block.title : block.name;
  const label = typeof name === 'string' && name !== '' && name !== uri ? `${name}: ${uri}` : uri;
  const text = typeof block.description === 'string' ? `${label} (${block.description})` : label;
  return { type: 'text', text: `Resource link: ${text}` };
}

/** Audio, for 2024-11-05 (which has no audio content): a short text note in its place. */
function audioAsText(block: Obj, revision: string): Obj {
  const mime = typeof block.mimeType === 'string' ? block.mimeType : 'audio';
  return {
    type: 'text',
    text: `[${mime} audio omitted: protocol revision ${revision} has no audio content]`,
  };
}
