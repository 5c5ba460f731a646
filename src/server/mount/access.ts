import { ErrorCode, JsonRpcError } from '../../jsonrpc/errors.js';
import type { Access, NamedKind } from '../definitions/access.js';
import type { ListView } from '../definitions/registry.js';
import type { AccessPolicy } from '../guard/access.js';
import { type AuthInfo, principalOf } from '../handler/auth.js';

/** The mounted server's rules as they are now (its own and its mounts'), read at each use. */
export type AccessSource = () => Access | undefined;

/** One entry a mount added, as the server it came from names it. */
export interface MountedName {
  readonly source: AccessSource;
  /** Its name (URI, template) in the mounted server. */
  readonly name: string;
  /** A template's: the mounted server's URI of a URI read through it. */
  readonly uri?: (uri: string) => string;
}

type ByKind<T> = Record<NamedKind, T>;

/**
 * The access rules of a server with servers mounted in it: its own, and for each entry a mount added, the rules of
 * the server it came from, under that server's names. So a mounted server's rules still hide its entries from the
 * lists of the server it is mounted in and refuse their use there. Views are made once per token and kind; list
 * pages stay cached by principal and scopes (the registries are rebuilt whenever a mount adds or removes entries).
 */
export class ComposedAccess implements Access {
  readonly #own: AccessPolicy | undefined;
  readonly #mounted: ByKind<Map<string, MountedName>> = {
    tool: new Map(),
    prompt: new Map(),
    resource: new Map(),
    template: new Map(),
  };
  /** The mounted servers' rules, with the number of entries each added. */
  readonly #sources = new Map<AccessSource, number>();
  readonly #views = new WeakMap<AuthInfo, Partial<ByKind<ListView>>>();
  readonly #anonymous: Partial<ByKind<ListView>> = {};

  constructor(own: AccessPolicy | undefined) {
    this.#own = own;
  }

  /** Notes an entry a mount added as `parentName`; returns what takes it away again. */
  add(kind: NamedKind, parentName: string, entry: MountedName): () => void {
    const names = this.#mounted[kind];
    names.set(parentName, entry);
    this.#sources.set(entry.source, (this.#sources.get(entry.source) ?? 0) + 1);
    return () => {
      if (names.get(parentName) === entry) names.delete(parentName);
      const left = (this.#sources.get(entry.source) ?? 1) - 1;
      if (left > 0) this.#sources.set(entry.source, left);
      else this.#sources.delete(entry.source);
    };
  }

  governs(kind: NamedKind): boolean {
    if (this.#own?.governs(kind)) return true;
    for (const source of this.#sources.keys()) {
      const access = source();
      if (access && (access.governs(kind) || (kind === 'resource' && access.governs('template'))))
        return true;
    }
    return false;
  }

  allows(kind: NamedKind, name: string, auth: AuthInfo | undefined, template?: string): boolean {
    if (this.#own && !this.#own.allows(kind, name, auth, template)) return false;
    if (this.#sources.size === 0) return true;
    const mounted = this.#mounted[kind].get(name);
    if (mounted) return mounted.source()?.allows(kind, mounted.name, auth) ?? true;
    if (kind !== 'resource' || template === undefined) return true;
    const through = this.#mounted.template.get(template);
    if (!through) return true;
    const uri = through.uri ? through.uri(name) : name;
    return through.source()?.allows('resource', uri, auth, through.name) ?? true;
  }

  check(kind: NamedKind, name: string, auth: AuthInfo | undefined, template?: string): void {
    if (this.allows(kind, name, auth, template)) return;
    throw new JsonRpcError(
      ErrorCode.InvalidRequest,
      `Forbidden: the ${kind} ${name} is not available to this caller`,
      { reason: 'access_denied' },
    );
  }

  view(kind: NamedKind, auth: AuthInfo | undefined): ListView | undefined {
    if (!this.governs(kind)) return undefined;
    let views = this.#anonymous;
    if (auth !== undefined) {
      const known = this.#views.get(auth);
      views = known ?? {};
      if (!known) this.#views.set(auth, views);
    }
    let view = views[kind];
    if (view === undefined) {
      view = {
        key: auth === undefined ? '' : `${principalOf(auth) ?? ''}\n${[...auth.scopes].sort().join(' ')}`,
        allows: (name) => this.allows(kind, name, auth),
      };
      views[kind] = view;
    }
    return view;
  }
}
