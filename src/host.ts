// `mcpkit/host`: one application driving many MCP servers (Node only): config files of the hosts people use,
// connections with state and restarts, one registry of qualified names, approvals, an activity log, and the model
// loop (`host.chat`) over the OpenAI Chat Completions and Anthropic Messages APIs, and the sandbox of the stdio
// servers it starts (bubblewrap on Linux).

export {
  type ActivityEntry,
  type ActivityKind,
  ActivityLog,
  type ActivityLogOptions,
  type ActivityRecord,
} from './host/activity-log.js';
export {
  type ApprovalAnswer,
  type ApprovalCallback,
  type ApprovalDecision,
  type ApprovalOutcome,
  type ApprovalRequest,
  approvalMode,
  SessionApprovals,
} from './host/approval.js';
export {
  Chat,
  type ChatEvent,
  type ChatHost,
  type ChatOptions,
  type ChatTurn,
  messageText,
  type ToolExposure,
} from './host/chat/chat.js';
export { parseSlashCommand, promptArguments, type SlashCommand } from './host/chat/slash.js';
export { cacheDir, configDir } from './host/config/config-dir.js';
export { ConfigError, type ConfigPlace } from './host/config/config-error.js';
export {
  type ConfiguredServer,
  readConfiguredServers,
  redactServerEntry,
  redactUrl,
} from './host/config/entries.js';
export type { ConfigInput, ParseOptions } from './host/config/formats.js';
export {
  hostEntry,
  type InstallApp,
  type InstallEntry,
  type InstallOptions,
  type InstallResult,
  installLocation,
  installServer,
} from './host/config/install.js';
export {
  type ConfigSource,
  detectFormat,
  type LoadConfigOptions,
  loadConfig,
} from './host/config/load.js';
export { type ConfigLocation, knownConfigLocations, type LocationOptions } from './host/config/locations.js';
export {
  fileDigest,
  type ProjectFile,
  type ProjectServer,
  type TrustProjectCallback,
} from './host/config/project.js';
export {
  type AskProjectTrust,
  ProjectTrust,
  type ProjectTrustState,
  trustedProjectsFile,
} from './host/config/project-trust.js';
export type {
  ApprovalMode,
  ApprovalPolicy,
  ConfigFormat,
  ConfigNotice,
  HostSettings,
  LoadedConfig,
  ServerConfig,
  ServerTransportConfig,
  ToolChangePolicy,
} from './host/config/types.js';
export { type AtomicWriteOptions, writeFileAtomic } from './host/config/write.js';
export type { ListKind, RestartOptions, ServerState, ServerStatus } from './host/connection.js';
export { type ToolChange, toolChange } from './host/definition-diff.js';
export { DENIED_ENV_VARS, serverEnvironment } from './host/environment.js';
export type { GatewayOptions } from './host/gateway.js';
export {
  Host,
  type HostCallOptions,
  type HostEvents,
  type HostOptions,
  type RegistryChange,
} from './host/host.js';
export { hostGateway } from './host/host-gateway.js';
export type {
  HostInstrumentation,
  InstrumentedCall,
  InstrumentedModelRequest,
  InstrumentedToolUse,
} from './host/instrument.js';
export { AnthropicModel, type AnthropicOptions, anthropicMessages } from './host/model/anthropic.js';
export { checkModelServer, ModelError, type ModelHttpOptions } from './host/model/http.js';
export { OpenAIChatModel, type OpenAIChatOptions, openAIMessages } from './host/model/openai.js';
export {
  OpenAIResponsesModel,
  type OpenAIResponsesOptions,
  responsesInput,
} from './host/model/openai-responses.js';
export { type ModelSamplingOptions, modelSampling } from './host/model/sampling.js';
export {
  type CreateModelOptions,
  createModel,
  type ModelProvider,
  type ModelSpec,
  parseModelSpec,
} from './host/model/spec.js';
export type {
  ModelAdapter,
  ModelRequest,
  ModelResponse,
  ModelStreamEvent,
  ModelTool,
  ModelUsage,
} from './host/model/types.js';
export { MODEL_NAME_PATTERN, qualifyNames } from './host/names.js';
export { type HostOAuthOptions, oauthAuthorizers } from './host/oauth.js';
export { FilePinStore, MemoryPinStore, type PinnedTool, type ToolPinStore } from './host/pin-store.js';
export { redact } from './host/redact.js';
export type {
  HostPrompt,
  HostResource,
  HostTemplate,
  HostTool,
  Registry,
  ServerLists,
} from './host/registry.js';
export type { AllowedHost } from './host/sandbox/allowed-hosts.js';
export type { SandboxHit, SandboxHitKind } from './host/sandbox/hits.js';
export {
  type SandboxEvent,
  type SandboxedCommand,
  type SandboxStart,
  ServerSandbox,
} from './host/sandbox/launch.js';
export {
  checkSandboxSetting,
  resolveSandbox,
  SANDBOX_DEFAULTS,
  type SandboxCheckOptions,
  type SandboxGrants,
  type SandboxPolicy,
  type SandboxProblem,
  type SandboxSetting,
} from './host/sandbox/policy.js';
export { SandboxedStdioTransport } from './host/sandbox/sandboxed-transport.js';
export { type SandboxTools, type SupportOptions, sandboxTools } from './host/sandbox/support.js';
export { type SandboxView, settingSummary } from './host/sandbox/view.js';
export { estimateToolTokens } from './host/search/budget.js';
export {
  CALL_TOOL,
  DEFAULT_SEARCH_LIMIT,
  MAX_QUERY_CHARS,
  MAX_SEARCH_LIMIT,
  SEARCH_TOOLS,
  type ToolMatch,
  ToolSearch,
  type ToolSearchAnswer,
  type ToolSearchHost,
  type ToolSearchOptions,
} from './host/search/facade.js';
export {
  type FieldWeight,
  type LexicalField,
  LexicalRanker,
  type LexicalRankerOptions,
} from './host/search/lexical.js';
export {
  type RankedTool,
  type RankOptions,
  type SearchableTool,
  type ToolFields,
  type ToolRanker,
  toolDocument,
  toolFields,
} from './host/search/ranker.js';
export type {
  HostElicitation,
  HostSampling,
  SamplingReview,
  SamplingVerdict,
  ServerRequestContext,
} from './host/server-requests.js';
export {
  type HostSkill,
  HostSkills,
  LOAD_SKILL_TOOL,
  type SkillApprovalCallback,
  type SkillApprovalRequest,
} from './host/skills.js';
export {
  canonicalJson,
  definitionDigest,
  type PinnedDefinition,
  pinnedDefinition,
  serverPinKey,
  toolDigest,
} from './host/tool-digest.js';
export {
  FileToolListCache,
  MemoryToolListCache,
  type ToolListCache,
  toolListKey,
} from './host/tool-list-cache.js';
