import type { AppToolCall } from '../client/apps/policy.js';
import { JsonRpcError, McpkitError } from '../jsonrpc/errors.js';
import { createMessageResult, elicitResult } from '../spec/checks.js';
import { check } from '../spec/shape.js';
import type { CreateMessageParams, CreateMessageResult, ElicitParams, ElicitResult } from '../spec/types.js';
import { BadInput } from './bad-input.js';

/** A server's request waiting for the person's answer in the page. */
export type PendingAsk =
  | { id: string; kind: 'sampling'; time: number; params: CreateMessageParams }
  | { id: string; kind: 'elicitation'; time: number; params: ElicitParams }
  | { id: string; kind: 'app-tool'; time: number; params: AppToolCall };

/** How an ask ended, for the page to close its dialog. */
export interface AskOutcome {
  id: string;
  outcome: 'answered' | 'declined' | 'cancelled';
}

interface Waiter {
  ask: PendingAsk;
  resolve: (answer: unknown) => void;
  reject: (error: Error) => void;
}

/** The error a server gets when the person declines its sampling request. */
const USER_REJECTED = -1;

/**
 * The server's sampling and elicitation requests, held until the person answers them in the page (or the server
 * cancels, or the connection closes).
 */
export class Asks {
  #next = 0;
  readonly #waiting = new Map<string, Waiter>();
  readonly #onask: (ask: PendingAsk) => void;
  readonly #ondone: (outcome: AskOutcome) => void;

  constructor(onask: (ask: PendingAsk) => void, ondone: (outcome: AskOutcome) => void) {
    this.#onask = onask;
    this.#ondone = ondone;
  }

  /** The asks still open, oldest first. */
  pending(): PendingAsk[] {
    return [...this.#waiting.values()].map((w) => w.ask);
  }

  /** Holds a sampling request until the person approves (possibly edited) or declines an answer. */
  async sampling(params: CreateMessageParams, signal: AbortSignal): Promise<CreateMessageResult> {
    const answer = await this.#hold({ id: this.#id(), kind: 'sampling', time: Date.now(), params }, signal);
    return answer as CreateMessageResult;
  }

  /** Holds an elicitation until the person accepts (with content), declines or cancels it. */
  async elicitation(params: ElicitParams, signal: AbortSignal): Promise<ElicitResult> {
    const answer = await this.#hold(
      { id: this.#id(), kind: 'elicitation', time: Date.now(), params },
      signal,
    );
    return answer as ElicitResult;
  }

  /**
   * Holds an App's tool call until the person allows it (`{ approve: true }`, or with `for: 'app'` this tool for as
   * long as this App is open) or not: `'once'`, `'app'` or `'deny'`.
   */
  async appTool(params: AppToolCall, signal: AbortSignal): Promise<'once' | 'app' | 'deny'> {
    const answer = await this.#hold({ id: this.#id(), kind: 'app-tool', time: Date.now(), params }, signal);
    return answer as 'once' | 'app' | 'deny';
  }

  /**
   * The person's answer to ask `id`: for sampling `{ approve: true, result }` or `{ approve: false }`; for an
   * elicitation an `ElicitResult` (`{ action, content? }`). A malformed answer is refused and the ask stays open.
   */
  answer(id: string, answer: unknown): void {
    const waiter = this.#waiting.get(id);
    if (!waiter) throw new BadInput(`No open request ${JSON.stringify(id)}`);
    const invalid = (problem: string) => new BadInput(`Malformed answer: ${problem}`);
    if (waiter.ask.kind === 'app-tool') {
      const verdict = (answer ?? {}) as { approve?: unknown; for?: unknown };
      const approve = verdict.approve === true;
      this.#finish(id, approve ? 'answered' : 'declined');
      waiter.resolve(approve ? (verdict.for === 'app' ? 'app' : 'once') : 'deny');
      return;
    }
    if (waiter.ask.kind === 'sampling') {
      const verdict = (answer ?? {}) as { approve?: unknown; result?: unknown };
      if (verdict.approve !== true) {
        this.#finish(id, 'declined');
        waiter.reject(new JsonRpcError(USER_REJECTED, 'The user declined the sampling request'));
        return;
      }
      const result = check(createMessageResult, verdict.result, invalid);
      this.#finish(id, 'answered');
      waiter.resolve(result);
      return;
    }
    const result = check(elicitResult, answer, invalid);
    this.#finish(
      id,
      result.action === 'accept' ? 'answered' : result.action === 'decline' ? 'declined' : 'cancelled',
    );
    waiter.resolve(result);
  }

  /** Gives up every open ask (the connection is going away). */
  cancelAll(reason: string): void {
    for (const [id, waiter] of this.#waiting) {
      this.#finish(id, 'cancelled');
      waiter.reject(new McpkitError('CONNECTION_CLOSED', reason));
    }
  }

  #id(): string {
    return `ask-${++this.#next}`;
  }

  #hold(ask: PendingAsk, signal: AbortSignal): Promise<unknown> {
    return new Promise((resolve, reject) => {
      if (signal.aborted) return reject(signal.reason);
      const onabort = () => {
        if (!this.#waiting.has(ask.id)) return;
        this.#finish(ask.id, 'cancelled');
        reject(signal.reason);
      };
      signal.addEventListener('abort', onabort, { once: true });
      const settle = () => signal.removeEventListener('abort', onabort);
      this.#waiting.set(ask.id, {
        ask,
        resolve: (value) => {
          settle();
          resolve(value);
        },
        reject: (error) => {
          settle();
          reject(error);
        },
      });
      this.#onask(ask);
    });
  }

  #finish(id: string, outcome: AskOutcome['outcome']): void {
    this.#waiting.delete(id);
    this.#ondone({ id, outcome });
  }
}
