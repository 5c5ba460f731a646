// The host's filtering proxy for one sandboxed server allowed a list of hosts: an HTTP proxy on a Unix socket (bound
// into the sandbox, whose only network is its own loopback) that opens CONNECT tunnels and forwards plain HTTP
// requests to the allowed hosts only. A name that resolves to a loopback, private or link-local address is refused
// unless the entry names that address (or localhost) itself, so DNS cannot turn an allowed name into the host's own
// services. Every refusal is reported.
import { lookup } from 'node:dns/promises';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type IncomingMessage, request, type Server, type ServerResponse } from 'node:http';
import { connect, isIP, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Duplex } from 'node:stream';
import { hostRange } from '../../auth/client/address-range.js';
import { errorMessage } from '../../jsonrpc/errors.js';
import { type AllowedHost, allowedEntry } from './allowed-hosts.js';

/** What the proxy reports: a connection let through, or refused with the reason. */
export interface ProxyEvent {
  outcome: 'allowed' | 'refused';
  target: string;
  reason?: string;
}

/** A running filtering proxy. */
export interface FilteringProxy {
  /** The Unix socket it listens on (in a folder only this user can enter). */
  socket: string;
  close(): Promise<void>;
}

/** Connections open through one proxy at once; more are refused. */
const MAX_CONNECTIONS = 128;
/** A tunnel or request idle this long is closed. */
const IDLE_MS = 10 * 60_000;

/** How the proxy resolves a name to its addresses (tests give their own). */
export type Resolve = (name: string) => Promise<{ address: string }[]>;

const systemResolve: Resolve = (name) => lookup(name, { all: true });

/** Starts a proxy letting through only `allowed`, telling `onevent` about each connection. */
export async function startFilteringProxy(
  allowed: readonly AllowedHost[],
  onevent: (event: ProxyEvent) => void,
  resolveName: Resolve = systemResolve,
): Promise<FilteringProxy> {
  const dir = mkdtempSync(join(tmpdir(), 'mcpkit-proxy-'));
  const socket = join(dir, 'proxy.sock');
  const open = new Set<Duplex>();
  const track = (s: Duplex) => {
    open.add(s);
    s.once('close', () => open.delete(s));
  };
  const decide = (host: string, port: number) => decideTarget(allowed, host, port, resolveName);
  const server: Server = createServer((req, res) => void plainRequest(req, res, decide, onevent));
  server.maxConnections = MAX_CONNECTIONS;
  server.on('connection', track);
  server.on(
    'connect',
    (req: IncomingMessage, client: Duplex, head: Buffer) =>
      void tunnel(req, client, head, decide, onevent, track),
  );
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(socket, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return {
    socket,
    close: async () => {
      for (const s of open) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Where a request may go: the address to connect to, or why not. */
type Verdict = { address: string } | { refused: string };

async function decideTarget(
  allowed: readonly AllowedHost[],
  host: string,
  port: number,
  resolveName: Resolve,
): Promise<Verdict> {
  const entry = allowedEntry(allowed, host, port);
  if (!entry) return { refused: `${host}:${port} is not in this server's network grants` };
  const bare = host.startsWith('[') ? host.slice(1, -1) : host;
  // An address or localhost written in the grant is the person's own choice.
  if (isIP(bare) !== 0) return { address: bare };
  const literal = hostRange(entry.host) !== undefined;
  let addresses: { address: string }[];
  try {
    addresses = await resolveName(bare);
  } catch (e) {
    return { refused: `${host} does not resolve: ${errorMessage(e)}` };
  }
  const usable = addresses.filter((a) => literal || hostRange(a.address) === undefined);
  const first = usable[0];
  if (!first)
    return {
      refused: `${host} resolves to a private, loopback or link-local address, which the sandbox does not reach`,
    };
  return { address: first.address };
}

async function tunnel(
  req: IncomingMessage,
  client: Duplex,
  head: Buffer,
  decide: (host: string, port: number) => Promise<Verdict>,
  onevent: (event: ProxyEvent) => void,
  track: (s: Duplex) => void,
): Promise<void> {
  // A sandboxed client that hangs up mid-request has nothing more to say; its socket is simply gone.
  client.on('error', () => client.destroy());
  const target = req.url ?? '';
  const m = /^(\[[^\]]+\]|[^:]+):(\d+)$/.exec(target);
  if (!m) return refuse(client, target, 'a CONNECT target must be host:port', onevent);
  const host = m[1] as string;
  const port = Number(m[2]);
  const verdict = await decide(host, port);
  if ('refused' in verdict) return refuse(client, target, verdict.refused, onevent);
  const upstream: Socket = connect({ host: verdict.address, port });
  track(upstream);
  upstream.setTimeout(IDLE_MS, () => upstream.destroy());
  upstream.once('error', (e) => {
    onevent({ outcome: 'refused', target, reason: `connecting failed: ${errorMessage(e)}` });
    client.end(
      `HTTP/1.1 502 Bad Gateway\r\nContent-Type: text/plain\r\nConnection: close\r\n\r\nmcpkit sandbox proxy: ${errorMessage(e)}\n`,
    );
  });
  upstream.once('connect', () => {
    onevent({ outcome: 'allowed', target });
    client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
    if (head.length > 0) upstream.write(head);
    upstream.pipe(client);
    client.pipe(upstream);
    client.once('close', () => upstream.destroy());
    upstream.once('close', () => client.destroy());
  });
}

async function plainRequest(
  req: IncomingMessage,
  res: ServerResponse,
  decide: (host: string, port: number) => Promise<Verdict>,
  onevent: (event: ProxyEvent) => void,
): Promise<void> {
  const raw = req.url ?? '';
  const url = URL.canParse(raw) ? new URL(raw) : undefined;
  if (url?.protocol !== 'http:') {
    const reason = 'only absolute http:// URLs are proxied (https goes through CONNECT)';
    onevent({ outcome: 'refused', target: raw, reason });
    res.writeHead(400, { 'content-type': 'text/plain' }).end(`mcpkit sandbox proxy: ${reason}\n`);
    return;
  }
  const port = Number(url.port || 80);
  const target = `${url.hostname}:${port}`;
  const verdict = await decide(url.hostname, port);
  if ('refused' in verdict) {
    onevent({ outcome: 'refused', target, reason: verdict.refused });
    res.writeHead(403, { 'content-type': 'text/plain' }).end(`mcpkit sandbox: ${verdict.refused}\n`);
    return;
  }
  const headers = { ...req.headers };
  for (const h of ['proxy-connection', 'proxy-authorization', 'connection', 'keep-alive']) delete headers[h];
  const upstream = request({
    host: verdict.address,
    port,
    method: req.method,
    path: `${url.pathname}${url.search}`,
    headers: { ...headers, host: url.host },
    timeout: IDLE_MS,
  });
  upstream.once('response', (answer) => {
    onevent({ outcome: 'allowed', target });
    res.writeHead(answer.statusCode ?? 502, answer.headers);
    answer.pipe(res);
  });
  upstream.once('timeout', () => upstream.destroy(new Error('timed out')));
  upstream.once('error', (e) => {
    onevent({ outcome: 'refused', target, reason: `connecting failed: ${errorMessage(e)}` });
    if (!res.headersSent) res.writeHead(502, { 'content-type': 'text/plain' });
    res.end(`mcpkit sandbox proxy: ${errorMessage(e)}\n`);
  });
  req.pipe(upstream);
}

function refuse(client: Duplex, target: string, reason: string, onevent: (event: ProxyEvent) => void): void {
  onevent({ outcome: 'refused', target, reason });
  const body = `mcpkit sandbox: ${reason}\n`;
  client.end(
    `HTTP/1.1 403 Forbidden\r\nContent-Type: text/plain\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}
