// The stdio transport of a sandboxed server: `start()` prepares the sandbox (the npx install, the proxy, the control
// groups), then spawns the server inside it; what the sandbox refused or stopped is added to its stderr tail, and
// closing takes the sandbox down with the process. Used wherever mcpkit spawns a configured server.
import { McpkitError } from '../../jsonrpc/errors.js';
import type { JsonRpcMessage } from '../../jsonrpc/types.js';
import type { Transport, TransportReceiver } from '../../protocol/transport.js';
import { StdioClientTransport, type StdioClientTransportOptions } from '../../transport/stdio-client.js';
import type { SandboxStart, ServerSandbox } from './launch.js';
import type { SandboxView } from './view.js';

/**
 * A stdio server run inside a {@link ServerSandbox}: the same contract as `StdioClientTransport` (its `pid`, its
 * `stderrTail`, `onstderr`, `reopen()`), and a start that fails with `SANDBOX_UNAVAILABLE` where it cannot be
 * sandboxed: never an unsandboxed start.
 */
export class SandboxedStdioTransport implements Transport {
  /** Called with each piece of the server's stderr. */
  onstderr: ((chunk: string) => void) | undefined;
  readonly #sandbox: ServerSandbox;
  readonly #options: StdioClientTransportOptions;
  readonly #abort = new AbortController();
  #inner: StdioClientTransport | undefined;
  #start: SandboxStart | undefined;
  #view: SandboxView | undefined;
  #starting: Promise<void> | undefined;
  #finishing: Promise<void> | undefined;
  #hits: string[] = [];
  #closed = false;

  constructor(sandbox: ServerSandbox, options: StdioClientTransportOptions) {
    this.#sandbox = sandbox;
    this.#options = options;
  }

  /** A fresh, unstarted transport in the same sandbox (a new process). */
  reopen(): SandboxedStdioTransport {
    const next = new SandboxedStdioTransport(this.#sandbox, this.#options);
    next.onstderr = this.onstderr;
    return next;
  }

  /** The process id of the sandbox (bwrap's shell), once spawned. */
  get pid(): number | undefined {
    return this.#inner?.pid;
  }

  /** How this run is sandboxed (with the reads the host added, once started). */
  get view(): SandboxView {
    return this.#view ?? this.#sandbox.view;
  }

  /** The server's stderr tail and a line saying it runs sandboxed and what the sandbox refused or stopped (once spawned). */
  get stderrTail(): string {
    // Never spawned (the sandbox could not be prepared): there is nothing of the server's to show.
    if (!this.#inner) return '';
    const tail = (this.#inner?.stderrTail ?? '').trimEnd();
    const hits = this.#hits.length > 0 ? ` It ran into it: ${this.#hits.join('; ')}.` : '';
    return `${tail}${tail === '' ? '' : '\n'}[mcpkit sandbox] this server runs ${this.view.summary}.${hits}\n`;
  }

  start(receiver: TransportReceiver): Promise<void> {
    if (this.#starting)
      return Promise.reject(new McpkitError('ALREADY_CONNECTED', 'Transport already started'));
    this.#starting = this.#begin(receiver);
    return this.#starting;
  }

  send(message: JsonRpcMessage | JsonRpcMessage[]): Promise<void> {
    if (!this.#inner)
      return Promise.reject(
        new McpkitError('NOT_CONNECTED', 'Cannot send: the sandboxed server is not started'),
      );
    return this.#inner.send(message);
  }

  async close(): Promise<void> {
    this.#closed = true;
    this.#abort.abort();
    await this.#starting?.catch(() => undefined);
    await this.#inner?.close();
    await this.#finish();
  }

  async #begin(receiver: TransportReceiver): Promise<void> {
    const start = await this.#sandbox.start(this.#abort.signal, (event) => {
      if (event.outcome === 'refused' || event.outcome === 'stopped') this.#remember(event.summary);
    });
    this.#start = start;
    this.#view = start.view;
    if (this.#closed) {
      await this.#finish();
      throw new McpkitError('CONNECTION_CLOSED', 'The transport was closed while the sandbox was prepared');
    }
    const inner = new StdioClientTransport({
      ...this.#options,
      command: start.command,
      args: start.args,
      env: start.env,
      ...(start.cwd === undefined ? {} : { cwd: start.cwd }),
    });
    inner.onstderr = (chunk) => {
      start.stderr(chunk);
      this.onstderr?.(chunk);
    };
    this.#inner = inner;
    try {
      await inner.start({
        onmessage: (m, c) => receiver.onmessage(m, c),
        oninvalid: (p, c) => receiver.oninvalid(p, c),
        onerror: (e) => receiver.onerror(e),
        ...(receiver.onend ? { onend: () => receiver.onend?.() } : {}),
        onclose: (e) => {
          // What stopped it is known once the process is gone; the tail then says so to whoever reports the close.
          for (const hit of start.ended()) this.#remember(hit.message);
          receiver.onclose(e);
          void this.#finish().catch((err: unknown) => receiver.onerror(err as Error));
        },
      });
    } catch (e) {
      await this.#finish();
      throw e;
    }
  }

  /** Takes the sandbox of this run down (proxy, control groups, files); once, every caller waiting for it. */
  #finish(): Promise<void> {
    const start = this.#start;
    if (!start) return Promise.resolve();
    this.#finishing ??= start.close();
    return this.#finishing;
  }

  #remember(hit: string): void {
    if (!this.#hits.includes(hit)) this.#hits = [...this.#hits, hit].slice(-5);
  }
}
