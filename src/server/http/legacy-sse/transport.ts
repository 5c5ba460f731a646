import { formatSseEvent, SSE_KEEPALIVE } from '../../../framing/sse.js';
import { McpkitError } from '../../../jsonrpc/errors.js';
import { encodeMessage } from '../../../jsonrpc/parse.js';
import type { JsonRpcMessage, RequestId } from '../../../jsonrpc/types.js';
import type { MessageContext, Transport, TransportReceiver } from '../../../protocol/transport.js';
import { changesRecord } from '../cluster/session-record.js';
import type { SseSink } from '../core/http.js';

/** One legacy HTTP+SSE connection: every server message is an SSE `message` event on its one stream. */
export class LegacySseTransport implements Transport {
  readonly sessionId: string;
  /** The principal that opened the stream; only it may post to the session. */
  owner: string | undefined;
  #receiver: TransportReceiver | undefined;
  #sink: SseSink | undefined;
  #backlog: string[] = [];
  #closed = false;
  /** Requests whose answer changes the session's stored record (cluster), until answered. */
  #recorded: Set<RequestId> | undefined;
  onclosed: (() => void) | undefined;
  /** Cluster: called once a request that changes the session's record (initialize, log level, subscriptions) is answered. */
  onrecordchanged: (() => void) | undefined;

  constructor(sessionId: string) {
    this.sessionId = sessionId;
  }

  /** True once closed. */
  get closed(): boolean {
    return this.#closed;
  }

  async start(receiver: TransportReceiver): Promise<void> {
    this.#receiver = receiver;
  }

  /** Sends the `endpoint` event and what was sent before, then carries every message on `sink`. */
  attach(sink: SseSink, endpoint: string, keepAliveMs: number): void {
    sink.write(formatSseEvent({ event: 'endpoint', data: endpoint }));
    for (const text of this.#backlog) sink.write(text);
    this.#backlog = [];
    this.#sink = sink;
    const timer = keepAliveMs > 0 ? setInterval(() => sink.write(SSE_KEEPALIVE), keepAliveMs) : undefined;
    (timer as { unref?: () => void } | undefined)?.unref?.();
    sink.onclose = () => {
      if (timer !== undefined) clearInterval(timer);
      void this.close();
    };
  }

  /** A message POSTed for this session (on this instance, or handed here by another). */
  deliver(message: JsonRpcMessage, context: MessageContext): void {
    if (
      this.onrecordchanged !== undefined &&
      'id' in message &&
      'method' in message &&
      (message.method === 'initialize' || changesRecord(message))
    ) {
      this.#recorded ??= new Set();
      this.#recorded.add(message.id);
    }
    this.#receiver?.onmessage(message, context);
  }

  async send(message: JsonRpcMessage | JsonRpcMessage[]): Promise<void> {
    if (this.#closed) throw new McpkitError('CONNECTION_CLOSED', 'The SSE connection is closed');
    const text = formatSseEvent({ event: 'message', data: encodeMessage(message) });
    if (!this.#sink) this.#backlog.push(text);
    else if (!this.#sink.write(text)) await this.close();
    if (this.#recorded !== undefined && !Array.isArray(message) && !('method' in message)) {
      if (message.id !== null && this.#recorded.delete(message.id)) this.onrecordchanged?.();
    }
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    if (this.#sink && !this.#sink.closed) this.#sink.close();
    this.onclosed?.();
    this.#receiver?.onclose();
  }
}
