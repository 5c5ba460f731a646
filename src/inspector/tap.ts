import type { Parsed } from '../jsonrpc/parse.js';
import type { JsonRpcMessage } from '../jsonrpc/types.js';
import type { SendOptions, Transport, TransportReceiver } from '../protocol/transport.js';

/** Which way a message went: `out` from the inspector's client to the server, `in` from the server. */
export type Direction = 'in' | 'out';

/** One message seen on the wire (or a payload that was not a well-formed message). */
export interface TrafficEntry {
  seq: number;
  dir: Direction;
  /** Milliseconds since the epoch. */
  time: number;
  /** UTF-8 bytes of the message's JSON. */
  size: number;
  kind: 'request' | 'notification' | 'response' | 'error' | 'batch' | 'invalid';
  /** The method of a request or notification, or for a response the method of its request. */
  method?: string;
  id?: string | number;
  /** For a response: milliseconds since its request went the other way. */
  ms?: number;
  /** The message, or its first characters when it is large (`truncated` is then true). */
  message: unknown;
  truncated?: boolean;
}

/** Largest message JSON the page receives whole; larger ones arrive cut. */
const SHOWN_CHARS = 256 * 1024;
/** Requests awaiting their response, for timing; bounded so a peer that never answers cannot grow it. */
const OPEN_REQUESTS = 1000;

/** Turns messages into {@link TrafficEntry}s with timing: one per connection of the inspector. */
export class TrafficRecorder {
  readonly #open = new Map<string, { time: number; method: string }>();
  readonly #emit: (entry: TrafficEntry) => void;
  readonly #seq: () => number;

  /** `seq` numbers the entries (shared across connections, so the page's list stays ordered). */
  constructor(emit: (entry: TrafficEntry) => void, seq: () => number) {
    this.#emit = emit;
    this.#seq = seq;
  }

  /** Records one message (or batch) going `dir`. */
  record(dir: Direction, message: JsonRpcMessage | JsonRpcMessage[]): void {
    const time = Date.now();
    const json = JSON.stringify(message);
    const entry: TrafficEntry = {
      seq: this.#seq(),
      dir,
      time,
      size: Buffer.byteLength(json),
      kind: 'batch',
      message: json.length > SHOWN_CHARS ? json.slice(0, SHOWN_CHARS) : message,
    };
    if (json.length > SHOWN_CHARS) entry.truncated = true;
    if (!Array.isArray(message)) this.#classify(entry, dir, message, time);
    this.#emit(entry);
  }

  /** Records a payload that was not one well-formed message (a batch, or something malformed). */
  invalid(dir: Direction, parsed: Exclude<Parsed, { kind: 'message' }>): void {
    const json = JSON.stringify(parsed.kind === 'batch' ? parsed.items : parsed.error);
    this.#emit({
      seq: this.#seq(),
      dir,
      time: Date.now(),
      size: Buffer.byteLength(json),
      kind: parsed.kind,
      message: json.slice(0, SHOWN_CHARS),
    });
  }

  #classify(entry: TrafficEntry, dir: Direction, message: JsonRpcMessage, time: number): void {
    if ('method' in message) {
      entry.method = message.method;
      if ('id' in message && message.id !== undefined) {
        entry.kind = 'request';
        entry.id = message.id;
        if (this.#open.size >= OPEN_REQUESTS) {
          const oldest = this.#open.keys().next().value;
          if (oldest !== undefined) this.#open.delete(oldest);
        }
        this.#open.set(`${dir}:${String(message.id)}`, { time, method: message.method });
      } else entry.kind = 'notification';
      return;
    }
    entry.kind = 'error' in message ? 'error' : 'response';
    if (message.id === null) return;
    entry.id = message.id;
    const key = `${dir === 'in' ? 'out' : 'in'}:${String(message.id)}`;
    const sent = this.#open.get(key);
    if (sent !== undefined) {
      entry.ms = time - sent.time;
      entry.method = sent.method;
      this.#open.delete(key);
    }
  }
}

/**
 * A transport that passes everything through to `inner` and tells `recorder` about each message both ways. Its
 * `reopen` (when `inner` has one) taps the fresh transport too.
 */
export class TappedTransport implements Transport {
  readonly #inner: Transport;
  readonly #recorder: TrafficRecorder;
  reopen?: () => Transport;

  constructor(inner: Transport, recorder: TrafficRecorder) {
    this.#inner = inner;
    this.#recorder = recorder;
    const reopen = inner.reopen?.bind(inner);
    if (reopen) this.reopen = () => new TappedTransport(reopen(), recorder);
  }

  get sessionId(): string | undefined {
    return this.#inner.sessionId;
  }

  /** The transport being tapped. */
  get inner(): Transport {
    return this.#inner;
  }

  start(receiver: TransportReceiver): Promise<void> {
    const recorder = this.#recorder;
    const tapped: TransportReceiver = {
      onmessage(message, context) {
        recorder.record('in', message);
        receiver.onmessage(message, context);
      },
      oninvalid(parsed, context) {
        recorder.invalid('in', parsed);
        receiver.oninvalid(parsed, context);
      },
      onerror: (error) => receiver.onerror(error),
      onclose: (error) => receiver.onclose(error),
    };
    const onend = receiver.onend?.bind(receiver);
    if (onend) tapped.onend = onend;
    return this.#inner.start(tapped);
  }

  send(message: JsonRpcMessage | JsonRpcMessage[], options?: SendOptions): Promise<void> {
    this.#recorder.record('out', message);
    return this.#inner.send(message, options);
  }

  close(): Promise<void> {
    return this.#inner.close();
  }
}
