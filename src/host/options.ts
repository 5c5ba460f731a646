import type { Transport } from '../protocol/transport.js';
import type { Implementation, Root } from '../spec/types.js';
import type { HttpAuthorizer } from '../transport/http-client/auth-hook.js';
import type { ActivityEntry, ActivityLog, ActivityLogOptions } from './activity-log.js';
import type { ApprovalCallback } from './approval.js';
import type { ApprovalMode, ServerConfig } from './config/types.js';
import type { ListKind, RestartOptions, ServerStatus } from './connection.js';
import type { HostInstrumentation } from './instrument.js';
import type { ModelAdapter } from './model/types.js';
import type { HostOAuthOptions } from './oauth.js';
import type { ToolPinStore } from './pin-store.js';
import type { SandboxGrants, SandboxSetting } from './sandbox/policy.js';
import type { ToolRanker } from './search/ranker.js';
import type { HostElicitation, HostSampling, SamplingReview } from './server-requests.js';
import type { SkillApprovalCallback } from './skills.js';
import type { ToolListCache } from './tool-list-cache.js';

/** Options of a {@link Host}. */
export interface HostOptions {
  /** How the host's clients introduce themselves. */
  clientInfo?: Implementation;
  /** Between server and tool in qualified names (overrides the config's). Default `__`. */
  separator?: string;
  /** The approval mode of tools no policy names (overrides the config's). Default `ask`. */
  defaultApproval?: ApprovalMode;
  /** Asks the person about a tool call whose mode is `ask`; without it such calls are denied. */
  approve?: ApprovalCallback;
  /**
   * Asks the person before a server's skill is first loaded into the model's context (`load_skill`), and again once
   * its manifest changed; the approval is kept with the tool pins (in memory when `toolPins` is false). Without it no
   * skill is loaded.
   */
  approveSkill?: SkillApprovalCallback;
  /**
   * Where the pins of the servers' tool definitions are kept (a tool changed since it was pinned is asked about
   * again, showing the change): a {@link FilePinStore} keeps them across runs. Default: in memory, for as long as the
   * host runs. `false` turns pinning off: no change is found or shown, and an `allow` tool runs whatever its
   * definition (an approval for the session still holds only for the definition approved).
   */
  toolPins?: ToolPinStore | false;
  /** The activity log, or its options. */
  log?: ActivityLog | ActivityLogOptions;
  /** How long each server may take to become ready, in ms (a server's config may say otherwise). Default 30 000. */
  connectTimeoutMs?: number;
  /** Default timeout of each request, in ms (a server's config may say otherwise). Default 60 000. */
  requestTimeoutMs?: number;
  /** Restarts of crashed stdio servers. */
  restart?: RestartOptions;
  /** How long list changes are gathered before one refresh, in ms. Default 100. */
  refreshDebounceMs?: number;
  /** Host variables spawned servers also get (loader variables such as LD_PRELOAD only when a config names them). */
  inheritEnv?: string[];
  /**
   * The sandbox of every stdio server that sets none (overrides the config's `host.sandbox`): `true` for the safe
   * preset (no network, the system read-only, the home folder hidden), or grants (see {@link SandboxGrants}).
   * Linux only (bubblewrap); elsewhere such servers do not start.
   */
  sandbox?: SandboxSetting;
  /** OAuth for HTTP servers: an `OAuthClient` per server, tokens in one file (see {@link HostOAuthOptions}). */
  oauth?: HostOAuthOptions;
  /**
   * A transport of the app's own for a server, called for each (re)connection: an in-process server over
   * `createLinkedTransports()`, a custom channel. Undefined: the transport its config describes.
   */
  transportFor?: (server: ServerConfig) => Transport | undefined;
  /** The authorizer of an HTTP server, for any other scheme (wins over `oauth`; undefined: none). */
  authFor?: (server: ServerConfig) => HttpAuthorizer | undefined;
  /**
   * The host's model (an adapter or a `provider:name` spec, see {@link createModel}): the default model of
   * {@link Host.chat}, and what answers servers' sampling requests unless `sampling` is given.
   */
  model?: ModelAdapter | string;
  /**
   * Answers servers' sampling requests instead of `model` (none and no model: servers are told sampling is
   * unsupported).
   */
  sampling?: HostSampling;
  /** The person sees each sampling request and answer and may edit or decline them. */
  reviewSampling?: SamplingReview;
  /** The app's form (and URL) prompts for servers' elicitations. */
  elicitation?: HostElicitation;
  /** The workspace folders offered to servers as roots. */
  roots?: Root[];
  /** Random numbers in [0, 1) for restart jitter. */
  random?: () => number;
  /** Hooks around connections, routed calls, approval waits and the model loop (`mcpkit/otel` fills them). */
  instrument?: HostInstrumentation;
  /**
   * Every server lazy (as if each config said `lazy: true`): started only when a tool search or a call needs it, so the
   * host is ready at once. Default false.
   */
  lazy?: boolean;
  /**
   * Where each server's last known tool list is kept (a {@link FileToolListCache} across runs, keyed by the server's
   * config): searches and the registry use it for servers not started yet or still starting. Default: none.
   */
  toolListCache?: ToolListCache;
  /** The tool search ({@link Host.searchTools}, {@link Host.toolSearch}). */
  toolSearch?: {
    /** Ranks the tools for a query; default {@link LexicalRanker}. */
    ranker?: ToolRanker;
    /** How long a search waits for servers whose tools are not known yet (started by it, or starting), in ms. Default 10 000. */
    startWaitMs?: number;
  };
}

/** What a registry change was. */
export interface RegistryChange {
  server: string;
  /** The lists that changed; `all` when the server came or went. */
  kinds: ListKind[] | 'all';
}

/** The events of a host. */
export interface HostEvents {
  state: (status: ServerStatus) => void;
  registry: (change: RegistryChange) => void;
  activity: (entry: ActivityEntry) => void;
}
