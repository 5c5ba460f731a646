import type { McpServer } from '../server/server.js';
import { type GatewayOptions, gatewayServer } from './gateway.js';
import type { Host } from './host.js';

/**
 * The host's registry served as one MCP server: the qualified tools (or, with `toolSearch`, `search_tools` and
 * `call_tool` in their place) and prompts, the resources and resource templates of every ready server,
 * kept in step with the registry (list changes reach the connected clients). Tool calls go through the host, so
 * the approval policy and the activity log apply; a call whose mode is `ask` becomes an elicitation to the
 * connecting client when it supports elicitation (the person behind it decides), and a denial otherwise.
 *
 * @example
 * const gateway = hostGateway(host);
 * await serve(gateway, { port: 3000 }); // one endpoint, every server of the host
 */
export function hostGateway(host: Host, options: GatewayOptions = {}): McpServer {
  return gatewayServer(host, options);
}
