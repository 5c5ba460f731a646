/**
 * The client's address as an endpoint reports it to the server (`ctx.remoteAddress`, the rate limiter's key for a
 * request without a session or token): the connection's peer address by default. Behind a reverse proxy every
 * connection comes from the proxy; the endpoint can then be told to read a forwarded header instead, which it
 * never does unless told, since any client can send one.
 */
import { McpkitError } from '../../../jsonrpc/errors.js';
import type { HttpRequestLike } from './http.js';

/**
 * Where the client's address is read from behind reverse proxies.
 *
 * @example
 * // nginx in front, with `proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;`
 * serve(server, { clientAddress: { header: 'x-forwarded-for', proxies: 1 } });
 */
export interface ClientAddressOptions {
  /**
   * The header naming the client: `x-forwarded-for` (a list each proxy appends to), `forwarded` (RFC 7239, its
   * `for=` values) or a single-address header a proxy sets (`x-real-ip`).
   */
  readonly header: string;
  /**
   * How many proxies of yours stand in front of the server, each appending the address it saw: the client is the
   * entry this many from the end (entries before it are what the client itself sent, and are not trusted). Default 1.
   * A request whose header has fewer entries (or none) is keyed by its connection's address.
   */
  readonly proxies?: number;
}

/** Reads the address of a request. */
export type AddressReader = (req: HttpRequestLike) => string | undefined;

const PEER: AddressReader = (req) => req.remoteAddress;

/** The reader of `options` (none: the connection's peer address). Bad options throw `INVALID_DEFINITION`. */
export function addressReader(options: ClientAddressOptions | undefined): AddressReader {
  if (options === undefined) return PEER;
  const header = options.header;
  if (typeof header !== 'string' || !/^[a-z0-9-]+$/i.test(header))
    throw new McpkitError('INVALID_DEFINITION', 'clientAddress.header must be a header name');
  const proxies = options.proxies ?? 1;
  if (!Number.isInteger(proxies) || proxies < 1)
    throw new McpkitError('INVALID_DEFINITION', 'clientAddress.proxies must be a positive integer');
  const name = header.toLowerCase();
  const rfc7239 = name === 'forwarded';
  return (req) => {
    const value = req.header(name);
    if (value === undefined) return req.remoteAddress;
    const entries = rfc7239 ? forwardedFor(value) : value.split(',');
    const entry = entries[entries.length - proxies];
    if (entry === undefined) return req.remoteAddress;
    return cleanAddress(entry) ?? req.remoteAddress;
  };
}

/** The `for=` values of a `Forwarded` header, in order. */
function forwardedFor(value: string): string[] {
  const out: string[] = [];
  for (const element of value.split(',')) {
    for (const pair of element.split(';')) {
      const eq = pair.indexOf('=');
      if (eq < 0 || pair.slice(0, eq).trim().toLowerCase() !== 'for') continue;
      out.push(pair.slice(eq + 1));
    }
  }
  return out;
}

/** An address from a header entry, without quotes, brackets and port; undefined when it is not one. */
function cleanAddress(entry: string): string | undefined {
  let a = entry.trim();
  if (a.startsWith('"') && a.endsWith('"') && a.length >= 2) a = a.slice(1, -1);
  if (a.startsWith('[')) {
    const close = a.indexOf(']');
    if (close < 0) return undefined;
    a = a.slice(1, close);
  } else if (/^[\d.]+:\d+$/.test(a)) a = a.slice(0, a.indexOf(':'));
  if (a === '' || a.length > 64 || !/^[0-9a-fA-F.:]+$/.test(a)) return undefined;
  return a;
}
