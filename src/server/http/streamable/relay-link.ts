import { ErrorCode, errorMessage, McpkitError, toError } from '../../../jsonrpc/errors.js';
import { errorResponse } from '../../../jsonrpc/parse.js';
import { isJsonObject, type JsonRpcMessage, type RequestId } from '../../../jsonrpc/types.js';
import type { Transport } from '../../../protocol/transport.js';
import { policyFor } from '../../../spec/revision.js';
import type { HttpSessionTransport } from './session-transport.js';

/**
 * Joins the transport of one HTTP session (or one stateless request) to its upstream and moves every message both
 * ways unchanged. What the upstream sends is put on the HTTP stream it belongs to: a response on its request's
 * stream, a progress notification on the stream of the request that gave its token, anything else (server
 * requests, logs) on the stream of the latest request in flight, else on the GET stream. A server request that no
 * stream can carry is answered upstream with an error at once (it would only time out). Either side closing
 * closes the other.
 */
export class RelayLink {
  readonly #down: HttpSessionTransport;
  readonly #up: Transport;
  readonly #onerror: (error: Error) => void;
  /** Requests from the client that have no answer yet, oldest first. */
  readonly #inFlight = new Set<RequestId>();
  readonly #tokens = new Map<string | number, RequestId>();
  #initializeId: RequestId | undefined;
  /** Set once the upstream answered `initialize` with a result. */
  initialized = false;

  constructor(down: HttpSessionTransport, up: Transport, onerror: (error: Error) => void) {
    this.#down = down;
    this.#up = up;
    this.#onerror = onerror;
  }

  /** Starts both sides; rejects (with both closed) when the upstream cannot start. */
  async start(): Promise<void> {
    await this.#down.start({
      onmessage: (m) => this.#fromClient(m),
      oninvalid: () => undefined, // The HTTP core answers invalid bodies itself; nothing reaches here.
      onerror: (e) => this.#onerror(e),
      onclose: () => void this.#up.close().catch((e: unknown) => this.#onerror(toError(e))),
    });
    try {
      await this.#up.start({
        onmessage: (m) => this.#fromServer(m),
        oninvalid: (parsed) =>
          this.#onerror(
            new McpkitError('INVALID_MESSAGE', `The server sent an invalid message (${parsed.kind})`),
          ),
        onerror: (e) => this.#onerror(e),
        onclose: () => void this.#down.close(),
      });
    } catch (e) {
      await this.#down.close();
      throw e;
    }
  }

  #fromClient(message: JsonRpcMessage): void {
    if ('method' in message && 'id' in message) {
      this.#inFlight.add(message.id);
      const token = isJsonObject(message.params?._meta) ? message.params._meta.progressToken : undefined;
      if (typeof token === 'string' || typeof token === 'number') this.#tokens.set(token, message.id);
      if (message.method === 'initialize') this.#initializeId = message.id;
    }
    this.#up.send(message).catch((e: unknown) => {
      this.#onerror(toError(e));
      if ('method' in message && 'id' in message)
        this.#toClient(
          errorResponse(message.id, ErrorCode.InternalError, `The server is unreachable: ${errorMessage(e)}`),
        );
    });
  }

  #fromServer(message: JsonRpcMessage): void {
    if (!('method' in message)) {
      const id = message.id;
      if (id !== null) this.#inFlight.delete(id);
      if (id !== null && id === this.#initializeId && 'result' in message) this.#negotiated(message.result);
      this.#toClient(message);
      return;
    }
    let related: RequestId | undefined;
    if (message.method === 'notifications/progress') {
      const token = message.params?.progressToken;
      related = typeof token === 'string' || typeof token === 'number' ? this.#tokens.get(token) : undefined;
    }
    if (related === undefined) for (const id of this.#inFlight) related = id; // the latest
    this.#down
      .send(message, related === undefined ? undefined : { relatedRequestId: related })
      .catch((e: unknown) => {
        if ('id' in message)
          void this.#up
            .send(
              errorResponse(
                message.id,
                ErrorCode.InternalError,
                `Not delivered to the client: ${errorMessage(e)}`,
              ),
            )
            .catch(() => undefined);
        else this.#onerror(toError(e));
      });
  }

  #toClient(message: JsonRpcMessage): void {
    if ('id' in message && !('method' in message)) {
      for (const [token, id] of this.#tokens) if (id === message.id) this.#tokens.delete(token);
    }
    this.#down.send(message).catch((e: unknown) => this.#onerror(toError(e)));
  }

  /** The session's revision, from the upstream's `initialize` result (for batching and SSE priming). */
  #negotiated(result: unknown): void {
    this.initialized = true;
    const version = isJsonObject(result) ? result.protocolVersion : undefined;
    this.#down.negotiated = { policy: policyFor(version) };
  }
}
