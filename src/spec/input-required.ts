import type { InputRequest } from './modern.js';

const INPUT_REQUIRED: unique symbol = Symbol('mcpkit.inputRequired');

/** A handler's explicit "I need input" answer (low-level MRTR style). */
export type InputRequiredReturn = {
  readonly [INPUT_REQUIRED]: true;
  inputRequests: Record<string, InputRequest>;
  /** Handler state carried (sealed) to the retry; read it back with `ctx.mrtr.state`. */
  state?: unknown;
};

/**
 * Returns "input required" from a tool, prompt or resource handler in explicit MRTR style; the retry
 * runs the handler again with `ctx.mrtr.inputResponses` and `ctx.mrtr.state`. On a stateful session
 * the server fulfils the requests itself with real server-to-client requests and re-runs the handler.
 *
 * @example
 * if (!ctx.mrtr.inputResponses.confirm) {
 *   return inputRequired({ confirm: { method: 'elicitation/create', params: { message: 'Sure?', requestedSchema } } });
 * }
 */
export function inputRequired(
  inputRequests: Record<string, InputRequest>,
  state?: unknown,
): InputRequiredReturn {
  const out: InputRequiredReturn = { [INPUT_REQUIRED]: true, inputRequests };
  if (state !== undefined) out.state = state;
  return out;
}

/** True for a value made by {@link inputRequired}. */
export function isInputRequired(value: unknown): value is InputRequiredReturn {
  return typeof value === 'object' && value !== null && INPUT_REQUIRED in value;
}

/**
 * Thrown inside a handler by `ctx.elicit()`, `ctx.sample()` or `ctx.listRoots()` on a stateless
 * request whose answer has not arrived yet; the server turns it into an `input_required` result.
 * Handlers should let it propagate (a catch-all should rethrow it).
 */
export class InputRequiredSignal extends Error {
  constructor() {
    super('Input required from the client: the request will be answered with input_required');
    this.name = 'InputRequiredSignal';
  }
}

/** What a handler sees of the multi round-trip state of its request. */
export interface MrtrState {
  /** Responses to earlier input requests, by key (this round's and earlier rounds'). */
  readonly inputResponses: Readonly<Record<string, unknown>>;
  /** The state the handler returned with `inputRequired(…, state)` last round. */
  readonly state: unknown;
}
