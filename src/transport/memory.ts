import { McpkitError } from '../jsonrpc/errors.js';
import { encodeMessage, type Parsed, parseMessage } from '../jsonrpc/parse.js';
import type { JsonRpcMessage } from '../jsonrpc/types.js';
import type { MessageContext, SendOptions, Transport, TransportReceiver } from '../protocol/transport.js';

/** Options for {@link createLinkedTransports}. */
export interface LinkedTransportOptions {
  /** Pass messages through `JSON.stringify` and `parseMessage`, exactly as a wire would (default `false`: by reference). */
  serialize?: boolean;
}

/** One end of an in-memory linked pair. */
export interface MemoryTransport extends Transport {
  /** Delivers raw text to the peer as if read off a wire: it goes through `parseMessage`, so bad payloads reach `oninvalid`. */
  sendRaw(text: string): Promise<void>;
}

type Delivery =
  | { kind: 'message'; message: JsonRpcMessage; context?: MessageContext }
  | Exclude<Parsed, { kind: 'message' }>
  | { kind: 'close' };

interface Link {
  closed: boolean;
}

const CLOSE: Delivery = { kind: 'close' };

class MemoryEnd implements MemoryTransport {
  #link: Link;
  #serialize: boolean;
  #peer: MemoryEnd | undefined;
  #receiver: TransportReceiver | undefined;
  #backlog: Delivery[] = [];
  #closeDelivered = false;

  constructor(link: Link, serialize: boolean) {
    this.#link = link;
    this.#serialize = serialize;
  }

  static pair(serialize: boolean): [MemoryEnd, MemoryEnd] {
    const link: Link = { closed: false };
    const a = new MemoryEnd(link, serialize);
    const b = new MemoryEnd(link, serialize);
    a.#peer = b;
    b.#peer = a;
    return [a, b];
  }

  async start(receiver: TransportReceiver): Promise<void> {
    if (this.#receiver !== undefined) throw new McpkitError('ALREADY_CONNECTED', 'Transport already started');
    this.#receiver = receiver;
    const backlog = this.#backlog;
    this.#backlog = [];
    for (const delivery of backlog) this.#schedule(receiver, delivery);
  }

  async send(message: JsonRpcMessage | JsonRpcMessage[], options?: SendOptions): Promise<void> {
    this.#assertOpen();
    const related = options?.relatedRequestId;
    if (related !== undefined && !Array.isArray(message) && 'method' in message) {
      // What a wire carries as the request's own stream (a notification or request related to it) goes along as
      // the message's context; a response needs no relation.
      const parsed = this.#serialize
        ? parseMessage(encodeMessage(message))
        : { kind: 'message' as const, message };
      if (parsed.kind === 'message')
        this.#peer!.#enqueue({
          kind: 'message',
          message: parsed.message,
          context: { relatedRequestId: related },
        });
      else this.#peer!.#enqueue(parsed);
    } else if (this.#serialize) {
      this.#peer!.#enqueue(parseMessage(encodeMessage(message)));
    } else if (Array.isArray(message)) {
      // A wire would deliver an array as a batch; keep the two modes equivalent.
      this.#peer!.#enqueue({ kind: 'batch', items: message });
    } else {
      this.#peer!.#enqueue({ kind: 'message', message });
    }
  }

  async sendRaw(text: string): Promise<void> {
    this.#assertOpen();
    this.#peer!.#enqueue(parseMessage(text));
  }

  async close(): Promise<void> {
    if (this.#link.closed) return;
    this.#link.closed = true;
    this.#enqueue(CLOSE);
    this.#peer!.#enqueue(CLOSE);
  }

  #assertOpen(): void {
    if (this.#link.closed) throw new McpkitError('CONNECTION_CLOSED', 'The in-memory transport is closed');
  }

  #enqueue(delivery: Delivery): void {
    if (this.#receiver === undefined) this.#backlog.push(delivery);
    else this.#schedule(this.#receiver, delivery);
  }

  // One microtask per delivery, queued in send order, keeps delivery asynchronous and ordered.
  #schedule(receiver: TransportReceiver, delivery: Delivery): void {
    queueMicrotask(() => this.#dispatch(receiver, delivery));
  }

  #dispatch(receiver: TransportReceiver, delivery: Delivery): void {
    if (this.#closeDelivered) return;
    if (delivery.kind === 'close') {
      this.#closeDelivered = true;
      receiver.onclose();
      return;
    }
    try {
      if (delivery.kind === 'message') receiver.onmessage(delivery.message, delivery.context);
      else receiver.oninvalid(delivery);
    } catch (cause) {
      // A throwing receiver is a bug above us; report it rather than crash the microtask queue.
      receiver.onerror(
        new McpkitError('TRANSPORT_ERROR', 'The transport receiver threw while handling a message', {
          cause,
        }),
      );
    }
  }
}

/**
 * Creates two linked in-memory transports for tests and embedding: what one sends the other receives, asynchronously and in order, and closing either end closes both.
 *
 * @example
 * const [clientSide, serverSide] = createLinkedTransports({ serialize: true });
 */
export function createLinkedTransports(
  options: LinkedTransportOptions = {},
): [MemoryTransport, MemoryTransport] {
  return MemoryEnd.pair(options.serialize ?? false);
}
