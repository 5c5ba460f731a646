// The exit codes of the `mcpkit` command and the one mapping from mcpkit's error codes to them. 0 and 1 mean what
// they mean for the official Inspector CLI (which exits only 0 or 1); 2-5 are mcpkit's refinements of its 1.
import { JsonRpcError, McpkitError, type McpkitErrorCode } from '../../jsonrpc/errors.js';
import { HttpStatusError } from '../../transport/http-client/shared.js';

/** The process exit codes: 0 and 1 as the official Inspector CLI; 2-5 refine its 1 (what failed). */
export const ExitCode = {
  ok: 0,
  /** Bad usage (unknown command or flag, a value that does not fit, a config file that does not parse) or a request the server refused. */
  usage: 1,
  /** The server (a stdio command) did not start, or exited. */
  serverFailed: 2,
  /** The server wants authorization (run `mcpkit auth login <url>`). */
  authRequired: 3,
  /** The server's URL could not be reached, or it stopped answering. */
  unreachable: 4,
  /** The tool ran and returned `isError: true`. */
  toolError: 5,
} as const;

export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode];

/** How a target is reached: it decides what a lost connection means (a server that died, or one out of reach). */
export type TargetKind = 'stdio' | 'url';

/** `connection`: 2 for a stdio server (it failed), 4 for a URL (unreachable). */
type ExitClass = ExitCode | 'connection';

/**
 * Every local error code, mapped once (the `Record` makes a new code a compile error here until it is decided).
 * Wire errors (a `JsonRpcError` from the server) are 1: the server refused what was asked.
 */
const BY_CODE: Record<McpkitErrorCode, ExitClass> = {
  REQUEST_TIMEOUT: 'connection',
  REQUEST_CANCELLED: ExitCode.usage,
  CONNECTION_CLOSED: 'connection',
  NOT_CONNECTED: 'connection',
  ALREADY_CONNECTED: ExitCode.usage,
  CAPABILITY_MISSING: ExitCode.usage,
  UNSUPPORTED_PROTOCOL_VERSION: ExitCode.usage,
  INVALID_RESULT: ExitCode.usage,
  INVALID_DEFINITION: ExitCode.usage,
  INVALID_SCHEMA: ExitCode.usage,
  UNSUPPORTED_SCHEMA_DIALECT: ExitCode.usage,
  MESSAGE_TOO_LARGE: ExitCode.usage,
  INVALID_MESSAGE: ExitCode.usage,
  TRANSPORT_ERROR: 'connection',
  PROCESS_EXITED: ExitCode.serverFailed,
  SPAWN_FAILED: ExitCode.serverFailed,
  PAGE_LIMIT: ExitCode.usage,
  PROGRESS_NOT_INCREASING: ExitCode.usage,
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
};

/** The kind name of an exit code (`usage`, `server_failed`, …). */
export function exitKind(code: ExitCode): string {
  return KIND[code];
}

/** The exit code of anything thrown while serving a command against a target of `kind`. */
export function exitCodeOf(error: unknown, kind: TargetKind | undefined): ExitCode {
  if (error instanceof CliError) return error.exitCode;
  if (error instanceof HttpStatusError) {
    if (error.status === 401 || error.status === 403) return ExitCode.authRequired;
    return error.status >= 500 || error.status === 404 ? ExitCode.unreachable : ExitCode.usage;
  }
  if (error instanceof McpkitError) {
    const found = BY_CODE[error.code];
    if (found !== 'connection') return found;
    return kind === 'url' ? ExitCode.unreachable : ExitCode.serverFailed;
  }
  if (error instanceof JsonRpcError) return ExitCode.usage;
  return ExitCode.usage;
}
