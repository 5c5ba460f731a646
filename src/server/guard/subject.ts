/**
 * Who a request comes from, as the guards key it: the principal (from the verified token), the session, the client,
 * the name the request targets. Computed on demand, each a field read or two.
 */
import type { JsonObject } from '../../jsonrpc/types.js';
import { isModernRevision } from '../../spec/modern.js';
import { principalOf } from '../handler/auth.js';
import type { RequestContext, SessionInfo } from '../handler/context.js';
import type { MiddlewareRequest } from '../handler/middleware.js';

/** Ids given to sessions without a transport id (stdio, in-memory), once per session. */
const localIds = new WeakMap<SessionInfo, string>();
let nextLocal = 0;

/**
 * The session of a request: the transport's session id, or a process-local id of a connection without one;
 * undefined for a stateless request (it has no session).
 */
export function sessionKey(ctx: RequestContext): string | undefined {
  const info = ctx.session;
  if (info.id !== undefined) return info.id;
  // A stateless request's SessionInfo is made per request, and a session made for one request is no session either.
  if (info.transient === true || isModernRevision(info.protocolVersion)) return undefined;
  let id = localIds.get(info);
  if (id === undefined) {
    id = `local-${++nextLocal}`;
    localIds.set(info, id);
  }
  return id;
}

/** The principal of a request (see `principalOf`), undefined when it was not authenticated. */
export function principalKey(ctx: RequestContext): string | undefined {
  return principalOf(ctx.authInfo);
}

/**
 * Who a request comes from, by what the client cannot choose: the principal of its verified token; else its network
 * address, `addr:<address>` (an IPv6 address by its /64 network, which one host may hold whole; see
 * `ctx.remoteAddress`); else, where the transport knows no address, its connection when a connection is one client
 * (stdio, in memory); else "anonymous", one key for all (an HTTP request whose address the host did not hand in).
 * Never a session id, a client id or a client name: a client gets a new one of those whenever it likes.
 */
export function requesterKey(ctx: RequestContext): string {
  const principal = principalKey(ctx);
  if (principal !== undefined) return principal;
  const address = ctx.remoteAddress;
  if (address !== undefined) return addressKey(address);
  // A session with an id of its own is one the client opened over HTTP, and can open again.
  return ctx.session.id === undefined ? (sessionKey(ctx) ?? 'anonymous') : 'anonymous';
}

/**
 * The client of a request as it names itself: the OAuth client of its token; else its session; else (a stateless
 * request without a token) its network address (as in {@link requesterKey}); else the name and version it
 * announced; else "anonymous". Each of these but the address is the client's choice (a new session, a client
 * registered anew, another name): a key for accounting, not for limits a client must not escape.
 */
export function clientKey(ctx: RequestContext): string {
  const auth = ctx.authInfo;
  if (auth?.clientId !== undefined) return `oauth:${auth.issuer ?? ''}|${auth.clientId}`;
  const session = sessionKey(ctx);
  if (session !== undefined) return `session:${session}`;
  const address = ctx.remoteAddress;
  if (address !== undefined) return addressKey(address);
  const info = ctx.session.clientInfo;
  return info === undefined ? 'anonymous' : `info:${info.name}@${info.version}`;
}

/** Keys of addresses seen lately (one string per address, not one per request); cleared when full. */
const addressKeys = new Map<string, string>();
const MAX_ADDRESS_KEYS = 10_000;

/** The key of a network address: `addr:` and the IPv4 address, or the /64 network of an IPv6 one. */
export function addressKey(address: string): string {
  let key = addressKeys.get(address);
  if (key === undefined) {
    key = `addr:${networkOf(address)}`;
    if (addressKeys.size >= MAX_ADDRESS_KEYS) addressKeys.clear();
    addressKeys.set(address, key);
  }
  return key;
}

/** An IPv4 address as is (IPv4-mapped IPv6 too); an IPv6 address as its first four groups and "::/64". */
function networkOf(address: string): string {
  if (!address.includes(':')) return address;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return mapped[1] as string;
  const [head = '', tail] = address.toLowerCase().split('%')[0]?.split('::') ?? [''];
  const left = head === '' ? [] : head.split(':');
  const right = tail === undefined || tail === '' ? [] : tail.split(':');
  const groups =
    tail === undefined
      ? left
      : [...left, ...Array<string>(Math.max(0, 8 - left.length - right.length)).fill('0'), ...right];
  if (groups.length !== 8 || groups.some((g) => !/^[0-9a-f]{1,4}$/.test(g))) return address;
  return `${groups
    .slice(0, 4)
    .map((g) => g.replace(/^0+(?=.)/, ''))
    .join(':')}::/64`;
}

/** The name a request targets: the tool or prompt name, the resource URI; undefined for other methods. */
export function targetOf(method: string, params: JsonObject): string | undefined {
  switch (method) {
    case 'tools/call':
    case 'prompts/get': {
      const name = params.name;
      return typeof name === 'string' ? name : undefined;
    }
    case 'resources/read':
    case 'resources/subscribe': {
      const uri = params.uri;
      return typeof uri === 'string' ? uri : undefined;
    }
    default:
      return undefined;
  }
}

/**
 * How a limit groups requests: by one of the built-in keys, or by any function of the request.
 * - `principal` (the default): the verified token's principal; without a token, the client's network address
 *   (`ctx.remoteAddress`; where none is known, the connection of stdio or in memory, else one key for all). Nothing
 *   a client can change between calls.
 * - `session`: the session (a stateless request: as `client`). Opt-in: a client opens a new session whenever it
 *   likes, so a limit by session is a courtesy between well-behaved clients, not a limit an abusive one meets.
 * - `client`: the OAuth client of the token, else the session, else the address, else the client's announced name.
 *   Opt-in, for the same reason: a client registers anew, opens a new session or announces another name at will.
 * - `global`: one key for every request.
 */
export type RequestKey =
  | 'principal'
  | 'session'
  | 'client'
  | 'global'
  | ((request: MiddlewareRequest) => string | undefined);

/** The function computing a key; undefined from it means the request is not counted. */
export type KeyFn = (request: MiddlewareRequest) => string | undefined;

const GLOBAL: KeyFn = () => '';

/**
 * Compiles a {@link RequestKey} once. `principal` is {@link requesterKey}: the principal, else the client's address
 * (what a client cannot choose); `session` and `client` are chosen by the client (see {@link RequestKey}).
 */
export function keyFn(key: RequestKey | undefined, fallback: RequestKey = 'principal'): KeyFn {
  const k = key ?? fallback;
  if (typeof k === 'function') return k;
  switch (k) {
    case 'principal':
      return (r) => requesterKey(r.ctx);
    case 'session':
      return (r) => sessionKey(r.ctx) ?? clientKey(r.ctx);
    case 'client':
      return (r) => clientKey(r.ctx);
    case 'global':
      return GLOBAL;
    default:
      throw new TypeError(
        `Unknown key ${JSON.stringify(k)}: use "principal", "session", "client", "global" or a function`,
      );
  }
}
