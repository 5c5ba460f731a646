// The action of `mcpkit gateway`: starts the host's servers (their states on stderr), serves host.toServer() over
// stdio until the client closes it, or over HTTP until SIGINT/SIGTERM, then stops every server.
import { basename } from 'node:path';
import { pathToFileURL } from 'node:url';
import { loadConfig } from '../host/config/load.js';
import { Host } from '../host/host.js';
import { StdioServerTransport } from '../transport/stdio-server.js';
import { cut } from './chat-ask.js';
import { CliError, ExitCode } from './exit.js';
import type { GatewayFlags } from './gateway.js';
import { listen } from './gateway-http.js';
import { note } from './output.js';
import { configFiles } from './target.js';

export async function runGateway(flags: GatewayFlags): Promise<number> {
  const files = configFiles(flags.config);
  if (files.length === 0)
    throw new CliError(
      ExitCode.usage,
      'no host config file found: give --config FILE (Claude Desktop, Claude Code, VS Code, Cursor or mcpkit format)',
    );
  const port = flags.http === undefined ? undefined : Number(flags.http);
  if (port !== undefined && !(Number.isInteger(port) && port >= 0 && port < 65536))
    throw new CliError(ExitCode.usage, `--http needs a port number, got ${flags.http}`);
  const cwd = process.cwd();
  const host = new Host(await loadConfig(files, { workspaceFolder: cwd }), {
    roots: [{ uri: pathToFileURL(cwd).href, name: basename(cwd) }],
  });
  host.on('state', (s) => {
    if (s.state !== 'starting') note(`${s.name}: ${s.state}${s.reason ? ` — ${cut(s.reason, 300)}` : ''}`);
  });
  try {
    await host.start();
    const tools = host.registry.tools().length;
    const gateway = host.toServer({ info: { name: 'mcpkit-gateway', version: '0.1.0' } });
    if (port === undefined) {
      note(
        `gateway on stdio: ${host.servers.filter((s) => s.state === 'ready').length} servers ready, ${tools} tools`,
      );
      const ended = new Promise<void>((resolve) => {
        process.stdin.once('end', resolve);
        process.stdin.once('close', resolve);
        process.once('SIGTERM', resolve);
        process.once('SIGINT', resolve);
      });
      await gateway.connect(new StdioServerTransport());
      await ended;
      // The client closed our input: the answers still owed go out before the servers stop (bounded).
      const until = Date.now() + 5000;
      while (gateway.sessions.size > 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
      return 0;
    }
    const running = await listen(gateway, port, flags.host ?? '127.0.0.1');
    note(`Gateway: ${running.url} (legacy SSE: ${running.sseUrl}); ${tools} tools`);
    await new Promise<void>((resolve) => {
      process.once('SIGTERM', resolve);
      process.once('SIGINT', resolve);
    });
    await running.close();
    return 0;
  } finally {
    await host.close();
  }
}
