// The action of `mcpkit gateway`: starts the host's servers (their states on stderr), serves host.toServer() over
// stdio until the client closes it, or over HTTP until SIGINT/SIGTERM, then stops every server.
import { basename } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { ApprovalMode } from '../../../host/config/types.js';
import { Host } from '../../../host/host.js';
import { isLoopbackHost } from '../../../transport/loopback.js';
import { StdioServerTransport } from '../../../transport/stdio-server.js';
import { CliError, ExitCode } from '../../shared/exit.js';
import { configSources, loadHostConfig } from '../../shared/host-config.js';
import { startOtel } from '../../shared/otel.js';
import { cut, note } from '../../shared/output.js';
import { toolListCache, toolPinStore } from '../../shared/pins.js';
import type { GatewayFlags } from './flags.js';
import { listen } from './http.js';

/** Serves the configured host as one MCP server over stdio or `--http`; resolves with the exit code once it ends. */
export async function runGateway(flags: GatewayFlags): Promise<number> {
  if (configSources(flags.config).length === 0)
    throw new CliError(
      ExitCode.usage,
      'no host config file found: give --config FILE (Claude Desktop, Claude Code, VS Code, Cursor or mcpkit format)',
    );
  const port = flags.http === undefined ? undefined : Number(flags.http);
  if (port !== undefined && !(Number.isInteger(port) && port >= 0 && port < 65536))
    throw new CliError(ExitCode.usage, `--http needs a port number, got ${flags.http}`);
  const approval = parseApproval(flags.defaultApproval);
  const address = flags.host ?? '127.0.0.1';
  if (port !== undefined) remoteCheck(address, flags.allowRemote === true);
  const cwd = process.cwd();
  const otel = await startOtel(flags.otel, 'mcpkit-gateway');
  const host = new Host(await loadHostConfig(flags), {
    ...(otel ? { instrument: otel.host() } : {}),
    roots: [{ uri: pathToFileURL(cwd).href, name: basename(cwd) }],
    toolPins: toolPinStore(),
    toolListCache: toolListCache(),
    ...(flags.lazy === true ? { lazy: true } : {}),
    ...(flags.sandbox ? { sandbox: true } : {}),
    ...(approval === undefined ? {} : { defaultApproval: approval }),
  });
  host.on('state', (s) => {
    if (s.state === 'starting') return;
    const sandbox = s.state === 'ready' && s.sandbox ? ` (${s.sandbox.summary})` : '';
    note(`${s.name}: ${s.state}${s.reason ? ` — ${cut(s.reason, 300)}` : ''}${sandbox}`);
  });
  host.on('activity', (e) => {
    if (e.kind === 'sandbox' && e.name === 'prepare') note(`${e.server}: ${e.summary ?? ''}`);
  });
  try {
    await host.start();
    const count = host.registry.tools().length;
    const tools = flags.toolSearch === true ? `tool search over ${count} tools` : `${count} tools`;
    const served = host.toServer({
      info: { name: 'mcpkit-gateway', version: '0.1.0' },
      ...(flags.toolSearch === true ? { toolSearch: true } : {}),
      approvalRemedy: 'or start the gateway with --default-approval allow',
    });
    const gateway = otel ? otel.server(served, port === undefined ? 'pipe' : undefined) : served;
    if (port === undefined) {
      note(
        `gateway on stdio: ${host.servers.filter((s) => s.state === 'ready').length} servers ready, ${tools}`,
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
    const running = await listen(gateway, port, address);
    note(`Gateway: ${running.url} (legacy SSE: ${running.sseUrl}); ${tools}`);
    await new Promise<void>((resolve) => {
      process.once('SIGTERM', resolve);
      process.once('SIGINT', resolve);
    });
    await running.close();
    return 0;
  } finally {
    await host.close();
    await otel?.shutdown();
  }
}

/**
 * The gateway has no authentication and puts `ask` approvals to whoever connects: a non-loopback address is refused
 * (exit 1) unless `--allow-remote` says so, and then a warning goes to stderr.
 */
function remoteCheck(address: string, allowRemote: boolean): void {
  if (isLoopbackHost(address)) return;
  if (!allowRemote)
    throw new CliError(
      ExitCode.usage,
      `--host ${address} is not a loopback address: the gateway has no authentication, so every configured server would be open to anyone who can connect (and would answer its approval prompts); give --allow-remote to do it anyway`,
    );
  note(
    `warning: serving on ${address} without authentication: anyone who can connect can call every configured server's tools and answer their approval prompts`,
  );
}

/** Parses `--default-approval`. */
function parseApproval(value: string | undefined): ApprovalMode | undefined {
  if (value === undefined) return undefined;
  if (value === 'allow' || value === 'deny' || value === 'ask') return value;
  throw new CliError(ExitCode.usage, `--default-approval must be "allow", "deny" or "ask", got "${value}"`);
}
