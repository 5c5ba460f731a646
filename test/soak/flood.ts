// The overload scenario's load generator: raw HTTP/1.1 on a bounded set of keep-alive connections, one request at a
// time on each (no pipelining), so nothing queues in the generator itself. `closedLoop` measures capacity; `flood`
// offers an open-loop rate: each request is written at its due time on an idle connection, or counted as unsent
// when all of them are still waiting for answers (it is never queued here to be sent late). Latency runs from the
// write to the end of the answer, split at the moment the server saw the request (its `x-soak-seen` header), and
// connection errors are counted apart from the 503/429 answers.
import { connect, type Socket } from 'node:net';

/** One answer, as the generator saw it. */
interface Answer {
  status: number;
  /** The server's `x-soak-seen` (ms since the epoch), NaN when absent. */
  seen: number;
  retryAfter: boolean;
  /** The server asked to close the connection after this answer. */
  close: boolean;
}

const CRLF2 = Buffer.from('\r\n\r\n');
const now = () => performance.timeOrigin + performance.now();

/** The value of header `name` (lower case, with its colon) in a lower-cased head, or undefined. */
function headerOf(head: string, name: string): string | undefined {
  const at = head.indexOf(`\r\n${name}`);
  if (at < 0) return undefined;
  const end = head.indexOf('\r\n', at + 2);
  return head.slice(at + 2 + name.length, end < 0 ? undefined : end).trim();
}

/** A keep-alive connection carrying one request at a time. */
class Connection {
  readonly socket: Socket;
  /** Called with the answer of the request in flight, or with an Error when the connection failed under it. */
  pending: ((answer: Answer | Error) => void) | undefined;
  #buffer: Buffer = Buffer.alloc(0);
  #head: { answer: Answer; bodyAt: number; length: number; chunked: boolean } | undefined;
  closed = false;

  constructor(port: number, onClose: (connection: Connection, error: Error | undefined) => void) {
    this.socket = connect({ host: '127.0.0.1', port, noDelay: true });
    let failure: Error | undefined;
    this.socket.on('data', (chunk: Buffer) => this.#read(chunk));
    this.socket.on('error', (e) => {
      failure = e;
    });
    this.socket.on('close', () => {
      this.closed = true;
      const pending = this.pending;
      this.pending = undefined;
      const error = failure ?? (pending ? new Error('closed with a request in flight') : undefined);
      if (pending) pending(error ?? new Error('closed'));
      onClose(this, error);
    });
  }

  connected(): Promise<void> {
    return new Promise((resolve, reject) => {
      if (!this.socket.connecting) {
        if (this.closed) reject(new Error('connection closed'));
        else resolve();
        return;
      }
      this.socket.once('connect', resolve);
      this.socket.once('close', () => reject(new Error('connection refused or reset')));
    });
  }

  send(request: Buffer, done: (answer: Answer | Error) => void): void {
    this.pending = done;
    this.socket.write(request);
  }

  /** Sends `request` and resolves with its answer (rejects when the connection fails under it). */
  exchange(request: Buffer): Promise<Answer> {
    return new Promise((resolve, reject) =>
      this.send(request, (answer) => (answer instanceof Error ? reject(answer) : resolve(answer))),
    );
  }

  #read(chunk: Buffer): void {
    this.#buffer = this.#buffer.length === 0 ? chunk : Buffer.concat([this.#buffer, chunk]);
    for (;;) {
      if (this.#head === undefined) {
        const end = this.#buffer.indexOf(CRLF2);
        if (end < 0) return;
        const head = this.#buffer.toString('latin1', 0, end).toLowerCase();
        const length = headerOf(head, 'content-length:');
        this.#head = {
          answer: {
            status: Number(head.slice(9, 12)),
            seen: Number(headerOf(head, 'x-soak-seen:') ?? Number.NaN),
            retryAfter: headerOf(head, 'retry-after:') !== undefined,
            close: headerOf(head, 'connection:') === 'close',
          },
          bodyAt: end + 4,
          length: length === undefined ? -1 : Number(length),
          chunked: headerOf(head, 'transfer-encoding:') === 'chunked',
        };
      }
      const { answer, bodyAt, length, chunked } = this.#head;
      let next: number;
      if (chunked) {
        const last = this.#buffer.indexOf('\r\n0\r\n\r\n', bodyAt - 2);
        if (last < 0) return;
        next = last + 7;
      } else {
        next = bodyAt + Math.max(0, length);
        if (this.#buffer.length < next) return;
      }
      this.#buffer = this.#buffer.subarray(next);
      this.#head = undefined;
      const pending = this.pending;
      this.pending = undefined;
      pending?.(answer);
      if (answer.close) this.socket.end();
    }
  }
}

/** The bytes of one POST of `body` to `url`. */
export function postBytes(url: URL, body: string, headers: Record<string, string> = {}): Buffer {
  const payload = Buffer.from(body);
  const lines = [
    `POST ${url.pathname} HTTP/1.1`,
    `host: ${url.host}`,
    'content-type: application/json',
    'accept: application/json, text/event-stream',
    ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`),
    `content-length: ${payload.length}`,
  ];
  return Buffer.concat([Buffer.from(`${lines.join('\r\n')}\r\n\r\n`), payload]);
}

/**
 * Opens `count` connections, a batch at a time so that the listen backlog never overflows; all must connect. With
 * `warmup`, each connection then carries that request and is ready once it is answered: the kernel completes a
 * connection before the server has accepted it, and a connection the server has not yet accepted when a flood
 * begins waits for the flood's turns of the loop to be accepted and read (measured: up to the whole flood), which
 * is the setup's delay, not the server's answer to the load.
 */
async function open(
  port: number,
  count: number,
  onClose: (connection: Connection, error: Error | undefined) => void,
  warmup?: Buffer,
): Promise<Connection[]> {
  const all: Connection[] = [];
  for (let i = 0; i < count; i += 128) {
    const batch = Array.from({ length: Math.min(128, count - i) }, () => new Connection(port, onClose));
    await Promise.all(batch.map((c) => c.connected()));
    if (warmup !== undefined) await Promise.all(batch.map((c) => c.exchange(warmup)));
    all.push(...batch);
  }
  return all;
}

/** Requests answered per second by `connections` clients sending one after another for `ms`. */
export async function closedLoop(
  url: URL,
  request: Buffer,
  connections: number,
  ms: number,
): Promise<number> {
  const all = await open(Number(url.port), connections, () => {});
  let served = 0;
  const until = performance.now() + ms;
  await Promise.all(
    all.map(
      (c) =>
        new Promise<void>((resolve, reject) => {
          const next = (answer: Answer | Error) => {
            if (answer instanceof Error) return reject(answer);
            if (answer.status === 200) served++;
            if (performance.now() < until) c.send(request, next);
            else resolve();
          };
          c.send(request, next);
        }),
    ),
  );
  for (const c of all) c.socket.destroy();
  return served / (ms / 1000);
}

/** What an open-loop flood saw. */
export interface FloodResult {
  /** Requests due at the offered rate. */
  offered: number;
  /** Written to the server. */
  sent: number;
  /** Due while every connection was still waiting for an answer: never sent. */
  unsent: number;
  /** Answers by status. */
  statuses: Map<number, number>;
  /** 503/429 answers without Retry-After. */
  noRetryAfter: number;
  /** Connections that failed (reset, refused, closed under a request); each failure is counted once. */
  connectionErrors: number;
  /** Requests lost with their connection (part of `sent`). */
  lost: number;
  /** Sent and still unanswered when the generator stopped waiting. */
  unanswered: number;
  /** Connections the server closed cleanly after an answer (then opened again). */
  closedByServer: number;
  /** Of admitted (200) requests: write to answer, write to seen by the server, seen to answer (ms). */
  admitted: { total: number[]; beforeSeen: number[]; afterSeen: number[] };
  /** Of shed (503/429) requests: write to answer (ms). */
  shed: number[];
  /** How late the generator wrote requests after their due time (ms): its own lag. */
  lag: number[];
}

/**
 * Offers `rate` requests per second for `seconds` on `connections` keep-alive connections, then waits (up to
 * `drainMs`) for the answers still out; a connection the server closes is opened again while the flood lasts. With
 * `warmup` (a cheap request), every connection has been accepted and served once before the flood begins.
 */
export async function flood(
  url: URL,
  request: Buffer,
  options: { rate: number; seconds: number; connections: number; drainMs?: number; warmup?: Buffer },
): Promise<FloodResult> {
  const port = Number(url.port);
  const result: FloodResult = {
    offered: 0,
    sent: 0,
    unsent: 0,
    statuses: new Map(),
    noRetryAfter: 0,
    connectionErrors: 0,
    lost: 0,
    unanswered: 0,
    closedByServer: 0,
    admitted: { total: [], beforeSeen: [], afterSeen: [] },
    shed: [],
    lag: [],
  };
  const idle: Connection[] = [];
  const live = new Set<Connection>();
  let running = true;
  let outstanding = 0;
  let drained: (() => void) | undefined;
  const onClose = (c: Connection, error: Error | undefined) => {
    live.delete(c);
    if (!running) return; // closed by the generator itself, at the end
    if (error) result.connectionErrors++;
    else result.closedByServer++;
    {
      const fresh = new Connection(port, onClose);
      live.add(fresh);
      fresh.connected().then(
        () => idle.push(fresh),
        () => {},
      );
    }
  };
  idle.push(...(await open(port, options.connections, onClose, options.warmup)));
  for (const c of idle) live.add(c);
  const answered = (c: Connection, written: number) => (answer: Answer | Error) => {
    const at = now();
    outstanding--;
    if (answer instanceof Error) result.lost++;
    else {
      result.statuses.set(answer.status, (result.statuses.get(answer.status) ?? 0) + 1);
      if (answer.status === 200) {
        result.admitted.total.push(at - written);
        result.admitted.beforeSeen.push(answer.seen - written);
        result.admitted.afterSeen.push(at - answer.seen);
      } else if (answer.status === 503 || answer.status === 429) {
        result.shed.push(at - written);
        if (!answer.retryAfter) result.noRetryAfter++;
      }
      if (!answer.close && !c.closed) idle.push(c);
    }
    if (outstanding === 0) drained?.();
  };
  const started = now();
  const end = started + options.seconds * 1000;
  const interval = 1000 / options.rate;
  for (;;) {
    const t = now();
    if (t >= end) break;
    const due = Math.floor((t - started) / interval);
    for (; result.offered < due; result.offered++) {
      const c = idle.pop();
      if (c === undefined) {
        result.unsent += due - result.offered;
        result.offered = due;
        break;
      }
      result.sent++;
      outstanding++;
      result.lag.push(t - (started + result.offered * interval));
      c.send(request, answered(c, t));
    }
    await new Promise((resolve) => setImmediate(resolve));
  }
  if (outstanding > 0) {
    await new Promise<void>((resolve) => {
      drained = resolve;
      setTimeout(resolve, options.drainMs ?? 30_000).unref();
    });
  }
  running = false;
  result.unanswered = outstanding;
  for (const c of live) c.socket.destroy();
  return result;
}
