import { ErrorCode, errorMessage, McpkitError, toError } from '../jsonrpc/errors.js';
import { classify, errorResponse, type Parsed } from '../jsonrpc/parse.js';
import type { JsonRpcMessage, RequestId } from '../jsonrpc/types.js';
import type { Transport, TransportReceiver } from '../protocol/transport.js';

/** Options of {@link pipeTransports}. */
export interface PipeOptions {
  /** Problems that end nothing: garbage from the server, a send that failed. */
  onerror?: (error: Error) => void;
  /** Called once when the pipe is down (either side closed); `error` when a side ended unexpectedly. */
  onclose?: (error?: Error) => void;
}

/** A running pipe between two transports. */
export interface Pipe {
  /** Closes both sides. */
  close(): Promise<void>;
  /** Resolves once both sides are closed. */
  readonly closed: Promise<void>;
}

/**
 * Joins `client` (the transport a client reaches this process through, e.g. a `StdioServerTransport`) and `server`
 * (the transport to the real server, e.g. an `HttpClientTransport`) and moves every message both ways unchanged:
 * requests, responses, notifications, server requests, progress, cancellation, logs. Malformed input from the
 * client is answered with its JSON-RPC error, as a server would; a batch is passed on message by message; garbage
 * from the server is reported and dropped; a request that cannot be sent is answered with an error. When either side
 * closes, the other is closed; when the client ends its input, its requests are answered first.
 *
 * @example
 * await pipeTransports(new StdioServerTransport(), new HttpClientTransport('https://example.com/mcp'));
 */
export async function pipeTransports(
  client: Transport,
  server: Transport,
  options: PipeOptions = {},
): Promise<Pipe> {
  const onerror = options.onerror ?? (() => undefined);
  let down = false;
  let markClosed!: () => void;
  const closed = new Promise<void>((resolve) => {
    markClosed = resolve;
  });
  const shutdown = (error?: Error) => {
    if (down) return;
    down = true;
    void Promise.all([client.close(), server.close()])
      .catch((e: unknown) => onerror(toError(e)))
      .finally(() => {
        options.onclose?.(error);
        markClosed();
      });
  };
  // The client's requests the server has not answered: answered with an error when they cannot be sent, and
  // waited for when the client ends its input.
  const pending = new Set<RequestId>();
  let ending = false;
  const toClient = (message: JsonRpcMessage) => {
    if (down) return;
    client.send(message).catch((e: unknown) => onerror(toError(e)));
    if (!('method' in message) && message.id !== null) {
      pending.delete(message.id);
      // The last answer the client waited for is on its way: now the pipe may close.
      if (ending && pending.size === 0) shutdown();
    }
  };
  const toServer = (message: JsonRpcMessage) => {
    if (down) return;
    const request = 'method' in message && 'id' in message ? message : undefined;
    if (request) pending.add(request.id);
    server.send(message).catch((e: unknown) => {
      onerror(toError(e));
      if (request && pending.has(request.id))
        toClient(
          errorResponse(
            request.id,
            ErrorCode.InternalError,
            `Not delivered to the server: ${errorMessage(e)}`,
          ),
        );
    });
  };
  const fromClient: TransportReceiver = {
    onmessage: (m) => toServer(m),
    onend: () => {
      ending = true;
      if (pending.size === 0) shutdown();
    },
    oninvalid: (parsed) => {
      for (const item of itemsOf(parsed)) {
        if (item.kind === 'message') toServer(item.message);
        else if (item.kind === 'invalid') toClient(item.error);
      }
    },
    onerror,
    onclose: (e) => shutdown(e),
  };
  const fromServer: TransportReceiver = {
    onmessage: (m) => toClient(m),
    oninvalid: (parsed) =>
      onerror(
        new McpkitError('INVALID_MESSAGE', `The server sent an invalid message (${parsed.kind}); dropped`),
      ),
    onerror,
    onclose: (e) => shutdown(e),
  };
  await server.start(fromServer);
  try {
    await client.start(fromClient);
  } catch (e) {
    await server.close();
    throw e;
  }
  return { close: async () => shutdown(), closed };
}

/** A batch's items, each classified; anything else as it is. */
function itemsOf(parsed: Exclude<Parsed, { kind: 'message' }>): Parsed[] {
  if (parsed.kind !== 'batch') return [parsed];
  if (parsed.items.length === 0) return [refused('Invalid Request: empty batch')];
  return parsed.items.map((item) => {
    const c = classify(item);
    return c.kind === 'batch' ? refused('Invalid Request: nested batch') : c;
  });
}

function refused(message: string): Parsed {
  return { kind: 'invalid', error: errorResponse(null, ErrorCode.InvalidRequest, message) };
}
