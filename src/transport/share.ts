import { ErrorCode, McpkitError, toError } from '../jsonrpc/errors.js';
import { errorResponse } from '../jsonrpc/parse.js';
import {
  isJsonObject,
  type JsonObject,
  type JsonRpcMessage,
  type JsonRpcRequest,
  type RequestId,
} from '../jsonrpc/types.js';
import type { Transport, TransportReceiver } from '../protocol/transport.js';

/** One upstream connection shared by many clients; see {@link shareTransport}. */
export interface SharedTransport {
  /** A new channel: a transport that reaches the shared upstream as if it were alone on it. */
  channel(): Transport;
  /** Number of open channels. */
  readonly channels: number;
  /** True once the upstream has closed (or `close()` was called): channels can no longer start. */
  readonly closed: boolean;
  /** Closes every channel and the upstream. */
  close(): Promise<void>;
}

/** Options of {@link shareTransport}. */
export interface ShareOptions {
  /** Problems that end nothing: a message from the upstream that fits no channel, a failed send. */
  onerror?: (error: Error) => void;
}

/** A client request on its way upstream, under the id the share gave it. */
interface Pending {
  channel: Channel;
  id: RequestId;
  token: string | number | undefined;
  init: boolean;
}

/**
 * Shares one upstream transport (one server process, one HTTP session) among many channels, each used like a
 * transport of its own. Request ids and progress tokens are renumbered on the way up (two clients may both send
 * id 1) and restored on the way down; a cancellation follows its request. The first `initialize` goes upstream
 * and its result answers every later channel's `initialize` (the upstream is initialized once). Server requests
 * (sampling, elicitation, roots) go to the channel with the latest request in flight, else to the newest channel;
 * notifications tied to no request (logs, list changes) go to every channel. A channel that closes cancels its
 * requests upstream and refuses the server requests it was given.
 *
 * @example
 * const shared = shareTransport(new StdioClientTransport({ command: 'node', args: ['server.js'] }));
 * await clientA.connect(shared.channel());
 * await clientB.connect(shared.channel());
 */
export function shareTransport(upstream: Transport, options: ShareOptions = {}): SharedTransport {
  return new Share(upstream, options);
}

class Share implements SharedTransport {
  readonly #upstream: Transport;
  readonly #onerror: (error: Error) => void;
  readonly #open = new Set<Channel>();
  readonly #pending = new Map<number, Pending>();
  readonly #tokens = new Map<number, Pending>();
  readonly #serverRequests = new Map<RequestId, Channel>();
  #nextId = 0;
  #started: Promise<void> | undefined;
  #closed = false;
  #initResult: JsonObject | undefined;
  #initWaiters: { channel: Channel; id: RequestId }[] | undefined;
  #initializedSent = false;
  /** The channel that sent the latest request still in flight (server requests go there). */
  #active: Channel | undefined;

  constructor(upstream: Transport, options: ShareOptions) {
    this.#upstream = upstream;
    this.#onerror = options.onerror ?? (() => undefined);
  }

  get channels(): number {
    return this.#open.size;
  }

  get closed(): boolean {
    return this.#closed;
  }

  channel(): Transport {
    return new Channel(this);
  }

  async close(): Promise<void> {
    await this.#upstream.close();
    this.#gone(undefined);
  }

  /** Starts the upstream once, on the first channel's start. */
  attach(channel: Channel): Promise<void> {
    if (this.#closed)
      return Promise.reject(new McpkitError('CONNECTION_CLOSED', 'The shared upstream is closed'));
    this.#open.add(channel);
    this.#started ??= this.#upstream.start({
      onmessage: (m) => this.#fromUpstream(m),
      oninvalid: (parsed) =>
        this.#onerror(
          new McpkitError('INVALID_MESSAGE', `The upstream sent an invalid message (${parsed.kind})`),
        ),
      onerror: (e) => this.#onerror(e),
      onclose: (e) => this.#gone(e),
    });
    return this.#started;
  }

  detach(channel: Channel): void {
    if (!this.#open.delete(channel)) return;
    if (this.#active === channel) this.#active = undefined;
    for (const [uid, p] of this.#pending) {
      if (p.channel !== channel) continue;
      this.#forget(uid, p);
      if (!p.init)
        this.#up({
          jsonrpc: '2.0',
          method: 'notifications/cancelled',
          params: { requestId: uid, reason: 'client gone' },
        });
    }
    for (const [id, owner] of this.#serverRequests) {
      if (owner !== channel) continue;
      this.#serverRequests.delete(id);
      this.#up(errorResponse(id, ErrorCode.InternalError, 'The client that was asked has gone'));
    }
    if (this.#initWaiters) this.#initWaiters = this.#initWaiters.filter((w) => w.channel !== channel);
  }

  /** A message a channel sends upstream. */
  fromChannel(channel: Channel, message: JsonRpcMessage): void {
    if (!('method' in message)) {
      // The client's answer to a server request: the upstream chose that id, it goes up as it is.
      if (message.id !== null) this.#serverRequests.delete(message.id);
      this.#up(message);
      return;
    }
    if (!('id' in message)) {
      if (message.method === 'notifications/initialized') {
        if (this.#initializedSent) return;
        this.#initializedSent = true;
      } else if (message.method === 'notifications/cancelled') {
        const uid = channel.ids.get(message.params?.requestId as RequestId);
        if (uid === undefined) return;
        this.#up({ ...message, params: { ...message.params, requestId: uid } });
        return;
      }
      this.#up(message);
      return;
    }
    const init = message.method === 'initialize';
    if (init && this.#initResult !== undefined) {
      channel.deliver({ jsonrpc: '2.0', id: message.id, result: this.#initResult });
      return;
    }
    if (init && this.#initWaiters !== undefined) {
      this.#initWaiters.push({ channel, id: message.id });
      return;
    }
    if (init) this.#initWaiters = [];
    const uid = ++this.#nextId;
    const pending: Pending = { channel, id: message.id, token: undefined, init };
    const up: JsonRpcRequest = { ...message, id: uid };
    const meta = message.params?._meta;
    if (
      isJsonObject(meta) &&
      (typeof meta.progressToken === 'string' || typeof meta.progressToken === 'number')
    ) {
      pending.token = meta.progressToken;
      this.#tokens.set(uid, pending);
      up.params = { ...message.params, _meta: { ...meta, progressToken: uid } };
    }
    this.#pending.set(uid, pending);
    channel.ids.set(message.id, uid);
    this.#active = channel;
    this.#up(up);
  }

  #fromUpstream(message: JsonRpcMessage): void {
    if (!('method' in message)) {
      const uid = message.id;
      const p = typeof uid === 'number' ? this.#pending.get(uid) : undefined;
      if (!p || typeof uid !== 'number') {
        this.#onerror(
          new McpkitError(
            'INVALID_MESSAGE',
            `The upstream answered an unknown request ${JSON.stringify(uid)}`,
          ),
        );
        return;
      }
      this.#forget(uid, p);
      if (p.init) this.#initialized(message);
      p.channel.deliver({ ...message, id: p.id });
      return;
    }
    if ('id' in message) {
      const channel = this.#active ?? [...this.#open].at(-1);
      if (!channel) {
        this.#up(errorResponse(message.id, ErrorCode.InternalError, 'No client is connected to answer'));
        return;
      }
      this.#serverRequests.set(message.id, channel);
      channel.deliver(message);
      return;
    }
    if (message.method === 'notifications/progress') {
      const token = message.params?.progressToken;
      const p = typeof token === 'number' ? this.#tokens.get(token) : undefined;
      if (p) p.channel.deliver({ ...message, params: { ...message.params, progressToken: p.token } });
      return;
    }
    if (message.method === 'notifications/cancelled') {
      const id = message.params?.requestId as RequestId;
      const channel = this.#serverRequests.get(id);
      this.#serverRequests.delete(id);
      channel?.deliver(message);
      return;
    }
    for (const channel of this.#open) channel.deliver(message);
  }

  /** The upstream's answer to the first `initialize`: kept for later channels, and given to those waiting. */
  #initialized(message: JsonRpcMessage): void {
    const waiters = this.#initWaiters ?? [];
    this.#initWaiters = undefined;
    if ('result' in message && isJsonObject(message.result)) this.#initResult = message.result;
    for (const w of waiters) w.channel.deliver({ ...message, id: w.id } as JsonRpcMessage);
  }

  #forget(uid: number, p: Pending): void {
    this.#pending.delete(uid);
    this.#tokens.delete(uid);
    p.channel.ids.delete(p.id);
    if (this.#active === p.channel && ![...this.#pending.values()].some((q) => q.channel === p.channel))
      this.#active = undefined;
  }

  #up(message: JsonRpcMessage): void {
    this.#upstream.send(message).catch((e: unknown) => this.#onerror(toError(e)));
  }

  #gone(error: Error | undefined): void {
    if (this.#closed) return;
    this.#closed = true;
    const channels = [...this.#open];
    this.#open.clear();
    this.#pending.clear();
    this.#tokens.clear();
    this.#serverRequests.clear();
    for (const c of channels) c.ended(error);
  }
}

/** One client's view of the shared upstream. */
class Channel implements Transport {
  readonly #share: Share;
  #receiver: TransportReceiver | undefined;
  #closed = false;
  /** The client's request ids in flight and the ids they have upstream. */
  readonly ids = new Map<RequestId, number>();

  constructor(share: Share) {
    this.#share = share;
  }

  start(receiver: TransportReceiver): Promise<void> {
    if (this.#receiver)
      return Promise.reject(new McpkitError('ALREADY_CONNECTED', 'Transport already started'));
    this.#receiver = receiver;
    return this.#share.attach(this);
  }

  async send(message: JsonRpcMessage | JsonRpcMessage[]): Promise<void> {
    if (this.#closed || !this.#receiver) throw new McpkitError('CONNECTION_CLOSED', 'The channel is closed');
    for (const m of Array.isArray(message) ? message : [message]) this.#share.fromChannel(this, m);
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#share.detach(this);
    this.ended(undefined);
  }

  deliver(message: JsonRpcMessage): void {
    // Delivered from a later turn, as a real transport would: a receiver may send from inside onmessage.
    if (!this.#closed) queueMicrotask(() => this.#receiver?.onmessage(message));
  }

  ended(error: Error | undefined): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#receiver?.onclose(error);
  }
}
