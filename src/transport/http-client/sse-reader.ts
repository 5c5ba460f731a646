import { type SseEvent, SseParser } from '../../framing/sse.js';

/** Called once a stream is being read, with a function that stops reading it (and releases the connection). */
export type CancelHandle = (cancel: (() => void) | undefined) => void;

/**
 * Reads a `text/event-stream` body to its end, handing each whole event to `onEvent`; returning false
 * from `onEvent` stops reading. Resolves when the stream ends or is stopped, rejects when it breaks.
 * `hold` receives a cancel function while reading is under way, and undefined once it is over.
 */
export async function readEvents(
  body: ReadableStream<Uint8Array> | null,
  onEvent: (event: SseEvent) => boolean,
  hold: CancelHandle,
  maxEventChars: number,
): Promise<void> {
  if (body === null) return;
  const reader = body.getReader();
  const decoder = new TextDecoder();
  const parser = new SseParser({ maxEventChars });
  // Cancelling an errored or finished stream rejects; the stream is released either way.
  const cancel = () => void reader.cancel().catch(() => undefined);
  hold(cancel);
  try {
    for (;;) {
      const { value, done } = await reader.read();
      // An event not ended by a blank line when the stream ends is incomplete and is dropped (SSE rules).
      if (done) return;
      for (const event of parser.push(decoder.decode(value, { stream: true }))) {
        if (!onEvent(event)) return;
      }
    }
  } finally {
    hold(undefined);
    cancel();
  }
}
