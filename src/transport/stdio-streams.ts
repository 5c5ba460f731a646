import type { Writable } from 'node:stream';
import { NdjsonDecoder } from '../framing/ndjson.js';
import { ErrorCode, McpkitError } from '../jsonrpc/errors.js';
import { errorResponse, parseMessage } from '../jsonrpc/parse.js';
import type { TransportReceiver } from './transport.js';

const utf8 = new TextEncoder();

/** Turns NDJSON bytes into receiver calls: messages to `onmessage`, anything else to `oninvalid`, an oversized line to both `oninvalid` and `onerror`. */
export class NdjsonLineReader {
  #decoder: NdjsonDecoder;
  #receiver: TransportReceiver;
  #stopped = false;

  constructor(receiver: TransportReceiver, maxMessageBytes: number | undefined) {
    this.#receiver = receiver;
    this.#decoder = new NdjsonDecoder(maxMessageBytes === undefined ? {} : { maxMessageBytes });
  }

  /** Feeds one chunk read from the stream (a string if someone set an encoding on it). */
  push(chunk: Uint8Array | string): void {
    if (this.#stopped) return;
    this.#deliver(this.#decoder.push(typeof chunk === 'string' ? utf8.encode(chunk) : chunk));
  }

  /** The stream ended: a final unterminated line is delivered too. */
  end(): void {
    if (this.#stopped) return;
    this.#deliver(this.#decoder.end());
  }

  /** Stops delivering, even the rest of a chunk being delivered now. */
  stop(): void {
    this.#stopped = true;
  }

  #deliver(items: (string | McpkitError)[]): void {
    for (const item of items) {
      if (this.#stopped) return;
      try {
        this.#deliverOne(item);
      } catch (cause) {
        // A throwing receiver is a bug above us; report it instead of breaking the stream.
        this.#receiver.onerror(
          new McpkitError('TRANSPORT_ERROR', 'The transport receiver threw while handling a message', {
            cause,
          }),
        );
      }
    }
  }

  #deliverOne(item: string | McpkitError): void {
    if (typeof item !== 'string') {
      const error = errorResponse(null, ErrorCode.InvalidRequest, item.message);
      this.#receiver.oninvalid({ kind: 'invalid', error });
      this.#receiver.onerror(item);
      return;
    }
    const parsed = parseMessage(item);
    if (parsed.kind === 'message') this.#receiver.onmessage(parsed.message);
    else this.#receiver.oninvalid(parsed);
  }
}

interface Queued {
  text: string;
  resolve: () => void;
  reject: (error: Error) => void;
}

/** Writes texts to a Node writable in order, queueing them while the stream asks to wait and handing them over on `'drain'`. */
export class QueuedWriter {
  #stream: Writable;
  #queue: Queued[] = [];
  #head = 0;
  #waiting = false;
  #inFlight = 0;
  #idle: (() => void)[] = [];

  constructor(stream: Writable) {
    this.#stream = stream;
  }

  /** Number of texts not yet handed to the stream (batched for this turn, or waiting for `'drain'`). */
  get queued(): number {
    return this.#queue.length - this.#head + this.#batch.length;
  }

  /**
   * Hands `text` to the stream (texts written in one turn of the event loop go out as one write, so a
   * burst of responses costs one system call), or queues it until the stream has drained.
   */
  write(text: string): Promise<void> {
    if (this.#waiting) {
      return new Promise<void>((resolve, reject) => {
        this.#queue.push({ text, resolve, reject });
      });
    }
    this.#batch.push(text);
    if (this.#batch.length === 1) setImmediate(this.#flushBatch);
    return Promise.resolve();
  }

  #batch: string[] = [];

  #flushBatch = (): void => {
    if (this.#batch.length === 0) return;
    const text = this.#batch.length === 1 ? (this.#batch[0] as string) : this.#batch.join('');
    this.#batch = [];
    if (!this.#hand(text)) this.#wait();
  };

  /** Hands every queued text to the stream regardless of backpressure (used when closing). */
  flush(): void {
    this.#flushBatch();
    this.#stopWaiting();
    for (const item of this.#take()) {
      this.#hand(item.text);
      item.resolve();
    }
  }

  /** Rejects every queued text with `error` (used when the stream is gone). */
  fail(error: Error): void {
    this.#batch = [];
    this.#stopWaiting();
    for (const item of this.#take()) item.reject(error);
    this.#checkIdle();
  }

  /** Resolves once nothing is queued and the stream has finished (or failed) every write handed to it. */
  idle(): Promise<void> {
    this.#flushBatch();
    if (this.#inFlight === 0 && this.queued === 0) return Promise.resolve();
    return new Promise<void>((resolve) => this.#idle.push(resolve));
  }

  #hand(text: string): boolean {
    this.#inFlight++;
    return this.#stream.write(text, this.#written);
  }

  // Called by the stream for every write, with an error too, so in-flight writes always settle.
  #written = (): void => {
    this.#inFlight--;
    this.#checkIdle();
  };

  #checkIdle(): void {
    if (this.#inFlight > 0 || this.queued > 0 || this.#idle.length === 0) return;
    const waiters = this.#idle;
    this.#idle = [];
    for (const resolve of waiters) resolve();
  }

  #wait(): void {
    this.#waiting = true;
    this.#stream.once('drain', this.#onDrain);
  }

  #stopWaiting(): void {
    if (!this.#waiting) return;
    this.#waiting = false;
    this.#stream.off('drain', this.#onDrain);
  }

  #onDrain = (): void => {
    this.#waiting = false;
    while (this.#head < this.#queue.length) {
      const item = this.#queue[this.#head++]!;
      const ok = this.#hand(item.text);
      item.resolve();
      if (!ok) {
        this.#wait();
        break;
      }
    }
    if (this.#head === this.#queue.length) this.#take();
    // Drop the handed-over prefix now and then, keeping the queue amortised O(1) per text.
    else if (this.#head > 1024 && this.#head * 2 > this.#queue.length) this.#queue = this.#take();
  };

  #take(): Queued[] {
    const rest = this.#queue.slice(this.#head);
    this.#queue = [];
    this.#head = 0;
    return rest;
  }
}
