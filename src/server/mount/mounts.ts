import { McpkitError } from '../../jsonrpc/errors.js';
import type { AccessPolicy } from '../guard/access.js';
import type { SessionInfo } from '../handler/context.js';
import { ComposedAccess } from './access.js';
import { type Mounted, type MountHost, type MountOptions, type MountSource, mount } from './mount.js';

/**
 * One `McpServer`'s side of composition: the servers mounted in it (each with its number of live mounts, as one
 * server may be mounted twice; a mount that would make a cycle is refused), the access rules they bring along, and
 * who listens to its own resource updates (the mounts of it in other servers).
 */
export class Mounts {
  readonly #children = new Map<Mounts, number>();
  readonly #own: AccessPolicy | undefined;
  #access: ComposedAccess | undefined;
  #updateListeners: ((uri: string) => void)[] = [];
  /** What each live mount in this server tells its server when a session of this one ends. */
  readonly #ended = new Set<(session: SessionInfo) => void>();

  /** `own`: the server's own access rules (option `access`). */
  constructor(own: AccessPolicy | undefined) {
    this.#own = own;
  }

  /** The server's access rules with those of what is mounted in it; undefined until something is mounted. */
  get access(): ComposedAccess | undefined {
    return this.#access;
  }

  /** Mounts the server whose side is `child` (its entries: `source`) in the server of `host`. */
  add(
    host: Omit<MountHost, 'access'>,
    prefix: string,
    child: Mounts,
    source: Omit<MountSource, 'watchResourceUpdates'>,
    options: MountOptions | undefined,
  ): Mounted {
    if (child === this || child.#reaches(this))
      throw new McpkitError(
        'INVALID_DEFINITION',
        `Mounting "${prefix}": a server cannot be mounted in itself`,
      );
    this.#access ??= new ComposedAccess(this.#own);
    const mounted = mount(
      { ...host, access: this.#access },
      prefix,
      { ...source, watchResourceUpdates: (listener) => child.#watch(listener) },
      options,
    );
    this.#children.set(child, (this.#children.get(child) ?? 0) + 1);
    // One function per mount, so a server mounted twice hears of each session once per mount, and no more.
    const ended = (session: SessionInfo) => source.sessionEnded(session);
    this.#ended.add(ended);
    let live = true;
    return {
      prefix: mounted.prefix,
      unmount: () => {
        if (!live) return;
        live = false;
        mounted.unmount();
        this.#ended.delete(ended);
        const left = (this.#children.get(child) ?? 1) - 1;
        if (left > 0) this.#children.set(child, left);
        else this.#children.delete(child);
      },
    };
  }

  /** Passes a resource update of this server on to the servers it is mounted in. */
  resourceUpdated(uri: string): void {
    for (const listener of this.#updateListeners) listener(uri);
  }

  /**
   * A session of this server (or of one it is mounted in) ended: the servers mounted here let go of what it held
   * through them (a mounted proxy's subscriptions on the server behind it).
   */
  sessionEnded(session: SessionInfo): void {
    for (const ended of this.#ended) ended(session);
  }

  #reaches(target: Mounts): boolean {
    for (const child of this.#children.keys()) if (child === target || child.#reaches(target)) return true;
    return false;
  }

  #watch(listener: (uri: string) => void): () => void {
    this.#updateListeners = [...this.#updateListeners, listener];
    return () => {
      this.#updateListeners = this.#updateListeners.filter((l) => l !== listener);
    };
  }
}
