/**
 * True for a loopback host name: `localhost` (and its subdomains, which resolve to loopback), exactly four decimal
 * octets starting with 127 (127.0.0.0/8) and `[::1]` (or `::1`). The one rule shared by the HTTP endpoints' Origin
 * and Host checks, the OAuth client and the token verifiers: a name that merely starts with `127.`
 * (`127.0.0.1.attacker.example`) is not loopback.
 */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.toLowerCase();
  return (
    host === 'localhost' ||
    host.endsWith('.localhost') ||
    /^127\.(25[0-5]|2[0-4]\d|1?\d?\d)\.(25[0-5]|2[0-4]\d|1?\d?\d)\.(25[0-5]|2[0-4]\d|1?\d?\d)$/.test(host) ||
    host === '[::1]' ||
    host === '::1'
  );
}
