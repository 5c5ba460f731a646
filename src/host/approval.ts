import { InputRequiredSignal } from '../server/modern/mrtr.js';
import type { CallToolResult, ToolAnnotations } from '../spec/types.js';
import type { ApprovalMode, ServerConfig } from './config/types.js';

/** What the person decided about one tool call. */
export type ApprovalDecision = 'allow-once' | 'allow-session' | 'deny';

/** What the approval callback is shown. */
export interface ApprovalRequest {
  server: string;
  /** The server's own name of the tool. */
  tool: string;
  /** The name the model used. */
  qualifiedName: string;
  /** The tool's annotations as the server gave them (hints, not guarantees, unless the server is trusted). */
  annotations: ToolAnnotations | undefined;
  arguments: Record<string, unknown> | undefined;
  /** Whether the config marks the server trusted. */
  trusted: boolean;
}

/** Asks the person; may answer with a reason for a denial. */
export type ApprovalCallback = (
  request: ApprovalRequest,
) =>
  | ApprovalDecision
  | { decision: ApprovalDecision; reason?: string }
  | Promise<ApprovalDecision | { decision: ApprovalDecision; reason?: string }>;

/** How a call was let through or stopped, for the activity log. */
export type ApprovalOutcome =
  | { allowed: true; by: 'policy' | 'session' | 'once' | 'for-session' }
  | { allowed: false; by: 'policy' | 'person' | 'no-callback' | 'callback-failed'; reason?: string };

/**
 * The static mode of a tool: its override in the server's policy, then the server's default, then (only for a
 * trusted server) its annotations (`readOnlyHint` without `destructiveHint` allows, `destructiveHint` asks),
 * then the host's default.
 */
export function approvalMode(
  server: ServerConfig,
  tool: string,
  annotations: ToolAnnotations | undefined,
  hostDefault: ApprovalMode,
): ApprovalMode {
  const explicit = server.approval?.tools?.[tool] ?? server.approval?.default;
  if (explicit) return explicit;
  if (server.trusted && annotations) {
    if (annotations.destructiveHint === true) return 'ask';
    if (annotations.readOnlyHint === true) return 'allow';
  }
  return hostDefault;
}

/** Remembers what was allowed for the session and asks the callback for the rest. */
export class ApprovalGate {
  readonly #callback: ApprovalCallback | undefined;
  readonly #session = new Set<string>();

  constructor(callback: ApprovalCallback | undefined) {
    this.#callback = callback;
  }

  /** Decides a call whose mode is not `allow` (that one needs no gate). */
  async decide(
    mode: ApprovalMode,
    override: ApprovalCallback | undefined,
    request: ApprovalRequest,
  ): Promise<ApprovalOutcome> {
    if (mode === 'allow') return { allowed: true, by: 'policy' };
    if (mode === 'deny') return { allowed: false, by: 'policy' };
    const key = `${request.server}\u0000${request.tool}`;
    if (this.#session.has(key)) return { allowed: true, by: 'session' };
    const callback = override ?? this.#callback;
    if (!callback) return { allowed: false, by: 'no-callback' };
    let answer: Awaited<ReturnType<ApprovalCallback>>;
    try {
      answer = await callback(request);
    } catch (e) {
      // A gateway asking its stateless client: the round ends with input_required and the call is asked again.
      if (e instanceof InputRequiredSignal) throw e;
      return { allowed: false, by: 'callback-failed', reason: e instanceof Error ? e.message : String(e) };
    }
    const decision = typeof answer === 'string' ? answer : answer.decision;
    if (decision === 'allow-session') {
      this.#session.add(key);
      return { allowed: true, by: 'for-session' };
    }
    if (decision === 'allow-once') return { allowed: true, by: 'once' };
    const reason = typeof answer === 'object' ? answer.reason : undefined;
    return reason === undefined ? { allowed: false, by: 'person' } : { allowed: false, by: 'person', reason };
  }

  /** Forgets the approvals given for the session. */
  reset(): void {
    this.#session.clear();
  }
}

/** The tool result the model gets for a refused call: it says so, and is not an exception. */
export function deniedResult(
  qualifiedName: string,
  outcome: ApprovalOutcome & { allowed: false },
): CallToolResult {
  const why =
    outcome.by === 'policy'
      ? 'the approval policy denies this tool'
      : outcome.by === 'no-callback'
        ? 'it needs approval and no one is there to approve it'
        : outcome.by === 'callback-failed'
          ? 'asking for approval failed'
          : 'the user denied it';
  const reason = outcome.reason === undefined ? '' : ` (${outcome.reason})`;
  return {
    content: [
      {
        type: 'text',
        text: `The call to ${qualifiedName} was not run: ${why}${reason}. Do not retry it unless the user asks.`,
      },
    ],
    isError: true,
  };
}
