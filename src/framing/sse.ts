/** One server-sent event as parsed or written. */
export interface SseEvent {
  /** The `event:` field; absent means "message". */
  event?: string;
  /** The `data:` lines joined with "\n" ('' for an event with no data, such as a priming event). */
  data: string;
  /** The `id:` field, if the event had one. */
  id?: string;
  /** The `retry:` field in milliseconds, if present. */
  retry?: number;
}

/** Formats one event; multi-line data becomes several `data:` lines, so the text can never break framing. */
export function formatSseEvent(event: SseEvent): string {
  let out = '';
  if (event.id !== undefined) out += `id: ${oneLine(event.id)}\n`;
  if (event.retry !== undefined) out += `retry: ${Math.max(0, Math.floor(event.retry))}\n`;
  if (event.event !== undefined) out += `event: ${oneLine(event.event)}\n`;
  const data = event.data;
  if (data.indexOf('\n') < 0 && data.indexOf('\r') < 0) out += `data: ${data}\n\n`;
  else
    out += `${data
      .split(/\r\n|\r|\n/)
      .map((line) => `data: ${line}`)
      .join('\n')}\n\n`;
  return out;
}

/**
 * Formats an event carrying JSON text (one line: JSON.stringify escapes every line break), with an optional id: what
 * {@link formatSseEvent} writes for it, without scanning the text for line breaks.
 */
export function formatJsonEvent(data: string, id: string | undefined): string {
  return id === undefined ? `data: ${data}\n\n` : `id: ${oneLine(id)}\ndata: ${data}\n\n`;
}

/** A comment line (keep-alive); ignored by every SSE parser. */
export const SSE_KEEPALIVE = ': keep-alive\n\n';

function oneLine(value: string): string {
  // Ids are almost always one line already: no regular expression runs for them.
  return value.indexOf('\n') < 0 && value.indexOf('\r') < 0 ? value : value.replace(/[\r\n]/g, '');
}

/** Default upper bound of one event's buffered size: 16 MiB. */
export const DEFAULT_MAX_SSE_EVENT_CHARS = 16 * 1024 * 1024;

/**
 * An incremental `text/event-stream` parser: feed decoded text chunks, get whole events. Linear in the
 * input (each character is scanned once), tolerant of `\r\n`, `\r` and `\n`, comments and empty data.
 * Events with an `id` but no data (priming events) are reported too, so callers can record their id.
 */
export class SseParser {
  #carry = '';
  #data: string[] = [];
  #dataChars = 0;
  #event: string | undefined;
  #id: string | undefined;
  #retry: number | undefined;
  #sawField = false;
  #lastWasCr = false;
  readonly #maxChars: number;

  constructor(options: { maxEventChars?: number } = {}) {
    this.#maxChars = options.maxEventChars ?? DEFAULT_MAX_SSE_EVENT_CHARS;
  }

  /** Feeds a chunk of text; returns the events it completed, in order. Throws RangeError past the size limit. */
  push(chunk: string): SseEvent[] {
    const events: SseEvent[] = [];
    let text = chunk;
    if (this.#lastWasCr && text.startsWith('\n')) text = text.slice(1);
    this.#lastWasCr = false;
    let start = 0;
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (c !== 10 && c !== 13) continue;
      const line = this.#carry === '' ? text.slice(start, i) : this.#carry + text.slice(start, i);
      this.#carry = '';
      this.#line(line, events);
      if (c === 13) {
        if (i + 1 < text.length) {
          if (text.charCodeAt(i + 1) === 10) i++;
        } else this.#lastWasCr = true;
      }
      start = i + 1;
    }
    if (start < text.length) {
      this.#carry += text.slice(start);
      if (this.#carry.length + this.#dataChars > this.#maxChars) throw this.#tooLarge();
    }
    return events;
  }

  #line(line: string, events: SseEvent[]): void {
    if (line === '') {
      if (this.#sawField) events.push(this.#dispatch());
      return;
    }
    if (line.charCodeAt(0) === 58) return; // ':' comment
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? '' : line.slice(colon + 1);
    if (value.charCodeAt(0) === 32) value = value.slice(1);
    this.#sawField = true;
    switch (field) {
      case 'data':
        this.#data.push(value);
        this.#dataChars += value.length + 1;
        if (this.#dataChars > this.#maxChars) throw this.#tooLarge();
        return;
      case 'event':
        this.#event = value;
        return;
      case 'id':
        if (!value.includes('\0')) this.#id = value;
        return;
      case 'retry':
        if (/^\d+$/.test(value)) this.#retry = Number(value);
        return;
      default:
        return;
    }
  }

  #dispatch(): SseEvent {
    const event: SseEvent = { data: this.#data.join('\n') };
    if (this.#event !== undefined) event.event = this.#event;
    if (this.#id !== undefined) event.id = this.#id;
    if (this.#retry !== undefined) event.retry = this.#retry;
    this.#data = [];
    this.#dataChars = 0;
    this.#event = undefined;
    this.#id = undefined;
    this.#retry = undefined;
    this.#sawField = false;
    return event;
  }

  #tooLarge(): RangeError {
    this.#carry = '';
    this.#data = [];
    this.#dataChars = 0;
    return new RangeError(`An SSE event exceeded ${this.#maxChars} characters`);
  }
}
