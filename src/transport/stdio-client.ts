import type { ChildProcess } from 'node:child_process';
import type { Readable, Writable } from 'node:stream';
import { encodeNdjson } from '../framing/ndjson.js';
import { McpkitError } from '../jsonrpc/errors.js';
import type { JsonRpcMessage } from '../jsonrpc/types.js';
import type { Transport, TransportReceiver } from '../protocol/transport.js';
import { isErrno, isWindows, killProcessTree, type StopSignal } from './process-tree.js';
import { type BrokenFraming, NdjsonLineReader, QueuedWriter } from './stdio-streams.js';

/** Environment variables a server inherits by default; everything else must be passed in `env`. */
export const DEFAULT_INHERITED_ENV_VARS: readonly string[] = isWindows
  ? [
      'APPDATA',
      'HOMEDRIVE',
      'HOMEPATH',
      'LOCALAPPDATA',
      'PATH',
      'PROCESSOR_ARCHITECTURE',
      'SYSTEMDRIVE',
      'SYSTEMROOT',
      'TEMP',
      'USERNAME',
      'USERPROFILE',
      'PROGRAMFILES',
    ]
  : ['HOME', 'LOGNAME', 'PATH', 'SHELL', 'TERM', 'USER', 'LANG', 'TZ', 'TMPDIR', 'LC_ALL', 'LC_CTYPE'];

/** The allow-listed variables of this process's environment, as a server inherits them by default. */
export function defaultEnvironment(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const key of DEFAULT_INHERITED_ENV_VARS) {
    const value = process.env[key];
    // A value starting with "()" is an exported shell function; never pass those on.
    if (value === undefined || value.startsWith('()')) continue;
    env[key] = value;
  }
  return env;
}

/** What happens to the server's stderr: captured (`'pipe'`, the default), shared with ours, or discarded. */
export type StdioStderrMode = 'pipe' | 'inherit' | 'ignore';

/** Options for {@link StdioClientTransport}. */
export interface StdioClientTransportOptions {
  /** The executable to run (no shell is involved). */
  command: string;
  /** Its arguments. */
  args?: readonly string[];
  /** Variables added to {@link defaultEnvironment}; nothing else is inherited. */
  env?: Readonly<Record<string, string>>;
  /** Working directory of the server process. */
  cwd?: string;
  /** What to do with the server's stderr; default `'pipe'` (see `onstderr` and `stderrTail`). */
  stderr?: StdioStderrMode;
  /**
   * Longest accepted message from the server in bytes; default 16 MiB. A longer line ends the connection at once
   * (`MESSAGE_TOO_LARGE`), as does output that ends in the middle of a line (`INVALID_MESSAGE`).
   */
  maxMessageBytes?: number;
  /** How long each shutdown step (stdin closed, SIGTERM, SIGKILL) waits for the process tree; default 2000 ms. */
  closeTimeoutMs?: number;
}

const STDERR_TAIL_LENGTH = 8 * 1024;
const DEFAULT_CLOSE_TIMEOUT_MS = 2000;

type State = 'new' | 'starting' | 'open' | 'closing' | 'closed';

/**
 * The client side of the stdio transport: spawns the server in its own process group and speaks NDJSON over its stdin and stdout, and closing (stdin, SIGTERM, SIGKILL) reaches the whole process tree.
 *
 * @example
 * const transport = new StdioClientTransport({ command: 'node', args: ['server.js'] });
 * await transport.start(session);
 */
export class StdioClientTransport implements Transport {
  /** Called with each piece of the server's stderr when `stderr` is `'pipe'`. */
  onstderr: ((chunk: string) => void) | undefined;
  #options: StdioClientTransportOptions;
  #closeTimeoutMs: number;
  #state: State = 'new';
  #child: ChildProcess | undefined;
  #stdin: Writable | undefined;
  #stdout: Readable | undefined;
  #receiver: TransportReceiver | undefined;
  #reader: NdjsonLineReader | undefined;
  #writer: QueuedWriter | undefined;
  #starting: Promise<void> | undefined;
  #stopping: Promise<void> | undefined;
  #stderrTail = '';
  #exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  #unexpected = false;
  /** Why the connection was ended on the server's account (it broke the framing); already given to `onclose`. */
  #fatal: McpkitError | undefined;
  #closed: Promise<void>;
  #markClosed!: () => void;

  constructor(options: StdioClientTransportOptions) {
    const timeout = options.closeTimeoutMs ?? DEFAULT_CLOSE_TIMEOUT_MS;
    if (!Number.isFinite(timeout) || timeout < 0) {
      throw new RangeError(`closeTimeoutMs must be a non-negative number, got ${timeout}`);
    }
    this.#options = options;
    this.#closeTimeoutMs = timeout;
    this.#closed = new Promise<void>((resolve) => {
      this.#markClosed = resolve;
    });
  }

  /**
   * A new, unstarted transport with the same options (and `onstderr`): a new server process. A client uses it when the
   * server exited on the era probe, so the process it then talks to is the new one (see its `pid`).
   */
  reopen(): StdioClientTransport {
    const next = new StdioClientTransport(this.#options);
    next.onstderr = this.onstderr;
    return next;
  }

  /** The server's process id once spawned. */
  get pid(): number | undefined {
    return this.#child?.pid;
  }

  /** The last 8 KiB (UTF-16 code units) of the server's stderr, when it is captured. */
  get stderrTail(): string {
    return this.#stderrTail;
  }

  start(receiver: TransportReceiver): Promise<void> {
    if (this.#state !== 'new') {
      return Promise.reject(new McpkitError('ALREADY_CONNECTED', 'Transport already started'));
    }
    this.#state = 'starting';
    this.#receiver = receiver;
    // node:child_process is loaded by the first start, not with the package: a server process never needs it.
    const spawn = childProcess?.spawn;
    this.#starting =
      spawn === undefined
        ? loadChildProcess().then(
            (loaded) =>
              new Promise<void>((resolve, reject) => this.#spawn(loaded.spawn, receiver, resolve, reject)),
          )
        : new Promise<void>((resolve, reject) => this.#spawn(spawn, receiver, resolve, reject));
    return this.#starting;
  }

  async send(message: JsonRpcMessage | JsonRpcMessage[]): Promise<void> {
    if (this.#state === 'new' || this.#state === 'starting') {
      throw new McpkitError('NOT_CONNECTED', 'Cannot send: the server process is not started');
    }
    if (this.#state !== 'open') {
      throw new McpkitError('CONNECTION_CLOSED', 'Cannot send: the server process is closed');
    }
    return this.#writer!.write(encodeNdjson(message));
  }

  async close(): Promise<void> {
    if (this.#state === 'new') this.#state = 'closed';
    // A failed start has already rejected to the caller of start(); there is nothing left to close.
    if (this.#state === 'starting') await this.#starting?.catch(() => undefined);
    if (this.#state === 'closed') return;
    this.#reader?.stop();
    return this.#stop();
  }

  #spawn(
    spawn: ChildProcessModule['spawn'],
    receiver: TransportReceiver,
    resolve: () => void,
    reject: (error: Error) => void,
  ): void {
    const { command, args = [], cwd, env, maxMessageBytes } = this.#options;
    let child: ChildProcess;
    try {
      child = spawn(command, args, {
        ...(cwd === undefined ? {} : { cwd }),
        env: { ...defaultEnvironment(), ...env },
        stdio: ['pipe', 'pipe', this.#options.stderr ?? 'pipe'],
        // Its own process group on POSIX, so the whole tree can be signalled at once.
        detached: !isWindows,
        windowsHide: true,
      });
    } catch (cause) {
      this.#state = 'closed';
      reject(spawnError(command, cause));
      return;
    }
    this.#child = child;
    this.#stdin = child.stdin!;
    this.#stdout = child.stdout!;
    this.#reader = new NdjsonLineReader(receiver, maxMessageBytes, (broken) => this.#onBroken(broken));
    this.#writer = new QueuedWriter(this.#stdin);
    const onSpawnError = (cause: Error): void => {
      this.#state = 'closed';
      for (const stream of [child.stdin, child.stdout, child.stderr]) stream?.destroy();
      reject(spawnError(command, cause));
    };
    child.once('error', onSpawnError);
    child.once('spawn', () => {
      child.off('error', onSpawnError);
      child.on('error', (cause) => this.#report('The server process reported an error', cause));
      this.#state = 'open';
      resolve();
    });
    child.once('exit', (code, signal) => this.#onExit(code, signal));
    child.once('close', () => this.#markClosed());
    this.#stdin.on('error', (cause) => this.#report('Writing to the server stdin failed', cause));
    this.#stdout.on('data', (chunk: Uint8Array) => this.#reader?.push(chunk));
    this.#stdout.on('end', () => this.#reader?.end());
    this.#stdout.on('error', (cause) => this.#report('Reading the server stdout failed', cause));
    if (child.stderr !== null) {
      child.stderr.setEncoding('utf8');
      child.stderr.on('data', (chunk: string) => this.#onStderr(chunk));
      child.stderr.on('error', (cause) => this.#report('Reading the server stderr failed', cause));
    }
  }

  #onStderr(chunk: string): void {
    let tail = (this.#stderrTail + chunk).slice(-STDERR_TAIL_LENGTH);
    // Do not start the tail with half of a surrogate pair.
    if (/^[\udc00-\udfff]/.test(tail)) tail = tail.slice(1);
    this.#stderrTail = tail;
    if (this.onstderr === undefined) return;
    try {
      this.onstderr(chunk);
    } catch (cause) {
      this.#report('The onstderr hook threw', cause);
    }
  }

  #onExit(code: number | null, signal: NodeJS.Signals | null): void {
    this.#exit = { code, signal };
    if (this.#state !== 'open') return;
    // The server went away on its own: still sweep up whatever it left running, then report.
    this.#unexpected = true;
    void this.#stop();
  }

  /**
   * The server broke the framing (a line over the limit, or output ending mid-line): no answer it owes can arrive
   * intact any more, so the connection ends now with that reason (requests waiting fail with it, not with their
   * timeout) and the process tree is stopped behind it.
   */
  #onBroken(broken: BrokenFraming): void {
    if (this.#state !== 'open') return;
    this.#fatal =
      broken.kind === 'too-large'
        ? new McpkitError(
            'MESSAGE_TOO_LARGE',
            `The server sent a line over ${broken.limit} bytes (the limit, maxMessageBytes)`,
          )
        : new McpkitError(
            'INVALID_MESSAGE',
            `The server's output ended in the middle of a line (${broken.bytes} bytes without a newline)`,
          );
    void this.#stop();
  }

  #stop(): Promise<void> {
    this.#stopping ??= this.#shutdown();
    return this.#stopping;
  }

  async #shutdown(): Promise<void> {
    this.#state = 'closing';
    const fatal = this.#fatal;
    if (fatal !== undefined) {
      this.#writer!.fail(fatal);
      this.#receiver!.onclose(fatal);
    } else if (this.#unexpected)
      this.#writer!.fail(new McpkitError('CONNECTION_CLOSED', 'The server process exited'));
    else this.#writer!.flush();
    this.#stdin!.end();
    // 'close' means the leader exited and every process holding our pipes has let go of them.
    const timeout = this.#closeTimeoutMs;
    if (!(await this.#waitClosed(timeout))) {
      await this.#signal('SIGTERM');
      if (!(await this.#waitClosed(timeout))) {
        await this.#signal('SIGKILL');
        if (!(await this.#waitClosed(timeout))) {
          this.#report(`The server process tree ${this.pid} did not exit after SIGKILL`, undefined);
          this.#stdout!.destroy();
          this.#child!.stderr?.destroy();
        }
      }
    }
    this.#reader!.stop();
    this.#state = 'closed';
    if (fatal === undefined) this.#receiver!.onclose(this.#unexpected ? this.#exitError() : undefined);
  }

  async #signal(signal: StopSignal): Promise<void> {
    const child = this.#child!;
    try {
      await killProcessTree(child.pid!, signal);
    } catch (cause) {
      this.#report(`Could not send ${signal} to the server process tree ${child.pid}`, cause);
      child.kill(signal);
    }
  }

  #waitClosed(ms: number): Promise<boolean> {
    return new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => resolve(false), ms);
      void this.#closed.then(() => {
        clearTimeout(timer);
        resolve(true);
      });
    });
  }

  #exitError(): McpkitError | undefined {
    const exit = this.#exit;
    // Only called for an exit nobody asked for: even a clean exit code must be named to the caller.
    if (exit === undefined)
      return new McpkitError('PROCESS_EXITED', 'Server process ended its output unexpectedly.');
    const tail = this.#stderrTail.trim();
    const message = `Server process exited with code ${exit.code} (signal ${exit.signal}).`;
    return new McpkitError('PROCESS_EXITED', tail === '' ? message : `${message} Last stderr: ${tail}`);
  }

  #report(message: string, cause: unknown): void {
    // Nothing after `onclose`: a connection ended for a broken framing has already been reported closed.
    if (this.#state === 'closed' || this.#fatal !== undefined) return;
    const detail = cause instanceof Error ? `: ${cause.message}` : '';
    this.#receiver?.onerror(new McpkitError('TRANSPORT_ERROR', message + detail, { cause }));
  }
}

type ChildProcessModule = typeof import('node:child_process');

let childProcess: ChildProcessModule | undefined;

async function loadChildProcess(): Promise<ChildProcessModule> {
  childProcess ??= await import('node:child_process');
  return childProcess;
}

function spawnError(command: string, cause: unknown): McpkitError {
  const detail = isErrno(cause, 'ENOENT')
    ? 'command not found (ENOENT); check the command, PATH and cwd'
    : cause instanceof Error
      ? cause.message
      : String(cause);
  return new McpkitError('SPAWN_FAILED', `Could not start the server process "${command}": ${detail}`, {
    cause,
  });
}
