import { InputRequiredSignal } from '../spec/input-required.js';
import type { CallToolResult, ToolAnnotations } from '../spec/types.js';
import type { ApprovalMode, ServerConfig } from './config/types.js';
import type { ToolChange } from './definition-diff.js';

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
  /**
   * Set when the tool's definition changed since it was pinned (approved, or first listed with `allow`): what changed,
   * to be shown to the person. Approving the call approves the new definition (it is pinned).
   */
  change?: ToolChange;
}

/**
 * The answer of an {@link ApprovalCallback}: a decision, with a reason for a denial; `asked: false` when no one could
 * be asked (a gateway's client that cannot elicit): the denial is then not the person's, and says so.
 */
export type ApprovalAnswer =
  | ApprovalDecision
  | { decision: ApprovalDecision; reason?: string; asked?: boolean };

/** Asks the person; may answer with a reason for a denial. */
export type ApprovalCallback = (request: ApprovalRequest) => ApprovalAnswer | Promise<ApprovalAnswer>;

/** How a call was let through or stopped, for the activity log. */
export type ApprovalOutcome =
  | { allowed: true; by: 'policy' | 'session' | 'once' | 'for-session' }
  | {
      allowed: false;
      by: 'policy' | 'person' | 'no-callback' | 'cannot-ask' | 'callback-failed' | 'tool-changed';
      reason?: string;
    };

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

/**
 * The approvals given "for this session" in one scope: the host's own session (its app's person), or one connecting
 * client of its gateway. Each is bound to the definition approved (its digest): a tool that changes is not allowed by
 * it. A scope that expires forgets everything then; one that does not remember (a client the gateway cannot tell
 * apart from others) keeps nothing, so "for this session" counts as once there.
 */
export class SessionApprovals {
  readonly #allowed = new Map<string, string>();
  /** Whether it keeps what it is given. */
  readonly remembers: boolean;
  /** When it ends (ms since the epoch), if it does. */
  readonly expiresAt: number | undefined;

  constructor(options: { remembers?: boolean; expiresAt?: number } = {}) {
    this.remembers = options.remembers ?? true;
    this.expiresAt = options.expiresAt;
  }

  /** Whether `server`'s `tool`, with the definition of `digest`, was allowed in this scope. */
  allows(server: string, tool: string, digest: string): boolean {
    if (this.#allowed.size === 0) return false;
    if (this.expired()) {
      this.#allowed.clear();
      return false;
    }
    return this.#allowed.get(`${server}\u0000${tool}`) === digest;
  }

  /** Allows `server`'s `tool` with the definition of `digest` for the rest of the scope (when it remembers). */
  add(server: string, tool: string, digest: string): void {
    if (this.remembers) this.#allowed.set(`${server}\u0000${tool}`, digest);
  }

  /** Whether its time is over. */
  expired(now = Date.now()): boolean {
    return this.expiresAt !== undefined && now >= this.expiresAt;
  }

  /** How many tools it allows. */
  get size(): number {
    return this.#allowed.size;
  }

  /** Forgets everything it allows. */
  clear(): void {
    this.#allowed.clear();
  }
}

/** Asks the callback about the calls no session approval covers, and remembers "for this session" in its scope. */
export class ApprovalGate {
  readonly #callback: ApprovalCallback | undefined;
  /** The host's own session: the scope of calls that name none. */
  readonly own = new SessionApprovals();

  constructor(callback: ApprovalCallback | undefined) {
    this.#callback = callback;
  }

  /**
   * Decides a call whose mode is not `allow` (that one needs no gate), or whose tool changed. `digest` is the
   * definition the person is asked about; `approvals` the scope of "for this session" (default: the host's own).
   */
  async decide(
    mode: ApprovalMode,
    request: ApprovalRequest,
    digest: string,
    override: ApprovalCallback | undefined,
    approvals: SessionApprovals = this.own,
  ): Promise<ApprovalOutcome> {
    if (mode === 'allow') return { allowed: true, by: 'policy' };
    if (mode === 'deny') return { allowed: false, by: 'policy' };
    if (approvals.allows(request.server, request.tool, digest)) return { allowed: true, by: 'session' };
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
    if (decision === 'allow-session' && approvals.remembers) {
      approvals.add(request.server, request.tool, digest);
      return { allowed: true, by: 'for-session' };
    }
    if (decision === 'allow-once' || decision === 'allow-session') return { allowed: true, by: 'once' };
    const reason = typeof answer === 'object' ? answer.reason : undefined;
    const by = typeof answer === 'object' && answer.asked === false ? 'cannot-ask' : 'person';
    return reason === undefined ? { allowed: false, by } : { allowed: false, by, reason };
  }
}

/** The tool result the model gets for a refused call: it says so, and is not an exception. */
export function deniedResult(
  qualifiedName: string,
  outcome: ApprovalOutcome & { allowed: false },
  changed = false,
): CallToolResult {
  const why = changed ? changedWhy(outcome.by) : WHY[outcome.by];
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

const WHY: Record<(ApprovalOutcome & { allowed: false })['by'], string> = {
  policy: 'the approval policy denies this tool',
  'no-callback': 'it needs approval and no one is there to approve it',
  'cannot-ask':
    "it needs the user's approval, and no one could be asked: the connecting client cannot ask its user (it does not support elicitation) and no approval policy allows this tool",
  'callback-failed': 'asking for approval failed',
  person: 'the user denied it',
  'tool-changed': 'its definition changed since it was approved, and the config refuses changed tools',
};

function changedWhy(by: (ApprovalOutcome & { allowed: false })['by']): string {
  const changed = 'its definition changed since it was approved';
  if (by === 'no-callback') return `${changed}, and no one is there to approve the new one`;
  if (by === 'cannot-ask')
    return `${changed}, and the connecting client cannot ask its user to approve the new one (it does not support elicitation)`;
  if (by === 'person') return `${changed}, and the user did not approve the new one`;
  return by === 'callback-failed' ? `${changed}, and asking for approval failed` : WHY[by];
}
