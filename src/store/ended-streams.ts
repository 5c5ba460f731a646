/** The smallest buffer of a session's ended streams (grown by doubling). */
const FIRST_BYTES = 4096;
/** A buffer larger than this is let go once it keeps nothing (after a large event, say). */
const RELEASE_BYTES = 256 * 1024;
/** Numbers per stream in the index: offset, id bytes, newest dropped sequence, events, reported size. */
const STRIDE = 5;
/** Bytes before each event's text: its sequence (float64) and the text's byte length (uint32). */
const EVENT_HEAD = 12;

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** One event of a stream as the store kept it while the stream was written: its JSON text, or the message. */
export interface EndedEvent {
  readonly seq: number;
  readonly size: number;
  readonly data: string | undefined;
  readonly message: unknown;
}

/**
 * The streams of one session that got their last event, oldest first, kept for resumption as UTF-8 bytes in one
 * buffer outside the JavaScript heap, with an index of plain numbers: no object per stream or event outlives the
 * reply (before, the collector copied 100 streams' objects per session at each scavenge and promoted them).
 * A stream is its id's bytes, then for each event its sequence, its text's byte length and its JSON text.
 */
export class EndedStreams {
  #bytes: Uint8Array = new Uint8Array(0);
  #view: DataView = new DataView(this.#bytes.buffer);
  /** Byte offsets of the oldest stream kept and of the next one. */
  #start = 0;
  #end = 0;
  /** STRIDE numbers per stream, from `#head` on (the slots before it belong to streams dropped). */
  #index: number[] = [];
  #head = 0;

  /** How many streams are kept. */
  get count(): number {
    return (this.#index.length - this.#head) / STRIDE;
  }

  /** Keeps an ended stream's events, with the sequence of its newest event dropped before (0 for none). */
  add(streamId: string, dropped: number, events: readonly EndedEvent[]): void {
    // Room for one byte per UTF-16 code unit (exact for ASCII); text that takes more is written again with room for
    // the most it can take (3 bytes per unit), so one large event does not make the buffer 3 times its size.
    let need = streamId.length;
    for (const e of events) need += EVENT_HEAD + (e.data ?? JSON.stringify(e.message)).length;
    if (!this.#write(streamId, dropped, events, need)) this.#write(streamId, dropped, events, need * 3);
  }

  /** Keeps a stream of one event (its JSON text), none dropped before: `add` without an array or object for it. */
  addOne(streamId: string, seq: number, text: string, size: number): void {
    const need = streamId.length + EVENT_HEAD + text.length;
    if (!this.#writeOne(streamId, seq, text, size, need)) this.#writeOne(streamId, seq, text, size, need * 3);
  }

  /** Writes a stream after `#end` with `need` bytes of room; false when its text took more (nothing is kept then). */
  #write(streamId: string, dropped: number, events: readonly EndedEvent[], need: number): boolean {
    this.#room(need);
    const offset = this.#end;
    const idBytes = writeText(this.#bytes, offset, streamId);
    if (idBytes < 0) return false;
    let at = offset + idBytes;
    let size = 0;
    for (const e of events) {
      at = this.#event(at, e.seq, e.data ?? JSON.stringify(e.message));
      if (at < 0) return false;
      size += e.size;
    }
    this.#keep(offset, at, idBytes, dropped, events.length, size);
    return true;
  }

  /** `#write` for one event. */
  #writeOne(streamId: string, seq: number, text: string, size: number, need: number): boolean {
    this.#room(need);
    const offset = this.#end;
    const idBytes = writeText(this.#bytes, offset, streamId);
    if (idBytes < 0) return false;
    const at = this.#event(offset + idBytes, seq, text);
    if (at < 0) return false;
    this.#keep(offset, at, idBytes, 0, 1, size);
    return true;
  }

  /** Writes one event at `at`: its head and its text; returns the offset after it, or -1 when it did not fit. */
  #event(at: number, seq: number, text: string): number {
    const written = writeText(this.#bytes, at + EVENT_HEAD, text);
    if (written < 0) return -1;
    this.#view.setFloat64(at, seq, true);
    this.#view.setUint32(at + 8, written, true);
    return at + EVENT_HEAD + written;
  }

  /** Indexes the stream just written from `offset` to `end`. */
  #keep(offset: number, end: number, idBytes: number, dropped: number, events: number, size: number): void {
    this.#end = end;
    this.#index.push(offset, idBytes, dropped, events, size);
  }

  /** Drops the oldest stream kept; returns its reported size (0 when none is kept). */
  dropOldest(): number {
    const index = this.#index;
    const h = this.#head;
    if (h >= index.length) return 0;
    const size = index[h + 4] as number;
    this.#head = h + STRIDE;
    if (this.#head === index.length) {
      // Nothing left: start over at the front of both, and let a large buffer go.
      index.length = 0;
      this.#head = 0;
      this.#start = 0;
      this.#end = 0;
      if (this.#bytes.length > RELEASE_BYTES) {
        this.#bytes = new Uint8Array(0);
        this.#view = new DataView(this.#bytes.buffer);
      }
    } else {
      this.#start = index[this.#head] as number;
      // The dead slots go once they are most of the index (each slot is moved once on average).
      if (this.#head >= 64 * STRIDE && this.#head * 2 >= index.length) {
        index.splice(0, this.#head);
        this.#head = 0;
      }
    }
    return size;
  }

  /**
   * The kept events of `streamId` whose sequence is past `after`: undefined when the stream is not kept, null when
   * `after` falls before events dropped from it (a gap). Rare (a client resuming): a scan of the index.
   */
  eventsAfter(streamId: string, after: number): { seq: number; text: string }[] | null | undefined {
    const bytes = this.#bytes;
    const view = this.#view;
    const index = this.#index;
    const id = encoder.encode(streamId);
    let out: { seq: number; text: string }[] | undefined;
    for (let i = this.#head; i < index.length; i += STRIDE) {
      const offset = index[i] as number;
      if (!sameBytes(bytes, offset, id, index[i + 1] as number)) continue;
      if (after < (index[i + 2] as number)) return null;
      out ??= [];
      let at = offset + id.length;
      for (let n = index[i + 3] as number; n > 0; n--) {
        const seq = view.getFloat64(at, true);
        const length = view.getUint32(at + 8, true);
        const text = at + EVENT_HEAD;
        if (seq > after) out.push({ seq, text: decoder.decode(bytes.subarray(text, text + length)) });
        at = text + length;
      }
    }
    return out;
  }

  /** Makes `need` bytes free after `#end`: the kept streams moved to the front, of a larger buffer when needed. */
  #room(need: number): void {
    const old = this.#bytes;
    if (this.#end + need <= old.length) return;
    const kept = this.#end - this.#start;
    // At most half full after the move, so that moves stay rare (each byte is moved a bounded number of times); a
    // buffer made large by events since dropped shrinks back here.
    let size = FIRST_BYTES;
    while ((kept + need) * 2 > size) size *= 2;
    if (size === old.length) old.copyWithin(0, this.#start, this.#end);
    else {
      const bytes = new Uint8Array(size);
      bytes.set(old.subarray(this.#start, this.#end));
      this.#bytes = bytes;
      this.#view = new DataView(bytes.buffer);
    }
    const shift = this.#start;
    const index = this.#index;
    for (let i = this.#head; i < index.length; i += STRIDE) index[i] = (index[i] as number) - shift;
    this.#start = 0;
    this.#end = kept;
  }
}

/**
 * Writes `text` as UTF-8 at `offset`; returns its byte length, or -1 when it did not fit. Short ASCII text (stream
 * ids) is copied by a loop: no view made, no call into the runtime.
 */
function writeText(bytes: Uint8Array, offset: number, text: string): number {
  const n = text.length;
  if (offset + n > bytes.length) return -1;
  if (n <= 64) {
    let i = 0;
    for (; i < n; i++) {
      const c = text.charCodeAt(i);
      if (c > 0x7f) break;
      bytes[offset + i] = c;
    }
    if (i === n) return n;
  }
  const done = encoder.encodeInto(text, bytes.subarray(offset));
  return done.read === n ? done.written : -1;
}

/** True when the `length` bytes at `offset` of `bytes` are `id`. */
function sameBytes(bytes: Uint8Array, offset: number, id: Uint8Array, length: number): boolean {
  if (length !== id.length) return false;
  for (let i = 0; i < length; i++) if (bytes[offset + i] !== id[i]) return false;
  return true;
}
