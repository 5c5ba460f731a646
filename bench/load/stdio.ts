// The stdio load generator: spawns a server command, speaks raw NDJSON JSON-RPC to it (so every implementation is
// measured the same way), performs the initialize handshake and drives `tools/call echo`; in the 2026-07-28 revision
// there is no handshake and every request carries the `_meta` envelope (protocol version, client capabilities and
// info). Replies are checked: small ones fully (JSON.parse, id, no error, the echoed text, and `resultType` complete
// in 2026-07-28), large ones by their id and length, with a full check of the first one and then every 256th, so
// the generator stays cheap next to the server it measures.
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

/** The stateless protocol revision (no handshake; the `_meta` envelope on every request). */
export const MODERN_VERSION = '2026-07-28';

/** Which era the generator speaks: 2025 after `initialize`, or the 2026-07-28 revision. */
export type StdioEra = 'legacy' | 'modern';

const CLIENT_INFO = { name: 'mcpkit-bench', version: '1.0.0' };

/** The `_meta` envelope every 2026-07-28 request carries, as mcpkit's client sends it. */
export const MODERN_META = {
  'io.modelcontextprotocol/protocolVersion': MODERN_VERSION,
  'io.modelcontextprotocol/clientCapabilities': {},
  'io.modelcontextprotocol/clientInfo': CLIENT_INFO,
};

const INITIALIZE = `${JSON.stringify({
  jsonrpc: '2.0',
  id: 0,
  method: 'initialize',
  params: {
    protocolVersion: PROTOCOL_VERSION,
    capabilities: {},
    clientInfo: CLIENT_INFO,
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
  readonly #era: StdioEra;

  /** `era` 'modern' speaks the 2026-07-28 revision: no handshake, the `_meta` envelope on every request. */
  constructor(server: ServerCommand, era: StdioEra = 'legacy') {
    this.#era = era;
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

  /**
   * Sends `initialize` (immediately, even before the process is up) and resolves at its reply, then sends
   * `initialized`; in the 2026-07-28 revision, which has no handshake, sends a first `tools/call echo` (id 0) instead,
   * so the server is known to answer that revision before any phase starts.
   */
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
          if (this.#era === 'legacy') this.#child.stdin!.write(INITIALIZED);
          resolve(at);
        },
        reject: (error) => {
          clearTimeout(timer);
          this.#init = undefined;
          reject(error);
        },
      };
      this.#child.stdin!.write(this.#era === 'legacy' ? INITIALIZE : `${HEAD}0${this.#echoRest('ready')}`);
    });
  }

  /** Prepares the `tools/call echo` request that `send(id)` will write, with `text` as the argument. */
  prepareEcho(text: string): void {
    const rest = this.#echoRest(text);
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

  /** A `tools/call echo` request after its id, with a newline (the `_meta` envelope in the 2026-07-28 revision). */
  #echoRest(text: string): string {
    const meta = this.#era === 'modern' ? `,"_meta":${JSON.stringify(MODERN_META)}` : '';
    return `,"method":"tools/call","params":{"name":"echo","arguments":{"text":${JSON.stringify(text)}}${meta}}}\n`;
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
      else if (this.#era === 'modern' && (msg.result as { resultType?: unknown })?.resultType !== 'complete')
        this.#init.reject(new Error(`not a 2026-07-28 result: ${line.subarray(0, 300)}`));
      else this.#init.resolve(process.hrtime.bigint());
      return;
    }
    if (msg.error !== undefined || typeof msg.id !== 'number') {
      this.onfail(new Error(`error reply: ${line.subarray(0, 300)}`));
      return;
    }
    const result = msg.result as
      | { content?: { type?: unknown; text?: unknown }[]; resultType?: unknown }
      | undefined;
    const content = result?.content;
    const block = content?.[0];
    if (
      content?.length !== 1 ||
      block?.type !== 'text' ||
      block.text !== this.#echo?.text ||
      (this.#era === 'modern' && result?.resultType !== 'complete')
    ) {
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
