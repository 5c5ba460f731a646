import { McpkitError } from '../jsonrpc/errors.js';
import type { ServerCapabilities } from '../spec/types.js';
import type { CapabilityGate } from './methods.js';
import type { ListKind } from './modern/listen.js';

/**
 * What a server declares: the capabilities fixed in its options, or, when none were given, capabilities
 * derived from the kinds of feature registered so far (with `listChanged` and `subscribe` on).
 */
export class DeclaredCapabilities {
  readonly #fixed: ServerCapabilities | undefined;
  readonly #templates: { readonly size: number };
  readonly #used = new Set<ListKind>();

  /** `templates`: the resource templates (any registered one means completions are on). */
  constructor(fixed: ServerCapabilities | undefined, templates: { readonly size: number }) {
    this.#fixed = fixed;
    this.#templates = templates;
  }

  /** Notes that a feature of `kind` is registered; an error when the fixed capabilities leave it out. */
  use(kind: ListKind): void {
    this.#used.add(kind);
    const fixed = this.#fixed;
    if (fixed && fixed[kind] === undefined) {
      throw new McpkitError(
        'INVALID_DEFINITION',
        `Cannot register ${kind}: the server's declared capabilities do not include "${kind}"`,
      );
    }
  }

  /** The capabilities declared right now. */
  current(): ServerCapabilities {
    if (this.#fixed) return this.#fixed;
    const used = this.#used;
    const caps: ServerCapabilities = { logging: {} };
    if (used.has('tools')) caps.tools = { listChanged: true };
    if (used.has('resources')) caps.resources = { subscribe: true, listChanged: true };
    if (used.has('prompts')) caps.prompts = { listChanged: true };
    if (used.has('prompts') || this.#templates.size > 0) caps.completions = {};
    return caps;
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
