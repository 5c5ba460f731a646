// Issue 24: an endpoint's request path is imported when the endpoint is made, not with the root entry, so a server
// that makes none (a stdio server) never parses it. What its options need checked is checked at once, as before.
import { toError } from '../../../jsonrpc/errors.js';
import type { HttpReply, HttpRequestLike } from './http.js';

/** The request path of an endpoint: what its handler's `handle` and `close` call once it is loaded. */
export interface EndpointRoutes {
  handle(req: HttpRequestLike): Promise<HttpReply>;
  close(): Promise<void>;
}

/**
 * `handle` and `close` over the routes `load` makes, started now: until they are made, requests (and `close`) wait for
 * them, in order; then they are called directly. A failure to load is told to `onerror` and answers every call.
 */
export function deferredRoutes(
  load: () => Promise<EndpointRoutes>,
  onerror: (error: Error) => void,
): EndpointRoutes {
  let routes: EndpointRoutes | undefined;
  const loading = load().then((made) => {
    routes = made;
    return made;
  });
  loading.catch((e: unknown) => onerror(toError(e)));
  return {
    handle: (req) => (routes ? routes.handle(req) : loading.then((r) => r.handle(req))),
    close: () => (routes ? routes.close() : loading.then((r) => r.close())),
  };
}
