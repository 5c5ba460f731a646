// The stdio load generator: spawns a server command, speaks raw NDJSON JSON-RPC to it (so every implementation is
// measured the same way), performs the initialize handshake and drives `tools/call echo`. Replies are checked: small
// ones fully (JSON.parse, id, no error, the echoed text), large ones by their id and length, with a full check of the
// first one and then every 256th, so the generator stays cheap next to the server it measures.
import { type ChildProcess, spawn } from 'node:child_process';
import { cpuMs, peakRssKiB, syscalls } from '../lib/proc.js';
import type { CallTarget } from './driver.js';

/** How to start a server under test. */
export interface ServerCommand {
  command: string;
  args: readonly string[];
}

/** Protocol revision the generator asks for; every implementation under test speaks it. */
export const PROTOCOL_VERSION = '2025-11-25';

const INITIALIZE = `${JSON.stringify({
  jsonrpc: '2.0',
  id: 0,
  method: 'initialize',
  params: {
    protocolVersion: PROTOCOL_VERSION,
    capabilities: {},
    clientInfo: { name: 'mcpkit-bench', version: '1.0.0' },
  },
})}\n`;
const INITIALIZED = '{"jsonrpc":"2.0","method":"notifications/initialized"}\n';
const HEAD = '{"jsonrpc":"2.0","id":';
const SMALL_LINE = 4096;
const ID_KEY = Buffer.from('"id":');
const STDERR_TAIL = 4096;

interface Prepared {
  text: string;
  /** The request after its id, for small payloads (one string write per call). */
  rest: string | undefined;
  /** The same as bytes, for large payloads (written without re-encoding the payload every call). */
  restBytes: Buffer | undefined;
  verified: number;
}

/** One spawned server process speaking NDJSON JSON-RPC on its stdin/stdout. */
export class StdioServer implements CallTarget {
  readonly pid: number;
  /** When spawn() was called (process.hrtime.bigint()). */
  readonly spawnedAt: bigint;
  onreply: (id: number) => void = () => {};
  onfail: (error: Error) => void = () => {};
  readonly #child: ChildProcess;
  readonly #exited: Promise<void>;
  #exitedNow = false;
  #pending: Buffer[] = [];
  #stderr = '';
  #echo: Prepared | undefined;
  #init: { resolve: (at: bigint) => void; reject: (error: Error) => void } | undefined;
  #stopping = false;

  constructor(server: ServerCommand) {
    this.spawnedAt = process.hrtime.bigint();
    const child = spawn(server.command, server.args, { stdio: ['pipe', 'pipe', 'pipe'] });
    this.#child = child;
    if (child.pid === undefined) throw new Error(`could not spawn ${server.command}`);
    this.pid = child.pid;
    this.#exited = new Promise((resolve) => {
      child.once('exit', (code, signal) => {
        this.#exitedNow = true;
        if (!this.#stopping) {
          const why = new Error(
            `server exited unexpectedly (code ${code}, signal ${signal}); stderr: ${this.#stderr.trim()}`,
          );
          this.#init?.reject(why);
          this.onfail(why);
        }
        resolve();
      });
    });
    child.stdout!.on('data', (chunk: Buffer) => this.#onData(chunk));
    child.stderr!.on('data', (chunk: Buffer) => {
      this.#stderr = (this.#stderr + chunk.toString()).slice(-STDERR_TAIL);
    });
    // EPIPE after the server died is reported through 'exit'.
    child.stdin!.on('error', () => {});
  }

  /** What the server wrote to stderr lately (for diagnostics). */
  get stderr(): string {
    return this.#stderr;
  }

  /** Sends `initialize` (immediately, even before the process is up) and resolves at its reply, then sends `initialized`. */
  initialize(timeoutMs: number): Promise<bigint> {
    return new Promise<bigint>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#init = undefined;
        reject(new Error(`no initialize reply within ${timeoutMs} ms; stderr: ${this.#stderr.trim()}`));
      }, timeoutMs);
      this.#init = {
        resolve: (at) => {
          clearTimeout(timer);
          this.#init = undefined;
          this.#child.stdin!.write(INITIALIZED);
          resolve(at);
        },
        reject: (error) => {
          clearTimeout(timer);
          this.#init = undefined;
          reject(error);
        },
      };
      this.#child.stdin!.write(INITIALIZE);
    });
  }

  /** Prepares the `tools/call echo` request that `send(id)` will write, with `text` as the argument. */
  prepareEcho(text: string): void {
    const rest = `,"method":"tools/call","params":{"name":"echo","arguments":{"text":${JSON.stringify(text)}}}}\n`;
    const large = rest.length > SMALL_LINE;
    this.#echo = {
      text,
      rest: large ? undefined : rest,
      restBytes: large ? Buffer.from(rest) : undefined,
      verified: 0,
    };
  }

  send(id: number): void {
    const echo = this.#echo!;
    const stdin = this.#child.stdin!;
    if (echo.rest !== undefined) {
      stdin.write(HEAD + id + echo.rest);
      return;
    }
    stdin.cork();
    stdin.write(HEAD + id);
    stdin.write(echo.restBytes!);
    stdin.uncork();
  }

  /** CPU time the server has used so far (ms). */
  cpuMs(): number {
    return cpuMs(this.pid);
  }

  /** Read and write system calls the server has made so far (each read is one chunk of stdin or more). */
  syscalls(): { reads: number; writes: number } {
    return syscalls(this.pid);
  }

  /** Peak resident set size of the server so far (KiB). */
  peakRssKiB(): number {
    return peakRssKiB(this.pid);
  }

  /** Stops the server by its pid: SIGKILL at once when `kill`, else end stdin and SIGKILL after `graceMs`. */
  async stop(options: { kill?: boolean; graceMs?: number } = {}): Promise<void> {
    this.#stopping = true;
    this.#init = undefined;
    if (this.#exitedNow) return;
    if (options.kill) {
      this.#child.kill('SIGKILL');
      await this.#exited;
      return;
    }
    this.#child.stdin!.end();
    const timer = setTimeout(() => this.#child.kill('SIGKILL'), options.graceMs ?? 1500);
    await this.#exited;
    clearTimeout(timer);
  }

  #onData(chunk: Buffer): void {
    let start = 0;
    for (;;) {
      const nl = chunk.indexOf(10, start);
      if (nl === -1) {
        if (start < chunk.length) this.#pending.push(chunk.subarray(start));
        return;
      }
      let line = chunk.subarray(start, nl);
      if (this.#pending.length > 0) {
        this.#pending.push(line);
        line = Buffer.concat(this.#pending);
        this.#pending = [];
      }
      start = nl + 1;
      if (line.length > 0) this.#onLine(line);
    }
  }

  #onLine(line: Buffer): void {
    if (line.length <= SMALL_LINE) {
      this.#onMessage(line);
      return;
    }
    const echo = this.#echo;
    if (echo === undefined) {
      this.#onMessage(line);
      return;
    }
    // A large line: a full check now and then; otherwise its id and a length that fits the echoed payload.
    if (echo.verified++ % 256 === 0) {
      this.#onMessage(line);
      return;
    }
    const id = fastId(line);
    if (!Number.isInteger(id) || line.length < echo.text.length) {
      this.onfail(new Error(`unexpected reply: ${line.subarray(0, 200).toString()}…`));
      return;
    }
    this.onreply(id);
  }

  #onMessage(line: Buffer): void {
    let msg: { id?: unknown; method?: unknown; error?: unknown; result?: unknown };
    try {
      msg = JSON.parse(line.toString());
    } catch (error) {
      this.onfail(new Error(`unparsable reply (${(error as Error).message}): ${line.subarray(0, 200)}`));
      return;
    }
    if (typeof msg.method === 'string') {
      // Notifications are allowed and ignored; a server-to-client request is not expected here.
      if (msg.id !== undefined) this.onfail(new Error(`unexpected server request ${msg.method}`));
      return;
    }
    if (msg.id === 0 && this.#init !== undefined) {
      if (msg.error !== undefined)
        this.#init.reject(new Error(`initialize failed: ${JSON.stringify(msg.error)}`));
      else this.#init.resolve(process.hrtime.bigint());
      return;
    }
    if (msg.error !== undefined || typeof msg.id !== 'number') {
      this.onfail(new Error(`error reply: ${line.subarray(0, 300)}`));
      return;
    }
    const content = (msg.result as { content?: { type?: unknown; text?: unknown }[] } | undefined)?.content;
    const block = content?.[0];
    if (content?.length !== 1 || block?.type !== 'text' || block.text !== this.#echo?.text) {
      this.onfail(new Error(`wrong echo reply: ${line.subarray(0, 300)}`));
      return;
    }
    this.onreply(msg.id);
  }
}

/** The top-level JSON-RPC id of a reply, found without parsing it (the payload is plain ASCII with no quotes). */
function fastId(line: Buffer): number {
  let at = line.subarray(0, 64).indexOf(ID_KEY);
  if (at === -1) at = line.lastIndexOf(ID_KEY);
  if (at === -1) return Number.NaN;
  let i = at + ID_KEY.length;
  while (line[i] === 0x20) i++;
  let n = 0;
  let digits = 0;
  for (; i < line.length; i++) {
    const c = line[i]!;
    if (c < 0x30 || c > 0x39) break;
    n = n * 10 + (c - 0x30);
    digits++;
  }
  return digits > 0 ? n : Number.NaN;
}

/** Milliseconds from spawn to the initialize reply of one fresh server process (killed by its pid afterwards). */
export async function coldStartMs(server: ServerCommand, timeoutMs: number): Promise<number> {
  const proc = new StdioServer(server);
  try {
    const at = await proc.initialize(timeoutMs);
    return Number(at - proc.spawnedAt) / 1e6;
  } finally {
    await proc.stop({ kill: true });
  }
}

/** Milliseconds from spawn to exit of a command such as `node -e 0`: the floor under every cold start. */
export function nodeFloorMs(floor: ServerCommand, timeoutMs: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const t0 = process.hrtime.bigint();
    const child = spawn(floor.command, floor.args, { stdio: 'ignore' });
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${floor.args.join(' ')} did not exit within ${timeoutMs} ms`));
    }, timeoutMs);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve(Number(process.hrtime.bigint() - t0) / 1e6);
    });
  });
}
