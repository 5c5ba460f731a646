// What `mcpkit auth` does once it runs (loaded only then).
import { spawn } from 'node:child_process';
import { FileTokenStore } from '../../../auth/client/file-store.js';
import { LoopbackReceiver } from '../../../auth/client/loopback.js';
import { canonicalResource } from '../../../auth/client/urls.js';
import { Client } from '../../../client/client.js';
import { HttpClientTransport } from '../../../transport/http-client/fallback.js';
import { oauthClient, tokenFile } from '../../shared/auth-store.js';
import { connectFailure, HttpWatch } from '../../shared/connect.js';
import type { CommonFlags } from '../../shared/execute.js';
import { CliError, ExitCode } from '../../shared/exit.js';
import { note, out, outJson, parseFormat } from '../../shared/output.js';
import { resolveTarget, type Target } from '../../shared/target.js';
import type { LoginFlags } from './flags.js';

type UrlTarget = Extract<Target, { kind: 'url' }>;

async function urlTarget(name: string, flags: CommonFlags): Promise<UrlTarget> {
  const target = await resolveTarget(name, undefined, flags);
  if (target.kind !== 'url')
    throw new CliError(ExitCode.usage, `"${name}" is a stdio server: OAuth is for servers reached by URL`);
  return target;
}

/** The key tokens are stored under: the server's canonical resource URI. */
function resourceKey(url: string): string {
  return canonicalResource(new URL(url)).href;
}

/** Opens `url` in the user's browser (best effort: the URL is printed as well). */
function openBrowser(url: URL): void {
  const [command, args] =
    process.platform === 'darwin'
      ? ['open', [url.href]]
      : process.platform === 'win32'
        ? ['cmd', ['/c', 'start', '""', url.href.replace(/&/g, '^&')]]
        : ['xdg-open', [url.href]];
  const child = spawn(command, args, { stdio: 'ignore', detached: true });
  child.on('error', () => note('(could not open a browser: open the URL above yourself)'));
  child.unref();
}

/** Signs in to the target: connects through an OAuth client whose sign-in goes through the browser. */
export async function login(name: string, flags: LoginFlags): Promise<number> {
  const format = parseFormat(flags.format ?? 'text');
  const target = await urlTarget(name, flags);
  const interactive = process.stdin.isTTY === true && process.stderr.isTTY === true;
  if (flags.browser !== false && !interactive)
    throw new CliError(
      ExitCode.authRequired,
      'signing in needs a terminal and a browser: run this in a terminal, or pass --no-browser to print the authorization URL and wait for its redirect',
    );
  const timeoutMs = Number(flags.timeout ?? 300_000);
  const port = flags.callbackPort === undefined ? 0 : Number(flags.callbackPort);
  if (!Number.isFinite(timeoutMs) || timeoutMs <= 0)
    throw new CliError(ExitCode.usage, '--timeout needs milliseconds');
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new CliError(ExitCode.usage, `--callback-port needs a port number, got "${flags.callbackPort}"`);
  const receiver = await LoopbackReceiver.start({ port, path: '/callback', timeoutMs });
  const store = new FileTokenStore(tokenFile());
  let asked = false;
  const oauth = oauthClient(
    {
      type: 'authorization_code',
      redirectUri: receiver.redirectUri,
      authorize: (url, signal) =>
        receiver.authorize(
          url,
          (u) => {
            asked = true;
            note(`Sign in at:\n${u.href}`);
            if (flags.browser !== false) openBrowser(u);
            else note(`(waiting for the redirect to ${receiver.redirectUri})`);
          },
          signal,
        ),
    },
    store,
    target.oauth,
    flags.scope,
  );
  const http = new HttpWatch();
  const transport = new HttpClientTransport(target.url, {
    headers: target.headers,
    auth: oauth,
    fetch: http.fetch,
  });
  const client = new Client({ name: 'mcpkit-cli', version: '0.1.0' });
  try {
    await client.connect(transport, { timeout: timeoutMs });
  } catch (e) {
    throw connectFailure(e, target, transport, http);
  } finally {
    await client.close().catch(() => undefined);
    await receiver.close();
  }
  const tokens = await store.loadTokens(resourceKey(target.url));
  const summary = {
    server: target.label,
    signedIn: tokens !== undefined,
    authorizationNeeded: asked || tokens !== undefined,
    issuer: tokens?.issuer,
    scope: tokens?.scope,
    expiresAt: tokens?.expiresAt === undefined ? undefined : new Date(tokens.expiresAt).toISOString(),
    tokenFile: tokenFile(),
  };
  if (format === 'json') outJson(summary);
  else if (tokens === undefined) out(`${target.label} needs no authorization: nothing stored`);
  else
    out(
      `signed in to ${target.label} (issuer ${tokens.issuer}${tokens.scope ? `, scope "${tokens.scope}"` : ''}); tokens in ${tokenFile()}`,
    );
  return ExitCode.ok;
}

/** Forgets the stored tokens of the target. */
export async function logout(name: string, flags: CommonFlags): Promise<number> {
  const format = parseFormat(flags.format ?? 'text');
  const target = await urlTarget(name, flags);
  const store = new FileTokenStore(tokenFile());
  const key = resourceKey(target.url);
  const had = (await store.loadTokens(key)) !== undefined;
  if (had) await store.saveTokens(key, undefined);
  if (format === 'json') outJson({ server: target.label, removed: had });
  else out(had ? `signed out of ${target.label}` : `no tokens were stored for ${target.label}`);
  return ExitCode.ok;
}

/** Shows whether tokens are stored for the target: exit 0 when they are, 3 when not. */
export async function status(name: string, flags: CommonFlags): Promise<number> {
  const format = parseFormat(flags.format ?? 'text');
  const target = await urlTarget(name, flags);
  const tokens = await new FileTokenStore(tokenFile()).loadTokens(resourceKey(target.url));
  const expiresAt = tokens?.expiresAt;
  const expired = expiresAt !== undefined && expiresAt <= Date.now();
  if (format === 'json') {
    outJson({
      server: target.label,
      signedIn: tokens !== undefined,
      issuer: tokens?.issuer,
      scope: tokens?.scope,
      expiresAt: expiresAt === undefined ? undefined : new Date(expiresAt).toISOString(),
      expired,
      refreshable: tokens?.refreshToken !== undefined,
    });
  } else if (tokens === undefined)
    out(`not signed in to ${target.label} (run: mcpkit auth login ${target.label})`);
  else {
    const when =
      expiresAt === undefined
        ? 'no expiry given'
        : expired
          ? `expired ${new Date(expiresAt).toISOString()}`
          : `expires ${new Date(expiresAt).toISOString()}`;
    out(
      `signed in to ${target.label}: issuer ${tokens.issuer}${tokens.scope ? `, scope "${tokens.scope}"` : ''}, ${when}${tokens.refreshToken ? ', refreshable' : ''}`,
    );
  }
  return tokens === undefined ? ExitCode.authRequired : ExitCode.ok;
}
