// Shared helpers of the interoperability tests: where the compiled fixtures are, and bookkeeping that kills every
// process a test started by its own pid.
import { spawn } from 'node:child_process';
import process from 'node:process';
import { fileURLToPath } from 'node:url';
import type { JsonRpcMessage, SendOptions, Transport, TransportReceiver } from '../../src/index.js';

/** The official SDK's stdio server (test/fixtures/official-stdio-server.ts, compiled). */
export const OFFICIAL_SERVER = fileURLToPath(
  new URL('../fixtures/official-stdio-server.js', import.meta.url),
);
/** The official SDK's stdio client that walks the contract and prints one JSON summary. */
export const OFFICIAL_CLIENT = fileURLToPath(
  new URL('../fixtures/official-stdio-client.js', import.meta.url),
);
/** Our own stdio server offering the same contract (test/interop/fixtures/mcpkit-stdio-server.ts, compiled). */
export const MCPKIT_SERVER = fileURLToPath(new URL('./fixtures/mcpkit-stdio-server.js', import.meta.url));

/** Per-request timeout for every call in these tests: far above what a local round trip needs. */
export const CALL = { timeout: 5_000 } as const;
/** Per-test bound. */
export const TEST_TIMEOUT = 10_000;

/** True while a process with this pid exists (a zombie counts until it is reaped). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Waits until `pid` is gone, up to `ms`; resolves whether it went. */
export async function waitGone(pid: number, ms = 3_000): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (isAlive(pid)) {
    if (Date.now() >= deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return true;
}

/** Resolves with `promise`, or rejects with `what` after `ms` (the timer never outlives the race). */
export async function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(what)), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** Remembers pids so an `after` hook can SIGKILL whatever is still running, each by its own id. */
export class Pids {
  readonly #pids = new Set<number>();

  add(pid: number | null | undefined): void {
    if (typeof pid === 'number') this.#pids.add(pid);
  }

  killAll(): void {
    for (const pid of this.#pids) {
      if (!isAlive(pid)) continue;
      try {
        process.kill(pid, 'SIGKILL');
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error;
      }
    }
  }
}

/** What a finished child process left behind. */
export interface RunResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Runs `node <args>` to completion (SIGKILLed after `timeoutMs`), recording its pid in `pids`. */
export function runNode(
  args: readonly string[],
  pids: Pids,
  env: Record<string, string> = {},
  timeoutMs = 8_000,
): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    pids.add(child.pid);
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
    });
    const timer = setTimeout(() => {
      if (child.pid !== undefined && isAlive(child.pid)) process.kill(child.pid, 'SIGKILL');
    }, timeoutMs);
    child.once('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
  });
}

/**
 * Wraps one of our transports so a test can see (and optionally rewrite) every message in both directions
 * without touching the library.
 */
export class TapTransport implements Transport {
  readonly sent: JsonRpcMessage[] = [];
  readonly received: JsonRpcMessage[] = [];
  readonly #inner: Transport;
  readonly #rewriteIncoming: (message: JsonRpcMessage) => JsonRpcMessage;

  constructor(inner: Transport, rewriteIncoming: (message: JsonRpcMessage) => JsonRpcMessage = (m) => m) {
    this.#inner = inner;
    this.#rewriteIncoming = rewriteIncoming;
  }

  get sessionId(): string | undefined {
    return this.#inner.sessionId;
  }

  start(receiver: TransportReceiver): Promise<void> {
    return this.#inner.start({
      onmessage: (message, context) => {
        const seen = this.#rewriteIncoming(message);
        this.received.push(seen);
        receiver.onmessage(seen, context);
      },
      oninvalid: (parsed, context) => receiver.oninvalid(parsed, context),
      onerror: (error) => receiver.onerror(error),
      onclose: (error) => receiver.onclose(error),
    });
  }

  send(message: JsonRpcMessage | JsonRpcMessage[], options?: SendOptions): Promise<void> {
    for (const m of Array.isArray(message) ? message : [message]) this.sent.push(m);
    return this.#inner.send(message, options);
  }

  close(): Promise<void> {
    return this.#inner.close();
  }
}

/** The first text block of a tool result. */
export function firstText(result: {
  content?: readonly { type: string; text?: string }[];
}): string | undefined {
  const block = result.content?.find((b) => b.type === 'text');
  return block?.text;
}
