// An MCP server over HTTP that answers only requests carrying `Authorization: Bearer <token>` (403 otherwise), for
// the tests of headers a person configures by hand (`--header`, `--header-env`, a config file's `headers`).
import type { IncomingMessage, ServerResponse } from 'node:http';
import { serve } from '../../src/node.js';
import { McpServer } from '../../src/server/server.js';

/** Starts the server on 127.0.0.1; resolves with its URL and a close. */
export async function guardedServer(token: string): Promise<{ url: string; close: () => Promise<void> }> {
  const server = new McpServer({ name: 'guarded', version: '1.0.0' });
  server.tool('whoami', { description: 'Says who got in' }, () => 'in with the header');
  const running = await serve(server);
  const inner = running.httpServer.listeners('request') as ((
    req: IncomingMessage,
    res: ServerResponse,
  ) => void)[];
  running.httpServer.removeAllListeners('request');
  running.httpServer.on('request', (req: IncomingMessage, res: ServerResponse) => {
    if (req.headers.authorization !== `Bearer ${token}`) {
      res.writeHead(403, { 'content-type': 'text/plain' }).end('forbidden');
      return;
    }
    for (const listener of inner) listener(req, res);
  });
  return { url: running.url, close: () => running.close() };
}
