import { ErrorCode, JsonRpcError } from '../jsonrpc/errors.js';
import { preEncode } from '../jsonrpc/parse.js';
import { type FitRules, type Fitting, RevisionFitting } from './fit.js';
import {
  type CapabilityShape,
  fitCapabilities,
  SERVER_CAPABILITIES_2024_11_05,
  SERVER_CAPABILITIES_2025_03_26,
  SERVER_CAPABILITIES_2025_11_25,
  SERVER_CAPABILITIES_2026_07_28,
} from './fit-capabilities.js';
import type { ClientCapabilities, ServerCapabilities } from './types.js';

/** Every protocol revision mcpkit speaks, oldest first; a revision's place in this list is its order. */
export const REVISIONS = ['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25', '2026-07-28'] as const;

/** A protocol revision mcpkit speaks. */
export type Revision = (typeof REVISIONS)[number];

/** The elicitation modes a client's capabilities allow under one revision. */
export interface ElicitationModes {
  readonly form: boolean;
  readonly url: boolean;
}

// Method names by the revision that brought them (taken from each revision's schema.json).
const BASE_METHODS = [
  'initialize',
  'ping',
  'resources/list',
  'resources/templates/list',
  'resources/read',
  'resources/subscribe',
  'resources/unsubscribe',
  'prompts/list',
  'prompts/get',
  'tools/list',
  'tools/call',
  'logging/setLevel',
  'completion/complete',
  'sampling/createMessage',
  'roots/list',
  'notifications/initialized',
  'notifications/cancelled',
  'notifications/progress',
  'notifications/message',
  'notifications/resources/updated',
  'notifications/resources/list_changed',
  'notifications/tools/list_changed',
  'notifications/prompts/list_changed',
  'notifications/roots/list_changed',
];
const ELICITATION = ['elicitation/create'];
const TASKS_2025_11_25 = [
  'tasks/get',
  'tasks/result',
  'tasks/list',
  'tasks/cancel',
  'notifications/tasks/status',
  'notifications/elicitation/complete',
];
/** What 2026-07-28 removed (the session and its lifecycle; tasks moved to an extension). */
const REMOVED_2026_07_28 = new Set([
  'initialize',
  'ping',
  'logging/setLevel',
  'resources/subscribe',
  'resources/unsubscribe',
  'notifications/initialized',
  'notifications/roots/list_changed',
  ...TASKS_2025_11_25,
]);
const ADDED_2026_07_28 = [
  'server/discover',
  'subscriptions/listen',
  'notifications/subscriptions/acknowledged',
];

/** The facts of one revision that differ between revisions. */
interface Facts {
  era: 'stateful' | 'stateless';
  methods: readonly string[];
  batching: boolean;
  ssePriming: boolean;
  completionsCapability: boolean;
  elicitation: boolean;
  elicitationModes: boolean;
  resourceNotFoundCode: number;
  serverCapabilities: CapabilityShape;
  fitting?: Fitting | undefined;
}

/**
 * Everything that differs between protocol revisions, decided in one immutable object per revision: which methods
 * exist, error codes, batching, SSE priming, elicitation modes, capability rules, the `_meta` envelope, and how
 * results are fitted. Resolved once per session (stateful) or looked up per request (stateless, a constant);
 * revisions compare by `order`, never as strings.
 */
export class RevisionPolicy {
  /** The revision's date string, as sent on the wire. */
  readonly version: Revision;
  /** Its place among REVISIONS (0 is the oldest): revisions compare as numbers. */
  readonly order: number;
  /** 'stateful' (initialize and a session) or 'stateless' (2026-07-28: the per-request `_meta` envelope). */
  readonly era: 'stateful' | 'stateless';
  /** Whether requests carry the `_meta` envelope (protocol version, client info and capabilities) each time. */
  readonly metaEnvelope: boolean;
  /** Whether JSON-RPC batches are allowed (2025-03-26 only). */
  readonly batching: boolean;
  /** Whether resumable SSE streams start with a priming event (2025-11-25; 2026-07-28 streams cannot resume). */
  readonly ssePriming: boolean;
  /** Whether `completion/complete` is gated by a `completions` capability (not in 2024-11-05, which had none). */
  readonly completionsCapability: boolean;
  /** Whether the revision defines `elicitation/create` (2025-06-18 and later). */
  readonly elicitation: boolean;
  /** Whether elicitation has modes: `form`/`url` capabilities and a `mode` field in requests (2025-11-25 and later). */
  readonly elicitationModeField: boolean;
  /** The JSON-RPC error code of a resource that does not exist: -32002, or -32602 from 2026-07-28. */
  readonly resourceNotFoundCode: number;
  /** How what the server sends is fitted to this revision; undefined when it needs no fitting. */
  readonly fitting: Fitting | undefined;
  readonly #methods: ReadonlySet<string>;
  readonly #serverCapabilities: CapabilityShape;

  /** @internal Policies are made once, in this module. */
  constructor(version: Revision, facts: Facts) {
    this.version = version;
    this.order = REVISIONS.indexOf(version);
    this.era = facts.era;
    this.metaEnvelope = facts.era === 'stateless';
    this.batching = facts.batching;
    this.ssePriming = facts.ssePriming;
    this.completionsCapability = facts.completionsCapability;
    this.elicitation = facts.elicitation;
    this.elicitationModeField = facts.elicitationModes;
    this.resourceNotFoundCode = facts.resourceNotFoundCode;
    this.fitting = facts.fitting;
    this.#methods = new Set(facts.methods);
    this.#serverCapabilities = facts.serverCapabilities;
    Object.freeze(this);
  }

  /** True when this revision is `floor` or newer. */
  atLeast(floor: Revision): boolean {
    return this.order >= ORDER[floor];
  }

  /** True when `method` (a request or notification, either direction) exists in this revision. */
  hasMethod(method: string): boolean {
    return this.#methods.has(method);
  }

  /**
   * The server's capabilities as this revision defines them (once per session, at initialize or discovery): a
   * capability or field the revision lacks, user-declared ones included (`extensions` before 2026-07-28), is
   * dropped. The same object when nothing had to go.
   */
  serverCapabilities(capabilities: ServerCapabilities): ServerCapabilities {
    return fitCapabilities(capabilities, this.#serverCapabilities);
  }

  /** The error for a resource URI that does not exist, with the URI in `data`. */
  resourceNotFound(uri: string): JsonRpcError {
    return new JsonRpcError(this.resourceNotFoundCode, `Resource not found: ${uri}`, { uri });
  }

  /**
   * The elicitation modes a client's capabilities allow. Before 2025-11-25 a declared `elicitation` means form (a
   * client that declares it under an older revision, as the official SDK does, is taken at its word); from
   * 2025-11-25, `elicitation: {}` still means form only, and `url` must be declared.
   */
  elicitationModes(caps: ClientCapabilities): ElicitationModes {
    const declared = caps.elicitation;
    if (declared === undefined || declared === null) return NO_MODES;
    if (!this.elicitationModeField) return FORM_ONLY;
    const url = declared.url !== undefined;
    const form = declared.form !== undefined || !url;
    return form ? (url ? BOTH_MODES : FORM_ONLY) : URL_ONLY;
  }
}

const NO_MODES: ElicitationModes = Object.freeze({ form: false, url: false });
const FORM_ONLY: ElicitationModes = Object.freeze({ form: true, url: false });
const URL_ONLY: ElicitationModes = Object.freeze({ form: false, url: true });
const BOTH_MODES: ElicitationModes = Object.freeze({ form: true, url: true });

const ORDER = Object.freeze(Object.fromEntries(REVISIONS.map((r, i) => [r, i])) as Record<Revision, number>);

const stateful = (over: Partial<Facts>): Facts => ({
  era: 'stateful',
  methods: BASE_METHODS,
  batching: false,
  ssePriming: false,
  completionsCapability: true,
  elicitation: false,
  elicitationModes: false,
  resourceNotFoundCode: ErrorCode.ResourceNotFound,
  serverCapabilities: SERVER_CAPABILITIES_2025_03_26,
  ...over,
});
const METHODS_2025_11_25 = [...BASE_METHODS, ...ELICITATION, ...TASKS_2025_11_25];

/** The fitting of an older stateful revision (the newest one, and 2026-07-28, need none). */
const fitting = (revision: Revision, rules: FitRules) => new RevisionFitting(revision, rules, preEncode);

/** The policy of each revision. */
export const POLICIES: { readonly [R in Revision]: RevisionPolicy } = {
  '2024-11-05': new RevisionPolicy(
    '2024-11-05',
    stateful({
      completionsCapability: false,
      serverCapabilities: SERVER_CAPABILITIES_2024_11_05,
      fitting: fitting('2024-11-05', { v2025_03_26: false, v2025_06_18: false, v2025_11_25: false }),
    }),
  ),
  '2025-03-26': new RevisionPolicy(
    '2025-03-26',
    stateful({
      batching: true,
      fitting: fitting('2025-03-26', { v2025_03_26: true, v2025_06_18: false, v2025_11_25: false }),
    }),
  ),
  '2025-06-18': new RevisionPolicy(
    '2025-06-18',
    stateful({
      methods: [...BASE_METHODS, ...ELICITATION],
      elicitation: true,
      fitting: fitting('2025-06-18', { v2025_03_26: true, v2025_06_18: true, v2025_11_25: false }),
    }),
  ),
  '2025-11-25': new RevisionPolicy(
    '2025-11-25',
    stateful({
      methods: METHODS_2025_11_25,
      elicitation: true,
      elicitationModes: true,
      ssePriming: true,
      serverCapabilities: SERVER_CAPABILITIES_2025_11_25,
    }),
  ),
  '2026-07-28': new RevisionPolicy('2026-07-28', {
    era: 'stateless',
    methods: [...METHODS_2025_11_25.filter((m) => !REMOVED_2026_07_28.has(m)), ...ADDED_2026_07_28],
    batching: false,
    ssePriming: false,
    completionsCapability: true,
    elicitation: true,
    elicitationModes: true,
    resourceNotFoundCode: ErrorCode.InvalidParams,
    serverCapabilities: SERVER_CAPABILITIES_2026_07_28,
  }),
};

const byVersion: ReadonlyMap<string, RevisionPolicy> = new Map(Object.entries(POLICIES));

/** The policy of `version`, or undefined for a revision mcpkit does not speak. */
export function policyFor(version: unknown): RevisionPolicy | undefined {
  return typeof version === 'string' ? byVersion.get(version) : undefined;
}

/** The policy of `version` when it names a stateful revision. */
export function statefulPolicy(version: unknown): RevisionPolicy | undefined {
  const policy = policyFor(version);
  return policy?.era === 'stateful' ? policy : undefined;
}
