import type { JsonRpcErrorObject } from './types.js';

/** Numeric JSON-RPC and MCP error codes sent on the wire. */
export const ErrorCode = {
  ParseError: -32700,
  InvalidRequest: -32600,
  MethodNotFound: -32601,
  InvalidParams: -32602,
  InternalError: -32603,
  /** 2025-era resource-not-found (2026-07-28 uses InvalidParams). */
  ResourceNotFound: -32002,
  /** URL elicitation required (2025-11-25). */
  UrlElicitationRequired: -32042,
  /** 2026-07-28: an Mcp-* header disagrees with the body. */
  HeaderMismatch: -32020,
  /** 2026-07-28: the request needs a client capability that was not declared. */
  MissingClientCapability: -32021,
  /** 2026-07-28: the requested protocol revision is not supported. */
  UnsupportedProtocolVersion: -32022,
  /**
   * mcpkit: the request was over a rate limit or a concurrency cap; `data.retryAfterMs` says when to retry (a
   * stateless HTTP request also gets 429 with `Retry-After`).
   */
  RateLimited: -32080,
  /** Sampling rejected by the user (convention from the spec's examples). */
  UserRejected: -1,
} as const;

/**
 * A wire error: carries a numeric `code` and is sent to the peer as a JSON-RPC error.
 * Throw it from a handler to answer with exactly this error.
 */
export class JsonRpcError extends Error {
  readonly code: number;
  readonly data: unknown;

  constructor(code: number, message: string, data?: unknown) {
    super(message);
    this.name = 'JsonRpcError';
    this.code = code;
    this.data = data;
  }

  /** The error object as sent on the wire. */
  toJSON(): JsonRpcErrorObject {
    return this.data === undefined
      ? { code: this.code, message: this.message }
      : { code: this.code, message: this.message, data: this.data };
  }

  /** Rebuilds a JsonRpcError from a received error object. */
  static from(error: JsonRpcErrorObject): JsonRpcError {
    return new JsonRpcError(error.code, error.message, error.data);
  }
}

/** Stable string codes of local errors (never sent on the wire). */
export type McpkitErrorCode =
  | 'REQUEST_TIMEOUT'
  | 'REQUEST_CANCELLED'
  | 'CONNECTION_CLOSED'
  | 'NOT_CONNECTED'
  | 'ALREADY_CONNECTED'
  | 'CAPABILITY_MISSING'
  | 'UNSUPPORTED_PROTOCOL_VERSION'
  | 'INVALID_RESULT'
  | 'INVALID_DEFINITION'
  | 'INVALID_SCHEMA'
  | 'UNSUPPORTED_SCHEMA_DIALECT'
  | 'MESSAGE_TOO_LARGE'
  | 'INVALID_MESSAGE'
  | 'TRANSPORT_ERROR'
  | 'PROCESS_EXITED'
  | 'SPAWN_FAILED'
  | 'PAGE_LIMIT'
  | 'PROGRESS_NOT_INCREASING'
  | 'CONFIG_INVALID'
  // A config file already holds a different entry under the name being installed (mcpkit/host's installServer).
  | 'CONFIG_CONFLICT'
  | 'NOT_FOUND'
  // Two servers of a host answer a resource URI equally well (both list it, or equally specific templates match).
  | 'AMBIGUOUS_RESOURCE'
  // A server configured sandboxed cannot be sandboxed here (another platform, bwrap missing, no way to bound root's
  // processes): it is not started, never started unsandboxed (mcpkit/host).
  | 'SANDBOX_UNAVAILABLE'
  | 'RATE_LIMITED'
  // OAuth client (mcpkit/auth): discovery, registration, the authorization response, the token endpoint,
  // an endpoint that is not HTTPS (off loopback) or on another origin, one on a private, loopback or link-local
  // address a remote server may not aim the client at, a resource that is not this server's.
  | 'AUTH_DISCOVERY_FAILED'
  | 'AUTH_REGISTRATION_FAILED'
  | 'AUTH_AUTHORIZATION_FAILED'
  | 'AUTH_TOKEN_FAILED'
  | 'AUTH_INSECURE_ENDPOINT'
  | 'AUTH_PRIVATE_NETWORK'
  | 'AUTH_RESOURCE_MISMATCH'
  | 'AUTH_UNSUPPORTED'
  | 'AUTH_STORE_FAILED'
  // OAuth resource server (the HTTP endpoints' `auth`): a token could not be checked (the authorization server or
  // its keys out of reach, a verifier that threw); the request got 503, the cause goes to the server's `onerror`.
  | 'AUTH_VERIFIER_FAILED'
  // Model APIs (mcpkit/host): a model spec or settings that cannot work, an HTTP failure with the provider's
  // message, a 429 still refused after the bounded retries, an answer that is not what the API documents.
  | 'MODEL_CONFIG_INVALID'
  | 'MODEL_REQUEST_FAILED'
  | 'MODEL_RATE_LIMITED'
  | 'MODEL_INVALID_RESPONSE'
  // Skills (SEP-2640): a skill file whose bytes do not match its listed digest or size, a file the skill's entry does
  // not list, a SKILL.md whose frontmatter differs from the entry's; the content is never used.
  | 'SKILL_INTEGRITY'
  // A server card that cannot be had or is not one (mcpkit card): not served, not JSON, missing required fields.
  | 'CARD_INVALID';

/**
 * A local error: something went wrong on this side (timeout, closed connection, bad definition).
 * Carries a stable string `code`; never sent to the peer.
 */
export class McpkitError extends Error {
  readonly code: McpkitErrorCode;

  constructor(code: McpkitErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'McpkitError';
    this.code = code;
  }
}

/**
 * The error of a request that cannot go on until the user completes URL-mode elicitations (-32042, 2025-11-25):
 * throw it from a handler; `elicitations` are the URL-mode requests (`mode: 'url'`, `elicitationId`, `url`, `message`)
 * the client should present. The stateless revision removed this code: there, ask with `ctx.elicit()` instead.
 */
export function urlElicitationRequired(
  elicitations: readonly { mode: 'url'; elicitationId: string; url: string; message: string }[],
  message = 'This request requires more information from the user',
): JsonRpcError {
  return new JsonRpcError(ErrorCode.UrlElicitationRequired, message, { elicitations });
}

/** The message of anything thrown: an Error's own message, otherwise its string form. */
export function errorMessage(e: unknown): string {
  if (e instanceof Error) return e.message;
  try {
    return String(e);
  } catch {
    // A null-prototype object or a hostile proxy has no string form; the caller still needs a message.
    return 'a thrown value without a string form';
  }
}

/** Anything thrown as an Error: an Error as it is, anything else wrapped (the value kept as `cause`). */
export function toError(e: unknown): Error {
  return e instanceof Error ? e : new Error(errorMessage(e), { cause: e });
}
