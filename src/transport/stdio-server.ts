// The global `process`, not node:process: importing that makes Node read every property of `process` at load.
import type { Readable, Writable } from 'node:stream';
import { encodeNdjsonParts } from '../framing/ndjson.js';
import { McpkitError } from '../jsonrpc/errors.js';
import type { EncodedParts } from '../jsonrpc/parse.js';
import type { JsonRpcMessage } from '../jsonrpc/types.js';
import type { Transport, TransportReceiver } from '../protocol/transport.js';
import { NdjsonLineReader, QueuedWriter } from './stdio-streams.js';

/** Options for {@link StdioServerTransport}. */
export interface StdioServerTransportOptions {
  /** Where messages are read from; default `process.stdin`. */
  stdin?: Readable;
  /** Where messages are written; default `process.stdout`. Nothing but protocol messages is written to it. */
  stdout?: Writable;
  /** Longest accepted incoming message in bytes; default 16 MiB. */
  maxMessageBytes?: number;
}

type State = 'new' | 'open' | 'closing' | 'closed';

/**
 * The server side of the stdio transport: NDJSON on stdin and stdout, with backpressure. When stdin ends, a receiver
 * with `onend` (the server's Peer) still answers the requests it is running and then closes; `close()` stops reading,
 * flushes what was sent and leaves stdout open.
 *
 * @example
 * const transport = new StdioServerTransport();
 * await transport.start(session);
 */
export class StdioServerTransport implements Transport {
  #stdin: Readable;
  #stdout: Writable;
  #maxMessageBytes: number | undefined;
  #writer: QueuedWriter;
  #state: State = 'new';
  #receiver: TransportReceiver | undefined;
  #reader: NdjsonLineReader | undefined;
  #closing: Promise<void> | undefined;
  #error: Error | undefined;
  #inputEnded = false;

  constructor(options: StdioServerTransportOptions = {}) {
    this.#stdin = options.stdin ?? process.stdin;
    this.#stdout = options.stdout ?? process.stdout;
    this.#maxMessageBytes = options.maxMessageBytes;
    this.#writer = new QueuedWriter(this.#stdout);
  }

  async start(receiver: TransportReceiver): Promise<void> {
    if (this.#state !== 'new') throw new McpkitError('ALREADY_CONNECTED', 'Transport already started');
    this.#state = 'open';
    this.#receiver = receiver;
    this.#reader = new NdjsonLineReader(receiver, this.#maxMessageBytes);
    this.#stdin.on('data', this.#onData);
    this.#stdin.on('end', this.#onEnd);
    this.#stdin.on('close', this.#onEnd);
    this.#stdin.on('error', this.#onInputError);
    this.#stdout.on('error', this.#onOutputError);
  }

  // Not `async`: a send is one per response, and an async function costs a promise and a turn of its own.
  send(message: JsonRpcMessage | JsonRpcMessage[]): Promise<void> {
    if (this.#state === 'new')
      return Promise.reject(
        new McpkitError('NOT_CONNECTED', 'Cannot send: the stdio transport is not started'),
      );
    if (this.#state !== 'open')
      return Promise.reject(
        new McpkitError('CONNECTION_CLOSED', 'Cannot send: the stdio transport is closed'),
      );
    let line: EncodedParts;
    try {
      line = encodeNdjsonParts(message);
    } catch (e) {
      return Promise.reject(e);
    }
    return this.#writer.write(line);
  }

  close(): Promise<void> {
    return this.#shutdown();
  }

  #onData = (chunk: Uint8Array | string): void => {
    // The answers the chunk's requests get at once go out together when it is done (see QueuedWriter.hold).
    const writer = this.#writer;
    writer.hold();
    try {
      this.#reader?.push(chunk);
    } finally {
      writer.release();
    }
  };

  #onEnd = (): void => {
    if (this.#inputEnded) return; // 'end' and 'close' both come
    this.#inputEnded = true;
    this.#reader?.end();
    this.#reader?.stop();
    // The client closed our input: answers still owed may go out, and the receiver closes us once it owes none.
    if (this.#receiver?.onend && this.#state === 'open') this.#receiver.onend();
    else void this.#shutdown();
  };

  #onInputError = (cause: Error): void => {
    this.#error ??= new McpkitError('TRANSPORT_ERROR', `stdin failed: ${cause.message}`, { cause });
    void this.#shutdown();
  };

  #onOutputError = (cause: Error): void => {
    // Typically EPIPE: the client has gone, so nothing more can be delivered.
    this.#error ??= new McpkitError('TRANSPORT_ERROR', `stdout failed: ${cause.message}`, { cause });
    this.#writer.fail(
      new McpkitError('CONNECTION_CLOSED', 'The stdio transport closed', { cause: this.#error }),
    );
    void this.#shutdown();
  };

  #shutdown(): Promise<void> {
    if (this.#state === 'new') this.#state = 'closed';
    this.#closing ??= this.#state === 'closed' ? Promise.resolve() : this.#drainAndClose();
    return this.#closing;
  }

  async #drainAndClose(): Promise<void> {
    this.#state = 'closing';
    this.#reader?.stop();
    this.#stdin.off('data', this.#onData);
    this.#stdin.off('end', this.#onEnd);
    this.#stdin.off('close', this.#onEnd);
    this.#stdin.off('error', this.#onInputError);
    // Stop reading so the process can exit; stdin belongs to the process, not to us.
    this.#stdin.pause();
    // Messages already accepted by send() still go out; a stdout error meanwhile ends the wait.
    this.#writer.flush();
    await this.#writer.idle();
    this.#stdout.off('error', this.#onOutputError);
    this.#state = 'closed';
    this.#receiver?.onclose(this.#error);
  }
}
