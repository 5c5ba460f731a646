// The root entry: runtime-neutral (no `node:` imports), so servers and clients run on Node, Bun, Deno
// and Workers. Node-only pieces live behind their own subpaths (`mcpkit/stdio`).

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
export type { AuthFailure, AuthInfo, TokenVerifier } from './server/auth.js';
export type { ServerCardOptions } from './server/card.js';
export { type Completer, type CompletionContext, MAX_COMPLETION_VALUES } from './server/completion.js';
export type { ReadReturn } from './server/content.js';
export type { ElicitFormRequest, ElicitUrlRequest, RequestContext, SessionInfo } from './server/context.js';
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
export {
  type BucketShape,
  MemoryRateLimitStore,
  type MemoryRateLimitStoreOptions,
  type RateLimitStore,
} from './server/guard/rate-limit-store.js';
export type { ResultCacheOptions, ToolCacheConfig } from './server/guard/result-cache.js';
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
export type { Middleware, MiddlewareRequest } from './server/middleware.js';
export { type InputRequiredReturn, inputRequired, type MrtrState } from './server/modern/mrtr.js';
export type { Mounted, MountOptions } from './server/mount.js';
export type { PromptArgumentConfig, PromptConfig, PromptHandler, PromptReturn } from './server/prompts.js';
export type { RegisteredHandle } from './server/registry.js';
export type {
  ResourceConfig,
  ResourceHandler,
  ResourceTemplateConfig,
  ResourceTemplateHandler,
} from './server/resources.js';
export type { CacheableMethod } from './server/server.js';
export { McpServer, type ServerOptions } from './server/server.js';
export type { ServerSession } from './server/session.js';
export type { SkillHandle } from './server/skills/catalog.js';
export type { SkillDefinition } from './server/skills/define.js';
export { currentTask, type TaskControl } from './server/tasks/current.js';
export type { TasksOptions } from './server/tasks/manager.js';
export {
  MemoryTaskStore,
  type MemoryTaskStoreOptions,
  type TaskAdopter,
  type TaskStore,
} from './server/tasks/store.js';
export {
  canTransition,
  isTerminal,
  MAX_TASK_RERUNS,
  rerunChanges,
  type TaskRecord,
  type TaskRequest,
  type ToolTaskConfig,
  type ToolTaskMode,
  type ToolTaskOptions,
} from './server/tasks/types.js';
export type { ToolTransform, ToolTransforms } from './server/tool-transforms.js';
export type { ToolConfig, ToolHandler, ToolReturn } from './server/tools.js';
export { UriTemplate } from './server/uri-template.js';
export type { FrontmatterValue } from './spec/frontmatter.js';
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
  type Fitting,
  POLICIES,
  policyFor,
  REVISIONS,
  type Revision,
  RevisionPolicy,
} from './spec/revision.js';
export {
  AI_CATALOG_PATH,
  type CardDefinition,
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
export {
  isStatefulRevision,
  LATEST_STATEFUL_REVISION,
  STATEFUL_REVISIONS,
  type StatefulRevision,
} from './spec/versions.js';
export { PRM_PREFIX, type ResourceAuthOptions } from './transport/auth-gate.js';
export { MemoryBus, type MessageBus } from './transport/cluster/bus.js';
export type { ClusterOptions } from './transport/cluster/node.js';
export {
  MemorySessionStore,
  type SessionRecord,
  type SessionStore,
} from './transport/cluster/session-store.js';
export {
  MemorySharedEventStore,
  type SharedEventStore,
  type StreamInfo,
} from './transport/cluster/shared-event-store.js';
export type { AuthChallenge, HttpAuthorizer } from './transport/http-client/auth-hook.js';
export type { FetchLike, HeadersOption, ReconnectOptions } from './transport/http-client/shared.js';
export { HttpStatusError } from './transport/http-client/shared.js';
export {
  HttpClientTransport,
  type HttpClientTransportKind,
  type HttpClientTransportOptions,
} from './transport/http-client.js';
export {
  createLinkedTransports,
  type LinkedTransportOptions,
  type MemoryTransport,
} from './transport/memory.js';
export { type Pipe, type PipeOptions, pipeTransports } from './transport/pipe.js';
export { type SharedTransport, type ShareOptions, shareTransport } from './transport/share.js';
export {
  SseLegacyClientTransport,
  type SseLegacyClientTransportOptions,
} from './transport/sse-legacy-client.js';
export {
  createSseLegacyHandler,
  type SseLegacyHandler,
  type SseLegacyOptions,
} from './transport/sse-legacy-server.js';
export type { ClientAddressOptions } from './transport/streamable-http/client-address.js';
export {
  type EventStore,
  MemoryEventStore,
  type MemoryEventStoreOptions,
  type StoredEvent,
} from './transport/streamable-http/event-store.js';
export type { HttpReply, HttpRequestLike, SseSink } from './transport/streamable-http/exchange.js';
export {
  createStreamableHttpHandler,
  type StreamableHttpHandler,
  type StreamableHttpOptions,
} from './transport/streamable-http/handler.js';
export type { OverloadOptions } from './transport/streamable-http/overload.js';
export {
  createStreamableHttpRelay,
  type StreamableHttpRelayOptions,
} from './transport/streamable-http/relay.js';
export type { SecurityOptions } from './transport/streamable-http/security.js';
export type { ResponseMode } from './transport/streamable-http/stream-settings.js';
export {
  type ExchangeHandler,
  fromRequest,
  toFetchHandler,
  toResponse,
} from './transport/streamable-http/web.js';
export {
  StreamableHttpClientTransport,
  type StreamableHttpClientTransportOptions,
} from './transport/streamable-http-client.js';
