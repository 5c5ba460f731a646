// The exit codes of the `mcpkit` command and the one mapping from mcpkit's error codes to them. 0 and 1 mean what
// they mean for the official Inspector CLI (which exits only 0 or 1); 2-7 are mcpkit's refinements of its 1.
import { JsonRpcError, McpkitError, type McpkitErrorCode } from '../../jsonrpc/errors.js';
import { HttpStatusError } from '../../transport/http-client/shared.js';

/** The process exit codes: 0 and 1 as the official Inspector CLI; 2-7 refine its 1 (what failed). */
export const ExitCode = {
  ok: 0,
  /** Bad usage: an unknown command, flag or argument name, a value that does not fit, a config file that does not parse. */
  usage: 1,
  /** The server (a stdio command) did not start, or exited. */
  serverFailed: 2,
  /** The server asked for OAuth (a 401 or 403 with a `WWW-Authenticate: Bearer` challenge): `mcpkit auth login <url>`. */
  authRequired: 3,
  /** The server's URL could not be reached, or it stopped answering. */
  unreachable: 4,
  /** The tool ran and returned `isError: true`. */
  toolError: 5,
  /**
   * The server answered with an error: a JSON-RPC error, an HTTP refusal that is no OAuth challenge (a bare 401 or
   * 403, as for a foreign Origin or Host), or an answer that breaks the protocol.
   */
  serverError: 6,
  /** The server did not answer within `--timeout`. */
  timeout: 7,
} as const;

export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode];

/** How a target is reached: it decides what a lost connection means (a server that died, or one out of reach). */
export type TargetKind = 'stdio' | 'url';

/** `connection`: 2 for a stdio server (it failed), 4 for a URL (unreachable). */
type ExitClass = ExitCode | 'connection';

/**
 * Every local error code, mapped once (the `Record` makes a new code a compile error here until it is decided).
 * Wire errors (a `JsonRpcError` from the server) are 6: the server answered with an error.
 */
const BY_CODE: Record<McpkitErrorCode, ExitClass> = {
  REQUEST_TIMEOUT: ExitCode.timeout,
  REQUEST_CANCELLED: ExitCode.usage,
  CONNECTION_CLOSED: 'connection',
  NOT_CONNECTED: 'connection',
  ALREADY_CONNECTED: ExitCode.usage,
  CAPABILITY_MISSING: ExitCode.usage,
  UNSUPPORTED_PROTOCOL_VERSION: ExitCode.usage,
  INVALID_RESULT: ExitCode.serverError,
  INVALID_DEFINITION: ExitCode.usage,
  INVALID_SCHEMA: ExitCode.usage,
  UNSUPPORTED_SCHEMA_DIALECT: ExitCode.usage,
  MESSAGE_TOO_LARGE: ExitCode.serverError,
  INVALID_MESSAGE: ExitCode.serverError,
  TRANSPORT_ERROR: 'connection',
  PROCESS_EXITED: ExitCode.serverFailed,
  SPAWN_FAILED: ExitCode.serverFailed,
  PAGE_LIMIT: ExitCode.serverError,
  PROGRESS_NOT_INCREASING: ExitCode.serverError,
  CONFIG_INVALID: ExitCode.usage,
  CONFIG_CONFLICT: ExitCode.usage,
  NOT_FOUND: ExitCode.usage,
  AMBIGUOUS_RESOURCE: ExitCode.usage,
  SANDBOX_UNAVAILABLE: ExitCode.serverFailed,
  RATE_LIMITED: ExitCode.usage,
  AUTH_DISCOVERY_FAILED: ExitCode.authRequired,
  AUTH_REGISTRATION_FAILED: ExitCode.authRequired,
  AUTH_AUTHORIZATION_FAILED: ExitCode.authRequired,
  AUTH_TOKEN_FAILED: ExitCode.authRequired,
  AUTH_INSECURE_ENDPOINT: ExitCode.authRequired,
  AUTH_PRIVATE_NETWORK: ExitCode.authRequired,
  AUTH_RESOURCE_MISMATCH: ExitCode.authRequired,
  AUTH_UNSUPPORTED: ExitCode.authRequired,
  AUTH_STORE_FAILED: ExitCode.authRequired,
  AUTH_VERIFIER_FAILED: ExitCode.authRequired,
  // The model of `mcpkit chat`: a spec or key that cannot work is usage; a model API that fails is out of reach.
  MODEL_CONFIG_INVALID: ExitCode.usage,
  MODEL_REQUEST_FAILED: ExitCode.unreachable,
  MODEL_RATE_LIMITED: ExitCode.unreachable,
  SKILL_INTEGRITY: ExitCode.usage,
  CARD_INVALID: ExitCode.usage,
  MODEL_INVALID_RESPONSE: ExitCode.unreachable,
};

/** A failure of the command itself, with its exit code and, for a server that did not start, its stderr tail. */
export class CliError extends Error {
  readonly exitCode: ExitCode;
  /** A short machine-readable kind for `--format json` (`usage`, `server_failed`, `auth_required`, …). */
  readonly kind: string;
  readonly details: Readonly<Record<string, unknown>>;

  constructor(exitCode: ExitCode, message: string, details: Record<string, unknown> = {}, cause?: unknown) {
    super(message, cause === undefined ? undefined : { cause });
    this.name = 'CliError';
    this.exitCode = exitCode;
    this.kind = KIND[exitCode];
    this.details = details;
  }
}

const KIND: Record<ExitCode, string> = {
  0: 'ok',
  1: 'usage',
  2: 'server_failed',
  3: 'auth_required',
  4: 'unreachable',
  5: 'tool_error',
  6: 'server_error',
  7: 'timeout',
};

/** The kind name of an exit code (`usage`, `server_failed`, …). */
export function exitKind(code: ExitCode): string {
  return KIND[code];
}

/**
 * The exit code of anything thrown while serving a command against a target of `kind`. An HTTP status alone (a 401
 * or 403 without its headers) is a refusal, 6: only the caller, who saw the `WWW-Authenticate` header, knows it for
 * an OAuth challenge (3).
 */
export function exitCodeOf(error: unknown, kind: TargetKind | undefined): ExitCode {
  if (error instanceof CliError) return error.exitCode;
  const status = error instanceof HttpStatusError ? error.status : statusOf(error);
  if (status !== undefined)
    return status >= 500 || status === 404 ? ExitCode.unreachable : ExitCode.serverError;
  if (error instanceof McpkitError) {
    const found = BY_CODE[error.code];
    if (found !== 'connection') return found;
    return kind === 'url' ? ExitCode.unreachable : ExitCode.serverFailed;
  }
  if (error instanceof JsonRpcError) return ExitCode.serverError;
  return ExitCode.usage;
}

/** The HTTP status a JSON-RPC error made from an HTTP answer carries (`data.status`), if any. */
function statusOf(error: unknown): number | undefined {
  if (!(error instanceof JsonRpcError)) return undefined;
  const data = error.data;
  if (typeof data !== 'object' || data === null || !('status' in data)) return undefined;
  const status = (data as { status: unknown }).status;
  return typeof status === 'number' && status >= 400 ? status : undefined;
}
