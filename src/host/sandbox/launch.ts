// One sandboxed server, start after start: what it needs prepared once (an npx package installed outside the
// sandbox), and for each start the command that runs it inside bubblewrap (placed first in its control groups, its
// exit status kept), the filtering proxy when it may reach some hosts, and what it ran into, told as events.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { errorMessage, McpkitError } from '../../jsonrpc/errors.js';
import { bwrapArgs, PROXY_SOCKET_INSIDE } from './bwrap.js';
import { createSandboxCgroups, type SandboxCgroups } from './cgroup.js';
import { forwarderWords, proxyEnvironment } from './forwarder.js';
import { hitIn, type SandboxHit, stopOf } from './hits.js';
import { type InstalledProgram, installForSandbox, launcherOf, parseNpx } from './npx.js';
import { hiddenFolders, isHidden, programReads } from './paths.js';
import { inside, type SandboxPolicy } from './policy.js';
import { type FilteringProxy, startFilteringProxy } from './proxy.js';
import { type SandboxTools, sandboxTools } from './support.js';
import { type SandboxView, sandboxView } from './view.js';

/** What a sandbox tells the host: preparing, started, a run-in with the sandbox, a stop. */
export interface SandboxEvent {
  name: 'prepare' | 'start' | 'network' | SandboxHit['kind'];
  outcome: 'ok' | 'sandboxed' | 'allowed' | 'refused' | 'stopped';
  summary: string;
}

/** A stdio server's command as configured. */
export interface SandboxedCommand {
  command: string;
  args: readonly string[];
  env: Readonly<Record<string, string>>;
  cwd?: string | undefined;
}

/** One start of a sandboxed server: the command to spawn, and hooks for what it does. */
export interface SandboxStart {
  command: string;
  args: string[];
  env: Record<string, string>;
  cwd?: string;
  view: SandboxView;
  /** Each piece of the server's stderr, to recognise refusals. */
  stderr(chunk: string): void;
  /** After the server ended: what stopped it, if its sandbox did (also told as an event). */
  ended(): SandboxHit[];
  /** Stops the proxy and removes the control groups and temporary files. */
  close(): Promise<void>;
}

/** Events told per start at most; a server failing in a loop does not flood the log. */
const MAX_EVENTS = 50;
/** The longest an npx install may take. */
const INSTALL_TIMEOUT_MS = 300_000;

const PLACE_AND_RUN = `status=$1; n=$2; shift 2
while [ "$n" -gt 0 ]; do echo $$ > "$1" || exit 125; shift; n=$((n-1)); done
"$@"; code=$?; echo "$code" > "$status"; exit "$code"`;

/**
 * The sandbox of one server across its restarts. `start()` may throw `SANDBOX_UNAVAILABLE` (no sandbox here, or none
 * that bounds root's processes; never worth a restart) or `SPAWN_FAILED` (the npx install failed).
 */
export class ServerSandbox {
  readonly policy: SandboxPolicy;
  readonly #config: SandboxedCommand;
  readonly #onevent: (event: SandboxEvent) => void;
  readonly #tools: () => SandboxTools;
  #installed: Promise<InstalledProgram> | undefined;

  constructor(
    config: SandboxedCommand,
    policy: SandboxPolicy,
    onevent: (event: SandboxEvent) => void,
    tools: () => SandboxTools = () => sandboxTools(),
  ) {
    this.#config = config;
    this.policy = policy;
    this.#onevent = onevent;
    this.#tools = tools;
  }

  /** How the server is sandboxed, before a start adds what it reads of its own accord. */
  get view(): SandboxView {
    return sandboxView(this.policy);
  }

  /**
   * Prepares one start (checks the machine, installs an npx package once, starts the proxy); `listener` hears this
   * start's events too.
   */
  async start(signal?: AbortSignal, listener?: (event: SandboxEvent) => void): Promise<SandboxStart> {
    const tools = this.#tools();
    const policy = this.policy;
    const tell = this.#teller(listener);
    const home = homedir();
    const hidden = hiddenFolders(home);
    const cwd = resolve(this.#config.cwd ?? process.cwd());
    const { command, args, reads } = await this.#program(cwd, hidden, home, tell, signal);
    const cgroups = createSandboxCgroups(policy);
    if (process.getuid?.() === 0 && !cgroups?.limits.includes('processes')) {
      await cgroups?.remove();
      throw new McpkitError(
        'SANDBOX_UNAVAILABLE',
        'the host runs as root, which the process limit (RLIMIT_NPROC) does not bind, and no pids control group is writable here: the sandbox cannot stop a fork bomb, so the server is not started',
      );
    }
    const work = mkdtempSync(join(tmpdir(), 'mcpkit-sandbox-run-'));
    let proxy: FilteringProxy | undefined;
    try {
      if (Array.isArray(policy.network)) {
        proxy = await startFilteringProxy(policy.network, (e) =>
          tell({
            name: 'network',
            outcome: e.outcome,
            summary:
              e.outcome === 'allowed' ? `connected to ${e.target}` : `refused ${e.target}: ${e.reason ?? ''}`,
          }),
        );
        // The forwarder inside the sandbox runs on this Node.
        reads.push(...programReads(process.execPath, [], cwd, this.#path, hidden, home));
      }
      const automatic = [...new Set(reads)];
      const forwarder = proxy && forwarderWords(process.execPath, PROXY_SOCKET_INSIDE);
      const bwrap = bwrapArgs({
        tools,
        policy,
        command,
        args,
        cwd,
        hidden,
        reads: automatic,
        proxy: proxy && forwarder && { socket: proxy.socket, forwarder },
        memoryByGroup: cgroups?.limits.includes('memory'),
      });
      const view = sandboxView(policy, automatic);
      const status = join(work, 'status');
      const procs = cgroups?.procs ?? [];
      const also = automatic.length > 0 ? `; also readable: ${automatic.join(', ')}` : '';
      const groups = cgroups ? ` (control groups: ${cgroups.limits.join(', ')})` : '';
      tell({ name: 'start', outcome: 'sandboxed', summary: `${view.summary}${also}${groups}` });
      const place = ['-c', PLACE_AND_RUN, 'mcpkit-sandbox', status, String(procs.length), ...procs];
      return this.#start(
        {
          command: tools.sh,
          args: [...place, tools.bwrap, ...bwrap],
          env: { ...this.#config.env, TMPDIR: '/tmp', ...(proxy ? proxyEnvironment() : {}) },
          cwd,
          view,
        },
        { status, cgroups, proxy, work, tell },
      );
    } catch (e) {
      await proxy?.close();
      await cgroups?.remove();
      rmSync(work, { recursive: true, force: true });
      throw e;
    }
  }

  get #path(): string {
    return this.#config.env.PATH ?? process.env.PATH ?? '';
  }

  /** The program to run (an npx package installed first), and what it needs to read of the hidden folders. */
  async #program(
    cwd: string,
    hidden: string[],
    home: string,
    tell: (event: SandboxEvent) => void,
    signal: AbortSignal | undefined,
  ): Promise<{ command: string; args: string[]; reads: string[] }> {
    let command = this.#config.command;
    let args = [...this.#config.args];
    const reads: string[] = [];
    const launcher = launcherOf(command);
    if (launcher === 'uvx')
      throw new McpkitError(
        'SANDBOX_UNAVAILABLE',
        'a uvx-launched server cannot be sandboxed yet: install it first (uv tool install PACKAGE) and give its program as the command',
      );
    if (launcher === 'npx') {
      const npx = parseNpx(args);
      if (typeof npx === 'string')
        throw new McpkitError('SANDBOX_UNAVAILABLE', `cannot sandbox this npx command: ${npx}`);
      const timeout = AbortSignal.timeout(INSTALL_TIMEOUT_MS);
      this.#installed ??= installForSandbox(
        npx,
        { ...this.#config.env },
        cwd,
        (text) => tell({ name: 'prepare', outcome: 'ok', summary: text }),
        signal ? AbortSignal.any([timeout, signal]) : timeout,
      );
      let installed: InstalledProgram;
      try {
        installed = await this.#installed;
      } catch (e) {
        this.#installed = undefined;
        throw e;
      }
      command = installed.command;
      args = installed.args;
      if (isHidden(installed.folder, hidden)) reads.push(installed.folder);
    }
    reads.push(...programReads(command, args, cwd, this.#path, hidden, home));
    if (isHidden(cwd, hidden) && !hidden.includes(cwd) && !inside(resolve(home), cwd)) reads.push(cwd);
    return { command, args, reads };
  }

  /** Tells events of one start: each text once (a fork bomb prints the same refusal by the thousand), at most {@link MAX_EVENTS}. */
  #teller(listener?: (event: SandboxEvent) => void): (event: SandboxEvent) => void {
    const seen = new Set<string>();
    return (event) => {
      const key = `${event.name} ${event.outcome} ${event.summary}`;
      if (seen.has(key) || seen.size > MAX_EVENTS) return;
      seen.add(key);
      listener?.(event);
      if (seen.size <= MAX_EVENTS) this.#onevent(event);
      else
        this.#onevent({
          name: event.name,
          outcome: event.outcome,
          summary: `more than ${MAX_EVENTS} sandbox events: the rest of this run is not logged`,
        });
    };
  }

  #start(
    spawn: Pick<SandboxStart, 'command' | 'args' | 'env' | 'cwd' | 'view'>,
    run: {
      status: string;
      cgroups: SandboxCgroups | undefined;
      proxy: FilteringProxy | undefined;
      work: string;
      tell: (event: SandboxEvent) => void;
    },
  ): SandboxStart {
    const { status, cgroups, proxy, work, tell } = run;
    let partial = '';
    let forks = 0;
    const poll = setInterval(() => {
      const now = cgroups?.counters().forksRefused ?? 0;
      if (now > forks)
        tell({
          name: 'processes',
          outcome: 'refused',
          summary: `${now - forks} new processes refused: the sandbox's process limit (${this.policy.processes}) is reached`,
        });
      forks = now;
    }, 1000);
    poll.unref();
    let closed = false;
    return {
      ...spawn,
      stderr: (chunk) => {
        const lines = (partial + chunk).split('\n');
        partial = (lines.pop() ?? '').slice(-4096);
        for (const line of lines) {
          const hit = hitIn(line);
          if (hit) tell({ name: hit.kind, outcome: 'refused', summary: `${hit.message}: ${hit.line}` });
        }
      },
      ended: () => {
        clearInterval(poll);
        const code = readStatus(status, tell);
        const hits: SandboxHit[] = [];
        const counters = cgroups?.counters();
        if (counters && counters.forksRefused > forks)
          hits.push({
            kind: 'processes',
            message: `${counters.forksRefused - forks} new processes refused: the sandbox's process limit (${this.policy.processes}) was reached`,
          });
        const stop = stopOf(code, (counters?.oomKills ?? 0) > 0, this.policy.cpuSeconds);
        if (stop) hits.push(stop);
        for (const hit of hits)
          tell({
            name: hit.kind,
            outcome: hit.kind === 'processes' ? 'refused' : 'stopped',
            summary: hit.message,
          });
        return hits;
      },
      close: async () => {
        if (closed) return;
        closed = true;
        clearInterval(poll);
        await proxy?.close();
        if (cgroups && !(await cgroups.remove()))
          this.#onevent({
            name: 'start',
            outcome: 'stopped',
            summary: 'a control group of the sandbox is still busy and was left behind',
          });
        rmSync(work, { recursive: true, force: true });
      },
    };
  }
}

function readStatus(file: string, tell: (event: SandboxEvent) => void): number | undefined {
  try {
    const n = Number(readFileSync(file, 'utf8').trim());
    return Number.isInteger(n) ? n : undefined;
  } catch (e) {
    // Stopped by the host (the shell was signalled before writing it): nothing to explain.
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT')
      tell({
        name: 'start',
        outcome: 'stopped',
        summary: `the sandbox's exit status is unreadable: ${errorMessage(e)}`,
      });
    return undefined;
  }
}
