import { isLoopbackHost } from '../../../transport/loopback.js';
import type { HttpRequestLike } from './http.js';

/** Origin and Host checks against cross-site requests and DNS rebinding. */
export interface SecurityOptions {
  /**
   * Origins allowed to call the endpoint from a browser (exact `scheme://host[:port]`). A request with an Origin not
   * listed is refused with 403, unless Origin and Host are both loopback, or `allowedHosts` is set and the Origin has
   * the request's (allowed) Host. Without `allowedHosts` the Host header proves nothing: under DNS rebinding the
   * attacker's page names its own host in both headers.
   */
  allowedOrigins?: readonly string[] | undefined;
  /**
   * Host header values accepted (`host` or `host:port`). Set automatically for servers bound to a
   * loopback address; `undefined` accepts any Host.
   */
  allowedHosts?: readonly string[] | undefined;
}

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);

/** The Host values a loopback-bound server on `port` accepts. */
export function loopbackHosts(port: number): string[] {
  return [...LOOPBACK].flatMap((h) => [h, `${h}:${port}`]);
}

/** Returns the reason a request must be refused, or undefined when it passes. */
export function checkRequestOrigin(
  req: HttpRequestLike,
  options: SecurityOptions,
): { status: number; message: string } | undefined {
  const host = req.header('host');
  if (options.allowedHosts && (host === undefined || !options.allowedHosts.includes(host.toLowerCase()))) {
    return { status: 403, message: `Forbidden: Host ${JSON.stringify(host ?? '')} is not allowed` };
  }
  const origin = req.header('origin');
  if (origin === undefined) return undefined;
  if (options.allowedOrigins?.includes(origin)) return undefined;
  let originHost: string;
  try {
    originHost = new URL(origin).host.toLowerCase();
  } catch {
    return { status: 403, message: 'Forbidden: malformed Origin' };
  }
  // Same host as the request (only when that Host was checked against the allowed ones), or both on loopback.
  if (options.allowedHosts && host !== undefined && originHost === host.toLowerCase()) return undefined;
  if (
    host !== undefined &&
    isLoopbackHost(hostname(originHost)) &&
    isLoopbackHost(hostname(host.toLowerCase()))
  )
    return undefined;
  return { status: 403, message: `Forbidden: Origin ${JSON.stringify(origin)} is not allowed` };
}

function hostname(hostPort: string): string {
  if (hostPort.startsWith('[')) return hostPort.slice(0, hostPort.indexOf(']') + 1);
  const colon = hostPort.lastIndexOf(':');
  return colon < 0 ? hostPort : hostPort.slice(0, colon);
}
