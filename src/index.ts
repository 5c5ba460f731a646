// The root entry: runtime-neutral (no `node:` imports), so servers and clients run on Node, Bun, Deno
// and Workers. Node-only pieces live behind their own subpaths (`mcpkit/stdio`).

export {
  AppFrame,
  type AppFrameHandlers,
  type AppFrameOptions,
  type AppMessageEvent,
  type AppMessageTarget,
  type AppWindow,
} from './client/apps/bridge.js';
export {
  type AppCspDecision,
  type AppCspOptions,
  appContentSecurityPolicy,
  appFrameAllow,
  type RefusedSource,
} from './client/apps/csp.js';
export { AppPolicy, type AppPolicyOptions, type AppToolCall } from './client/apps/policy.js';
export {
  type AppDocument,
  appDocumentOf,
  isAppMimeType,
  MAX_APP_HTML_BYTES,
} from './client/apps/resource.js';
export { Client } from './client/client.js';
export type {
  ClientHandlers,
  ClientRequestContext,
  ElicitationHandler,
  RootsHandler,
  SamplingHandler,
} from './client/handlers.js';
export type { EraChoice } from './client/negotiate.js';
export type { CallToolOptions, ClientEvents, ClientOptions, ToolCallStart } from './client/options.js';
export { type ResultPlumbing, resultPlumbing } from './client/plumbing.js';
export { compareServerCard, fetchServerCard, type LiveServer } from './client/server-card.js';
export type { SkillFile } from './client/skills.js';
export type { ListenOptions, Subscription, SubscriptionEnd } from './client/subscriptions.js';
export type { DetailedTask, InputResponses, Task, TaskStatus, WaitForTaskOptions } from './client/tasks.js';
export { createProxy, type ProxyOptions, ProxyServer } from './compose/proxy.js';
export {
  ErrorCode,
  JsonRpcError,
  McpkitError,
  type McpkitErrorCode,
  urlElicitationRequired,
} from './jsonrpc/errors.js';
export type {
  JsonObject,
  JsonRpcErrorResponse,
  JsonRpcMessage,
  JsonRpcNotification,
  JsonRpcRequest,
  JsonRpcResponse,
  JsonRpcResultResponse,
  RequestId,
} from './jsonrpc/types.js';
export { DEFAULT_REQUEST_TIMEOUT_MS, type RequestOptions } from './protocol/outgoing.js';
export type { MessageContext, SendOptions, Transport, TransportReceiver } from './protocol/transport.js';
export type { InferArgs, SchemaArg } from './schema/index.js';
export { preloadJsonSchema } from './schema/index.js';
export { type AppResourceConfig, appToolMeta, registerAppResource } from './server/apps.js';
export type { ServerCardOptions } from './server/card.js';
export {
  type Completer,
  type CompletionContext,
  MAX_COMPLETION_VALUES,
} from './server/definitions/completion.js';
export type {
  PromptArgumentConfig,
  PromptConfig,
  PromptHandler,
  PromptReturn,
} from './server/definitions/prompts.js';
export type { RegisteredHandle } from './server/definitions/registry.js';
export type {
  ResourceConfig,
  ResourceHandler,
  ResourceTemplateConfig,
  ResourceTemplateHandler,
} from './server/definitions/resources.js';
export type { ToolTransform, ToolTransforms } from './server/definitions/tool-transforms.js';
export type { ToolConfig, ToolHandler, ToolReturn } from './server/definitions/tools.js';
export type { ServerSession } from './server/dispatch/session.js';
export type { AccessOptions, AccessRule } from './server/guard/access.js';
export type {
  AuditError,
  AuditOptions,
  AuditOutcome,
  AuditRecord,
  AuditSink,
} from './server/guard/audit.js';
export type { ConcurrencyOptions, TimeoutOptions } from './server/guard/deadline.js';
export type { GuardOptions } from './server/guard/guards.js';
export type { SizeLimits } from './server/guard/limits.js';
export { parseRate, type Rate } from './server/guard/rate.js';
export type { RateLimitOptions, RateRule } from './server/guard/rate-limit.js';
export type { ResultCacheOptions } from './server/guard/result-cache.js';
export type { RequestKey } from './server/guard/subject.js';
export {
  type Span,
  type SpanAttributes,
  type SpanEnd,
  type SpanStart,
  type TraceContext,
  type Tracer,
  traceContextOf,
} from './server/guard/trace-context.js';
export type { AuthFailure, AuthInfo, TokenVerifier } from './server/handler/auth.js';
export type { ReadReturn } from './server/handler/content.js';
export type {
  ElicitFormRequest,
  ElicitUrlRequest,
  RequestContext,
  SessionInfo,
} from './server/handler/context.js';
export type {
  HttpRefusal,
  Middleware,
  MiddlewareRequest,
  NotificationHook,
  RefusalHook,
  RequestHook,
  SentNotificationHook,
} from './server/handler/middleware.js';
export type { ToolCacheConfig } from './server/handler/tool-options.js';
export {
  MAX_TASK_RERUNS,
  type ToolTaskConfig,
  type ToolTaskMode,
  type ToolTaskOptions,
} from './server/handler/tool-options.js';
export type { FetchCardOptions } from './server/http/adapters/server-card.js';
export {
  type ExchangeHandler,
  type FetchHandlerOptions,
  fromRequest,
  toFetchHandler,
  toResponse,
} from './server/http/adapters/web.js';
export { PRM_PREFIX, type ResourceAuthOptions } from './server/http/core/auth-gate.js';
export type { ClientAddressOptions } from './server/http/core/client-address.js';
export type { BodyReading, HttpReply, HttpRequestLike, SseSink } from './server/http/core/http.js';
export type { OverloadOptions } from './server/http/core/overload.js';
export type { SecurityOptions } from './server/http/core/security.js';
export {
  createSseLegacyHandler,
  type SseLegacyHandler,
  type SseLegacyOptions,
} from './server/http/legacy-sse/handler.js';
export {
  createStreamableHttpHandler,
  type StreamableHttpHandler,
  type StreamableHttpOptions,
} from './server/http/streamable/handler.js';
export {
  createStreamableHttpRelay,
  type StreamableHttpRelayOptions,
} from './server/http/streamable/relay.js';
export type { ResponseMode } from './server/http/streamable/stream-settings.js';
export type { Mounted, MountOptions } from './server/mount/mount.js';
export type { CacheableMethod } from './server/server.js';
export { McpServer, type ServerOptions } from './server/server.js';
export type { SkillHandle } from './server/skills/catalog.js';
export type { SkillDefinition } from './server/skills/define.js';
export { currentTask, type TaskControl } from './server/tasks/current.js';
export type { TasksOptions } from './server/tasks/manager.js';
export {
  APP_MIME_TYPE,
  APP_RESOURCE_URI_KEY,
  APPS_EXTENSION,
  APPS_PROTOCOL_VERSION,
  type AppCsp,
  type AppPermissions,
  type AppResourceMeta,
  type AppToolMeta,
  type AppToolVisibility,
  appResourceUriOf,
  appsClientCapability,
  appVisibilityOf,
  mapAppResourceUri,
  rendersApps,
} from './spec/apps.js';
export type { Fitting } from './spec/fit.js';
export type { FrontmatterValue } from './spec/frontmatter.js';
export { type InputRequiredReturn, inputRequired, type MrtrState } from './spec/input-required.js';
export {
  type CacheHint,
  type InputRequest,
  isModernRevision,
  LATEST_MODERN_REVISION,
  MODERN_REVISIONS,
  type ModernRevision,
  type SubscriptionFilter,
} from './spec/modern.js';
export {
  type ElicitationModes,
  POLICIES,
  policyFor,
  REVISIONS,
  type Revision,
  RevisionPolicy,
} from './spec/revision.js';
export {
  AI_CATALOG_PATH,
  type CardDefinition,
  MCP_CATALOG_PATH,
  SERVER_CARD_MEDIA_TYPE,
  type ServerCard,
  type ServerCardRemote,
} from './spec/server-card.js';
export {
  type ListSkillsResult,
  SKILLS_EXTENSION,
  type SkillEntry,
  type SkillResource,
  type SkillsCapability,
  skillDigest,
} from './spec/skills.js';
export type * from './spec/types.js';
export { UriTemplate } from './spec/uri-template.js';
export {
  isStatefulRevision,
  LATEST_STATEFUL_REVISION,
  STATEFUL_REVISIONS,
  type StatefulRevision,
} from './spec/versions.js';
export { MemoryBus, type MessageBus } from './store/bus.js';
export type { ClusterOptions } from './store/cluster.js';
export {
  type EventStore,
  MemoryEventStore,
  type MemoryEventStoreOptions,
  type StoredEvent,
} from './store/event-store.js';
export {
  type BucketShape,
  MemoryRateLimitStore,
  type MemoryRateLimitStoreOptions,
  type RateLimitStore,
} from './store/rate-limit-store.js';
export {
  MemorySessionStore,
  type SessionRecord,
  type SessionStore,
} from './store/session-store.js';
export {
  MemorySharedEventStore,
  type SharedEventStore,
  type StreamInfo,
} from './store/shared-event-store.js';
export {
  canTransition,
  isTerminal,
  rerunChanges,
  type TaskRecord,
  type TaskRequest,
} from './store/task-record.js';
export {
  MemoryTaskStore,
  type MemoryTaskStoreOptions,
  type TaskAdopter,
  type TaskStore,
} from './store/task-store.js';
export type { FetchLike } from './transport/fetch.js';
export type { AuthChallenge, HttpAuthorizer } from './transport/http-client/auth-hook.js';
export {
  HttpClientTransport,
  type HttpClientTransportKind,
  type HttpClientTransportOptions,
} from './transport/http-client/fallback.js';
export {
  SseLegacyClientTransport,
  type SseLegacyClientTransportOptions,
} from './transport/http-client/legacy-sse.js';
export type { HeadersOption, ReconnectOptions } from './transport/http-client/shared.js';
export { HttpStatusError } from './transport/http-client/shared.js';
export {
  StreamableHttpClientTransport,
  type StreamableHttpClientTransportOptions,
} from './transport/http-client/streamable.js';
export {
  createLinkedTransports,
  type LinkedTransportOptions,
  type MemoryTransport,
} from './transport/memory.js';
export { type Pipe, type PipeOptions, pipeTransports } from './transport/pipe.js';
export { type SharedTransport, type ShareOptions, shareTransport } from './transport/share.js';
