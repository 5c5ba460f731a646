import type { Client } from '../client/client.js';
import type { RequestOptions } from '../protocol/outgoing.js';
import type { ListKind } from './connection.js';
import type { ServerLists } from './registry.js';

/** Lists what `client`'s server offers of `kinds` (those its capabilities declare), in parallel. */
export async function listServer(
  client: Client,
  kinds: readonly ListKind[],
  options: RequestOptions,
  onfail: (what: string, error: unknown) => void,
): Promise<ServerLists> {
  const caps = client.serverCapabilities ?? {};
  const lists: ServerLists = {};
  const jobs: Promise<void>[] = [];
  const job = <T>(what: string, list: Promise<T>, keep: (value: T) => void) =>
    jobs.push(list.then(keep, (e: unknown) => onfail(what, e)));
  if (kinds.includes('tools') && caps.tools)
    job('tools', client.listTools(options), (v) => {
      lists.tools = v;
    });
  if (kinds.includes('prompts') && caps.prompts)
    job('prompts', client.listPrompts(options), (v) => {
      lists.prompts = v;
    });
  if (kinds.includes('resources') && caps.resources) {
    job('resources', client.listResources(options), (v) => {
      lists.resources = v;
    });
    job('resource templates', client.listResourceTemplates(options), (v) => {
      lists.templates = v;
    });
  }
  await Promise.all(jobs);
  return lists;
}

interface Pending {
  kinds: Set<ListKind>;
  timer: ReturnType<typeof setTimeout> | undefined;
  running: boolean;
}

/**
 * Debounces list changes per server: changes are gathered for `debounceMs`, then refreshed once; changes that come
 * while a refresh runs make one more refresh after it. A flood of notifications costs a few refreshes, never one
 * each, and at most one refresh per server runs at a time.
 */
export class RefreshScheduler {
  readonly #debounceMs: number;
  readonly #run: (server: string, kinds: ListKind[]) => Promise<void>;
  readonly #pending = new Map<string, Pending>();

  constructor(debounceMs: number, run: (server: string, kinds: ListKind[]) => Promise<void>) {
    this.#debounceMs = debounceMs;
    this.#run = run;
  }

  changed(server: string, kind: ListKind): void {
    let p = this.#pending.get(server);
    if (!p) {
      p = { kinds: new Set(), timer: undefined, running: false };
      this.#pending.set(server, p);
    }
    p.kinds.add(kind);
    this.#schedule(server, p);
  }

  /** Drops what is pending (the host is closing). */
  cancel(): void {
    for (const p of this.#pending.values()) {
      clearTimeout(p.timer);
      p.timer = undefined;
      p.kinds.clear();
    }
  }

  #schedule(server: string, p: Pending): void {
    if (p.timer !== undefined || p.running) return;
    p.timer = setTimeout(() => {
      p.timer = undefined;
      const kinds = [...p.kinds];
      p.kinds.clear();
      if (kinds.length === 0) return;
      p.running = true;
      void this.#run(server, kinds).finally(() => {
        p.running = false;
        if (p.kinds.size > 0) this.#schedule(server, p);
      });
    }, this.#debounceMs);
  }
}
