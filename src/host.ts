// `mcpkit/host`: one application driving many MCP servers (Node only): config files of the hosts people use,
// connections with state and restarts, one registry of qualified names, approvals and an activity log.

export {
  type ActivityEntry,
  type ActivityKind,
  ActivityLog,
  type ActivityLogOptions,
  type ActivityRecord,
} from './host/activity-log.js';
export {
  type ApprovalCallback,
  type ApprovalDecision,
  type ApprovalOutcome,
  type ApprovalRequest,
  approvalMode,
} from './host/approval.js';
export { ConfigError, type ConfigPlace } from './host/config/config-error.js';
export type { ConfigInput, ParseOptions } from './host/config/formats.js';
export { detectFormat, type LoadConfigOptions, loadConfig } from './host/config/load.js';
export { type ConfigLocation, knownConfigLocations, type LocationOptions } from './host/config/locations.js';
export type {
  ApprovalMode,
  ApprovalPolicy,
  ConfigFormat,
  HostSettings,
  LoadedConfig,
  ServerConfig,
  ServerTransportConfig,
} from './host/config/types.js';
export type { ListKind, RestartOptions, ServerState, ServerStatus } from './host/connection.js';
export { DENIED_ENV_VARS, serverEnvironment } from './host/environment.js';
export { type GatewayOptions, hostGateway } from './host/gateway.js';
export {
  Host,
  type HostCallOptions,
  type HostEvents,
  type HostOptions,
  type RegistryChange,
} from './host/host.js';
export { MODEL_NAME_PATTERN, qualifyNames } from './host/names.js';
export { type HostOAuthOptions, oauthAuthorizers } from './host/oauth.js';
export { redact } from './host/redact.js';
export type {
  HostPrompt,
  HostResource,
  HostTemplate,
  HostTool,
  Registry,
  ServerLists,
} from './host/registry.js';
export type {
  HostElicitation,
  HostSampling,
  SamplingReview,
  SamplingVerdict,
  ServerRequestContext,
} from './host/server-requests.js';
