// `mcpkit serve --watch`: the server runs in a child process (`mcpkit serve` without --watch) that is started again,
// debounced, when a file beside the module changes. Over HTTP the new child listens on the same port. Over stdio
// this process stays between the client and the child: it records the client's `initialize`, replays it to each new
// child (dropping the answer), answers the requests the old child left unanswered with an error, and tells the
// client the lists changed, so the client keeps its session across restarts.
import { type ChildProcess, spawn } from 'node:child_process';
import { type FSWatcher, readdirSync, watch } from 'node:fs';
import { dirname, join } from 'node:path';
import { ExitCode } from '../../shared/exit.js';
import { note } from '../../shared/output.js';
import { LineSplitter } from './lines.js';

/** What the supervisor runs. */
export interface WatchTarget {
  path: string;
  http: number | undefined;
  exportName: string | undefined;
  /** `--otel`, passed on to each child. */
  otel: boolean;
  /** Node flags for the child (`--experimental-strip-types` where that is how TypeScript loads). */
  nodeFlags: string[];
}

const DEBOUNCE_MS = 150;
const KILL_AFTER_MS = 3000;
const REPLAY_ID = 'mcpkit-serve-watch-replay';

/** Runs the module's server and restarts it on change until a signal (or, over stdio, the end of stdin). */
export async function runWatch(target: WatchTarget): Promise<number> {
  const args = [
    ...target.nodeFlags,
    process.argv[1] as string,
    'serve',
    target.path,
    ...(target.http === undefined ? [] : ['--http', String(target.http)]),
    ...(target.exportName === undefined ? [] : ['--export', target.exportName]),
    ...(target.otel ? ['--otel'] : []),
  ];
  const relay = target.http === undefined ? new StdioRelay() : undefined;
  let child: ChildProcess | undefined;
  let generation = 0;
  let stopping = false;
  /** Children stopped on purpose: their exit is no news. */
  const stopped = new WeakSet<ChildProcess>();

  const start = () => {
    const gen = ++generation;
    const proc = spawn(process.execPath, args, {
      stdio: [relay ? 'pipe' : 'ignore', relay ? 'pipe' : 'inherit', 'inherit'],
    });
    child = proc;
    proc.on('error', (e) => note(`mcpkit serve: cannot start the server: ${e.message}`));
    proc.on('exit', (code, signal) => {
      if (child === proc) child = undefined;
      relay?.detach(proc);
      if (!stopping && !stopped.has(proc) && gen === generation)
        note(`mcpkit serve: the server exited (${signal ?? `code ${code}`}); waiting for a change`);
    });
    relay?.attach(proc, gen > 1);
  };

  const stop = async (proc: ChildProcess | undefined) => {
    if (!proc || proc.exitCode !== null || proc.signalCode !== null) return;
    stopped.add(proc);
    const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
    proc.kill('SIGTERM');
    const timer = setTimeout(() => proc.kill('SIGKILL'), KILL_AFTER_MS);
    await exited;
    clearTimeout(timer);
  };

  let timer: ReturnType<typeof setTimeout> | undefined;
  let restarting: Promise<void> = Promise.resolve();
  const changed = (file: string) => {
    clearTimeout(timer);
    timer = setTimeout(() => {
      restarting = restarting.then(async () => {
        if (stopping) return;
        await stop(child);
        if (stopping) return;
        note(`mcpkit serve: ${file} changed, restarting`);
        start();
      });
    }, DEBOUNCE_MS);
  };
  const watchers = watchFolder(dirname(target.path), changed);
  start();
  const whyStopped = await new Promise<'signal' | 'input'>((resolve) => {
    process.once('SIGINT', () => resolve('signal'));
    process.once('SIGTERM', () => resolve('signal'));
    relay?.onInputEnd(() => resolve('input'));
  });
  stopping = true;
  clearTimeout(timer);
  for (const w of watchers) w.close();
  await restarting;
  if (whyStopped === 'input' && child?.stdin) {
    // The client is gone: the child finishes what it owes and exits on its own end of input.
    const proc = child;
    proc.stdin?.end();
    const timer2 = setTimeout(() => void stop(proc), KILL_AFTER_MS);
    await new Promise<void>((resolve) =>
      proc.exitCode !== null ? resolve() : proc.once('exit', () => resolve()),
    );
    clearTimeout(timer2);
  } else await stop(child);
  return ExitCode.ok;
}

/** Skipped when watching: dependencies, version control, editors' and tools' dot folders. */
function skipped(name: string): boolean {
  return name === 'node_modules' || name.startsWith('.');
}

/**
 * Watches `dir` and its subfolders (node_modules and dot folders left out, so a project root stays cheap to
 * watch); calls `onChange` with the changed file's name.
 */
function watchFolder(dir: string, onChange: (file: string) => void): FSWatcher[] {
  const watchers: FSWatcher[] = [];
  const add = (folder: string, recursive: boolean) => {
    try {
      const w = watch(folder, { recursive }, (_event, name) => {
        const file = name === null ? folder : join(folder, String(name));
        if (
          String(name ?? '')
            .split(/[\\/]/)
            .some(skipped) ||
          /(?:~|\.swp|\.tmp)$/.test(file)
        )
          return;
        onChange(file);
      });
      w.on('error', () => w.close());
      watchers.push(w);
    } catch (e) {
      note(`mcpkit serve: cannot watch ${folder}: ${(e as Error).message}`);
    }
  };
  add(dir, false);
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.isDirectory() && !skipped(entry.name)) add(join(dir, entry.name), true);
  }
  return watchers;
}

/**
 * The stdio path of a watched server: client lines go to the current child (queued while none runs), child lines
 * to the client. The client's `initialize` and `notifications/initialized` are kept and replayed to each new child.
 */
class StdioRelay {
  #child: ChildProcess | undefined;
  #queue: string[] = [];
  #init: Record<string, unknown> | undefined;
  #initialized: string | undefined;
  /** Requests of the client the current child has not answered (by JSON-encoded id). */
  #pending = new Map<string, unknown>();
  #inputEnd: (() => void) | undefined;

  constructor() {
    const lines = new LineSplitter(
      (line) => this.#fromClient(line),
      (piece) => this.#child?.stdin?.write(piece),
    );
    process.stdin.on('data', (chunk: Buffer) => lines.push(chunk));
    process.stdin.on('end', () => this.#inputEnd?.());
  }

  onInputEnd(listener: () => void): void {
    this.#inputEnd = listener;
  }

  attach(proc: ChildProcess, replay: boolean): void {
    this.#child = proc;
    proc.stdin?.on('error', () => undefined); // A child that died: its exit is reported, not this.
    const lines = new LineSplitter(
      (line) => this.#fromChild(line),
      (piece) => process.stdout.write(piece),
    );
    proc.stdout?.on('data', (chunk: Buffer) => lines.push(chunk));
    if (replay && this.#init) {
      this.#write(JSON.stringify({ ...this.#init, id: REPLAY_ID }));
      if (this.#initialized) this.#write(this.#initialized);
    }
    for (const line of this.#queue) this.#write(line);
    this.#queue = [];
  }

  detach(proc: ChildProcess): void {
    if (this.#child !== proc) return;
    this.#child = undefined;
    for (const id of this.#pending.values()) {
      const error = {
        code: -32603,
        message: 'The server restarted (mcpkit serve --watch): send the request again',
      };
      process.stdout.write(`${JSON.stringify({ jsonrpc: '2.0', id, error })}\n`);
    }
    this.#pending.clear();
  }

  #write(line: string): void {
    if (this.#child?.stdin?.writable) this.#child.stdin.write(`${line}\n`);
    else this.#queue.push(line);
  }

  #fromClient(line: string): void {
    const m = parseObject(line);
    if (m && typeof m.method === 'string') {
      if (m.method === 'initialize' && m.id !== undefined) this.#init = m;
      if (m.method === 'notifications/initialized') this.#initialized = line;
      if (m.id !== undefined && m.id !== null) this.#pending.set(JSON.stringify(m.id), m.id);
    }
    this.#write(line);
  }

  #fromChild(line: string): void {
    const m = parseObject(line);
    if (m && m.method === undefined && m.id !== undefined) {
      if (m.id === REPLAY_ID) {
        this.#announce(m.result);
        return;
      }
      this.#pending.delete(JSON.stringify(m.id));
    }
    process.stdout.write(`${line}\n`);
  }

  /** After a replayed handshake: the lists the new child declares as changing may differ, so say they changed. */
  #announce(result: unknown): void {
    const caps = (
      result as { capabilities?: Record<string, { listChanged?: boolean } | undefined> } | undefined
    )?.capabilities;
    for (const kind of ['tools', 'resources', 'prompts']) {
      if (caps?.[kind]?.listChanged === true)
        process.stdout.write(
          `${JSON.stringify({ jsonrpc: '2.0', method: `notifications/${kind}/list_changed` })}\n`,
        );
    }
  }
}

function parseObject(line: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(line);
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}
