import { ErrorCode, JsonRpcError, McpkitError } from '../../jsonrpc/errors.js';
import { preEncode } from '../../jsonrpc/parse.js';
import type { JsonObject } from '../../jsonrpc/types.js';
import { grants, type Scoped, scopesOf } from '../handler/auth.js';
import { decodeCursor, slicePage } from './pagination.js';

/** A filter of list pages by entry key (access rules), whose pages are cached by `key`. */
export interface ListView {
  readonly key: string;
  allows(name: string): boolean;
}

/** A handle to one registered tool, resource, template or prompt. */
export interface RegisteredHandle<TUpdate> {
  /** Whether the entry is listed and callable. */
  readonly enabled: boolean;
  /** Lists the entry again (sends list_changed). */
  enable(): void;
  /** Hides the entry (sends list_changed). */
  disable(): void;
  /** Changes the entry's definition (sends list_changed). */
  update(changes: TUpdate): void;
  /** Removes the entry for good (sends list_changed). */
  remove(): void;
}

/** One entry as the registry stores it. */
export interface Entry<TDef> {
  key: string;
  def: TDef;
  enabled: boolean;
}

/** @internal Watches a registry: `adding` may refuse a new key by throwing; `changed` follows every change. */
export interface RegistryObserver<TDef> {
  adding?(key: string, def: TDef): void;
  changed?(): void;
}

/**
 * An ordered, keyed registry with handles, change notification and cached paginated list results.
 * The list pages are built once per change, so listing costs a lookup. When some entry needs OAuth scopes, the
 * pages an authenticated caller sees are built once per set of granted scopes (bounded) and cached the same way.
 */
export class Registry<TDef extends Scoped, TUpdate> {
  readonly #entries = new Map<string, Entry<TDef>>();
  readonly #kind: string;
  readonly #listKey: string;
  readonly #describe: (def: TDef) => JsonObject;
  readonly #apply: (def: TDef, changes: TUpdate) => TDef;
  readonly #onchange: () => void;
  #pageSize: number;
  #pages: JsonObject[] | undefined;
  /** Whether an enabled entry needs scopes; undefined until asked after a change. */
  #scoped: boolean | undefined;
  /** Pages per set of granted scopes (space-joined), while some entry needs scopes. */
  readonly #filtered = new Map<string, JsonObject[]>();
  #observers: RegistryObserver<TDef>[] = [];

  constructor(options: {
    kind: string;
    listKey: string;
    pageSize: number;
    describe: (def: TDef) => JsonObject;
    apply: (def: TDef, changes: TUpdate) => TDef;
    onchange: () => void;
  }) {
    this.#kind = options.kind;
    this.#listKey = options.listKey;
    this.#pageSize = options.pageSize;
    this.#describe = options.describe;
    this.#apply = options.apply;
    this.#onchange = options.onchange;
  }

  /** Number of entries (enabled or not). */
  get size(): number {
    return this.#entries.size;
  }

  /** Adds an entry; a duplicate key is a definition error. */
  add(key: string, def: TDef): RegisteredHandle<TUpdate> {
    this.check(key, def);
    const entry: Entry<TDef> = { key, def, enabled: true };
    this.#entries.set(key, entry);
    this.#changed();
    return this.#handle(entry);
  }

  /**
   * @internal Throws what `add(key, def)` would throw, adding nothing: a duplicate key, or a refusal of an
   * observer (the server this one is mounted in, and so on up the chain of mounts).
   */
  check(key: string, def: TDef): void {
    if (this.#entries.has(key)) {
      throw new McpkitError(
        'INVALID_DEFINITION',
        `A ${this.#kind} named ${JSON.stringify(key)} is already registered`,
      );
    }
    for (const o of this.#observers) o.adding?.(key, def);
  }

  /** The enabled entry with this key, if any. */
  get(key: string): Entry<TDef> | undefined {
    const e = this.#entries.get(key);
    return e?.enabled ? e : undefined;
  }

  /** @internal Whether an entry (enabled or not) has this key. */
  has(key: string): boolean {
    return this.#entries.has(key);
  }

  /** @internal Every entry, enabled or not, in registration order. */
  all(): IterableIterator<Entry<TDef>> {
    return this.#entries.values();
  }

  /** @internal Replaces the definition of an existing entry (a mounted server's entry that changed). */
  replace(key: string, def: TDef): void {
    const entry = this.#entries.get(key);
    if (!entry)
      throw new McpkitError('INVALID_DEFINITION', `No ${this.#kind} ${JSON.stringify(key)} to replace`);
    entry.def = def;
    this.#changed();
  }

  /** @internal Watches additions and changes (a server mounted elsewhere); returns the way to stop. */
  observe(observer: RegistryObserver<TDef>): () => void {
    this.#observers = [...this.#observers, observer];
    return () => {
      this.#observers = this.#observers.filter((o) => o !== observer);
    };
  }

  /** Enabled entries in registration order. */
  *enabled(): IterableIterator<Entry<TDef>> {
    for (const e of this.#entries.values()) if (e.enabled) yield e;
  }

  /** Whether some enabled entry needs scopes (then what a caller sees depends on its scopes). */
  get scoped(): boolean {
    if (this.#scoped === undefined) {
      this.#scoped = false;
      for (const e of this.enabled()) {
        if (scopesOf(e.def).length > 0) {
          this.#scoped = true;
          break;
        }
      }
    }
    return this.#scoped;
  }

  /**
   * One page of the list result (cached until the registry changes). `granted`: the scopes of an authenticated
   * caller, who sees only the entries it may use; undefined for an unauthenticated one, who sees them all. `view`:
   * a further filter by name (access rules), whose pages are cached by its key.
   */
  page(cursor: unknown, granted?: readonly string[], view?: ListView): JsonObject {
    const byScope = granted !== undefined && this.scoped;
    const pages =
      view !== undefined
        ? this.#pagesFor(byScope ? granted : undefined, view)
        : byScope
          ? this.#pagesFor(granted, undefined)
          : (this.#pages ?? this.#build());
    const offset = decodeCursor(cursor);
    const index = offset / this.#pageSize;
    const page = Number.isInteger(index) ? pages[index] : undefined;
    if (!page) throw new JsonRpcError(ErrorCode.InvalidParams, 'Invalid cursor');
    return page;
  }

  /** Whether a caller with `granted` scopes (undefined: not authenticated) may see and use `entry`. */
  allows(entry: Entry<TDef>, granted: readonly string[] | undefined, view?: ListView): boolean {
    return (
      (granted === undefined || grants(granted, scopesOf(entry.def))) && (view?.allows(entry.key) ?? true)
    );
  }

  #pagesFor(granted: readonly string[] | undefined, view: ListView | undefined): JsonObject[] {
    const key =
      view === undefined
        ? (granted as readonly string[]).join(' ')
        : `${view.key}\u0000${granted?.join(' ') ?? '*'}`;
    let pages = this.#filtered.get(key);
    if (pages === undefined) {
      if (this.#filtered.size >= 256) this.#filtered.clear();
      pages = this.#paginate([...this.enabled()].filter((e) => this.allows(e, granted, view)));
      this.#filtered.set(key, pages);
    }
    return pages;
  }

  #build(): JsonObject[] {
    const pages = this.#paginate([...this.enabled()]);
    this.#pages = pages;
    return pages;
  }

  #paginate(entries: Entry<TDef>[]): JsonObject[] {
    const items = entries.map((e) => this.#describe(e.def));
    const pages: JsonObject[] = [];
    for (let i = 0; i === 0 || i < items.length; i += this.#pageSize) {
      pages.push(preEncode(slicePage(items, i, this.#pageSize, this.#listKey)));
    }
    return pages;
  }

  #changed(): void {
    this.#pages = undefined;
    this.#scoped = undefined;
    this.#filtered.clear();
    this.#onchange();
    for (const o of this.#observers) o.changed?.();
  }

  #handle(entry: Entry<TDef>): RegisteredHandle<TUpdate> {
    const live = () => {
      if (this.#entries.get(entry.key) !== entry) {
        throw new McpkitError(
          'INVALID_DEFINITION',
          `The ${this.#kind} ${JSON.stringify(entry.key)} was removed`,
        );
      }
    };
    const setEnabled = (enabled: boolean) => {
      live();
      if (entry.enabled === enabled) return;
      entry.enabled = enabled;
      this.#changed();
    };
    return {
      get enabled() {
        return entry.enabled;
      },
      enable: () => setEnabled(true),
      disable: () => setEnabled(false),
      update: (changes) => {
        live();
        entry.def = this.#apply(entry.def, changes);
        this.#changed();
      },
      remove: () => {
        live();
        this.#entries.delete(entry.key);
        this.#changed();
      },
    };
  }
}
