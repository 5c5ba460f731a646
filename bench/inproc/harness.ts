// In-process plumbing: a server's stdio transport connected to in-memory streams (so the whole server side, from
// request bytes in to response bytes out, runs without a pipe), and block timing.
import { PassThrough, type Readable, Writable } from 'node:stream';

/** What one implementation offers the in-process benchmarks. */
export interface InprocAdapter {
  /** Builds a server with these tools (construction only: no transport). */
  build(tools: import('./fixtures.js').ToolSpec[]): unknown;
  /** Serves a built server over its own stdio transport on the given streams; resolves to a closer. */
  serve(server: unknown, stdin: Readable, stdout: Writable): Promise<() => Promise<void>>;
  /** Connects the implementation's client to a scripted responder (in memory); `listTools()` returns the count. */
  client(
    respond: (message: unknown) => object | undefined,
  ): Promise<{ listTools(): Promise<number>; close(): Promise<void> }>;
}

/**
 * Feeds request lines straight into a stdio server transport's stdin ('data' events, no stream machinery) and
 * resolves when the server has written a complete response line, encoded to bytes as a socket write would.
 */
export class LoopbackStdio {
  readonly stdin = new PassThrough();
  readonly stdout: Writable;
  #waiting: ((line: string) => void) | undefined;
  #captured = '';
  #capture = false;

  constructor() {
    this.stdout = new Writable({
      decodeStrings: false,
      highWaterMark: 1 << 30,
      write: (chunk: string | Buffer, _encoding, callback) => {
        const bytes = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk;
        if (this.#capture) this.#captured += bytes.toString();
        if (bytes[bytes.length - 1] === 0x0a) {
          const done = this.#waiting;
          this.#waiting = undefined;
          const line = this.#captured;
          this.#captured = '';
          done?.(line);
        }
        callback();
      },
    });
  }

  /** Sends one request line and resolves once a complete response line has been written (its text if `capture`). */
  request(line: string | Buffer, capture = false): Promise<string> {
    this.#capture = capture;
    const done = new Promise<string>((resolve) => {
      this.#waiting = resolve;
    });
    this.stdin.emit('data', typeof line === 'string' ? Buffer.from(line) : line);
    return done;
  }

  /** Sends a notification line (no response expected). */
  notify(line: string): void {
    this.stdin.emit('data', Buffer.from(line));
  }
}

/** JSON-RPC request line (with its newline). */
export function requestLine(id: number, method: string, params?: object): string {
  return `${JSON.stringify(params === undefined ? { jsonrpc: '2.0', id, method } : { jsonrpc: '2.0', id, method, params })}\n`;
}

/** The initialize request line the in-process benchmarks send. */
export const INITIALIZE_LINE = requestLine(0, 'initialize', {
  protocolVersion: '2025-11-25',
  capabilities: {},
  clientInfo: { name: 'mcpkit-bench', version: '1.0.0' },
});

/** The initialized notification line. */
export const INITIALIZED_LINE = '{"jsonrpc":"2.0","method":"notifications/initialized"}\n';

/**
 * Times several operations in alternating blocks (A B C A B C …) within about `budgetMs`. Untimed warm-ups of each
 * size its blocks; returns, per operation, each block's per-call time in microseconds (at least 3 blocks each).
 */
export async function timeInterleaved(
  ops: Record<string, () => Promise<unknown> | unknown>,
  blocks: number,
  budgetMs: number,
): Promise<Record<string, number[]>> {
  const names = Object.keys(ops);
  const share = budgetMs / (blocks + 1) / names.length;
  const perBlock: Record<string, number> = {};
  const out: Record<string, number[]> = {};
  // Two warm-up passes: the first one compiles (a cold first operation would otherwise be sized by its JIT time
  // into blocks so short that switching between operations dominates them), the second one sizes the blocks.
  for (let pass = 0; pass < 2; pass++) {
    for (const name of names) {
      const op = ops[name]!;
      const w0 = performance.now();
      let calls = 0;
      do {
        await op();
        calls++;
      } while (performance.now() - w0 < share && calls < 1_000_000);
      const perCallMs = (performance.now() - w0) / calls;
      perBlock[name] = Math.max(1, Math.min(100_000, Math.round(share / perCallMs)));
      out[name] = [];
    }
  }
  const end = performance.now() + budgetMs;
  for (let b = 0; b < blocks && (b < 3 || performance.now() < end); b++) {
    for (const name of names) {
      const op = ops[name]!;
      const n = perBlock[name]!;
      const t0 = process.hrtime.bigint();
      for (let i = 0; i < n; i++) await op();
      out[name]!.push(Number(process.hrtime.bigint() - t0) / 1e3 / n);
    }
  }
  return out;
}
