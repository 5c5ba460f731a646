// Splitting a byte stream into lines without parsing them, for the processes `mcpkit` stands between.

/** Longest line kept whole; a longer one is passed on in pieces, unread. */
const MAX_LINE = 16 * 1024 * 1024;

/**
 * Calls `online` with each complete line (without its newline, a trailing `\r` removed). A line longer than 16 MiB
 * is handed to `onraw` in pieces as it comes (when given), so memory stays bounded whatever the input.
 */
export class LineSplitter {
  readonly #online: (line: string) => void;
  readonly #onraw: ((piece: Buffer) => void) | undefined;
  #parts: Buffer[] = [];
  #size = 0;
  #overlong = false;

  constructor(online: (line: string) => void, onraw?: (piece: Buffer) => void) {
    this.#online = online;
    this.#onraw = onraw;
  }

  push(chunk: Buffer): void {
    let start = 0;
    for (let nl = chunk.indexOf(10); nl >= 0; nl = chunk.indexOf(10, start)) {
      const piece = chunk.subarray(start, nl);
      start = nl + 1;
      if (this.#overlong) {
        this.#onraw?.(Buffer.concat([piece, Buffer.from('\n')]));
        this.#overlong = false;
        continue;
      }
      const line = this.#parts.length === 0 ? piece : Buffer.concat([...this.#parts, piece]);
      this.#parts = [];
      this.#size = 0;
      const text = line.toString('utf8');
      const trimmed = text.endsWith('\r') ? text.slice(0, -1) : text;
      if (trimmed.trim() !== '') this.#online(trimmed);
    }
    const rest = chunk.subarray(start);
    if (rest.length === 0) return;
    if (this.#overlong) {
      this.#onraw?.(rest);
      return;
    }
    this.#parts.push(rest);
    this.#size += rest.length;
    if (this.#size > MAX_LINE) {
      this.#onraw?.(Buffer.concat(this.#parts));
      this.#parts = [];
      this.#size = 0;
      this.#overlong = true;
    }
  }
}
