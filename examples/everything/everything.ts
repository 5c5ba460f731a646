import { McpServer, type ServerOptions } from '../../src/index.js';
import { registerDynamicTools } from './dynamic-tools.js';
import { registerFixtureTools } from './fixture-tools.js';
import { registerPrompts } from './prompts.js';
import { registerResources } from './resources.js';
import { registerSkills } from './skills.js';
import { registerConformanceTools } from './tools.js';

/** The example server's name and version, as sent in `initialize`. */
export const EVERYTHING_SERVER_INFO = { name: 'mcpkit-everything', version: '0.1.0' };

/**
 * Builds the "everything" server: every tool, resource and prompt the MCP conformance suite exercises,
 * the interoperability fixture contract, and a few tools that show handles and server-to-client requests.
 * Each call returns a fresh definition; connect it to any transport. `guards`: rate limits, audit and the other
 * guard options of the server.
 */
export function createEverythingServer(options: ServerOptions = {}): McpServer {
  const server = new McpServer(EVERYTHING_SERVER_INFO, {
    instructions:
      'A test server exposing every MCP feature. Tools named test_* follow the conformance suite.',
    ...options,
  });
  registerConformanceTools(server);
  registerFixtureTools(server);
  const resources = registerResources(server);
  registerDynamicTools(server, resources);
  registerPrompts(server);
  registerSkills(server);
  return server;
}
