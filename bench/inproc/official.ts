// What the official SDK's two major versions share in the in-process adapters: a scripted client transport (their
// Transport interfaces have the same shape) and the tool handlers.
import { searchResult } from './fixtures.js';

/** A client transport answering from a scripted responder, delivering each reply in a microtask. */
export class ScriptedOfficialTransport {
  onmessage?: ((message: never) => void) | undefined;
  onclose?: (() => void) | undefined;
  onerror?: ((error: Error) => void) | undefined;
  readonly #respond: (message: unknown) => object | undefined;

  constructor(respond: (message: unknown) => object | undefined) {
    this.#respond = respond;
  }

  async start(): Promise<void> {}

  async send(message: unknown): Promise<void> {
    const reply = this.#respond(message);
    if (reply !== undefined) queueMicrotask(() => this.onmessage?.(reply as never));
  }

  async close(): Promise<void> {
    this.onclose?.();
  }
}

/** The handler of a benchmark tool: `echo` echoes; `search_*` returns a result valid against its output schema. */
export function officialHandler(name: string) {
  if (name === 'echo')
    return ({ text }: { text: string }) => ({ content: [{ type: 'text' as const, text }] });
  const structured = searchResult(name);
  return () => ({
    content: [{ type: 'text' as const, text: JSON.stringify(structured) }],
    structuredContent: structured,
  });
}
