import type { JsonObject } from '../jsonrpc/types.js';
import { CACHEABLE_METHODS, META } from '../spec/modern.js';
import type { Implementation } from '../spec/types.js';

/**
 * Tucks away the protocol's own fields of a complete 2026-07-28 result (`resultType`, the cache hints `ttlMs` and
 * `cacheScope` of the cacheable methods, and the server's info in `_meta`): they stay readable as properties
 * (typed through {@link resultPlumbing}) but are not enumerable, so what a
 * user prints, spreads, compares or serializes is the result they asked for, as in the stateful era. `_meta` itself
 * is tucked away only when nothing else is in it. Returns a new object (shallow): the one received may be shared
 * (an in-memory transport hands over the server's own objects).
 */
export function tuckPlumbing(method: string, result: JsonObject): JsonObject {
  const cacheable = CACHEABLE_METHODS.has(method);
  const out: JsonObject = {};
  for (const key in result) {
    const value = result[key];
    if (value === undefined) continue;
    if (key === 'resultType' || (cacheable && (key === 'ttlMs' || key === 'cacheScope')))
      hidden(out, key, value);
    else if (key === '_meta') tuckMeta(out, value);
    else out[key] = value;
  }
  return out;
}

function tuckMeta(out: JsonObject, meta: unknown): void {
  if (!isJsonObject(meta) || !Object.hasOwn(meta, META.serverInfo)) {
    out._meta = meta;
    return;
  }
  const copy: JsonObject = {};
  let shown = 0;
  for (const key in meta) {
    const value = meta[key];
    if (value === undefined) continue;
    if (key === META.serverInfo) hidden(copy, key, value);
    else {
      copy[key] = value;
      shown++;
    }
  }
  if (shown === 0) hidden(out, '_meta', copy);
  else out._meta = copy;
}

function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function hidden(target: JsonObject, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: false, writable: true, configurable: true });
}

/** The protocol's own fields of a result, as {@link resultPlumbing} reads them. */
export interface ResultPlumbing {
  /** `complete` for an answer (2026-07-28); absent in the stateful era. */
  resultType?: string;
  /** How long the client may reuse the result, in milliseconds (cacheable methods of 2026-07-28). */
  ttlMs?: number;
  /** Who may share a cached copy: `public` or `private`. */
  cacheScope?: string;
  /** The server's name and version, as the result's `_meta` carried it. */
  serverInfo?: Implementation;
}

/**
 * The protocol fields a client keeps on a 2026-07-28 result without showing them (`resultType`, `ttlMs`,
 * `cacheScope`, the server info of `_meta`): readable here, typed. Empty for a result of the stateful era.
 *
 * @example
 * const read = await client.readResource('memo://one');
 * console.log(read); // { contents: [...] }
 * console.log(resultPlumbing(read).ttlMs); // 60000
 */
export function resultPlumbing(result: object): ResultPlumbing {
  const fields: ResultPlumbing = {};
  const resultType: unknown = Reflect.get(result, 'resultType');
  if (typeof resultType === 'string') fields.resultType = resultType;
  const ttlMs: unknown = Reflect.get(result, 'ttlMs');
  if (typeof ttlMs === 'number') fields.ttlMs = ttlMs;
  const cacheScope: unknown = Reflect.get(result, 'cacheScope');
  if (typeof cacheScope === 'string') fields.cacheScope = cacheScope;
  const meta: unknown = Reflect.get(result, '_meta');
  const serverInfo: unknown = isJsonObject(meta) ? meta[META.serverInfo] : undefined;
  if (
    isJsonObject(serverInfo) &&
    typeof serverInfo.name === 'string' &&
    typeof serverInfo.version === 'string'
  ) {
    fields.serverInfo = serverInfo as Implementation;
  }
  return fields;
}
