import { InputRequiredSignal } from '../../spec/input-required.js';
import type { InputRequest } from '../../spec/modern.js';

/**
 * Collects the input a handler asks for with `ctx.elicit()` and friends on a stateless request:
 * the n-th ask of a run gets key `input-n`; answered keys resolve at once, unanswered ones are
 * recorded and the handler stops with {@link InputRequiredSignal}.
 */
export class InputCollector {
  readonly answers: Record<string, unknown>;
  /** Made on the first unanswered ask: most requests ask for nothing. */
  #missing: Record<string, InputRequest> | undefined;
  #next = 0;

  constructor(answers: Record<string, unknown>) {
    this.answers = answers;
  }

  /** The inputs asked for that have no answer yet, by key. */
  get missing(): Record<string, InputRequest> {
    this.#missing ??= {};
    return this.#missing;
  }

  /** True when some input was asked for and has no answer yet. */
  get hasMissing(): boolean {
    if (this.#missing === undefined) return false;
    for (const _ in this.#missing) return true;
    return false;
  }

  /** Resolves with the answer for the next input, or rejects with the signal after recording it. */
  ask(request: InputRequest): Promise<unknown> {
    const key = `input-${++this.#next}`;
    if (Object.hasOwn(this.answers, key)) return Promise.resolve(this.answers[key]);
    this.missing[key] = request;
    return Promise.reject(new InputRequiredSignal());
  }
}
