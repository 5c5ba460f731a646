import type { CacheHint } from '../spec/modern.js';
import type { LoggingLevel, ServerCapabilities } from '../spec/types.js';
import type { GuardOptions } from './guard/guards.js';
import type { ServerSession } from './session.js';
import type { TasksOptions } from './tasks/manager.js';

/** Options of a server definition; the guards' options (`rateLimit`, `access`, `audit`, …) are in {@link GuardOptions}. */
export interface ServerOptions extends GuardOptions {
  /** Hint for the model, sent in the `initialize` result. */
  instructions?: string;
  /**
   * Capabilities to declare. When given, registering a feature it does not declare is an error;
   * when omitted, they follow what is registered (with `listChanged` and `subscribe` on).
   */
  capabilities?: ServerCapabilities;
  /** Entries per page of the list methods. Default 100. */
  pageSize?: number;
  /** Log threshold of a session before the client sets one. Default 'info'. */
  defaultLogLevel?: LoggingLevel;
  /** Receives problems that did not stop a session (bad input, handler failures). Default: stderr. */
  onerror?: (error: Error, session: ServerSession | undefined) => void;
  /**
   * Receives warnings about the definition, such as a kind of feature registered after sessions initialized (they
   * were not offered it and never will be), or an entry of a mounted server that the server cannot offer. Default:
   * `console.warn` (stderr).
   */
  onwarning?: (message: string) => void;
  /** Called when a client says its roots changed. */
  onRootsListChanged?: (session: ServerSession) => void;
  /**
   * Key (at least 32 bytes) that signs the `requestState` of stateless multi round-trip requests.
   * Give every instance behind a load balancer the same key. Default: random per process.
   */
  requestStateKey?: Uint8Array | string;
  /** How long a `requestState` stays valid, in ms. Default 10 minutes. */
  requestStateTtlMs?: number;
  /** Cache hints of stateless results, per method. Default `{ ttlMs: 0, cacheScope: 'private' }`. */
  cacheHints?: Partial<Record<CacheableMethod, CacheHint>>;
  /** Most concurrent `subscriptions/listen` streams. Default 1024. */
  maxSubscriptions?: number;
  /**
   * The tasks extension (`io.modelcontextprotocol/tasks`, stateless revision only): `true` or settings
   * (store, ttlMs, pollIntervalMs). Default: on once a tool with a `task` option is registered; `false`
   * turns it off (such tools then run as ordinary calls).
   */
  tasks?: boolean | TasksOptions;
}

/** Methods whose stateless results carry cache hints. */
export type CacheableMethod =
  | 'server/discover'
  | 'tools/list'
  | 'prompts/list'
  | 'resources/list'
  | 'resources/templates/list'
  | 'resources/read'
  | 'skills/list';
