// Connecting a Client to a resolved target: the transport, the era (`--era legacy|modern`, negotiated
// otherwise), server log messages to stderr (`--log-level`), stored OAuth tokens for URLs, and the failure of
// the connection turned into the right exit code (2 with the server's stderr tail, 3, or 4).
import { Client } from '../../client/client.js';
import type { ClientOptions } from '../../client/options.js';
import { ServerSandbox } from '../../host/sandbox/launch.js';
import { SandboxedStdioTransport } from '../../host/sandbox/sandboxed-transport.js';
import { errorMessage, McpkitError } from '../../jsonrpc/errors.js';
import type { Transport } from '../../protocol/transport.js';
import { LOG_LEVELS } from '../../server/session.js';
import type { LoggingLevel } from '../../spec/types.js';
import type { HttpAuthorizer } from '../../transport/http-client/auth-hook.js';
import type { FetchLike } from '../../transport/http-client/shared.js';
import { HttpClientTransport } from '../../transport/http-client.js';
import { SseLegacyClientTransport } from '../../transport/sse-legacy-client.js';
import { StdioClientTransport } from '../../transport/stdio-client.js';
import { CliError, ExitCode, exitCodeOf } from './exit.js';
import { note } from './output.js';
import type { Target } from './target.js';

/** The connection options every target command accepts. */
export interface ConnectFlags {
  era?: string;
  logLevel?: string;
  /** Per-request time limit, in ms. */
  timeout?: string;
}

const ERAS = { legacy: 'stateful', modern: 'stateless', auto: 'auto' } as const;

/**
 * What the HTTP answers said: the status of the last one. A refusal for want of authorization (401, or 403)
 * reaches the client as a JSON-RPC error whose HTTP status is gone; this keeps it, so the exit code can be 3.
 */
export class HttpWatch {
  lastStatus: number | undefined;
  /** A fetch that records each answer's status. */
  readonly fetch: FetchLike = async (url, init) => {
    const response = await fetch(url, init);
    this.lastStatus = response.status;
    return response;
  };
  /** Whether the last answer refused authorization. */
  get refused(): boolean {
    return this.lastStatus === 401 || this.lastStatus === 403;
  }
}

/** A connected client and how to end it. */
export interface Connection {
  readonly client: Client;
  readonly target: Target;
  /** The statuses of a URL target's answers. */
  readonly http: HttpWatch;
  /** Milliseconds each request may take. */
  readonly timeout: number;
  close(): Promise<void>;
}

/** Parses `--timeout MS`. */
export function parseTimeout(value: string | undefined): number {
  if (value === undefined) return 60_000;
  const ms = Number(value);
  if (!Number.isFinite(ms) || ms <= 0)
    throw new CliError(ExitCode.usage, `--timeout needs milliseconds, got "${value}"`);
  return ms;
}

/** Parses `--log-level`. */
export function parseLogLevel(value: string | undefined): LoggingLevel | undefined {
  if (value === undefined) return undefined;
  const level = LOG_LEVELS.find((l) => l === value);
  if (level === undefined)
    throw new CliError(ExitCode.usage, `--log-level must be one of ${LOG_LEVELS.join(', ')}, got "${value}"`);
  return level;
}

/** The transport of a target (stdio: the server's stderr is kept for the failure message). */
export function transportOf(target: Target, auth: HttpAuthorizer | undefined, http?: HttpWatch): Transport {
  if (target.kind === 'stdio') {
    const options = {
      command: target.command,
      args: target.args,
      env: target.env,
      ...(target.cwd === undefined ? {} : { cwd: target.cwd }),
    };
    if (target.sandbox === undefined) return new StdioClientTransport(options);
    const sandbox = new ServerSandbox(options, target.sandbox, (e) => {
      if (e.outcome !== 'allowed') note(e.name === 'start' ? e.summary : `sandbox: ${e.summary}`);
    });
    return new SandboxedStdioTransport(sandbox, options);
  }
  const options = {
    headers: target.headers,
    ...(auth ? { auth } : {}),
    ...(http ? { fetch: http.fetch } : {}),
  };
  return target.transport === 'sse'
    ? new SseLegacyClientTransport(target.url, options)
    : new HttpClientTransport(target.url, options);
}

/**
 * Connects a client to `target`. Server log messages go to stderr with their level; `--log-level` asks the
 * server for that threshold. A failure to connect is a {@link CliError} with the exit code of its class.
 */
export async function connect(
  target: Target,
  flags: ConnectFlags,
  extra: { auth?: HttpAuthorizer; client?: ClientOptions; wrap?: (transport: Transport) => Transport } = {},
): Promise<Connection> {
  const eraFlag = flags.era ?? 'auto';
  if (!(eraFlag in ERAS))
    throw new CliError(ExitCode.usage, `--era must be "legacy", "modern" or "auto", got "${eraFlag}"`);
  const era = ERAS[eraFlag as keyof typeof ERAS];
  const level = parseLogLevel(flags.logLevel);
  const timeout = parseTimeout(flags.timeout);
  let closing = false;
  const client = new Client(
    { name: 'mcpkit-cli', version: '0.1.0' },
    {
      era,
      // The probe's wait includes a stdio server's own start, which a loaded machine can make slow: a short
      // limit would take a modern server for a legacy one.
      probeTimeoutMs: Math.min(timeout, 10_000),
      // One command, one answer: lists the server says changed are not fetched again.
      autoRefresh: false,
      // A problem that did not end the connection is worth a line, unless it is the connection ending as asked.
      onerror: (error) => {
        if (!closing) note(`warning: ${error.message}`);
      },
      onlog: (log) => {
        const data = typeof log.data === 'string' ? log.data : JSON.stringify(log.data);
        note(`[${log.level}]${log.logger === undefined ? '' : ` ${log.logger}:`} ${data}`);
      },
      ...extra.client,
    },
  );
  const http = new HttpWatch();
  const transport = transportOf(target, extra.auth, http);
  try {
    await client.connect(extra.wrap ? extra.wrap(transport) : transport, { timeout });
  } catch (e) {
    await client.close().catch(() => undefined);
    throw connectFailure(e, target, transport, http);
  }
  if (level !== undefined && client.serverCapabilities?.logging !== undefined) {
    await client.setLoggingLevel(level, { timeout });
  }
  return {
    client,
    target,
    http,
    timeout,
    close: async () => {
      closing = true;
      await client.close().catch(() => undefined);
    },
  };
}

/** A connection failure as a CliError: 2 with the stderr tail (stdio), 3 (authorization), 4 (unreachable). */
export function connectFailure(
  e: unknown,
  target: Target,
  transport: Transport | undefined,
  http?: HttpWatch,
): CliError {
  if (e instanceof CliError) return e;
  const code = http?.refused ? ExitCode.authRequired : exitCodeOf(e, target.kind);
  const message = errorMessage(e);
  if (transport instanceof StdioClientTransport || transport instanceof SandboxedStdioTransport) {
    const stderr = transport.stderrTail.trim().split('\n').slice(-20).join('\n');
    if (code === ExitCode.serverFailed || code === ExitCode.usage)
      return new CliError(
        ExitCode.serverFailed,
        `the server "${target.label}" did not start: ${message}`,
        stderr === '' ? {} : { stderr },
        e,
      );
  }
  if (code === ExitCode.authRequired) {
    // A refused private address is the person's call, not a missing sign-in.
    const hint =
      e instanceof McpkitError && e.code === 'AUTH_PRIVATE_NETWORK'
        ? 'if you trust this server to send you there, set MCPKIT_ALLOW_PRIVATE_NETWORK=1'
        : `run: mcpkit auth login ${target.label}`;
    return new CliError(code, `${target.label} requires authorization: ${message}`, { hint }, e);
  }
  if (code === ExitCode.unreachable)
    return new CliError(code, `cannot reach ${target.label}: ${message}`, {}, e);
  return new CliError(code, `cannot connect to ${target.label}: ${message}`, {}, e);
}
