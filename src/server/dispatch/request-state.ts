import { decodeBase64url, encodeBase64url } from '../../framing/base64url.js';
import { McpkitError } from '../../jsonrpc/errors.js';

/** What a sealed `requestState` carries. */
export interface StatePayload {
  /** Answers gathered in earlier rounds, by input key. */
  answers: Record<string, unknown>;
  /** The input keys asked for in the round that sealed this state: the only answers the next round takes. */
  asked?: string[];
  /** The handler's own state (explicit MRTR style). */
  app?: unknown;
  /** Digest of the originating request (method + main params). */
  req: string;
  /** The authenticated principal, when there is one. */
  sub?: string;
  /** Expiry, milliseconds since the epoch. */
  exp: number;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/**
 * Seals and opens `requestState` with HMAC-SHA256 (Web Crypto, so it runs on every runtime): the
 * client can carry the state but cannot forge or alter it. Signed, not encrypted.
 */
export class RequestStateCodec {
  readonly #key: ReturnType<typeof crypto.subtle.importKey>;
  readonly ttlMs: number;

  /** `secret` must be at least 32 bytes; without one a random per-process key is used. */
  constructor(secret?: Uint8Array | string, ttlMs = 10 * 60_000) {
    const raw =
      secret === undefined
        ? crypto.getRandomValues(new Uint8Array(32))
        : typeof secret === 'string'
          ? encoder.encode(secret)
          : secret;
    if (raw.byteLength < 32)
      throw new McpkitError('INVALID_DEFINITION', 'The requestState key must be at least 32 bytes');
    this.#key = crypto.subtle.importKey(
      'raw',
      raw as Uint8Array<ArrayBuffer>,
      { name: 'HMAC', hash: 'SHA-256' },
      false,
      ['sign', 'verify'],
    );
    this.ttlMs = ttlMs;
  }

  /** Seals a payload into an opaque string. */
  async seal(payload: StatePayload): Promise<string> {
    const body = encodeBase64url(encoder.encode(JSON.stringify(payload)));
    const mac = new Uint8Array(await crypto.subtle.sign('HMAC', await this.#key, encoder.encode(body)));
    return `${body}.${encodeBase64url(mac)}`;
  }

  /** Opens a sealed string; undefined when it is malformed, forged or altered. Expiry is checked by the caller. */
  async open(token: string): Promise<StatePayload | undefined> {
    if (token.length > 1_000_000) return undefined;
    const dot = token.indexOf('.');
    if (dot < 0) return undefined;
    const body = token.slice(0, dot);
    const mac = decodeBase64url(token.slice(dot + 1));
    if (!mac) return undefined;
    const ok = await crypto.subtle.verify(
      'HMAC',
      await this.#key,
      mac as Uint8Array<ArrayBuffer>,
      encoder.encode(body),
    );
    if (!ok) return undefined;
    const bytes = decodeBase64url(body);
    if (!bytes) return undefined;
    try {
      const value = JSON.parse(decoder.decode(bytes)) as StatePayload;
      return typeof value === 'object' && value !== null && typeof value.exp === 'number' ? value : undefined;
    } catch {
      // A verified body that is not JSON cannot come from us; treat it as forged.
      return undefined;
    }
  }
}

/** A short digest binding state to its originating request (method and main params). */
export async function requestDigest(method: string, main: unknown): Promise<string> {
  const bytes = new Uint8Array(
    await crypto.subtle.digest('SHA-256', encoder.encode(`${method}\n${JSON.stringify(main ?? null)}`)),
  );
  return encodeBase64url(bytes.subarray(0, 16));
}
