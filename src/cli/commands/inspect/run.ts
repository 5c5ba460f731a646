// The work of `mcpkit inspect`: resolve the target (as every command does), start the inspector with it, print
// `Inspector: <url>` first on stderr, open the browser, and run until interrupted. The host config files (`--config
// FILE`, else the known locations) give the page its configured servers by name and the host itself; with
// `--config` and no other target, the host is what is inspected, at once. OAuth sign-ins go through the page and
// keep their tokens in the token file of `mcpkit auth`.
import { spawn } from 'node:child_process';
import { basename } from 'node:path';
import { pathToFileURL } from 'node:url';
import { FileTokenStore } from '../../../auth/client/file-store.js';
import type { LoadedConfig } from '../../../host/config/types.js';
import { startInspector } from '../../../inspector/server.js';
import type { ConfiguredServers, EraSelection } from '../../../inspector/session.js';
import type { InspectTarget } from '../../../inspector/target.js';
import { errorMessage } from '../../../jsonrpc/errors.js';
import { LATEST_MODERN_REVISION } from '../../../spec/modern.js';
import { LATEST_STATEFUL_REVISION } from '../../../spec/versions.js';
import { oauthClient, tokenFile } from '../../shared/auth-store.js';
import { transportOf } from '../../shared/connect.js';
import { serverCommand } from '../../shared/execute.js';
import { CliError, ExitCode } from '../../shared/exit.js';
import { configSources, loadHostConfig, printNotices } from '../../shared/host-config.js';
import { note } from '../../shared/output.js';
import { toolPinStore } from '../../shared/pins.js';
import { isUrl, resolveTarget, urlLabel } from '../../shared/target.js';
import type { InspectFlags } from './flags.js';

/** Runs the inspector until SIGINT or SIGTERM; resolves with the exit code. */
export async function inspect(name: string | undefined, flags: InspectFlags): Promise<number> {
  const port = parsePort(flags.port);
  const selection = selectionOf(flags.era);
  const tokenStore = new FileTokenStore(tokenFile());
  const { config, problem, notices } = await hostConfig(flags);
  const given =
    name === undefined && serverCommand.words === undefined
      ? undefined
      : await targetOf(name, flags, tokenStore, config, serverCommand.words);
  // `mcpkit inspect --config FILE`: the configured host is the target.
  const target: InspectTarget | undefined =
    given ?? (flags.config !== undefined && config !== undefined ? { kind: 'host' } : undefined);
  const configured: ConfiguredServers | undefined = config && {
    names: config.servers.map((s) => s.name),
    resolve: (server) => targetOf(server, flags, tokenStore, config),
  };
  const cwd = process.cwd();
  const inspector = await startInspector({
    port,
    selection,
    tokenStore,
    roots: [{ uri: pathToFileURL(cwd).href, name: basename(cwd) }],
    ...(target === undefined ? {} : { target }),
    ...(configured === undefined ? {} : { configured }),
    ...(config === undefined
      ? {}
      : {
          host: {
            config,
            options: { toolPins: toolPinStore(), ...(flags.sandbox ? { sandbox: true } : {}) },
          },
        }),
  });
  note(`Inspector: ${inspector.url}`);
  // After the Inspector line, which scripts read as the first.
  if (problem !== undefined) note(problem);
  if (notices !== undefined) printNotices(notices);
  if (flags.open !== false) openBrowser(inspector.url);
  if (target) {
    void inspector.connected.then((state) =>
      note(
        state.status === 'connected'
          ? `Connected to ${state.target?.label ?? 'the server'}: ${state.serverInfo?.name ?? 'server'}, ${state.protocolVersion}`
          : `Could not connect to ${state.target?.label ?? 'the server'}: ${state.error ?? state.status} (try again in the page)`,
      ),
    );
  }
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  await inspector.close();
  return 0;
}

/**
 * The host config files' servers (`--config FILE`, else the known locations, project files as the person decides;
 * none when there are no files). A file given with `--config` that does not load is a usage error; known locations
 * that do not are a problem to note after the Inspector line, as are the notices.
 */
async function hostConfig(
  flags: InspectFlags,
): Promise<{ config?: LoadedConfig; problem?: string; notices?: LoadedConfig }> {
  if (configSources(flags.config).length === 0) return {};
  try {
    const loaded = await loadHostConfig(flags, { quiet: true });
    // Every file skipped (project files not trusted): no configured host, only the notices.
    return loaded.files.length === 0 ? { notices: loaded } : { config: loaded, notices: loaded };
  } catch (e) {
    if (flags.config !== undefined) throw new CliError(ExitCode.usage, errorMessage(e));
    return {
      problem: `The host config files could not be read (${errorMessage(e)}): no configured servers in the page`,
    };
  }
}

/**
 * The inspector's target for a command-line target or a configured name: the same transport every command uses.
 * A URL's OAuth client uses the tokens of `mcpkit auth` and, when the server wants a sign-in, sends the person's
 * browser through the page (the tokens stay in this process, never in the page).
 */
async function targetOf(
  name: string | undefined,
  flags: InspectFlags,
  store: FileTokenStore,
  config: LoadedConfig | undefined,
  words: readonly string[] | undefined = undefined,
): Promise<InspectTarget> {
  const resolved = await resolveTarget(name, words, flags, config);
  const configured = words === undefined && name !== undefined && !isUrl(name) ? name : undefined;
  return {
    kind: 'transport',
    label:
      resolved.kind === 'url'
        ? `${resolved.label}${resolved.label === urlLabel(resolved.url) ? '' : ` (${urlLabel(resolved.url)})`}`
        : resolved.label,
    open: (signIn) =>
      transportOf(resolved, resolved.kind === 'url' ? oauthClient(signIn, store, resolved.oauth) : undefined),
    ...(configured === undefined ? {} : { configured }),
    ...(resolved.kind === 'url' ? { signIn: true } : {}),
  };
}

function parsePort(value: string | undefined): number {
  if (value === undefined) return 0;
  const port = Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new CliError(ExitCode.usage, `--port needs a port number (0-65535), got "${value}"`);
  return port;
}

/** `--era legacy|modern|auto` as the inspector's first era choice (the page can change it). */
function selectionOf(era: string | undefined): EraSelection {
  switch (era ?? 'auto') {
    case 'auto':
      return { revision: 'auto' };
    case 'modern':
      return { revision: LATEST_MODERN_REVISION };
    case 'legacy':
      return { revision: LATEST_STATEFUL_REVISION };
    default:
      throw new CliError(ExitCode.usage, `--era must be "legacy", "modern" or "auto", got "${era}"`);
  }
}

/** Opens `url` in the browser: $BROWSER when set, else the platform's opener. A failure is a note, not an error. */
function openBrowser(url: string): void {
  const browser = process.env.BROWSER;
  const [command, args] =
    browser !== undefined && browser !== ''
      ? [browser, [url]]
      : process.platform === 'darwin'
        ? ['open', [url]]
        : process.platform === 'win32'
          ? ['cmd', ['/c', 'start', '""', url.replaceAll('&', '^&')]]
          : ['xdg-open', [url]];
  try {
    const child = spawn(command, args, { stdio: 'ignore', detached: true });
    child.once('error', (e) => note(`Could not open a browser (${errorMessage(e)}): open the URL above`));
    child.unref();
  } catch (e) {
    note(`Could not open a browser (${errorMessage(e)}): open the URL above`);
  }
}
