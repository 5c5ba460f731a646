// base64url (RFC 4648 §5) without padding: cursors, session ids, stream tags and sealed requestState.
// Table-driven and runtime-neutral (no Buffer, no btoa/atob round trip through binary strings).

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

/** Two output characters per 12 bits: one table lookup per 1.5 input bytes. */
const PAIRS: readonly string[] = Array.from(
  { length: 4096 },
  (_, i) => `${ALPHABET[i >> 6] as string}${ALPHABET[i & 63] as string}`,
);

/** Sextet value of each ASCII character code; -1 outside the alphabet. */
const VALUES = new Int8Array(128).fill(-1);
for (let i = 0; i < 64; i++) VALUES[ALPHABET.charCodeAt(i)] = i;

const encoder = new TextEncoder();
const decoder = new TextDecoder('utf-8', { fatal: true });

/** Encodes bytes as unpadded base64url. */
export function encodeBase64url(bytes: Uint8Array): string {
  const full = bytes.length - (bytes.length % 3);
  let out = '';
  for (let i = 0; i < full; i += 3) {
    const v = ((bytes[i] as number) << 16) | ((bytes[i + 1] as number) << 8) | (bytes[i + 2] as number);
    out += (PAIRS[v >> 12] as string) + (PAIRS[v & 4095] as string);
  }
  const rest = bytes.length - full;
  if (rest === 1) {
    const v = bytes[full] as number;
    out += (ALPHABET[v >> 2] as string) + (ALPHABET[(v & 3) << 4] as string);
  } else if (rest === 2) {
    const v = ((bytes[full] as number) << 8) | (bytes[full + 1] as number);
    out += (PAIRS[v >> 4] as string) + (ALPHABET[(v & 15) << 2] as string);
  }
  return out;
}

function sextet(text: string, i: number): number {
  const c = text.charCodeAt(i);
  return c < 128 ? (VALUES[c] as number) : -1;
}

/**
 * Decodes unpadded base64url; undefined for anything else (a character outside the alphabet, padding,
 * an impossible length, or leftover bits that a canonical encoder would have left zero).
 */
export function decodeBase64url(text: string): Uint8Array | undefined {
  const rest = text.length & 3;
  if (rest === 1) return undefined;
  const full = text.length - rest;
  const out = new Uint8Array((full >> 2) * 3 + (rest === 0 ? 0 : rest - 1));
  let o = 0;
  for (let i = 0; i < full; i += 4) {
    const a = sextet(text, i);
    const b = sextet(text, i + 1);
    const c = sextet(text, i + 2);
    const d = sextet(text, i + 3);
    if ((a | b | c | d) < 0) return undefined;
    const v = (a << 18) | (b << 12) | (c << 6) | d;
    out[o++] = v >> 16;
    out[o++] = (v >> 8) & 255;
    out[o++] = v & 255;
  }
  if (rest === 2) {
    const a = sextet(text, full);
    const b = sextet(text, full + 1);
    if ((a | b) < 0 || (b & 15) !== 0) return undefined;
    out[o] = (a << 2) | (b >> 4);
  } else if (rest === 3) {
    const a = sextet(text, full);
    const b = sextet(text, full + 1);
    const c = sextet(text, full + 2);
    if ((a | b | c) < 0 || (c & 3) !== 0) return undefined;
    out[o] = (a << 2) | (b >> 4);
    out[o + 1] = ((b & 15) << 4) | (c >> 2);
  }
  return out;
}

/** Encodes text (as UTF-8) as unpadded base64url. */
export function encodeBase64urlText(text: string): string {
  return encodeBase64url(encoder.encode(text));
}

/** Decodes unpadded base64url to text; undefined when it is malformed or not valid UTF-8. */
export function decodeBase64urlText(text: string): string | undefined {
  const bytes = decodeBase64url(text);
  if (!bytes) return undefined;
  try {
    return decoder.decode(bytes);
  } catch {
    // Not UTF-8: no encoder of ours produced it.
    return undefined;
  }
}

/** `byteCount` cryptographically random bytes as base64url (ids and tags). */
export function randomBase64url(byteCount: number): string {
  return encodeBase64url(crypto.getRandomValues(new Uint8Array(byteCount)));
}
