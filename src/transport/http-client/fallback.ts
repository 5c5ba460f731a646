import { errorMessage, McpkitError } from '../../jsonrpc/errors.js';
import type { JsonRpcMessage } from '../../jsonrpc/types.js';
import type { SendOptions, Transport, TransportReceiver } from '../../protocol/transport.js';
import { SseLegacyClientTransport } from './legacy-sse.js';
import { isModernMessage } from './modern.js';
import { HttpStatusError } from './shared.js';
import { StreamableHttpClientTransport, type StreamableHttpClientTransportOptions } from './streamable.js';

/** Options of {@link HttpClientTransport}: those of Streamable HTTP, plus the legacy fallback's. */
export interface HttpClientTransportOptions
  extends Omit<StreamableHttpClientTransportOptions, 'initializeRejectStatuses'> {
  /** How long the legacy fallback waits for the server's `endpoint` event, in ms. Default 10 000. */
  endpointTimeoutMs?: number;
  /** Whether to fall back to the 2024-11-05 HTTP+SSE transport at all. Default true. */
  legacyFallback?: boolean;
}

/** Which transport an {@link HttpClientTransport} settled on. */
export type HttpClientTransportKind = 'streamable-http' | 'sse';

/** The statuses of the first POST that mean "not a Streamable HTTP endpoint" (spec: backwards compatibility). */
const FALLBACK_STATUSES: readonly number[] = [400, 404, 405];

/**
 * The transport to use for an MCP server URL: Streamable HTTP, and when the server answers the
 * `initialize` POST with 400, 404 or 405, the 2024-11-05 HTTP+SSE transport instead (GET the URL, wait for
 * the `endpoint` event, re-send `initialize` there), transparently. `kind` tells which one is in use.
 * 2026-07-28 messages (a protocol version in `_meta`) always go over Streamable HTTP and decide nothing:
 * a failed modern probe is an error response for the client to read, and the `initialize` that may
 * follow it makes the decision.
 *
 * @example
 * const transport = new HttpClientTransport('http://127.0.0.1:3000/mcp');
 * await client.connect(transport);
 * console.log(transport.kind); // 'streamable-http' or 'sse'
 */
export class HttpClientTransport implements Transport {
  readonly #url: URL;
  readonly #options: HttpClientTransportOptions;
  #active: Transport;
  #kind: HttpClientTransportKind = 'streamable-http';
  #receiver: TransportReceiver | undefined;
  /** The first send, while it decides which transport is used; later sends wait for it. */
  #deciding: Promise<void> | undefined;
  #decided = false;
  #closed = false;

  constructor(url: string | URL, options: HttpClientTransportOptions = {}) {
    this.#url = new URL(url);
    this.#options = options;
    const { endpointTimeoutMs: _timeout, legacyFallback, ...streamable } = options;
    this.#active = new StreamableHttpClientTransport(this.#url, {
      ...streamable,
      ...(legacyFallback === false ? {} : { initializeRejectStatuses: FALLBACK_STATUSES }),
    });
  }

  /** The transport in use: Streamable HTTP until the server's answer to `initialize` calls for the fallback. */
  get kind(): HttpClientTransportKind {
    return this.#kind;
  }

  /** The Streamable HTTP session id, if any (the legacy transport has none). */
  get sessionId(): string | undefined {
    return this.#active.sessionId;
  }

  async start(receiver: TransportReceiver): Promise<void> {
    if (this.#receiver !== undefined) throw new McpkitError('ALREADY_CONNECTED', 'Transport already started');
    this.#receiver = receiver;
    await this.#active.start(this.#relay(this.#active));
  }

  async send(message: JsonRpcMessage | JsonRpcMessage[], options?: SendOptions): Promise<void> {
    if (!this.#decided) {
      if (this.#deciding === undefined) {
        if (decidesNothing(message)) return this.#active.send(message, options);
        this.#deciding = this.#first(message, options).finally(() => {
          this.#decided = true;
        });
        return this.#deciding;
      }
      // Only the outcome matters here: the first message's own failure belongs to its sender.
      await this.#deciding.catch(() => undefined);
    }
    if (this.#kind === 'sse' && isModernMessage(message)) {
      throw new McpkitError(
        'TRANSPORT_ERROR',
        'This server speaks only the 2024-11-05 HTTP+SSE transport, which cannot carry protocol revision 2026-07-28 messages',
      );
    }
    return this.#active.send(message, options);
  }

  async close(): Promise<void> {
    this.#closed = true;
    await this.#active.close();
  }

  async #first(message: JsonRpcMessage | JsonRpcMessage[], options: SendOptions | undefined): Promise<void> {
    try {
      await this.#active.send(message, options);
      return;
    } catch (e) {
      if (!(e instanceof HttpStatusError) || this.#closed) throw e;
      await this.#fallBack(e);
    }
    await this.#active.send(message, options);
  }

  async #fallBack(rejected: HttpStatusError): Promise<void> {
    const streamable = this.#active;
    const legacy = new SseLegacyClientTransport(this.#url, {
      ...(this.#options.headers === undefined ? {} : { headers: this.#options.headers }),
      ...(this.#options.fetch === undefined ? {} : { fetch: this.#options.fetch }),
      ...(this.#options.auth === undefined ? {} : { auth: this.#options.auth }),
      ...(this.#options.endpointTimeoutMs === undefined
        ? {}
        : { endpointTimeoutMs: this.#options.endpointTimeoutMs }),
      ...(this.#options.maxMessageChars === undefined
        ? {}
        : { maxMessageChars: this.#options.maxMessageChars }),
    });
    this.#active = legacy;
    this.#kind = 'sse';
    // The abandoned transport holds no session; its close is silent because its relay is now inert.
    await streamable.close();
    try {
      await legacy.start(this.#relay(legacy));
    } catch (e) {
      const why = errorMessage(e);
      throw new McpkitError(
        'TRANSPORT_ERROR',
        `The server refused the Streamable HTTP initialize (HTTP ${rejected.status}: ${rejected.message}), and the legacy HTTP+SSE fallback failed too: ${why}`,
        { cause: e },
      );
    }
    if (this.#closed) await legacy.close();
  }

  /** A receiver that forwards only while `inner` is the transport in use. */
  #relay(inner: Transport): TransportReceiver {
    const live = () => this.#active === inner && this.#receiver !== undefined;
    return {
      onmessage: (message, context) => {
        if (live()) this.#receiver?.onmessage(message, context);
      },
      oninvalid: (parsed, context) => {
        if (live()) this.#receiver?.oninvalid(parsed, context);
      },
      onerror: (error) => {
        if (live()) this.#receiver?.onerror(error);
      },
      onclose: (error) => {
        if (live()) this.#receiver?.onclose(error);
      },
    };
  }
}

/**
 * Messages that go out before the era is decided without deciding it: 2026-07-28 messages (a modern probe),
 * and cancellations, which before any `initialize` can only concern those.
 */
function decidesNothing(message: JsonRpcMessage | JsonRpcMessage[]): boolean {
  if (isModernMessage(message)) return true;
  return !Array.isArray(message) && 'method' in message && message.method === 'notifications/cancelled';
}
