import { McpkitError } from '../jsonrpc/errors.js';
import type { JsonObject } from '../jsonrpc/types.js';

/** Walks every page of a paginated list method, up to `pageLimit` pages. */
export async function collectPages<T>(
  call: (params: JsonObject | undefined) => Promise<JsonObject>,
  method: string,
  key: string,
  pageLimit: number,
): Promise<T[]> {
  const items: T[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < pageLimit; page++) {
    const result = await call(cursor === undefined ? undefined : { cursor });
    const list = result[key];
    if (Array.isArray(list)) items.push(...(list as T[]));
    const next = result.nextCursor;
    if (typeof next !== 'string' || next === '') return items;
    cursor = next;
  }
  throw new McpkitError(
    'PAGE_LIMIT',
    `${method} returned more than ${pageLimit} pages; raise pageLimit to read them all`,
  );
}
