// The connections one client address may hold open on a node:http server, so one client cannot take all of
// `maxConnections` (idle, trickling or streaming) and shut everyone else out.
import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import { addressKey } from '../../guard/subject.js';
import { httpError } from '../core/errors.js';

/** The default of `ServeOptions.maxConnectionsPerAddress`. */
export const DEFAULT_MAX_CONNECTIONS_PER_ADDRESS = 256;
/** How long a refused connection is kept for its client to read the refusal before it is destroyed. */
const REFUSED_GRACE_MS = 2000;

/** The bytes that refuse one connection: a complete HTTP/1.1 429 with a JSON-RPC error body, then the end. */
function refusal(max: number): string {
  const reply = httpError(
    429,
    `Too Many Requests: this address already has ${max} connections open; close one or retry later`,
  );
  const body = 'body' in reply ? (reply.body ?? '') : '';
  return (
    'HTTP/1.1 429 Too Many Requests\r\ncontent-type: application/json\r\nretry-after: 1\r\n' +
    `content-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`
  );
}

/**
 * Counts the open connections of each client address on `httpServer` (an IPv6 address by its /64 network, as the
 * rate limiter keys it) and refuses one past `max`: it is answered 429 at once, before it sends anything, and
 * closed. Returns whether a socket was refused (its requests, if any arrive before it closes, must not be served).
 */
export function limitConnectionsPerAddress(httpServer: Server, max: number): (socket: Socket) => boolean {
  const open = new Map<string, number>();
  const refused = new WeakSet<Socket>();
  const bytes = refusal(max);
  // Before node:http's own listener: a refused socket is ended before its parser reads anything.
  httpServer.prependListener('connection', (socket: Socket) => {
    const address = socket.remoteAddress;
    if (address === undefined) return;
    const key = addressKey(address);
    const count = open.get(key) ?? 0;
    if (count >= max) {
      refused.add(socket);
      socket.on('error', ignore);
      socket.end(bytes);
      // A client that never closes its side is cut off once it has had time to read the refusal.
      setTimeout(() => socket.destroy(), REFUSED_GRACE_MS).unref();
      return;
    }
    open.set(key, count + 1);
    socket.once('close', () => {
      const left = (open.get(key) ?? 1) - 1;
      if (left === 0) open.delete(key);
      else open.set(key, left);
    });
  });
  return (socket) => refused.has(socket);
}

function ignore(): void {}
