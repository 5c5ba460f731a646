import { McpkitError } from '../../jsonrpc/errors.js';
import type { JsonObject } from '../../jsonrpc/types.js';
import type { ServerCapabilities } from '../../spec/types.js';
import type { ListKind } from './listen.js';
import type { CapabilityGate } from './methods.js';

const NOTHING: readonly string[] = Object.freeze([]);

/**
 * What a server declares: the capabilities fixed in its options, or, when none were given, capabilities
 * derived from the kinds of feature registered so far (with `listChanged` and `subscribe` on).
 */
export class DeclaredCapabilities {
  readonly #fixed: ServerCapabilities | undefined;
  readonly #templates: { readonly size: number };
  readonly #used = new Set<ListKind>();
  /** The derived capabilities last built, with what they were built from (kinds are only ever added). */
  #derived: { kinds: number; withTemplates: boolean; caps: ServerCapabilities } | undefined;
  /** Extensions the server itself implements (skills), declared on top of the fixed or derived capabilities. */
  readonly #extensions: { [name: string]: JsonObject } = {};
  /** The capabilities with the extensions added, and what they were built from. */
  #extended: { base: ServerCapabilities; caps: ServerCapabilities } | undefined;

  /** `templates`: the resource templates (any registered one means completions are on). */
  constructor(fixed: ServerCapabilities | undefined, templates: { readonly size: number }) {
    this.#fixed = fixed;
    this.#templates = templates;
  }

  /**
   * Notes that a feature of `kind` is registered (`completes`: one that offers completion, a prompt or a template);
   * an error when the fixed capabilities leave it out. Returns the capabilities this registration adds to the
   * derived ones (none when they are fixed).
   */
  use(kind: ListKind, completes = false): readonly string[] {
    const fixed = this.#fixed;
    if (fixed) {
      if (fixed[kind] === undefined) {
        throw new McpkitError(
          'INVALID_DEFINITION',
          `Cannot register ${kind}: the server's declared capabilities do not include "${kind}"`,
        );
      }
      return NOTHING;
    }
    const added: string[] = [];
    if (!this.#used.has(kind)) added.push(kind);
    if (completes && !this.#completes()) added.push('completions');
    this.#used.add(kind);
    return added;
  }

  /**
   * The capabilities declared right now (read per request: derived ones are built once per change of what is
   * registered, and frozen, since every caller shares them).
   */
  current(): ServerCapabilities {
    const base = this.#base();
    if (Object.keys(this.#extensions).length === 0) return base;
    if (this.#extended?.base === base) return this.#extended.caps;
    // Under `extensions` (2026-07-28) and `experimental` (kept by older revisions, which have no `extensions`).
    const caps: ServerCapabilities = {
      ...base,
      extensions: { ...(base.extensions as JsonObject | undefined), ...this.#extensions },
      experimental: { ...base.experimental, ...this.#extensions },
    };
    this.#extended = { base, caps: Object.freeze(caps) };
    return caps;
  }

  /** Declares an extension the server implements, with its settings (read by every later `current()`). */
  extend(name: string, settings: JsonObject): void {
    this.#extensions[name] = Object.freeze(settings);
    this.#extended = undefined;
  }

  #base(): ServerCapabilities {
    if (this.#fixed) return this.#fixed;
    const used = this.#used;
    const withTemplates = this.#templates.size > 0;
    const cached = this.#derived;
    if (cached && cached.kinds === used.size && cached.withTemplates === withTemplates) return cached.caps;
    const caps: ServerCapabilities = { logging: {} };
    if (used.has('tools')) caps.tools = { listChanged: true };
    if (used.has('resources')) caps.resources = { subscribe: true, listChanged: true };
    if (used.has('prompts')) caps.prompts = { listChanged: true };
    if (this.#completes()) caps.completions = {};
    for (const value of Object.values(caps)) Object.freeze(value);
    this.#derived = { kinds: used.size, withTemplates, caps: Object.freeze(caps) };
    return caps;
  }

  #completes(): boolean {
    return this.#used.has('prompts') || this.#templates.size > 0;
  }
}

/** Whether `caps` declare the capability a method needs. */
export function declares(caps: ServerCapabilities, gate: CapabilityGate): boolean {
  if (gate === 'resources.subscribe') return caps.resources?.subscribe === true;
  return caps[gate] !== undefined;
}

/** Whether `caps` say the list of `kind` can change (so its list_changed notifications are sent). */
export function listCanChange(caps: ServerCapabilities, kind: ListKind): boolean | undefined {
  return (caps[kind] as { listChanged?: boolean } | undefined)?.listChanged;
}
