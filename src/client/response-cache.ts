import type { JsonObject } from '../jsonrpc/types.js';

interface Entry {
  result: JsonObject;
  expires: number;
}

/** Most entries the response cache keeps (oldest dropped first). */
export const MAX_CACHE_ENTRIES = 1000;

/**
 * Caches stateless results by their `ttlMs` / `cacheScope` hints: keyed by method and the params that
 * shape the result; `private` entries only within one credential partition; retries never cached.
 */
export class ResponseCache {
  readonly #entries = new Map<string, Entry>();

  /** A fresh cached result, if any. */
  get(method: string, key: string, partition: string): JsonObject | undefined {
    for (const scope of ['public', `private:${partition}`]) {
      const k = `${scope}\n${method}\n${key}`;
      const e = this.#entries.get(k);
      if (!e) continue;
      if (e.expires > Date.now()) return e.result;
      this.#entries.delete(k);
    }
    return undefined;
  }

  /** Stores a result if its hints allow it. */
  put(method: string, key: string, partition: string, result: JsonObject): void {
    const ttl = typeof result.ttlMs === 'number' && result.ttlMs > 0 ? result.ttlMs : 0;
    if (ttl === 0) return;
    const scope = result.cacheScope === 'public' ? 'public' : `private:${partition}`;
    this.#entries.set(`${scope}\n${method}\n${key}`, { result, expires: Date.now() + ttl });
    if (this.#entries.size > MAX_CACHE_ENTRIES) {
      const oldest = this.#entries.keys().next();
      if (!oldest.done) this.#entries.delete(oldest.value);
    }
  }

  /** Drops every entry of a method (a list_changed notification arrived), or everything. */
  invalidate(method?: string, key?: string): void {
    if (method === undefined) {
      this.#entries.clear();
      return;
    }
    for (const k of [...this.#entries.keys()]) {
      const [, m, rest] = k.split('\n');
      if (m === method && (key === undefined || rest === key)) this.#entries.delete(k);
    }
  }
}
