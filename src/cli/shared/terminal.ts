// Lines from stdin, one queue for everything that reads them (the chat's messages and the inline questions asked
// during a turn), so nothing typed is lost or read twice.
import { createInterface, type Interface } from 'node:readline';
import { terminalSafe } from './output.js';

/** Lines of input, read one at a time; `ask` writes a question (to stderr) and reads the answer. */
export class Lines {
  readonly interactive: boolean;
  readonly #rl: Interface;
  readonly #queue: string[] = [];
  #waiting: ((line: string | undefined) => void) | undefined;
  #ended = false;

  constructor(input: NodeJS.ReadableStream & { isTTY?: boolean }, output: NodeJS.WritableStream) {
    this.interactive = input.isTTY === true;
    this.#rl = createInterface({ input, output, terminal: this.interactive });
    this.#rl.on('line', (line) => {
      if (this.#waiting) {
        const waiting = this.#waiting;
        this.#waiting = undefined;
        waiting(line);
      } else this.#queue.push(line);
    });
    this.#rl.on('close', () => {
      this.#ended = true;
      this.#waiting?.(undefined);
      this.#waiting = undefined;
    });
  }

  /** The next line (undefined at the end of input), after showing `prompt` when interactive. */
  next(prompt = ''): Promise<string | undefined> {
    const queued = this.#queue.shift();
    if (queued !== undefined) return Promise.resolve(queued);
    if (this.#ended) return Promise.resolve(undefined);
    if (this.interactive && prompt !== '') {
      this.#rl.setPrompt(terminalSafe(prompt));
      this.#rl.prompt();
    }
    return new Promise((resolve) => {
      this.#waiting = resolve;
    });
  }

  /** Asks a question and reads the answer (trimmed; empty at the end of input). */
  async ask(question: string): Promise<string> {
    return ((await this.next(question)) ?? '').trim();
  }

  close(): void {
    this.#rl.close();
  }
}
