/**
 * Caching of tool results. A tool is marked safe to cache by its own definition: `cache: { ttlMs }` in its config
 * (the author's promise that the same arguments give the same result for that long). Results are kept per
 * principal by default (`scope: 'shared'` shares them between callers), keyed by the arguments' JSON, in a bounded
 * in-memory map; an update of the tool forgets them. Only successful results are kept.
 */
import type { JsonObject } from '../../jsonrpc/types.js';
import { isInputRequired } from '../../spec/input-required.js';
import type { Registry } from '../definitions/registry.js';
import type { ToolDef, ToolUpdate } from '../definitions/tools.js';
import { grants, principalOf, scopesOf } from '../handler/auth.js';
import { failureOf } from '../handler/failure.js';
import type { Answer, MiddlewareRequest } from '../handler/middleware.js';
import type { AccessPolicy } from './access.js';
import { positiveInteger } from './rate.js';
import type { Last, Stage } from './stage.js';

/** The `resultCache` option of a server. */
export interface ResultCacheOptions {
  /** Most results kept (least recently used dropped). Default 1000. */
  readonly maxEntries?: number;
  /** The clock, in ms (tests). Default `Date.now`. */
  readonly now?: () => number;
}

interface Cached {
  readonly def: ToolDef;
  readonly expires: number;
  readonly result: JsonObject;
}

/** The result cache of tools marked `cache`, over the tools registry. */
export class ResultCache {
  readonly #tools: Registry<ToolDef, ToolUpdate>;
  readonly #access: AccessPolicy | undefined;
  readonly #max: number;
  readonly #now: () => number;
  readonly #entries = new Map<string, Cached>();

  constructor(
    tools: Registry<ToolDef, ToolUpdate>,
    access: AccessPolicy | undefined,
    options: ResultCacheOptions = {},
  ) {
    this.#tools = tools;
    this.#access = access;
    this.#max =
      options.maxEntries === undefined ? 1000 : positiveInteger(options.maxEntries, 'resultCache.maxEntries');
    this.#now = options.now ?? Date.now;
  }

  /** The stage of the cache of the tool `tool` in front of `inner` (it looks at the tool's `cache` per call). */
  stage(tool: string, inner: Stage): Stage {
    return new CacheStage(this, tool, inner);
  }

  /** @internal Answers a call from the cache, or runs it and keeps a successful result. */
  run(tool: string, request: MiddlewareRequest, last: Last, inner: Stage): Answer {
    const def = this.#tools.get(tool)?.def;
    const cache = def?.config.cache;
    if (def === undefined || cache === undefined) return inner.run(request, last);
    // A caller the tool is not for gets no cached answer: the call itself refuses it.
    const auth = request.ctx.authInfo;
    if (auth !== undefined && !grants(auth.scopes, scopesOf(def))) return inner.run(request, last);
    if (this.#access !== undefined && !this.#access.allows('tool', tool, auth))
      return inner.run(request, last);
    const who = cache.scope === 'shared' ? '' : (principalOf(auth) ?? '');
    const key = `${who}\u0000${tool}\u0000${JSON.stringify(request.params.arguments ?? {})}`;
    const entries = this.#entries;
    const hit = entries.get(key);
    if (hit !== undefined) {
      entries.delete(key);
      if (hit.def === def && hit.expires > this.#now()) {
        entries.set(key, hit);
        return hit.result;
      }
    }
    const keep = (result: JsonObject): JsonObject => {
      if (
        result.isError !== true &&
        !isInputRequired(result) &&
        failureOf(result) === undefined &&
        'content' in result
      ) {
        if (entries.size >= this.#max) {
          const oldest = entries.keys().next();
          if (!oldest.done) entries.delete(oldest.value);
        }
        entries.set(key, { def, expires: this.#now() + cache.ttlMs, result });
      }
      return result;
    };
    const out = inner.run(request, last);
    return out instanceof Promise ? out.then(keep) : keep(out);
  }
}

class CacheStage implements Stage {
  readonly #cache: ResultCache;
  readonly #tool: string;
  readonly #inner: Stage;

  constructor(cache: ResultCache, tool: string, inner: Stage) {
    this.#cache = cache;
    this.#tool = tool;
    this.#inner = inner;
  }

  run(request: MiddlewareRequest, last: Last): Answer {
    return this.#cache.run(this.#tool, request, last, this.#inner);
  }
}
