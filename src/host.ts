// `mcpkit/host`: one application driving many MCP servers (Node only): config files of the hosts people use,
// connections with state and restarts, one registry of qualified names, approvals and an activity log.

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
export { DENIED_ENV_VARS, serverEnvironment } from './host/environment.js';
