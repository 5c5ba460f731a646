import { McpkitError } from '../jsonrpc/errors.js';
import { type EncodedParts, encodeMessage, encodeMessageParts } from '../jsonrpc/parse.js';
import type { JsonRpcMessage } from '../jsonrpc/types.js';

/** Default upper bound for one newline-delimited message: 16 MiB. */
export const DEFAULT_MAX_MESSAGE_BYTES = 16 * 1024 * 1024;

const LF = 0x0a;
const CR = 0x0d;
const BOM = 0xfeff;
const EMPTY = new Uint8Array(0);

/** Options for {@link NdjsonDecoder}. */
export interface NdjsonDecoderOptions {
  /** Longest accepted line in bytes, not counting its `\n` or `\r\n`; longer lines are dropped and reported. */
  maxMessageBytes?: number;
}

/** One decoder output: a complete line, or the error reported once for a line that exceeded the limit. */
export type NdjsonItem = string | McpkitError;

/** Work counters of an {@link NdjsonDecoder}, for diagnostics and linearity tests. */
export interface NdjsonDecoderStats {
  /** Bytes searched for a newline; each pushed byte is searched exactly once. */
  scannedBytes: number;
  /** Bytes copied to join a line that spanned several chunks; each byte is copied at most once. */
  copiedBytes: number;
  /** Number of joins (one per line that spanned several chunks). */
  joins: number;
}

/**
 * Splits a byte stream into newline-delimited lines in linear time (each byte searched once, split lines joined once; pushed chunks are retained, not copied, so do not reuse them).
 *
 * @example
 * const decoder = new NdjsonDecoder({ maxMessageBytes: 1024 });
 * for (const item of decoder.push(chunk)) if (typeof item === 'string') handle(item);
 */
export class NdjsonDecoder {
  /** The line size limit in bytes. */
  readonly maxMessageBytes: number;
  #pending: Uint8Array[] = [];
  #pendingBytes = 0;
  #discarding = false;
  #text = new TextDecoder('utf-8');
  #stats: NdjsonDecoderStats = { scannedBytes: 0, copiedBytes: 0, joins: 0 };

  constructor(options: NdjsonDecoderOptions = {}) {
    const max = options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES;
    if (!Number.isSafeInteger(max) || max < 1) {
      throw new RangeError(`maxMessageBytes must be a positive integer, got ${max}`);
    }
    this.maxMessageBytes = max;
  }

  /** Bytes of an unfinished line held so far (0 between lines, and while an oversized line is being dropped). */
  get pendingBytes(): number {
    return this.#pendingBytes;
  }

  /** A snapshot of the work counters. */
  get stats(): NdjsonDecoderStats {
    return { ...this.#stats };
  }

  /** Feeds one chunk (a Node Buffer works too) and returns the lines it completed, in order; empty lines are skipped. */
  push(chunk: Uint8Array): NdjsonItem[] {
    const out: NdjsonItem[] = [];
    let start = this.#pendingBytes === 0 && !this.#discarding ? this.#completeWhole(chunk, out) : 0;
    while (start < chunk.length) {
      const nl = chunk.indexOf(LF, start);
      if (nl === -1) {
        this.#stats.scannedBytes += chunk.length - start;
        this.#hold(chunk, start, out);
        break;
      }
      this.#stats.scannedBytes += nl + 1 - start;
      this.#complete(chunk, start, nl, out);
      start = nl + 1;
    }
    return out;
  }

  /** Ends the input: a final line without a terminating newline is returned too. */
  end(): NdjsonItem[] {
    const out: NdjsonItem[] = [];
    if (!this.#discarding && this.#pendingBytes > 0) this.#complete(EMPTY, 0, 0, out);
    this.#reset();
    this.#discarding = false;
    return out;
  }

  /**
   * The lines that lie wholly in `chunk` (nothing pending before it), decoded with one call for all of them rather
   * than one per line: most chunks hold only whole lines. Returns where the rest of the chunk starts. A newline byte
   * is never part of a UTF-8 sequence, so the text has its newlines where the bytes have them.
   */
  #completeWhole(chunk: Uint8Array, out: NdjsonItem[]): number {
    const last = chunk.lastIndexOf(LF);
    if (last <= 0 || last > this.maxMessageBytes) return 0;
    const text = this.#text.decode(new Uint8Array(chunk.buffer, chunk.byteOffset, last));
    let start = 0;
    let at = 0;
    while (start <= last) {
      const nl = start === last ? last : chunk.indexOf(LF, start);
      const textNl = text.indexOf('\n', at);
      const textEnd = textNl === -1 ? text.length : textNl;
      this.#stats.scannedBytes += nl + 1 - start;
      let end = nl;
      let textLineEnd = textEnd;
      if (end > start && chunk[end - 1] === CR) {
        end--;
        textLineEnd--;
      }
      const size = end - start;
      if (size > this.maxMessageBytes) out.push(this.#tooLarge());
      else if (size > 0) {
        const line = text.slice(at, textLineEnd);
        // Decoded alone, every line would lose a leading byte order mark; the decoder drops only the text's first.
        out.push(at > 0 && line.charCodeAt(0) === BOM ? line.slice(1) : line);
      }
      start = nl + 1;
      at = textEnd + 1;
    }
    return last + 1;
  }

  #hold(chunk: Uint8Array, start: number, out: NdjsonItem[]): void {
    if (this.#discarding) return;
    const size = chunk.length - start;
    // One spare byte: the line may still end in `\r`, which does not count against the limit.
    if (this.#pendingBytes + size > this.maxMessageBytes + 1) {
      this.#reset();
      this.#discarding = true;
      out.push(this.#tooLarge());
      return;
    }
    this.#pending.push(start === 0 ? chunk : chunk.subarray(start));
    this.#pendingBytes += size;
  }

  #complete(chunk: Uint8Array, start: number, nl: number, out: NdjsonItem[]): void {
    if (this.#discarding) {
      // The oversized line ends here; it was reported when it crossed the limit.
      this.#discarding = false;
      return;
    }
    let end = nl;
    if (end > start) {
      if (chunk[end - 1] === CR) end--;
    } else {
      this.#trimPendingCr();
    }
    const size = this.#pendingBytes + (end - start);
    if (size > this.maxMessageBytes) {
      this.#reset();
      out.push(this.#tooLarge());
      return;
    }
    if (size === 0) return;
    out.push(this.#text.decode(this.#join(chunk.subarray(start, end), size)));
  }

  #join(tail: Uint8Array, size: number): Uint8Array {
    if (this.#pending.length === 0) return tail;
    if (this.#pending.length === 1 && tail.length === 0) {
      const only = this.#pending[0]!;
      this.#reset();
      return only;
    }
    const line = new Uint8Array(size);
    let offset = 0;
    for (const part of this.#pending) {
      line.set(part, offset);
      offset += part.length;
    }
    line.set(tail, offset);
    this.#stats.copiedBytes += size;
    this.#stats.joins++;
    this.#reset();
    return line;
  }

  #trimPendingCr(): void {
    const last = this.#pending.at(-1);
    if (last === undefined || last[last.length - 1] !== CR) return;
    if (last.length === 1) this.#pending.pop();
    else this.#pending[this.#pending.length - 1] = last.subarray(0, last.length - 1);
    this.#pendingBytes--;
  }

  #reset(): void {
    this.#pending = [];
    this.#pendingBytes = 0;
  }

  #tooLarge(): McpkitError {
    return new McpkitError(
      'MESSAGE_TOO_LARGE',
      `Message exceeds the maximum size of ${this.maxMessageBytes} bytes`,
    );
  }
}

/** Encodes one message (or a batch) as one NDJSON line; `JSON.stringify` escapes newlines in strings, so the terminator is the line's only newline. */
export function encodeNdjson(message: JsonRpcMessage | JsonRpcMessage[]): string {
  return encodeMessage(message) + '\n';
}

/** Encodes one message (or a batch) as one NDJSON line for a byte stream; see {@link EncodedParts}. */
export function encodeNdjsonParts(message: JsonRpcMessage | JsonRpcMessage[]): EncodedParts {
  return encodeMessageParts(message, '\n');
}
