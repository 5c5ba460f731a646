import type { SseEvent } from '../../framing/sse.js';
import { ErrorCode, errorMessage, McpkitError } from '../../jsonrpc/errors.js';
import { errorResponse } from '../../jsonrpc/parse.js';
import type { JsonRpcErrorObject, JsonRpcMessage, RequestId } from '../../jsonrpc/types.js';
import { backoffDelay, discard, isRetriableStatus, mediaType, type ReconnectPolicy } from './shared.js';
import { readEvents } from './sse-reader.js';
import { type Stream, type StreamBook, streamName } from './streams.js';

/** The SSE media type. */
export const EVENT_STREAM = 'text/event-stream';

/** What a {@link StreamResumer} needs from the transport it reads for. */
export interface ResumerHost {
  /** True once the transport is closing: nothing more is read, resumed or delivered. */
  closing(): boolean;
  /** The session the GETs belong to (named in error texts). */
  sessionId(): string | undefined;
  /** GETs the endpoint for an SSE stream, resuming after `lastEventId` when given. */
  get(lastEventId: string | undefined): Promise<Response>;
  /** Delivers the JSON-RPC text of one SSE event (`related`: the one request its stream was opened for). */
  deliverText(text: string, related: RequestId | undefined): void;
  /** Delivers one message (the error responses of requests a stream can no longer answer). */
  deliver(message: JsonRpcMessage): void;
  /** Reports a problem through the transport's `onerror`. */
  report(error: Error): void;
  /** The server ended the session under an open standalone stream: start a new session (and with it a new stream). */
  renewSession?(lost: string): void;
}

/**
 * Reads the SSE streams of a Streamable HTTP client and keeps them alive: a connection that drops before its
 * stream is done is resumed with `Last-Event-ID` after the server's `retry` interval (or a bounded backoff), and
 * a stream that cannot go on answers every request it still owes with an error response.
 */
export class StreamResumer {
  readonly #book: StreamBook;
  readonly #host: ResumerHost;
  readonly #policy: ReconnectPolicy;
  readonly #maxChars: number;

  constructor(book: StreamBook, host: ResumerHost, policy: ReconnectPolicy, maxChars: number) {
    this.#book = book;
    this.#host = host;
    this.#policy = policy;
    this.#maxChars = maxChars;
  }

  /** Reads one connection of a stream; when it drops before the stream is done, schedules a resumption. */
  async consume(stream: Stream, response: Response): Promise<void> {
    stream.opened = true;
    let progressed = false;
    let failure: unknown;
    try {
      await readEvents(
        response.body,
        (event) => {
          progressed = true;
          this.#onEvent(stream, event);
          return !stream.done;
        },
        (cancel) => {
          stream.cancel = cancel;
        },
        this.#maxChars,
      );
    } catch (e) {
      failure = e;
    }
    if (stream.done || this.#host.closing()) return;
    if (failure instanceof RangeError) {
      // The same oversized event would come back on every resumption.
      return this.giveUp(stream, `The server sent an SSE event that is too large: ${failure.message}`);
    }
    stream.quiet = progressed ? 0 : stream.quiet + 1;
    this.#scheduleResume(stream, failure);
  }

  /** GETs the endpoint for a stream: a resumption (with `Last-Event-ID`) or the standalone stream. */
  async reconnect(stream: Stream): Promise<void> {
    const host = this.#host;
    if (stream.done || host.closing()) return;
    let response: Response;
    try {
      response = await host.get(stream.lastEventId);
    } catch (e) {
      if (stream.done || host.closing()) return;
      stream.failures++;
      return this.#scheduleResume(stream, e);
    }
    if (stream.done || host.closing()) return discard(response);
    if (response.ok && mediaType(response) === EVENT_STREAM) {
      stream.failures = 0;
      return this.consume(stream, response);
    }
    await discard(response);
    const status = response.status;
    if (status === 405 && stream.kind === 'standalone') return this.#book.finish(stream); // no GET stream offered
    if (isRetriableStatus(status)) {
      stream.failures++;
      return this.#scheduleResume(stream, new Error(`HTTP ${status}`));
    }
    const detail = response.ok
      ? `a non-SSE reply (${mediaType(response) || 'no content type'})`
      : `HTTP ${status}`;
    const session = host.sessionId();
    const ended = status === 404 && session !== undefined;
    const why = ended
      ? `the server ended the session ${JSON.stringify(session)} (HTTP 404)`
      : status === 405
        ? 'the server does not offer GET streams (HTTP 405)'
        : `the server answered the GET with ${detail}`;
    if (stream.kind === 'standalone' && ended && stream.opened && host.renewSession) {
      // A listening client must not go deaf when its session expires: a new session brings a new GET stream. A
      // stream that never opened is not renewed again, so a server that refuses every new session ends the loop.
      this.#book.finish(stream);
      host.renewSession(session);
      return;
    }
    if (stream.kind === 'standalone') {
      const next = ended
        ? 'the next message sent starts a new session, and with it a new GET stream'
        : 'server-initiated messages outside requests will not arrive';
      return this.giveUp(stream, `The standalone GET stream stopped: ${why}; ${next}`);
    }
    this.fail(stream, `The response stream could not be resumed: ${why}`);
  }

  /** Gives up on a stream for good: reported through onerror, and its requests get error responses. */
  giveUp(stream: Stream, reason: string): void {
    this.#host.report(new McpkitError('TRANSPORT_ERROR', reason));
    this.fail(stream, reason);
  }

  /** Answers every request a stream still owes with an error response, then ends the stream. */
  fail(stream: Stream, error: string | JsonRpcErrorObject): void {
    const body = typeof error === 'string' ? { code: ErrorCode.InternalError, message: error } : error;
    const ids = [...stream.pending];
    this.#book.finish(stream);
    for (const id of ids) this.#host.deliver(errorResponse(id, body.code, body.message, body.data));
  }

  #onEvent(stream: Stream, event: SseEvent): void {
    if (event.retry !== undefined) stream.retry = event.retry;
    if (event.id !== undefined) stream.lastEventId = event.id;
    // Empty data: a priming event, whose only purpose was its id.
    if (event.data === '' || (event.event !== undefined && event.event !== 'message')) return;
    this.#host.deliverText(event.data, stream.related);
  }

  #scheduleResume(stream: Stream, cause: unknown): void {
    const why = cause === undefined ? '' : ` (${errorMessage(cause)})`;
    if (stream.kind === 'request' && stream.lastEventId === undefined) {
      this.fail(
        stream,
        `The response stream ended before the response arrived${why}, and it cannot be resumed: it carried no event id`,
      );
      return;
    }
    if (stream.failures >= this.#policy.maxRetries) {
      this.giveUp(
        stream,
        `Reconnecting the ${streamName(stream)} failed ${stream.failures} times in a row${why}; giving up`,
      );
      return;
    }
    // The server's retry is honoured exactly; without one, failures and empty connections back off.
    const delay = stream.retry ?? backoffDelay(this.#policy, Math.max(stream.failures, stream.quiet));
    stream.timer = setTimeout(() => {
      stream.timer = undefined;
      void this.reconnect(stream);
    }, delay);
  }
}
