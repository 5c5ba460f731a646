// Helpers of the stdio end-to-end tests: where the fixture server is, spawning it through our transport or raw,
// and killing every process started, by pid. Not a test file itself.
import { type ChildProcess, spawn } from 'node:child_process';
import process from 'node:process';
import { fileURLToPath } from 'node:url';
import { Client, type ClientOptions } from '../../src/index.js';
import { parseMessage } from '../../src/jsonrpc/parse.js';
import type { JsonObject, JsonRpcMessage, JsonRpcResponse, RequestId } from '../../src/jsonrpc/types.js';
import { StdioClientTransport, type StdioClientTransportOptions } from '../../src/stdio.js';
import { deadline } from './helpers.js';

/** The compiled fixture server. */
export const FIXTURE = fileURLToPath(new URL('./fixtures/stdio-server.js', import.meta.url));

const started = new Set<number>();

/** Whether `pid` is still running. */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Kills, by pid, every process these helpers started that is still alive (call from an after hook). */
export function killStarted(): void {
  for (const pid of started) {
    if (isAlive(pid)) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error;
      }
    }
    started.delete(pid);
  }
}

/** Spawns the fixture (or what `spawnWith` names instead) through StdioClientTransport and connects a Client to it. */
export async function connectStdio(
  options: ClientOptions = {},
  env: Record<string, string> = {},
  spawnWith: Partial<StdioClientTransportOptions> = {},
): Promise<{ client: Client; transport: StdioClientTransport }> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [FIXTURE],
    env,
    closeTimeoutMs: 1000,
    ...spawnWith,
  });
  // These tests exercise the stateful era over stdio; the era probe has its own tests.
  const client = new Client({ name: 'stdio-test-client', version: '1.0.0' }, { era: 'stateful', ...options });
  try {
    await client.connect(transport);
  } finally {
    if (transport.pid !== undefined) started.add(transport.pid);
  }
  return { client, transport };
}

/** The fixture spawned directly: raw lines in, every stdout line recorded. */
export class RawProcess {
  readonly child: ChildProcess;
  /** Every stdout line, verbatim. */
  readonly lines: string[] = [];
  stderr = '';
  readonly exited: Promise<number | null>;
  #buffer = '';
  #listeners = new Set<() => void>();
  #nextId = 1;

  constructor(env: Record<string, string> = {}) {
    this.child = spawn(process.execPath, [FIXTURE], {
      stdio: ['pipe', 'pipe', 'pipe'],
      env: { PATH: process.env.PATH ?? '', ...env },
    });
    if (this.child.pid !== undefined) started.add(this.child.pid);
    this.child.stdout!.setEncoding('utf8');
    this.child.stdout!.on('data', (chunk: string) => {
      this.#buffer += chunk;
      let nl = this.#buffer.indexOf('\n');
      while (nl !== -1) {
        this.lines.push(this.#buffer.slice(0, nl));
        this.#buffer = this.#buffer.slice(nl + 1);
        nl = this.#buffer.indexOf('\n');
      }
      for (const listener of [...this.#listeners]) listener();
    });
    this.child.stderr!.setEncoding('utf8');
    this.child.stderr!.on('data', (chunk: string) => {
      this.stderr += chunk;
    });
    this.exited = new Promise((resolve) => this.child.once('exit', (code) => resolve(code)));
  }

  /** Text left on stdout after the last newline. */
  get partial(): string {
    return this.#buffer;
  }

  /** Every stdout line parsed (throws on a line that is not a JSON-RPC message). */
  get messages(): JsonRpcMessage[] {
    return this.lines.map((line) => {
      const parsed = parseMessage(line);
      if (parsed.kind !== 'message') throw new Error(`stdout line is not a JSON-RPC message: ${line}`);
      return parsed.message;
    });
  }

  /** Writes one line (a newline is added). */
  writeLine(text: string): void {
    this.child.stdin!.write(`${text}\n`);
  }

  /** Sends a request and waits for its response. */
  async request(
    method: string,
    params?: JsonObject,
    id: RequestId = `raw-${this.#nextId++}`,
  ): Promise<JsonRpcResponse> {
    this.writeLine(
      JSON.stringify(
        params === undefined ? { jsonrpc: '2.0', id, method } : { jsonrpc: '2.0', id, method, params },
      ),
    );
    return (await this.waitFor(
      (m) => !('method' in m) && m.id === id,
      `the response to ${method}`,
    )) as JsonRpcResponse;
  }

  /** Sends a notification. */
  notify(method: string, params?: JsonObject): void {
    this.writeLine(
      JSON.stringify(params === undefined ? { jsonrpc: '2.0', method } : { jsonrpc: '2.0', method, params }),
    );
  }

  /** Waits for a raw stdout line (from line index `from`) matching `match`. */
  waitForLine(match: (line: string) => boolean, what: string, from = 0): Promise<string> {
    return deadline(
      new Promise<string>((resolve) => {
        const check = () => {
          const found = this.lines.slice(from).find(match);
          if (found === undefined) return;
          this.#listeners.delete(check);
          resolve(found);
        };
        this.#listeners.add(check);
        check();
      }),
      what,
    );
  }

  /** Waits for a message (from line index `from`) matching `match`. */
  waitFor(match: (m: JsonRpcMessage) => boolean, what: string, from = 0): Promise<JsonRpcMessage> {
    return deadline(
      new Promise<JsonRpcMessage>((resolve) => {
        const check = () => {
          for (const line of this.lines.slice(from)) {
            const parsed = parseMessage(line);
            if (parsed.kind === 'message' && match(parsed.message)) {
              this.#listeners.delete(check);
              resolve(parsed.message);
              return;
            }
          }
        };
        this.#listeners.add(check);
        check();
      }),
      what,
    );
  }

  /** Performs the initialize handshake. */
  async initialize(version = '2025-11-25', capabilities: JsonObject = {}): Promise<JsonRpcResponse> {
    const response = await this.request('initialize', {
      protocolVersion: version,
      capabilities,
      clientInfo: { name: 'raw-stdio', version: '1' },
    });
    this.notify('notifications/initialized');
    return response;
  }

  /** Closes stdin and waits for the process to exit (killing it by pid if it does not). */
  async stop(): Promise<number | null> {
    this.child.stdin!.end();
    try {
      return await deadline(this.exited, 'the fixture to exit after stdin closed');
    } finally {
      const pid = this.child.pid;
      if (pid !== undefined && isAlive(pid)) process.kill(pid, 'SIGKILL');
    }
  }
}
