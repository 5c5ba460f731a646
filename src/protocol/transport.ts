import type { Parsed } from '../jsonrpc/parse.js';
import type { JsonRpcMessage, RequestId } from '../jsonrpc/types.js';

/** What a transport knows about where a message came from (filled by HTTP and auth layers). */
export interface MessageContext {
  /** Authentication information established by the transport, if any. */
  authInfo?: unknown;
  /** Transport-level session id (HTTP), if any. */
  sessionId?: string;
  /**
   * The client's network address (HTTP), when the transport knows it: the connection's peer, or what a configured
   * forwarded header says (never trusted unless configured).
   */
  remoteAddress?: string | undefined;
  /** Request headers (HTTP), lower-cased names. */
  headers?: Readonly<Record<string, string>>;
  /**
   * Ends the connection carrying this request's stream without ending the stream (SSE polling):
   * the client reconnects after the server's retry interval and resumes. Absent, or a no-op, where the stream
   * cannot be resumed (closing it would lose the rest of it).
   */
  closeStream?: () => void;
  /**
   * On a client: the outgoing request the sender related this message to, where the transport can tell (a message
   * on the response stream of that one request over Streamable HTTP; the sender's `relatedRequestId` in memory).
   */
  relatedRequestId?: RequestId;
}

/** Options for one outgoing message. */
export interface SendOptions {
  /** The incoming request this message belongs to (HTTP routes it onto that request's stream). */
  relatedRequestId?: RequestId;
  /** Extra HTTP headers for this message (the `Mcp-Param-*` mirrors of tool arguments). */
  headers?: Readonly<Record<string, string>>;
}

/** The callbacks a transport delivers to; set by whoever owns the transport (a server or client session). */
export interface TransportReceiver {
  /** One well-formed message. */
  onmessage(message: JsonRpcMessage, context?: MessageContext): void;
  /** A payload that was not a single well-formed message: malformed JSON, a bad envelope, or a batch. */
  oninvalid(parsed: Exclude<Parsed, { kind: 'message' }>, context?: MessageContext): void;
  /** A transport problem that did not close the connection (for reporting). */
  onerror(error: Error): void;
  /** The connection is gone; called once. `error` says why when it ended unexpectedly (a crashed process). */
  onclose(error?: Error): void;
  /**
   * Optional: the other side will send nothing more, but this side can still send (stdio: the client closed the
   * server's stdin). A receiver that takes this finishes what it owes and then closes the transport; without it the
   * transport closes at once.
   */
  onend?(): void;
}

/**
 * What a transport's `send` may return when it handed the message over synchronously and nothing can fail it any
 * more: one settled promise shared by every such send. The peer recognises it and attaches no handler (a reaction
 * job and a promise per response otherwise).
 */
export const SENT: Promise<void> = Promise.resolve();

/**
 * Moves JSON-RPC messages between two peers. One transport per file in `src/transport/`;
 * framing lives in `src/framing/`, protocol logic in `src/protocol/`.
 */
export interface Transport {
  /** Begins delivering incoming messages to `receiver`. Called once. */
  start(receiver: TransportReceiver): Promise<void>;
  /** Sends one message (or a batch of responses). Rejects if the transport is closed. */
  send(message: JsonRpcMessage | JsonRpcMessage[], options?: SendOptions): Promise<void>;
  /** Closes the connection; `onclose` follows. Safe to call more than once. */
  close(): Promise<void>;
  /** Transport-level session id, where the transport has one. */
  readonly sessionId?: string | undefined;
  /**
   * Optional: a fresh, unstarted transport to the same server (stdio: a new process with the same options). A client
   * probing for the protocol era uses it when the server closed the connection on the probe: some stateful servers
   * exit on any request before `initialize`.
   */
  reopen?(): Transport;
}
