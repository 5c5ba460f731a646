import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { isLoopbackHost } from '../transport/loopback.js';

/** Why a request is refused, as an HTTP status and a short reason (never echoing what was sent). */
export interface Refusal {
  status: 401 | 403;
  reason: string;
}

/** A new random token: 32 bytes, base64url. */
export function newToken(): string {
  return randomBytes(32).toString('base64url');
}

/**
 * The inspector's request checks: the Host header names a loopback host on this port (no rebound DNS name), an
 * Origin when present is this server's own (no other page drives it), and the token arrives as the cookie set from
 * the opened URL or as a bearer header (scripts).
 */
export class Guard {
  readonly #token: Buffer;
  readonly #port: number;
  /** The cookie's name carries the port: cookies are not scoped by port, two inspectors must not share one. */
  readonly cookieName: string;

  constructor(token: string, port: number) {
    this.#token = Buffer.from(token);
    this.#port = port;
    this.cookieName = `mcpkit_inspector_${port}`;
  }

  /** The Set-Cookie value that carries the token for the page's later requests. */
  cookie(): string {
    return `${this.cookieName}=${this.#token.toString()}; HttpOnly; SameSite=Strict; Path=/`;
  }

  /** True when `candidate` is the token (constant time). */
  matches(candidate: string | undefined | null): boolean {
    if (typeof candidate !== 'string') return false;
    const given = Buffer.from(candidate);
    return given.length === this.#token.length && timingSafeEqual(given, this.#token);
  }

  /** Refuses a request whose Host or Origin is foreign; undefined when both are acceptable. */
  checkPlace(req: IncomingMessage): Refusal | undefined {
    const misplaced = this.checkHost(req);
    if (misplaced) return misplaced;
    const origin = req.headers.origin;
    if (origin !== undefined && !this.#ours(origin)) return { status: 403, reason: 'Origin not allowed' };
    // A browser says so when another site started the request, even where it sends no Origin (a plain GET).
    if (req.headers['sec-fetch-site'] === 'cross-site') return { status: 403, reason: 'Cross-site request' };
    return undefined;
  }

  /** Refuses a request whose Host header is not this server's loopback host and port (a rebound DNS name). */
  checkHost(req: IncomingMessage): Refusal | undefined {
    const host = req.headers.host;
    if (host === undefined || !this.#ours(`http://${host}`))
      return { status: 403, reason: 'Host not allowed' };
    return undefined;
  }

  /** True when the request carries the token in its cookie or an `Authorization: Bearer` header. */
  authenticated(req: IncomingMessage): boolean {
    const auth = req.headers.authorization;
    if (auth?.startsWith('Bearer ') && this.matches(auth.slice(7))) return true;
    return this.matches(cookieValue(req.headers.cookie, this.cookieName));
  }

  /** An `http://host:port` origin of this server: loopback host, this port, no path or credentials. */
  #ours(origin: string): boolean {
    if (!URL.canParse(origin)) return false;
    const url = new URL(origin);
    return (
      url.protocol === 'http:' &&
      url.username === '' &&
      url.password === '' &&
      (url.pathname === '/' || url.pathname === '') &&
      isLoopbackHost(url.hostname) &&
      url.port === String(this.#port)
    );
  }
}

/** The value of cookie `name` in a Cookie header. */
export function cookieValue(header: string | undefined, name: string): string | undefined {
  if (header === undefined) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}
