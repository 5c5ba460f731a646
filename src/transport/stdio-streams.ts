import type { Writable } from 'node:stream';
import { NdjsonDecoder } from '../framing/ndjson.js';
import { ErrorCode, McpkitError } from '../jsonrpc/errors.js';
import { errorResponse, parseMessage } from '../jsonrpc/parse.js';
import { SENT, type TransportReceiver } from '../protocol/transport.js';

const utf8 = new TextEncoder();

/** How a stream broke the framing: a line over the size limit, or input that ended in the middle of a line. */
export type BrokenFraming =
  | { readonly kind: 'too-large'; readonly limit: number }
  | { readonly kind: 'unterminated'; readonly bytes: number };

/**
 * Turns NDJSON bytes into receiver calls: messages to `onmessage`, anything else to `oninvalid`, an oversized line
 * to both `oninvalid` and `onerror`. With `onbroken`, an oversized line and input that ends in the middle of a line
 * stop the reader and go to `onbroken` instead (the stdio client ends the connection on them).
 */
export class NdjsonLineReader {
  #decoder: NdjsonDecoder;
  #receiver: TransportReceiver;
  #onbroken: ((broken: BrokenFraming) => void) | undefined;
  #stopped = false;

  constructor(
    receiver: TransportReceiver,
    maxMessageBytes: number | undefined,
    onbroken?: (broken: BrokenFraming) => void,
  ) {
    this.#receiver = receiver;
    this.#decoder = new NdjsonDecoder(maxMessageBytes === undefined ? {} : { maxMessageBytes });
    this.#onbroken = onbroken;
  }

  /** Feeds one chunk read from the stream (a string if someone set an encoding on it). */
  push(chunk: Uint8Array | string): void {
    if (this.#stopped) return;
    this.#deliver(this.#decoder.push(typeof chunk === 'string' ? utf8.encode(chunk) : chunk));
  }

  /** The stream ended: a final unterminated line is delivered too (with `onbroken`, it goes there instead). */
  end(): void {
    if (this.#stopped) return;
    const bytes = this.#decoder.pendingBytes;
    if (this.#onbroken !== undefined && bytes > 0) this.#broken({ kind: 'unterminated', bytes });
    else this.#deliver(this.#decoder.end());
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

  #broken(broken: BrokenFraming): void {
    this.stop();
    this.#onbroken?.(broken);
  }

  #deliverOne(item: string | McpkitError): void {
    if (typeof item !== 'string' && this.#onbroken !== undefined) {
      this.#broken({ kind: 'too-large', limit: this.#decoder.maxMessageBytes });
      return;
    }
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

/** What a {@link QueuedWriter} writes: text, bytes, or a message's parts in order (see `EncodedParts`). */
export type WriteData = string | Uint8Array | readonly (string | Uint8Array)[];

interface Queued {
  data: WriteData;
  resolve: () => void;
  reject: (error: Error) => void;
}

/** Writes to a Node writable in order, queueing while the stream asks to wait and handing the queue over on `'drain'`. */
export class QueuedWriter {
  #stream: Writable;
  #queue: Queued[] = [];
  #head = 0;
  #waiting = false;
  #inFlight = 0;
  #idle: (() => void)[] = [];
  /** What was written in this turn of the event loop, handed over together at its end. */
  #batch: (string | Uint8Array)[] = [];
  #batchHasBytes = false;
  /** Depth of {@link hold}: while held, the batch waits for {@link release} instead of a `process.nextTick`. */
  #held = 0;

  constructor(stream: Writable) {
    this.#stream = stream;
  }

  /** Number of writes not yet handed to the stream (batched for this turn, or waiting for `'drain'`). */
  get queued(): number {
    return this.#queue.length - this.#head + this.#batch.length;
  }

  /**
   * Hands `data` to the stream, or queues it until the stream has drained. What is written in one callback of the
   * event loop and the promise jobs it sets off goes out together, so the responses to a chunk of requests cost one
   * system call: the batch is handed over from `process.nextTick`, which runs once the microtask queue is empty
   * (before the loop polls again, so a lone response goes out as soon as it is ready), or at the end of a
   * {@link hold}, whichever comes first.
   */
  write(data: WriteData): Promise<void> {
    if (this.#waiting) {
      return new Promise<void>((resolve, reject) => {
        this.#queue.push({ data, resolve, reject });
      });
    }
    if (this.#batch.length === 0 && this.#held === 0) process.nextTick(this.#flushBatch);
    if (typeof data === 'string') this.#batch.push(data);
    else if (data instanceof Uint8Array) {
      this.#batch.push(data);
      this.#batchHasBytes = true;
    } else {
      for (const part of data) {
        this.#batch.push(part);
        if (typeof part !== 'string') this.#batchHasBytes = true;
      }
    }
    // Handed over (in this turn's batch): the shared settled promise, on which the peer waits for nothing.
    return SENT;
  }

  /**
   * Holds this turn's batch while the messages of one chunk are handled; {@link release} hands it over. Responses
   * given synchronously then leave together as the chunk is done, without the `process.nextTick` a batch otherwise
   * waits for (one per read, which is per message when requests arrive one per chunk); responses given later are
   * batched per turn as before.
   */
  hold(): void {
    this.#held++;
  }

  /** Ends a {@link hold}; the outermost one hands what was written meanwhile to the stream. */
  release(): void {
    if (--this.#held === 0) this.#flushBatch();
  }

  #flushBatch = (): void => {
    const batch = this.#batch;
    if (batch.length === 0) return;
    this.#batch = [];
    if (!this.#batchHasBytes) {
      if (!this.#hand(batch.length === 1 ? (batch[0] as string) : batch.join(''))) this.#wait();
      return;
    }
    this.#batchHasBytes = false;
    if (!this.#handAll(batch)) this.#wait();
  };

  /** Hands every queued write to the stream regardless of backpressure (used when closing). */
  flush(): void {
    this.#flushBatch();
    this.#stopWaiting();
    for (const item of this.#take()) {
      this.#handData(item.data);
      item.resolve();
    }
  }

  /** Rejects every queued write with `error` (used when the stream is gone). */
  fail(error: Error): void {
    this.#batch = [];
    this.#batchHasBytes = false;
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

  #hand(chunk: string | Uint8Array): boolean {
    this.#inFlight++;
    return this.#stream.write(chunk, this.#written);
  }

  #handData(data: WriteData): boolean {
    return typeof data === 'string' || data instanceof Uint8Array ? this.#hand(data) : this.#handAll(data);
  }

  /** Hands several chunks over as one corked write (one `writev` on sockets and pipes); adjacent texts are joined. */
  #handAll(chunks: readonly (string | Uint8Array)[]): boolean {
    this.#stream.cork();
    let ok = true;
    let text = '';
    for (const chunk of chunks) {
      if (typeof chunk === 'string') {
        text += chunk;
        continue;
      }
      if (text !== '') ok = this.#hand(text) && ok;
      text = '';
      ok = this.#hand(chunk) && ok;
    }
    if (text !== '') ok = this.#hand(text) && ok;
    this.#stream.uncork();
    return ok;
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
      const ok = this.#handData(item.data);
      item.resolve();
      if (!ok) {
        this.#wait();
        break;
      }
    }
    if (this.#head === this.#queue.length) this.#take();
    // Drop the handed-over prefix now and then, keeping the queue amortised O(1) per write.
    else if (this.#head > 1024 && this.#head * 2 > this.#queue.length) this.#queue = this.#take();
  };

  #take(): Queued[] {
    const rest = this.#queue.slice(this.#head);
    this.#queue = [];
    this.#head = 0;
    return rest;
  }
}
