import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { AuthorizationCodeGrant } from '../auth/client/options.js';
import { RedirectWaiters } from '../auth/client/redirects.js';
import { McpkitError } from '../jsonrpc/errors.js';
import { cookieValue, type Refusal } from './guard.js';

/** The path of the inspector's OAuth callback (the redirect URI is `http://127.0.0.1:<port>` + this). */
export const CALLBACK_PATH = '/oauth/callback';
/** The page opens `START_PATH + id` to go to the authorization server. */
export const START_PATH = '/oauth/start/';

/** A sign-in waiting for the person, as the page sees it: no authorization URL, no state. */
export interface PendingSignIn {
  /** Open this (on the inspector's own server) to sign in. */
  start: string;
  /** The authorization server's origin, to say where the person is sent. */
  server: string;
}

interface Flow {
  id: string;
  url: URL;
  state: string;
  /** The value of the binding cookie set when the person starts this sign-in from the page. */
  binding: string;
}

/** The answer to a request for the callback or a start: a redirect, a page, or a refusal. */
export type SignInAnswer =
  | { kind: 'redirect'; location: string; cookie: string }
  | { kind: 'done'; message: string }
  | { kind: 'refused'; refusal: Refusal | { status: 400 | 404; reason: string } };

const SIGN_IN_TIMEOUT_MS = 300_000;

/**
 * The OAuth sign-ins of connections the inspector makes (authorization code with PKCE, by mcpkit's `OAuthClient`):
 * the authorization server redirects back to the inspector's own server, never to the page. The page only gets a
 * path to open (`/oauth/start/<id>`, behind the inspector's token), which sets a cookie binding the sign-in to that
 * browser and sends it to the authorization server. The callback is accepted only with the `state` of a sign-in in
 * progress and that binding cookie (the token's SameSite=Strict cookie does not come back on a redirect from another
 * site, the binding's SameSite=Lax one does): no other page, browser or process can complete a sign-in. The code,
 * the verifier and the tokens stay in this process.
 */
export class SignIns {
  readonly #waiters: RedirectWaiters;
  readonly #flows = new Map<string, Flow>();
  readonly #cookieName: string;
  readonly #onchange: (pending: PendingSignIn | undefined) => void;
  /** The redirect URI registered with authorization servers. */
  readonly redirectUri: string;

  constructor(origin: string, port: number, onchange: (pending: PendingSignIn | undefined) => void) {
    this.redirectUri = `${origin}${CALLBACK_PATH}`;
    this.#waiters = new RedirectWaiters(this.redirectUri, SIGN_IN_TIMEOUT_MS);
    this.#cookieName = `mcpkit_inspector_${port}_sign_in`;
    this.#onchange = onchange;
  }

  /** The grant of the OAuth clients the inspector makes: the person signs in through the page. */
  grant(): AuthorizationCodeGrant {
    return {
      type: 'authorization_code',
      redirectUri: this.redirectUri,
      authorize: (url, signal) => this.#authorize(url, signal),
    };
  }

  /** The sign-in waiting for the person (the newest), if any. */
  pending(): PendingSignIn | undefined {
    const flow = [...this.#flows.values()].at(-1);
    return flow && { start: `${START_PATH}${flow.id}`, server: flow.url.origin };
  }

  /** `GET /oauth/start/<id>` from the page: the binding cookie and the redirect to the authorization server. */
  start(id: string): SignInAnswer {
    const flow = this.#flows.get(id);
    if (!flow)
      return {
        kind: 'refused',
        refusal: { status: 404, reason: 'No such sign-in (it ended or was cancelled)' },
      };
    return {
      kind: 'redirect',
      location: flow.url.href,
      cookie: `${this.#cookieName}=${flow.binding}; HttpOnly; SameSite=Lax; Path=${CALLBACK_PATH}; Max-Age=${SIGN_IN_TIMEOUT_MS / 1000}`,
    };
  }

  /**
   * `GET /oauth/callback?…` from the browser: accepted only with the state of a sign-in in progress and its binding
   * cookie; then the redirect goes to the OAuth client (which checks `iss`, errors and the code). A refusal leaves
   * the sign-in waiting.
   */
  callback(url: URL, cookieHeader: string | undefined): SignInAnswer {
    const state = url.searchParams.get('state');
    const flow = state === null ? undefined : [...this.#flows.values()].find((f) => f.state === state);
    const waiter = flow && this.#waiters.take(flow.state);
    if (!flow || !waiter)
      return {
        kind: 'refused',
        refusal: { status: 400, reason: 'This sign-in response was not expected (unknown or reused state)' },
      };
    const given = Buffer.from(cookieValue(cookieHeader, this.#cookieName) ?? '');
    const binding = Buffer.from(flow.binding);
    if (given.length !== binding.length || !timingSafeEqual(given, binding))
      return {
        kind: 'refused',
        refusal: { status: 403, reason: 'This sign-in was not started from this inspector in this browser' },
      };
    waiter.resolve(url);
    return {
      kind: 'done',
      message: url.searchParams.has('error')
        ? 'The authorization server did not grant access. Return to the inspector.'
        : 'Signed in. You can close this tab and return to the inspector.',
    };
  }

  /** Fails every sign-in in progress (the connection that wanted it is gone). */
  cancelAll(reason: string): void {
    this.#waiters.rejectAll(new McpkitError('REQUEST_CANCELLED', reason));
  }

  async #authorize(url: URL, signal: AbortSignal | undefined): Promise<URL> {
    const state = url.searchParams.get('state') ?? '';
    const flow: Flow = {
      id: randomBytes(16).toString('base64url'),
      url,
      state,
      binding: randomBytes(32).toString('base64url'),
    };
    try {
      return await this.#waiters.wait(
        url,
        () => {
          this.#flows.set(flow.id, flow);
          this.#onchange(this.pending());
        },
        signal,
      );
    } finally {
      if (this.#flows.delete(flow.id)) this.#onchange(this.pending());
    }
  }
}
