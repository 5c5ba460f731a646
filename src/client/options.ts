import { McpkitError } from '../jsonrpc/errors.js';
import type { JsonRpcNotification, RequestId } from '../jsonrpc/types.js';
import type { RequestOptions } from '../protocol/outgoing.js';
import { isModernRevision, LATEST_MODERN_REVISION } from '../spec/modern.js';
import type {
  CallToolResult,
  ClientCapabilities,
  LoggingMessageParams,
  Prompt,
  Resource,
  Root,
  Tool,
} from '../spec/types.js';
import { isStatefulRevision, STATEFUL_REVISIONS } from '../spec/versions.js';
import type { ClientHandlers } from './handlers.js';
import type { EraChoice } from './negotiate.js';
import type { DetailedTask, Task, WaitForTaskOptions } from './tasks.js';

/** Notification callbacks of a client. */
export interface ClientEvents {
  /**
   * A `notifications/message` log entry from the server. With this handler a client receives entries at `info` and
   * above in both eras without another call (2026-07-28 requests then carry `logLevel: 'info'`; a stateful server
   * applies its own default); `setLoggingLevel()` changes the threshold. `related`: the id of the request of
   * this client the server related the entry to, where the transport tells (a Streamable HTTP response stream, in
   * memory) and that request had no `onlog` of its own (see `RequestOptions.onlog`), e.g. because it has ended.
   */
  onlog?: (params: LoggingMessageParams, related?: RequestId) => void;
  /** The tool list changed; with `autoRefresh` the fresh list is passed. */
  onToolsChanged?: (tools: Tool[] | undefined) => void;
  /** The prompt list changed; with `autoRefresh` the fresh list is passed. */
  onPromptsChanged?: (prompts: Prompt[] | undefined) => void;
  /** The resource list changed; with `autoRefresh` the fresh list is passed. */
  onResourcesChanged?: (resources: Resource[] | undefined) => void;
  /** A subscribed resource changed. */
  onResourceUpdated?: (uri: string) => void;
  /** Any other notification. */
  onnotification?: (notification: JsonRpcNotification) => void;
  /** A problem that did not close the connection. */
  onerror?: (error: Error) => void;
  /** The connection closed (`error` when it ended unexpectedly). */
  onclose?: (error: Error | undefined) => void;
}

/** Options of a client. */
export interface ClientOptions extends ClientEvents, ClientHandlers {
  /** Capabilities to declare; when omitted they follow the handlers given. */
  capabilities?: ClientCapabilities;
  /**
   * Pins a protocol revision: a stateful one (sent in `initialize`) or `2026-07-28` (stateless).
   * Default: negotiate, preferring the stateless revision and falling back to the latest stateful one.
   */
  protocolVersion?: string;
  /** Which era to use: probe and fall back ('auto', the default), or only one of them. */
  era?: EraChoice;
  /** How long the `server/discover` probe may take before a server counts as stateful (ms). Default 3000. */
  probeTimeoutMs?: number;
  /** Most pages a list call walks before failing with PAGE_LIMIT. Default 100. */
  pageLimit?: number;
  /** Re-list tools, prompts or resources when the server says they changed. Default true. */
  autoRefresh?: boolean;
  /** Fill elicitation schema defaults into accepted answers. Default true. */
  applyElicitationDefaults?: boolean;
  /** Roots to offer (answered to `roots/list` when no roots handler is given). */
  roots?: Root[];
  /** Most `input_required` rounds per stateless call. Default 10. */
  maxInputRounds?: number;
  /** Cache stateless results by their hints. Default true. */
  cache?: boolean;
  /** Identifies the credentials in use, so `private` cache entries are never shared across them. */
  cachePartition?: () => string;
}

/** Options of `callTool`: a request's options, plus how to follow the call if the server makes it a task. */
export interface CallToolOptions
  extends RequestOptions,
    Pick<WaitForTaskOptions, 'onInputRequired' | 'defaultPollIntervalMs'> {
  /** Sees the task (when the server answers with one) and each state polled, e.g. to store its id. */
  onTaskUpdate?: (task: DetailedTask) => void;
}

/** How a tool call started: finished at once (`result`), or running as a task (`task`). */
export type ToolCallStart = { result: CallToolResult; task?: undefined } | { task: Task; result?: undefined };

/**
 * The capabilities a client declares: the ones given, or those its handlers imply. Refuses a pinned revision this
 * client cannot speak, and a handler whose capability the given capabilities leave out.
 */
export function checkedCapabilities(options: ClientOptions): ClientCapabilities {
  const pinned = options.protocolVersion;
  if (pinned !== undefined && !isStatefulRevision(pinned) && !isModernRevision(pinned)) {
    throw new McpkitError(
      'UNSUPPORTED_PROTOCOL_VERSION',
      `Cannot ask for protocol revision ${JSON.stringify(pinned)}: this client speaks ${[LATEST_MODERN_REVISION, ...STATEFUL_REVISIONS].join(', ')}`,
    );
  }
  const caps = options.capabilities ?? derivedCapabilities(options);
  const check = (given: unknown, cap: keyof ClientCapabilities, what: string) => {
    if (given !== undefined && caps[cap] === undefined) {
      throw new McpkitError(
        'CAPABILITY_MISSING',
        `A ${what} handler was given but the declared capabilities lack "${cap}"`,
      );
    }
  };
  check(options.sampling, 'sampling', 'sampling');
  check(options.elicitation, 'elicitation', 'elicitation');
  check(options.roots ?? options.rootsHandler, 'roots', 'roots');
  return caps;
}

function derivedCapabilities(options: ClientOptions): ClientCapabilities {
  const caps: ClientCapabilities = {};
  if (options.sampling) caps.sampling = {};
  // URL mode opens browsers: a client opts into it by declaring capabilities explicitly.
  if (options.elicitation) caps.elicitation = { form: {} };
  if (options.roots || options.rootsHandler) caps.roots = { listChanged: true };
  return caps;
}
