/**
 * The special-purpose range an address is in (IANA's IPv4 and IPv6 special-purpose registries, grouped by what
 * reaching it means): `loopback` (this machine), `unspecified` (0.0.0.0/8, `::`: also this machine when connected
 * to), `private` (RFC 1918, IPv6 site-local, NAT64 local-use), `cgnat` (100.64.0.0/10, the carrier's shared space),
 * `link-local` (169.254.0.0/16, fe80::/10: cloud metadata services live here), `unique-local` (fc00::/7),
 * `multicast`, `reserved` (documentation, benchmarking, 240.0.0.0/4, broadcast, Teredo, discard-only).
 */
export type AddressRange =
  | 'loopback'
  | 'unspecified'
  | 'private'
  | 'cgnat'
  | 'link-local'
  | 'unique-local'
  | 'multicast'
  | 'reserved';

/**
 * The range of a URL's host: an IP literal in any notation (IPv4 as four parts, or the shorter, octal and hex forms
 * `inet_aton` takes; IPv6 with brackets or without, a zone, or an IPv4 tail; IPv4 inside IPv6 as mapped, compatible,
 * translated, NAT64 and 6to4 addresses is judged as that IPv4), or `localhost` and its subdomains (loopback by RFC
 * 6761); undefined for a public address and for any other name (what a name resolves to is judged when connecting).
 */
export function hostRange(host: string): AddressRange | undefined {
  const name = (host.endsWith('.') ? host.slice(0, -1) : host).toLowerCase();
  if (name === 'localhost' || name.endsWith('.localhost')) return 'loopback';
  const v4 = parseIPv4(name);
  if (v4 !== undefined) return ipv4Range(v4);
  const v6 = parseIPv6(name.startsWith('[') && name.endsWith(']') ? name.slice(1, -1) : name);
  return v6 === undefined ? undefined : ipv6Range(v6);
}

/** IPv4 ranges as [first address, prefix length, range], most specific first where they nest. */
const IPV4: readonly (readonly [number, number, AddressRange])[] = [
  [0x00000000, 8, 'unspecified'],
  [0x0a000000, 8, 'private'],
  [0x64400000, 10, 'cgnat'],
  [0x7f000000, 8, 'loopback'],
  [0xa9fe0000, 16, 'link-local'],
  [0xac100000, 12, 'private'],
  [0xc0000000, 24, 'reserved'],
  [0xc0000200, 24, 'reserved'],
  [0xc0586300, 24, 'reserved'],
  [0xc0a80000, 16, 'private'],
  [0xc6120000, 15, 'reserved'],
  [0xc6336400, 24, 'reserved'],
  [0xcb007100, 24, 'reserved'],
  [0xe0000000, 4, 'multicast'],
  [0xf0000000, 4, 'reserved'],
];

function ipv4Range(address: number): AddressRange | undefined {
  for (const [first, bits, range] of IPV4) {
    if (address >>> (32 - bits) === first >>> (32 - bits)) return range;
  }
  return undefined;
}

/** An IPv4 address embedded in IPv6 is judged as itself; public IPv4 in a deprecated form is still odd. */
function ipv6Range(g: readonly number[]): AddressRange | undefined {
  const [g0 = 0, g1 = 0, g2 = 0, g3 = 0, g4 = 0, g5 = 0, g6 = 0, g7 = 0] = g;
  const tail = ((g6 << 16) | g7) >>> 0;
  const zeroTo3 = g0 === 0 && g1 === 0 && g2 === 0 && g3 === 0;
  if (zeroTo3 && g4 === 0) {
    if (g5 === 0xffff) return ipv4Range(tail); // ::ffff:a.b.c.d, mapped
    if (g5 === 0) {
      if (tail === 0) return 'unspecified';
      if (tail === 1) return 'loopback';
      return ipv4Range(tail) ?? 'reserved'; // ::a.b.c.d, compatible (deprecated)
    }
  }
  if (zeroTo3 && g4 === 0xffff && g5 === 0) return ipv4Range(tail) ?? 'reserved'; // ::ffff:0:a.b.c.d, translated
  if (g0 === 0x64 && g1 === 0xff9b) {
    if (g2 === 0 && g3 === 0 && g4 === 0 && g5 === 0) return ipv4Range(tail); // NAT64 well-known prefix
    if (g2 === 1) return 'private'; // 64:ff9b:1::/48, NAT64 for local use
  }
  if (g0 === 0x2002) return ipv4Range(((g1 << 16) | g2) >>> 0); // 6to4
  if (g0 === 0x2001 && (g1 === 0 || g1 === 0xdb8)) return 'reserved'; // Teredo, documentation
  if (g0 === 0x0100 && g1 === 0 && g2 === 0 && g3 === 0) return 'reserved'; // discard-only
  if ((g0 & 0xfe00) === 0xfc00) return 'unique-local';
  if ((g0 & 0xffc0) === 0xfe80) return 'link-local';
  if ((g0 & 0xffc0) === 0xfec0) return 'private'; // site-local (deprecated)
  if ((g0 & 0xff00) === 0xff00) return 'multicast';
  return undefined;
}

/**
 * Reads IPv4 the way `inet_aton` and the URL standard do: one to four dot-separated parts, each decimal, octal
 * (leading 0) or hex (0x), the last filling the remaining bytes (`127.1`, `2130706433`, `0177.0.0.1`, `0x7f.1`).
 */
function parseIPv4(text: string): number | undefined {
  const parts = text.split('.');
  if (parts.length > 4) return undefined;
  const values: number[] = [];
  for (const part of parts) {
    const value = ipv4Part(part);
    if (value === undefined) return undefined;
    values.push(value);
  }
  const last = values.pop() ?? 0;
  if (values.some((v) => v > 255) || last >= 256 ** (4 - values.length)) return undefined;
  let address = last;
  for (let i = 0; i < values.length; i++) address += (values[i] ?? 0) * 256 ** (3 - i);
  return address;
}

function ipv4Part(part: string): number | undefined {
  if (/^0x[0-9a-f]*$/i.test(part)) return part.length === 2 ? 0 : Number.parseInt(part.slice(2), 16);
  if (/^0[0-7]+$/.test(part)) return Number.parseInt(part.slice(1), 8);
  if (/^(0|[1-9]\d*)$/.test(part)) return Number(part);
  return undefined;
}

/** Reads IPv6 text (`::` once at most, an IPv4 tail, a `%zone`) into eight 16-bit groups. */
function parseIPv6(text: string): number[] | undefined {
  const zone = text.indexOf('%');
  const address = zone === -1 ? text : text.slice(0, zone);
  if (!address.includes(':') || !/^[0-9a-f:.]+$/i.test(address)) return undefined;
  const halves = address.split('::');
  if (halves.length > 2) return undefined;
  const head = groups(halves[0] ?? '');
  const tail = halves.length === 2 ? groups(halves[1] ?? '') : [];
  if (head === undefined || tail === undefined) return undefined;
  const missing = 8 - head.length - tail.length;
  if (halves.length === 2 ? missing < 1 : missing !== 0) return undefined;
  return [...head, ...new Array<number>(missing).fill(0), ...tail];
}

function groups(text: string): number[] | undefined {
  if (text === '') return [];
  const out: number[] = [];
  const parts = text.split(':');
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i] ?? '';
    if (i === parts.length - 1 && part.includes('.')) {
      if (!/^\d{1,3}(\.\d{1,3}){3}$/.test(part)) return undefined;
      const v4 = part.split('.').map(Number);
      if (v4.some((n) => n > 255)) return undefined;
      out.push(((v4[0] ?? 0) << 8) | (v4[1] ?? 0), ((v4[2] ?? 0) << 8) | (v4[3] ?? 0));
      continue;
    }
    if (!/^[0-9a-f]{1,4}$/i.test(part)) return undefined;
    out.push(Number.parseInt(part, 16));
  }
  return out;
}
