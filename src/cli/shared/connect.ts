// Connecting a Client to a resolved target: the transport, the era (`--era legacy|modern`, negotiated
// otherwise), server log messages to stderr (`--log-level`), stored OAuth tokens for URLs, and a failure turned
// into the right exit code (2 with the server's stderr tail, 3, 4, 6 or 7).
import { Client } from '../../client/client.js';
import type { ClientOptions } from '../../client/options.js';
import { ServerSandbox } from '../../host/sandbox/launch.js';
import { SandboxedStdioTransport } from '../../host/sandbox/sandboxed-transport.js';
import { errorMessage, JsonRpcError, McpkitError } from '../../jsonrpc/errors.js';
import type { Transport } from '../../protocol/transport.js';
import { LOG_LEVELS } from '../../spec/log-levels.js';
import type { LoggingLevel } from '../../spec/types.js';
import type { FetchLike } from '../../transport/fetch.js';
import type { HttpAuthorizer } from '../../transport/http-client/auth-hook.js';
import { HttpClientTransport } from '../../transport/http-client/fallback.js';
import { SseLegacyClientTransport } from '../../transport/http-client/legacy-sse.js';
import { StdioClientTransport } from '../../transport/stdio-client.js';
import { CliError, ExitCode, exitCodeOf } from './exit.js';
import { note, withoutStderrTail } from './output.js';
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
 * What the HTTP answers said: the status of the last one, whether a 401 or 403 carried an OAuth challenge, and the
 * first line of an error answer's body. A refusal reaches the client as a JSON-RPC error whose HTTP status and
 * headers are gone; this keeps them, so the exit code can be 3 for an OAuth challenge and 6 for a bare refusal.
 */
export class HttpWatch {
  lastStatus: number | undefined;
  /** The last answer's status text (`Forbidden`). */
  statusText = '';
  /** Whether the last answer was a 401 or 403 with a `WWW-Authenticate: Bearer` challenge. */
  challenged = false;
  /** The first line of the last error answer's body (at most 200 characters). */
  firstLine: string | undefined;
  /** A fetch that records each answer's status, challenge and (for an error) the first line of its body. */
  readonly fetch: FetchLike = async (url, init) => {
    const response = await fetch(url, init);
    this.lastStatus = response.status;
    this.statusText = response.statusText;
    this.challenged =
      (response.status === 401 || response.status === 403) &&
      isBearerChallenge(response.headers.get('www-authenticate'));
    this.firstLine = response.status >= 400 ? await firstLine(response.clone()) : undefined;
    return response;
  };
  /** Whether the last answer refused the request (401 or 403), with an OAuth challenge or not. */
  get refused(): boolean {
    return this.lastStatus === 401 || this.lastStatus === 403;
  }
}

/** Whether a `WWW-Authenticate` value offers the Bearer scheme (OAuth), among its challenges (quoted text aside). */
export function isBearerChallenge(header: string | null): boolean {
  if (header === null) return false;
  const unquoted = header.replace(/"(?:[^"\\]|\\.)*"/g, '""');
  return /(?:^|,)\s*bearer(?=\s|,|$)/i.test(unquoted);
}

/** The first line of a body, or its JSON-RPC error's message (read only as far as it, at most 1,024 characters). */
async function firstLine(response: Response): Promise<string | undefined> {
  const reader = response.body?.getReader();
  if (reader === undefined) return undefined;
  const decoder = new TextDecoder();
  let text = '';
  try {
    while (!text.includes('\n') && text.length < 1024) {
      const { done, value } = await reader.read();
      if (done) break;
      text += decoder.decode(value, { stream: true });
    }
  } catch {
    // A body that breaks off: what arrived is still worth showing.
  } finally {
    // Not awaited: a clone's cancel settles only once the transport's own copy of the body is done with too.
    reader.cancel().catch(() => undefined);
  }
  const line = (text.split(/\r?\n/)[0] ?? '').trim();
  // A JSON-RPC error body (how most MCP servers refuse an Origin or Host) says it best by its message.
  const shown = jsonRpcMessage(line) ?? line;
  return shown === '' ? undefined : shown.slice(0, 200);
}

/** The `error.message` of a JSON-RPC error body, if `line` is one. */
function jsonRpcMessage(line: string): string | undefined {
  if (!line.startsWith('{')) return undefined;
  try {
    const body = JSON.parse(line) as { error?: { message?: unknown } };
    return typeof body.error?.message === 'string' ? body.error.message : undefined;
  } catch {
    return undefined; // not JSON after all: the line as it is
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

/**
 * A connection failure as a CliError: 2 with the stderr tail (a stdio server that did not start), 3 (an OAuth
 * challenge), 4 (unreachable), 6 (the server refused or answered with an error), 7 (no answer in time).
 */
export function connectFailure(
  e: unknown,
  target: Target,
  transport: Transport | undefined,
  http?: HttpWatch,
): CliError {
  if (e instanceof CliError) return e;
  const code = exitCodeOf(e, target.kind);
  // An OAuth step that failed (a refused private address among them) says so itself, whatever the last status.
  if (http?.refused && code !== ExitCode.authRequired) return refusal(e, target, http);
  if (transport instanceof StdioClientTransport || transport instanceof SandboxedStdioTransport) {
    const stderr = transport.stderrTail.trim().split('\n').slice(-20).join('\n');
    const details = stderr === '' ? {} : { stderr };
    if (code === ExitCode.timeout) return failure(code, e, target, details);
    const message = stderr === '' ? errorMessage(e) : withoutStderrTail(errorMessage(e));
    return new CliError(
      ExitCode.serverFailed,
      `the server "${target.label}" did not start: ${message}`,
      details,
      e,
    );
  }
  if (code === ExitCode.authRequired) {
    // A refused private address is the person's call, not a missing sign-in.
    const hint =
      e instanceof McpkitError && e.code === 'AUTH_PRIVATE_NETWORK'
        ? 'if you trust this server to send you there, set MCPKIT_ALLOW_PRIVATE_NETWORK=1'
        : `run: mcpkit auth login ${target.label}`;
    return new CliError(code, `${target.label} requires authorization: ${errorMessage(e)}`, { hint }, e);
  }
  if (code === ExitCode.unreachable)
    return new CliError(code, `cannot reach ${target.label}: ${errorMessage(e)}`, {}, e);
  if (code === ExitCode.timeout || code === ExitCode.serverError) return failure(code, e, target);
  return new CliError(code, `cannot connect to ${target.label}: ${errorMessage(e)}`, {}, e);
}

/**
 * A failure while a command runs (connected): an HTTP refusal as {@link connectFailure} says, a timeout or an error
 * answer worded as such, anything else with its own message and the exit code of its class.
 */
export function commandFailure(e: unknown, target: Target, http: HttpWatch): CliError {
  if (e instanceof CliError) return e;
  const code = exitCodeOf(e, target.kind);
  if (http.refused && code !== ExitCode.authRequired) return refusal(e, target, http);
  if (code === ExitCode.authRequired) return connectFailure(e, target, undefined);
  if (code === ExitCode.timeout || code === ExitCode.serverError) return failure(code, e, target);
  return new CliError(code, errorMessage(e), {}, e);
}

/** A 401 or 403: with an OAuth challenge, exit 3 and the sign-in hint; without one, exit 6 with the status and body. */
function refusal(e: unknown, target: Target, http: HttpWatch): CliError {
  if (http.challenged)
    return new CliError(
      ExitCode.authRequired,
      `${target.label} requires authorization: ${errorMessage(e)}`,
      { hint: `run: mcpkit auth login ${target.label}` },
      e,
    );
  const status = `HTTP ${http.lastStatus}${http.statusText === '' ? '' : ` ${http.statusText}`}`;
  return new CliError(
    ExitCode.serverError,
    `${target.label} refused the request: ${status}${http.firstLine === undefined ? '' : `: ${http.firstLine}`}`,
    {
      status: http.lastStatus,
      hint: 'this is no OAuth challenge (no "WWW-Authenticate: Bearer"), so mcpkit auth login would not help: a server answers so to an Origin or Host it does not accept, or for credentials of its own (give them with --header "Name: value")',
    },
    e,
  );
}

/** A timeout (7) or an error answer (6), worded as such; `details` (a stdio server's stderr tail) kept. */
function failure(
  code: ExitCode,
  e: unknown,
  target: Target,
  details: Record<string, unknown> = {},
): CliError {
  if (code === ExitCode.timeout)
    return new CliError(
      code,
      `${target.label} did not answer in time: ${errorMessage(e)}`,
      { ...details, hint: 'give --timeout <ms> to wait longer' },
      e,
    );
  const wire = e instanceof JsonRpcError ? ` (JSON-RPC error ${e.code})` : '';
  return new CliError(code, `${target.label} answered with an error: ${errorMessage(e)}${wire}`, details, e);
}
