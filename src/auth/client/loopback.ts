import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpkitError } from '../../jsonrpc/errors.js';
import { type RedirectWaiter, RedirectWaiters } from './redirects.js';

/** Options of {@link LoopbackReceiver.start}. */
export interface LoopbackReceiverOptions {
  /** The port on 127.0.0.1. Default 0: a random free one. */
  readonly port?: number;
  /** The redirect path. Default `/callback`. */
  readonly path?: string;
  /** How long {@link LoopbackReceiver.authorize} waits for the browser, in ms. Default 300 000 (5 minutes). */
  readonly timeoutMs?: number;
}

const DEFAULT_TIMEOUT_MS = 300_000;

/**
 * Receives the authorization server's redirect for a command-line or desktop app: a tiny HTTP server on
 * 127.0.0.1 (a random port by default) that accepts only a GET of its path carrying the `state` of an
 * authorization in progress, shows the browser a short page saying it may be closed, and hands the
 * redirect URL to the OAuth client (which then checks `iss`, errors and the code). Anything else gets
 * 400 or 404 and is otherwise ignored; an authorization not answered in time fails.
 *
 * @example
 * const receiver = await LoopbackReceiver.start();
 * const auth = new OAuthClient({
 *   grant: { type: 'authorization_code', redirectUri: receiver.redirectUri,
 *            authorize: (url, signal) => receiver.authorize(url, openBrowser, signal) },
 * });
 */
export class LoopbackReceiver {
  readonly #server: Server;
  readonly #path: string;
  readonly #host: string;
  readonly #waiters: RedirectWaiters;
  /** The redirect URI to register and send: `http://127.0.0.1:<port><path>`. */
  readonly redirectUri: string;

  private constructor(server: Server, path: string, timeoutMs: number) {
    this.#server = server;
    this.#path = path;
    const { port } = server.address() as AddressInfo;
    this.#host = `127.0.0.1:${port}`;
    this.redirectUri = `http://${this.#host}${path}`;
    this.#waiters = new RedirectWaiters(this.redirectUri, timeoutMs);
    server.on('request', (req, res) => this.#request(req, res));
  }

  /** Starts listening on 127.0.0.1. */
  static async start(options: LoopbackReceiverOptions = {}): Promise<LoopbackReceiver> {
    const path = options.path ?? '/callback';
    if (!path.startsWith('/'))
      throw new McpkitError('AUTH_AUTHORIZATION_FAILED', 'The redirect path must start with /');
    const server = createServer();
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(options.port ?? 0, '127.0.0.1', () => {
        server.off('error', reject);
        resolve();
      });
    });
    return new LoopbackReceiver(server, path, options.timeoutMs ?? DEFAULT_TIMEOUT_MS);
  }

  /**
   * Sends the user to `authorizationUrl` with `open` (e.g. a browser) and resolves with the redirect that
   * comes back carrying that URL's `state`; rejects after the time limit or when `signal` aborts.
   */
  authorize(
    authorizationUrl: URL,
    open: (url: URL) => void | Promise<void>,
    signal?: AbortSignal,
  ): Promise<URL> {
    return this.#waiters.wait(authorizationUrl, open, signal);
  }

  /** Stops listening; authorizations still waiting fail. */
  async close(): Promise<void> {
    this.#waiters.rejectAll(new McpkitError('CONNECTION_CLOSED', 'The loopback receiver was closed'));
    this.#server.closeAllConnections();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  #request(req: IncomingMessage, res: ServerResponse): void {
    const base = `http://${this.#host}`;
    const url = URL.canParse(req.url ?? '/', base) ? new URL(req.url ?? '/', base) : null;
    const waiter = url === null ? undefined : this.#route(req, url, res);
    if (url === null) page(res, 400, 'Not a valid request.');
    if (url === null || waiter === undefined) return;
    page(
      res,
      200,
      url.searchParams.has('error')
        ? 'The authorization server did not grant access. You can close this window and return to the app.'
        : 'Signed in. You can close this window and return to the app.',
    );
    waiter.resolve(url);
  }

  /** The waiter a request answers, or undefined after answering it 400/404 itself. */
  #route(req: IncomingMessage, url: URL, res: ServerResponse): RedirectWaiter | undefined {
    // Only the browser's redirect to this very address: no other host name (DNS rebinding), method or path.
    if (req.headers.host !== this.#host || req.method !== 'GET') {
      page(res, 400, 'This address only receives sign-in redirects.');
      return undefined;
    }
    if (url.pathname !== this.#path) {
      page(res, 404, 'Not found.');
      return undefined;
    }
    const waiter = this.#waiters.take(url.searchParams.get('state'));
    if (waiter === undefined) {
      page(
        res,
        400,
        'This sign-in response was not expected here (unknown or reused state). Start the sign-in again from the app.',
      );
    }
    return waiter;
  }
}

/** A minimal page for the browser; it never echoes anything from the request. */
function page(res: ServerResponse, status: number, message: string): void {
  const body = `<!doctype html><html><head><meta charset="utf-8"><title>Sign-in</title></head><body style="font-family:sans-serif;margin:3em"><p>${message}</p></body></html>`;
  res.writeHead(status, {
    'content-type': 'text/html; charset=utf-8',
    'cache-control': 'no-store',
    'x-frame-options': 'DENY',
    'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'",
    'referrer-policy': 'no-referrer',
  });
  res.end(body);
}
