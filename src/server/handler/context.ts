import type { RequestId } from '../../jsonrpc/types.js';
import type { RequestOptions } from '../../protocol/outgoing.js';
import type { MrtrState } from '../../spec/input-required.js';
import type {
  ClientCapabilities,
  CreateMessageParams,
  CreateMessageResult,
  ElicitFormParams,
  ElicitResult,
  ElicitUrlParams,
  Implementation,
  LoggingLevel,
  Meta,
  Root,
} from '../../spec/types.js';
import type { AuthInfo } from './auth.js';

/** What a handler knows about the session it serves. */
export interface SessionInfo {
  /** Transport session id (Streamable HTTP), if any. */
  readonly id: string | undefined;
  /** The negotiated protocol revision. */
  readonly protocolVersion: string;
  /** The client's declared capabilities. */
  readonly clientCapabilities: ClientCapabilities;
  /** The client's name and version. */
  readonly clientInfo: Implementation | undefined;
  /** True for a session made for one request (Streamable HTTP without sessions): no identity across requests. */
  readonly transient?: boolean;
}

/** Form-mode elicitation as a handler asks for it (`mode` may be omitted). */
export type ElicitFormRequest = Omit<ElicitFormParams, '_meta'>;
/** URL-mode elicitation as a handler asks for it (`elicitationId` is generated when omitted). */
export type ElicitUrlRequest = Omit<ElicitUrlParams, '_meta' | 'elicitationId'> & { elicitationId?: string };

/**
 * The context every server handler receives: cancellation, progress, logging, the requests a server
 * can make of the client, and what is known about the session and caller.
 */
export interface RequestContext {
  /** Aborted when the client cancels the request or disconnects. */
  readonly signal: AbortSignal;
  /** The JSON-RPC id of the request being handled. */
  readonly requestId: RequestId;
  /** The request's `_meta` (progress token and any client metadata). */
  readonly meta: Meta | undefined;
  /** The session the request arrived on. */
  readonly session: SessionInfo;
  /**
   * The verified principal (subject, client id, scopes, expiry, claims) when the transport authenticated the
   * request (an `auth` option of the HTTP endpoints, or host middleware); undefined otherwise.
   */
  readonly authInfo: AuthInfo | undefined;
  /** Multi round-trip state: responses to earlier input requests and the handler's own carried state. */
  readonly mrtr: MrtrState;
  /**
   * The client's network address when the transport knows it (HTTP: the connection's peer address, or the one a
   * forwarded header configured on the endpoint names); undefined on stdio and in memory.
   */
  readonly remoteAddress?: string | undefined;
  /** Reports progress; a no-op when the client asked for none. Values must increase. */
  progress(progress: number, total?: number, message?: string): Promise<void>;
  /** Sends a log message to the client if `level` meets the session's threshold. */
  log(level: LoggingLevel, data: unknown, logger?: string): Promise<void>;
  /**
   * Asks the user for input through the client (form or URL mode). For URL mode, pass your own `elicitationId` to
   * refer to the interaction later (one is generated otherwise).
   */
  elicit(request: ElicitFormRequest | ElicitUrlRequest, options?: RequestOptions): Promise<ElicitResult>;
  /**
   * Tells the client that a URL-mode elicitation finished out of band (`notifications/elicitation/complete`,
   * 2025-11-25 sessions whose client declared URL elicitation). Usable after this request has ended, while the
   * session lasts. The stateless revision has no such notification: there it is refused.
   */
  elicitationComplete(elicitationId: string): Promise<void>;
  /** Asks the client to sample from a language model. */
  sample(params: CreateMessageParams, options?: RequestOptions): Promise<CreateMessageResult>;
  /** Asks the client for its roots. */
  listRoots(options?: RequestOptions): Promise<Root[]>;
  /**
   * Closes the HTTP connection carrying this request's SSE stream, leaving the stream resumable (SSE
   * polling): the client reconnects with Last-Event-ID and gets the rest, the result included. Only a
   * 2025-11-25 session on an endpoint with an event store has such a stream; everywhere else (2026-07-28,
   * which has no resumption, an endpoint without sessions or event store, older revisions, stdio) this is a
   * no-op and the answer comes as usual.
   */
  closeStream(): void;
}
