// The hosts a sandboxed server may reach through the host's filtering proxy: `example.com`, `*.example.com` (its
// subdomains, not itself), each with an optional `:port` (any port without one); IP literals as written.
import { isIP } from 'node:net';

/** One host a sandboxed server may reach. */
export interface AllowedHost {
  /** The entry as normalised (lowercase, no trailing dot): how it is shown and compared. */
  text: string;
  /** The name or address, without brackets or wildcard. */
  host: string;
  /** `*.host`: its subdomains. */
  subdomains: boolean;
  /** Only this port; undefined: any. */
  port?: number;
}

/** Parses an allowed-host entry; a string is what is wrong with it. */
export function parseAllowedHost(entry: string): AllowedHost | string {
  const raw = entry.trim().toLowerCase();
  if (raw === '') return 'an empty host';
  if (raw.includes('://') || raw.includes('/'))
    return `"${entry}" is not a host: give a name such as api.example.com (optionally :port), not a URL`;
  let host = raw;
  let port: number | undefined;
  const bracket = /^\[([^\]]+)\](?::(\d+))?$/.exec(raw);
  if (bracket) {
    host = bracket[1] as string;
    if (bracket[2] !== undefined) port = Number(bracket[2]);
  } else if (isIP(raw) !== 6) {
    const colon = raw.lastIndexOf(':');
    if (colon >= 0) {
      host = raw.slice(0, colon);
      const p = raw.slice(colon + 1);
      if (!/^\d+$/.test(p)) return `"${entry}": the port must be a number`;
      port = Number(p);
    }
  }
  if (port !== undefined && (port < 1 || port > 65535)) return `"${entry}": the port must be 1 to 65535`;
  host = host.endsWith('.') ? host.slice(0, -1) : host;
  const subdomains = host.startsWith('*.');
  if (subdomains) host = host.slice(2);
  const name =
    /^(?=.{1,253}$)([a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?)(\.[a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?)*$/;
  if (isIP(host) === 0 && !name.test(host))
    return `"${entry}" is not a host name (a name, *.name for its subdomains, or an address; optionally :port)`;
  if (subdomains && isIP(host) !== 0) return `"${entry}": *. applies to names, not addresses`;
  const shown = `${subdomains ? '*.' : ''}${isIP(host) === 6 ? `[${host}]` : host}`;
  const out: AllowedHost = { text: port === undefined ? shown : `${shown}:${port}`, host, subdomains };
  if (port !== undefined) out.port = port;
  return out;
}

/** The entry of `allowed` that lets a connection to `host:port` through, if any. */
export function allowedEntry(
  allowed: readonly AllowedHost[],
  host: string,
  port: number,
): AllowedHost | undefined {
  let name = host.toLowerCase();
  if (name.startsWith('[') && name.endsWith(']')) name = name.slice(1, -1);
  if (name.endsWith('.')) name = name.slice(0, -1);
  return allowed.find(
    (a) =>
      (a.port === undefined || a.port === port) &&
      (a.subdomains ? name.endsWith(`.${a.host}`) : name === a.host),
  );
}
