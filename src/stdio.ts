/** The `mcpkit/stdio` entry: the Node stdio transports (server side and client side). */
export {
  DEFAULT_INHERITED_ENV_VARS,
  defaultEnvironment,
  StdioClientTransport,
  type StdioClientTransportOptions,
  type StdioStderrMode,
} from './transport/stdio-client.js';
export { StdioServerTransport, type StdioServerTransportOptions } from './transport/stdio-server.js';
