// The work of `mcpkit inspect`: resolve the target (as every command does), start the inspector with it, print
// `Inspector: <url>` first on stderr, open the browser, and run until interrupted.
import { spawn } from 'node:child_process';
import { startInspector } from '../inspector/server.js';
import type { EraSelection } from '../inspector/session.js';
import type { InspectTarget } from '../inspector/target.js';
import { errorMessage } from '../jsonrpc/errors.js';
import { LATEST_MODERN_REVISION } from '../spec/modern.js';
import { LATEST_STATEFUL_REVISION } from '../spec/versions.js';
import type { HttpAuthorizer } from '../transport/http-client/auth-hook.js';
import { transportOf } from './connect.js';
import { CliError, ExitCode } from './exit.js';
import type { InspectFlags } from './inspect.js';
import { note } from './output.js';
import { serverCommand } from './run.js';
import { isUrl, resolveTarget, urlLabel } from './target.js';

/** Runs the inspector until SIGINT or SIGTERM; resolves with the exit code. */
export async function inspect(name: string | undefined, flags: InspectFlags): Promise<number> {
  const port = parsePort(flags.port);
  const selection = selectionOf(flags.era);
  const target =
    name === undefined && serverCommand.words === undefined ? undefined : await targetOf(name, flags);
  const inspector = await startInspector({
    port,
    selection,
    ...(target === undefined ? {} : { target }),
  });
  note(`Inspector: ${inspector.url}`);
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

/** The inspector's target for a resolved command-line target: the same transport every command uses. */
async function targetOf(name: string | undefined, flags: InspectFlags): Promise<InspectTarget> {
  const resolved = await resolveTarget(name, serverCommand.words, flags);
  // Stored OAuth tokens for a URL, as the other commands use them; they stay in this process, never in the page.
  const auth: HttpAuthorizer | undefined =
    resolved.kind === 'url'
      ? (await import('./auth-store.js')).storedAuthorizer(resolved.url, resolved.oauth)
      : undefined;
  const configured =
    serverCommand.words === undefined && name !== undefined && !isUrl(name) ? name : undefined;
  return {
    kind: 'transport',
    label:
      resolved.kind === 'url'
        ? `${resolved.label}${resolved.label === urlLabel(resolved.url) ? '' : ` (${urlLabel(resolved.url)})`}`
        : resolved.label,
    open: () => transportOf(resolved, auth),
    ...(configured === undefined ? {} : { configured }),
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
